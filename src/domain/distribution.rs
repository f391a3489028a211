//! Distribution lists (spec §3 'Distribution list', §5, §9): the contact groups alert
//! settings send to. A list has a label and rows of contacts, each a label, a contact type
//! (Email 1, SMS 2, Voice 4; cxwatch adds the chat and webhook channels Webhook 8,
//! Microsoft Teams 16, Slack 32 and Mattermost 64) and an e-mail address, an E.164 number or
//! the channel's incoming-webhook URL.

use super::page::Sort;
use super::rules::{check_email, check_text, FieldError, Problems, Rule};

/// Longest list or contact label.
pub const LABEL_MAX: usize = 100;
/// Most contacts in one list.
pub const CONTACTS_MAX: usize = 200;

/// Contact types (spec §9): Email 1, SMS 2, Voice 4; and cxwatch's webhook channels:
/// a generic JSON webhook 8, Microsoft Teams 16, Slack 32, Mattermost 64 (`notify::webhook`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ContactType {
    Email,
    Sms,
    Voice,
    /// cxwatch's own JSON body (docs/notifications.md 'Webhooks').
    Webhook,
    /// A Teams Workflows ('When a Teams webhook request is received') or incoming webhook:
    /// an Adaptive Card message.
    Teams,
    /// A Slack incoming webhook: `text` and `blocks`.
    Slack,
    /// A Mattermost incoming webhook: `text` (Markdown).
    Mattermost,
}

impl ContactType {
    pub const ALL: [ContactType; 7] = [
        ContactType::Email,
        ContactType::Sms,
        ContactType::Voice,
        ContactType::Webhook,
        ContactType::Teams,
        ContactType::Slack,
        ContactType::Mattermost,
    ];

    /// The webhook channels, all sent by `notify::webhook` (`[notify.webhook]`).
    pub const WEBHOOKS: [ContactType; 4] = [
        ContactType::Webhook,
        ContactType::Teams,
        ContactType::Slack,
        ContactType::Mattermost,
    ];

    pub fn id(self) -> i64 {
        match self {
            ContactType::Email => 1,
            ContactType::Sms => 2,
            ContactType::Voice => 4,
            ContactType::Webhook => 8,
            ContactType::Teams => 16,
            ContactType::Slack => 32,
            ContactType::Mattermost => 64,
        }
    }

    /// A chat or webhook channel: its contact's info is a URL.
    pub fn is_webhook(self) -> bool {
        ContactType::WEBHOOKS.contains(&self)
    }

    /// The `testContact` query parameter of this type.
    pub fn param(self) -> &'static str {
        match self {
            ContactType::Email => "email",
            ContactType::Sms => "sms",
            ContactType::Voice => "voice",
            ContactType::Webhook => "webhook",
            ContactType::Teams => "teams",
            ContactType::Slack => "slack",
            ContactType::Mattermost => "mattermost",
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
            ContactType::Webhook => "Webhook",
            ContactType::Teams => "Microsoft Teams",
            ContactType::Slack => "Slack",
            ContactType::Mattermost => "Mattermost",
        }
    }
}

/// The type ids a client may send, as a sentence's end.
pub const TYPE_CHOICES: &str =
    "1 (Email), 2 (SMS), 4 (Voice), 8 (Webhook), 16 (Microsoft Teams), 32 (Slack) or 64 (Mattermost)";

/// Longest webhook URL.
pub const URL_MAX: usize = 2000;

/// A webhook's address: an absolute `https://` (or `http://`, for a receiver on a trusted
/// network) URL with a host and no user or password in it (put secrets in the path or query
/// as the vendors do, or in `[notify.webhook]` headers). Returned trimmed.
pub fn check_url(field: &str, value: &str) -> Result<String, FieldError> {
    let v = value.trim();
    if v.is_empty() {
        return Err(FieldError {
            field: field.into(),
            rule: Rule::Required,
            message: format!("{field} is required."),
        });
    }
    if v.chars().count() > URL_MAX {
        return Err(FieldError {
            field: field.into(),
            rule: Rule::TooLong,
            message: format!("{field} may have at most {URL_MAX} characters."),
        });
    }
    let bad = || {
        FieldError {
        field: field.into(),
        rule: Rule::Invalid,
        message: format!(
            "{field} '{v}' is not a web address (https://host/path, as the channel's incoming webhook gives it)."
        ),
    }
    };
    let rest = v
        .strip_prefix("https://")
        .or_else(|| v.strip_prefix("http://"))
        .ok_or_else(bad)?;
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    if authority.is_empty()
        || authority.contains('@')
        || v.chars().any(|c| c.is_whitespace() || c.is_control())
    {
        return Err(bad());
    }
    Ok(v.to_string())
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

/// What uses a distribution list, each by (id, name), by name: it cannot be deleted while
/// any does.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DistributionUses {
    /// Alert settings that send to it (their contact group).
    pub alert_settings: Vec<(i64, String)>,
    /// Alert settings that escalate to it.
    pub escalations: Vec<(i64, String)>,
    /// Reports scheduled to it (by report id).
    pub report_schedules: Vec<(i64, String)>,
}

impl DistributionUses {
    pub fn is_empty(&self) -> bool {
        self.alert_settings.is_empty()
            && self.escalations.is_empty()
            && self.report_schedules.is_empty()
    }

    /// Why list `id` cannot be deleted, naming what uses it (the 409's message), if it is
    /// used.
    pub fn refusal(&self, id: i64) -> Option<String> {
        let quoted = |v: &[(i64, String)]| {
            v.iter()
                .map(|(_, n)| format!("'{n}'"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let s = |v: &[(i64, String)]| if v.len() == 1 { "" } else { "s" };
        let mut parts = Vec::new();
        if !self.alert_settings.is_empty() {
            let v = &self.alert_settings;
            parts.push(format!(
                "the contact group of the alert setting{} {}",
                s(v),
                quoted(v)
            ));
        }
        if !self.escalations.is_empty() {
            let v = &self.escalations;
            parts.push(format!(
                "the escalation list of the alert setting{} {}",
                s(v),
                quoted(v)
            ));
        }
        if !self.report_schedules.is_empty() {
            let v = &self.report_schedules;
            parts.push(format!(
                "the recipient of the scheduled report{} {}",
                s(v),
                quoted(v)
            ));
        }
        (!parts.is_empty()).then(|| {
            format!(
                "Distribution list {id} is {}: change them first.",
                parts.join(" and ")
            )
        })
    }
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
        _ => check_url(field, value),
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
                    format!("contacts[{i}].type is required: {TYPE_CHOICES}."),
                );
                None
            }
            Some(t) => ContactType::of_id(t).or_else(|| {
                p.push(
                    &format!("contacts[{i}].type"),
                    Rule::Invalid,
                    format!("contacts[{i}].type {t} is not {TYPE_CHOICES}."),
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
                } else if let Err(e) = check_text(&field, row.info.unwrap_or(""), URL_MAX) {
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
    #[test]
    fn a_refusal_names_every_use() {
        use super::DistributionUses;
        assert_eq!(DistributionUses::default().refusal(3), None);
        let uses = DistributionUses {
            alert_settings: vec![(1, "Billing down".into()), (2, "Night shift".into())],
            escalations: vec![],
            report_schedules: vec![(9, "Weekly".into())],
        };
        assert_eq!(
            uses.refusal(3).unwrap(),
            "Distribution list 3 is the contact group of the alert settings 'Billing down', \
             'Night shift' and the recipient of the scheduled report 'Weekly': change them first."
        );
    }

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
    fn webhooks_are_web_addresses() {
        for ok in [
            "https://hooks.slack.com/services/T0A1B2C3/B4D5E6F7/k9Lm2Np4Qr6St8Uv",
            " http://127.0.0.1:8080/hooks/abc?x=1 ",
            "https://example.webhook.office.com/webhookb2/a@b/IncomingWebhook/c/d",
        ] {
            assert_eq!(
                check_info("u", ContactType::Slack, ok).unwrap(),
                ok.trim(),
                "{ok}"
            );
        }
        for bad in [
            "hooks.slack.com/x",
            "ftp://host/x",
            "https://",
            "https://user:pw@host/x",
            "https://host/a b",
        ] {
            assert_eq!(
                check_info("u", ContactType::Webhook, bad).unwrap_err().rule,
                Rule::Invalid,
                "{bad}"
            );
        }
        assert_eq!(
            check_url("u", &format!("https://h/{}", "a".repeat(URL_MAX)))
                .unwrap_err()
                .rule,
            Rule::TooLong
        );
        assert!(ContactType::ALL
            .iter()
            .all(|t| ContactType::of_id(t.id()) == Some(*t)));
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
