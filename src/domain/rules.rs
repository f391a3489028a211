//! Input rules every resource shares, and how their problems are named: each problem says
//! which field it belongs to, which rule it broke, and a sentence for a person.

/// The rule a field broke; a form translates it and shows it beside the field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, poem_openapi::Enum)]
#[oai(rename_all = "camelCase")]
pub enum Rule {
    Required,
    Invalid,
    TooShort,
    TooLong,
    Taken,
    Mismatch,
    Forbidden,
    /// A password too easy to guess (common, a pattern, the user's own name).
    Weak,
}

impl Rule {
    pub fn as_str(self) -> &'static str {
        match self {
            Rule::Required => "required",
            Rule::Invalid => "invalid",
            Rule::TooShort => "tooShort",
            Rule::TooLong => "tooLong",
            Rule::Taken => "taken",
            Rule::Mismatch => "mismatch",
            Rule::Forbidden => "forbidden",
            Rule::Weak => "weak",
        }
    }
}

/// One problem of a request's input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldError {
    /// The camelCase name of the body field or query parameter.
    pub field: String,
    pub rule: Rule,
    pub message: String,
}

/// Collects every problem of one request, in the order the rules were checked.
#[derive(Debug, Default)]
pub struct Problems(pub Vec<FieldError>);

impl Problems {
    pub fn push(&mut self, field: &str, rule: Rule, message: impl Into<String>) {
        self.0.push(FieldError {
            field: field.to_string(),
            rule,
            message: message.into(),
        });
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// `Err` with every problem, or `Ok` when there is none.
    pub fn check(self) -> Result<(), Vec<FieldError>> {
        if self.0.is_empty() {
            Ok(())
        } else {
            Err(self.0)
        }
    }

    /// The `id` of an update's body: absent, or the id of the path (`what` names the item).
    pub fn same_id(&mut self, path: i64, body: Option<i64>, what: &str) {
        if let Some(body) = body.filter(|b| *b != path) {
            self.push(
                "id",
                Rule::Mismatch,
                format!("id {body} in the body is not the {what} {path} of the path."),
            );
        }
    }

    /// A required text: trimmed, not blank, at most `max` characters, no control or
    /// bidirectional-override characters. `None` (and a problem) when it breaks a rule.
    pub fn text(&mut self, field: &str, value: Option<&str>, max: usize) -> Option<String> {
        let v = value.map(str::trim).unwrap_or("");
        if v.is_empty() {
            self.push(field, Rule::Required, format!("{field} is required."));
            return None;
        }
        match check_text(field, v, max) {
            Ok(()) => Some(v.to_string()),
            Err(e) => {
                self.0.push(e);
                None
            }
        }
    }
}

/// Characters no name a person types may hold: control characters (NUL, newlines, …) and
/// the bidirectional overrides and isolates that make text read differently from what it is.
pub fn is_forbidden_char(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}' | '\u{061C}')
}

/// Length and character rules of a name or label.
pub fn check_text(field: &str, v: &str, max: usize) -> Result<(), FieldError> {
    let err = |rule, message: String| FieldError {
        field: field.to_string(),
        rule,
        message,
    };
    if v.chars().count() > max {
        return Err(err(
            Rule::TooLong,
            format!("{field} may have at most {max} characters."),
        ));
    }
    if v.chars().any(is_forbidden_char) {
        return Err(err(
            Rule::Invalid,
            format!("{field} may not contain control or text-direction characters."),
        ));
    }
    Ok(())
}

/// An e-mail address as a username: `local@domain`, no spaces, at most 254 characters.
/// Returns the trimmed address.
pub fn check_email(field: &str, value: &str) -> Result<String, FieldError> {
    let v = value.trim();
    let err = |rule, message: String| FieldError {
        field: field.to_string(),
        rule,
        message,
    };
    if v.is_empty() {
        return Err(err(Rule::Required, format!("{field} is required.")));
    }
    check_text(field, v, 254)?;
    let valid = match v.split_once('@') {
        Some((local, domain)) => {
            !local.is_empty()
                && !domain.is_empty()
                && !domain.contains('@')
                && !domain.starts_with('.')
                && !domain.ends_with('.')
                && !v.chars().any(char::is_whitespace)
        }
        None => false,
    };
    if !valid {
        return Err(err(
            Rule::Invalid,
            format!("{field} '{v}' is not an e-mail address (expected name@domain)."),
        ));
    }
    Ok(v.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_refuse_control_and_bidi_characters() {
        let mut p = Problems::default();
        assert_eq!(
            p.text("name", Some("  Billing IVR "), 200).as_deref(),
            Some("Billing IVR")
        );
        assert_eq!(p.text("name", Some("a\0b"), 200), None);
        assert_eq!(p.text("name", Some("evil\u{202E}gpj.exe"), 200), None);
        assert_eq!(p.text("name", Some("   "), 200), None);
        assert_eq!(p.text("name", Some(&"x".repeat(201)), 200), None);
        let rules: Vec<_> = p.0.iter().map(|e| e.rule).collect();
        assert_eq!(
            rules,
            [Rule::Invalid, Rule::Invalid, Rule::Required, Rule::TooLong]
        );
        assert!(p
            .text("name", Some("Réclamations – français"), 200)
            .is_some());
    }

    #[test]
    fn usernames_must_be_email_addresses() {
        assert_eq!(check_email("username", "  a@b.test ").unwrap(), "a@b.test");
        assert_eq!(
            check_email("username", " ").unwrap_err().rule,
            Rule::Required
        );
        for bad in ["admin", "@b.test", "a@", "a b@c.test", "a@b@c", "a@.b"] {
            assert_eq!(
                check_email("username", bad).unwrap_err().rule,
                Rule::Invalid,
                "{bad}"
            );
        }
        let long = format!("{}@b.test", "a".repeat(260));
        assert_eq!(
            check_email("username", &long).unwrap_err().rule,
            Rule::TooLong
        );
    }
}
