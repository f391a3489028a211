//! Distribution lists (spec §3 'Distribution list', §5, §9): the contact groups alert
//! settings send to. A list has a label and rows of contacts, each a label, a contact type
//! (Email 1, SMS 2, Voice 4) and an e-mail address or an E.164 number.

use super::page::Sort;
use super::rules::{check_email, check_text, FieldError, Problems, Rule};

/// Longest list or contact label.
pub const LABEL_MAX: usize = 100;
/// Most contacts in one list.
pub const CONTACTS_MAX: usize = 200;

/// Contact types (spec §9): Email 1, SMS 2, Voice 4.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ContactType {
    Email,
    Sms,
    Voice,
}

impl ContactType {
    pub const ALL: [ContactType; 3] = [ContactType::Email, ContactType::Sms, ContactType::Voice];

    pub fn id(self) -> i64 {
        match self {
            ContactType::Email => 1,
            ContactType::Sms => 2,
            ContactType::Voice => 4,
        }
    }

    pub fn of_id(id: i64) -> Option<ContactType> {
        ContactType::ALL.into_iter().find(|t| t.id() == id)
    }

    /// The name the spec shows: `Email`, `SMS`, `Voice`.
    pub fn name(self) -> &'static str {
        match self {
            ContactType::Email => "Email",
            ContactType::Sms => "SMS",
            ContactType::Voice => "Voice",
        }
    }
}

/// One row of a list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Contact {
    pub name: String,
    pub kind: ContactType,
    /// An e-mail address (Email) or an E.164 number (SMS, Voice).
    pub info: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Distribution {
    pub id: i64,
    pub name: String,
    pub contacts: Vec<Contact>,
    /// Seconds since the epoch of the last save.
    pub modified_at: i64,
}

/// A checked list as it is saved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DistributionDraft {
    pub name: String,
    pub contacts: Vec<Contact>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DistributionSortField {
    Id,
    Name,
    LastModified,
}

impl DistributionSortField {
    pub fn parse(s: &str) -> Option<DistributionSortField> {
        Some(match s {
            "id" => DistributionSortField::Id,
            "name" => DistributionSortField::Name,
            "lastModifiedTime" => DistributionSortField::LastModified,
            _ => return None,
        })
    }
}

/// The list's search, contact-type filter and order.
#[derive(Debug, Clone, PartialEq)]
pub struct DistributionFilter {
    /// Part of the list label, a contact label or an address or number, without case.
    pub search: Option<String>,
    /// Only lists with at least one contact of this type.
    pub kind: Option<ContactType>,
    pub sort: Sort<DistributionSortField>,
}

/// An E.164 number: `+`, then 8 to 15 digits, the first not 0. Spaces, dots, dashes and
/// brackets a person types are removed first. Returns the number as stored (`+15145550100`).
pub fn check_e164(field: &str, value: &str) -> Result<String, FieldError> {
    let v = value.trim();
    if v.is_empty() {
        return Err(FieldError {
            field: field.into(),
            rule: Rule::Required,
            message: format!("{field} is required."),
        });
    }
    let compact: String = v
        .chars()
        .filter(|c| !matches!(c, ' ' | '.' | '-' | '(' | ')' | '\u{a0}'))
        .collect();
    let digits = compact.strip_prefix('+').unwrap_or("");
    let ok = (8..=15).contains(&digits.len())
        && digits.bytes().all(|b| b.is_ascii_digit())
        && !digits.starts_with('0');
    if !ok {
        return Err(FieldError {
            field: field.into(),
            rule: Rule::Invalid,
            message: format!(
                "{field} '{v}' is not an international number (E.164: + then country code and number, e.g. +15145550100)."
            ),
        });
    }
    Ok(compact)
}

/// The address or number of a contact of this type.
pub fn check_info(field: &str, kind: ContactType, value: &str) -> Result<String, FieldError> {
    match kind {
        ContactType::Email => check_email(field, value),
        ContactType::Sms | ContactType::Voice => check_e164(field, value),
    }
}

/// One row as a client sends it (each part may be missing).
#[derive(Debug, Clone, Default)]
pub struct ContactInput<'a> {
    pub name: Option<&'a str>,
    pub kind: Option<i64>,
    pub info: Option<&'a str>,
}

/// Checks a list in the order of the form (spec §5): the list label, then each row's
/// label, type and address or number; at least one row. Fields are named `name`,
/// `contacts`, and `contacts[i].name|type|info`.
pub fn check_distribution(
    p: &mut Problems,
    name: Option<&str>,
    rows: &[ContactInput<'_>],
) -> Option<DistributionDraft> {
    let name = p.text("name", name, LABEL_MAX);
    if rows.is_empty() {
        p.push(
            "contacts",
            Rule::Required,
            "A distribution list needs at least one contact.",
        );
    }
    if rows.len() > CONTACTS_MAX {
        p.push(
            "contacts",
            Rule::TooLong,
            format!("A distribution list may have at most {CONTACTS_MAX} contacts."),
        );
    }
    let mut contacts = Vec::new();
    let mut all_ok = true;
    for (i, row) in rows.iter().enumerate() {
        let label = p.text(&format!("contacts[{i}].name"), row.name, LABEL_MAX);
        let kind = match row.kind {
            None => {
                p.push(
                    &format!("contacts[{i}].type"),
                    Rule::Required,
                    format!("contacts[{i}].type is required (1 Email, 2 SMS, 4 Voice)."),
                );
                None
            }
            Some(t) => ContactType::of_id(t).or_else(|| {
                p.push(
                    &format!("contacts[{i}].type"),
                    Rule::Invalid,
                    format!("contacts[{i}].type {t} is not 1 (Email), 2 (SMS) or 4 (Voice)."),
                );
                None
            }),
        };
        let field = format!("contacts[{i}].info");
        let info = match kind {
            Some(k) => match check_info(&field, k, row.info.unwrap_or("")) {
                Ok(v) => Some(v),
                Err(e) => {
                    p.0.push(e);
                    None
                }
            },
            None => {
                if row.info.map(str::trim).unwrap_or("").is_empty() {
                    p.push(&field, Rule::Required, format!("{field} is required."));
                } else if let Err(e) = check_text(&field, row.info.unwrap_or(""), 254) {
                    p.0.push(e);
                }
                None
            }
        };
        match (label, kind, info) {
            (Some(name), Some(kind), Some(info)) => contacts.push(Contact { name, kind, info }),
            _ => all_ok = false,
        }
    }
    let name = name?;
    (all_ok && !rows.is_empty() && rows.len() <= CONTACTS_MAX)
        .then_some(DistributionDraft { name, contacts })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_e164() {
        assert_eq!(
            check_e164("sms", " +1 (514) 555-0100 ").unwrap(),
            "+15145550100"
        );
        assert_eq!(check_e164("sms", "+33612345678").unwrap(), "+33612345678");
        for bad in [
            "5145550100",
            "+0123456789",
            "+1514",
            "+1514555010012345",
            "+1514x550100",
        ] {
            assert_eq!(
                check_e164("sms", bad).unwrap_err().rule,
                Rule::Invalid,
                "{bad}"
            );
        }
        assert_eq!(check_e164("sms", "  ").unwrap_err().rule, Rule::Required);
    }

    #[test]
    fn rows_are_checked_in_form_order() {
        let mut p = Problems::default();
        let rows = [
            ContactInput {
                name: Some("Ops"),
                kind: Some(1),
                info: Some("ops@example.com"),
            },
            ContactInput {
                name: None,
                kind: Some(2),
                info: Some("12"),
            },
            ContactInput {
                name: Some("x"),
                kind: Some(3),
                info: None,
            },
        ];
        assert!(check_distribution(&mut p, Some(" "), &rows).is_none());
        let fields: Vec<_> = p.0.iter().map(|e| (e.field.as_str(), e.rule)).collect();
        assert_eq!(
            fields,
            [
                ("name", Rule::Required),
                ("contacts[1].name", Rule::Required),
                ("contacts[1].info", Rule::Invalid),
                ("contacts[2].type", Rule::Invalid),
                ("contacts[2].info", Rule::Required),
            ]
        );
        let mut p = Problems::default();
        assert!(check_distribution(&mut p, Some("On call"), &[]).is_none());
        assert_eq!(p.0[0].field, "contacts");
        let mut p = Problems::default();
        let d = check_distribution(&mut p, Some(" On call "), &rows[..1]).unwrap();
        assert_eq!(d.name, "On call");
        assert_eq!(d.contacts[0].kind, ContactType::Email);
    }
}
