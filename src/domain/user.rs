//! Console users (spec §3 'User', §5 'User form', §6): the user, what a save carries, how
//! the list is filtered and sorted, and the rules for names and passwords.

use super::caller::{AccessType, Role};
use super::page::Sort;
use super::rules::{FieldError, Problems, Rule};

/// Shortest and longest password accepted for a new user, a change or a reset.
pub const PASSWORD_MIN: usize = 12;
pub const PASSWORD_MAX: usize = 128;
/// Longest first or last name.
pub const NAME_MAX: usize = 100;

/// A test case group as a user's assignment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupRef {
    pub id: i64,
    pub name: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct User {
    pub id: i64,
    /// An e-mail address, unique without case.
    pub username: String,
    pub first_name: String,
    pub last_name: String,
    pub roles: Vec<String>,
    pub access: AccessType,
    /// The groups a ROLE_USER sees (empty for administrators, who see all).
    pub groups: Vec<GroupRef>,
    /// An administrator allows this user kiosk sessions (a read-only wall display that is
    /// not signed out when idle).
    pub kiosk: bool,
    /// When they last signed in (UTC ms): a password, single sign-on or sign-in link
    /// session, not a kiosk's. None when never (or before cxwatch kept it).
    pub last_sign_in_ms: Option<i64>,
}

impl User {
    pub fn role(&self) -> Role {
        Role::of(&self.roles)
    }
}

/// A checked user as an administrator saves it (create or update).
#[derive(Debug, Clone, PartialEq)]
pub struct UserDraft {
    pub username: String,
    pub first_name: String,
    pub last_name: String,
    pub role: Role,
    pub access: AccessType,
    /// Assigned groups; kept only for the user role.
    pub group_ids: Vec<i64>,
}

/// What anyone may change of their own profile: no role, access or groups.
#[derive(Debug, Clone, PartialEq)]
pub struct ProfileDraft {
    pub username: String,
    pub first_name: String,
    pub last_name: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UserSortField {
    Id,
    FirstName,
    LastName,
    Username,
    /// The last sign-in, never first (the stale accounts at the top, ascending).
    LastSignIn,
}

impl UserSortField {
    pub fn parse(s: &str) -> Option<UserSortField> {
        Some(match s {
            "id" => UserSortField::Id,
            "firstName" => UserSortField::FirstName,
            "lastName" => UserSortField::LastName,
            "username" => UserSortField::Username,
            "lastSignInTime" => UserSortField::LastSignIn,
            _ => return None,
        })
    }
}

/// The list's search, permission-level filter and order.
#[derive(Debug, Clone, PartialEq)]
pub struct UserFilter {
    /// Part of the first name, last name or username, without case.
    pub search: Option<String>,
    pub role: Option<Role>,
    pub sort: Sort<UserSortField>,
}

/// The least zxcvbn score a new password needs: 3, 'safely unguessable' (more than 10^8
/// guesses), the score zxcvbn's authors recommend as the bar for accepting a password.
pub const PASSWORD_MIN_SCORE: zxcvbn::Score = zxcvbn::Score::Three;

/// Passphrases made famous as examples, which guessers try first but zxcvbn's lists (leaked
/// passwords, words, names) do not hold as one phrase: counted as known words like the
/// user's own.
const FAMOUS_PASSPHRASES: [&str; 2] = ["correcthorsebatterystaple", "tr0ub4dor&3"];

/// The words of a user's own data a password must not be made of: the username, its parts
/// (`grace.hopper@example.com` gives `grace.hopper`, `grace`, `hopper`, `example`) and the
/// names.
pub fn personal_words<'a>(username: &'a str, names: &[&'a str]) -> Vec<&'a str> {
    let mut words = vec![username];
    if let Some((local, _)) = username.split_once('@') {
        words.push(local);
    }
    words.extend(
        username
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| w.chars().count() >= 3),
    );
    words.extend(names.iter().map(|n| n.trim()).filter(|n| !n.is_empty()));
    words
}

/// The product's name: a password made of it (`Cxwatch2026!`) is among the first an
/// attacker of a cxwatch site tries.
pub const PRODUCT_NAME: &str = "cxwatch";

/// The words of the product and the site a password must not be made of either: the
/// product's name, and each name given (the tenants' names, the console's host names and
/// address) with its parts (`console.acme.example` gives `console`, `acme`, `example`).
pub fn site_words<'a>(names: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    let mut words = vec![PRODUCT_NAME.to_string()];
    for name in names {
        let name = name.trim().to_lowercase();
        let parts = name
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| w.chars().count() >= 3 && !w.chars().all(|c| c.is_ascii_digit()))
            .map(String::from)
            .collect::<Vec<_>>();
        if !name.is_empty() && !words.contains(&name) {
            words.push(name);
        }
        for p in parts {
            if !words.contains(&p) {
                words.push(p);
            }
        }
    }
    words
}

/// Whether `password` is made of the user's own words: with every one of `personal` taken
/// out (without case, and without what separates words: `correct horse battery staple` is
/// made of `correcthorsebatterystaple`), fewer than 4 letters are left (`gracehopper2024`,
/// `Grace.Hopper!!`).
fn made_of_personal_words(password: &str, personal: &[&str]) -> bool {
    let bare = |w: &str| -> String {
        w.to_lowercase()
            .chars()
            .filter(|c| c.is_alphanumeric())
            .collect()
    };
    let mut words: Vec<String> = personal
        .iter()
        .map(|w| bare(w))
        .filter(|w| w.chars().count() >= 3)
        .collect();
    if words.is_empty() {
        return false;
    }
    words.sort_by_key(|w| std::cmp::Reverse(w.chars().count()));
    let mut rest = bare(password);
    for w in &words {
        rest = rest.replace(w.as_str(), "");
    }
    rest.chars().filter(|c| c.is_alphabetic()).count() < 4
}

/// A new password's rules (`field` names it in the answer): 12 to 128 characters without
/// control characters, and not easy to guess (ASVS 2.1.7, offline): the zxcvbn estimator
/// (its lists of common and breached passwords, words, names, keyboard patterns, repeats,
/// sequences and dates, plus `personal`, the user's own words from [`personal_words`] and
/// the site's from [`site_words`], and [`FAMOUS_PASSPHRASES`]) must score it at least
/// [`PASSWORD_MIN_SCORE`], and it must not be made of those words.
pub fn check_password(field: &str, password: &str, personal: &[&str]) -> Result<(), FieldError> {
    let err = |rule, message: String| FieldError {
        field: field.to_string(),
        rule,
        message,
    };
    if password.trim().is_empty() {
        return Err(err(Rule::Required, format!("{field} is required.")));
    }
    let len = password.chars().count();
    if len < PASSWORD_MIN {
        return Err(err(
            Rule::TooShort,
            format!("{field} needs at least {PASSWORD_MIN} characters ({len} given)."),
        ));
    }
    if len > PASSWORD_MAX {
        return Err(err(
            Rule::TooLong,
            format!("{field} may have at most {PASSWORD_MAX} characters."),
        ));
    }
    if password.chars().any(char::is_control) {
        return Err(err(
            Rule::Invalid,
            format!("{field} may not contain control characters."),
        ));
    }
    let mut known: Vec<&str> = personal.to_vec();
    known.extend(FAMOUS_PASSPHRASES);
    let estimate = zxcvbn::zxcvbn(password, &known);
    if made_of_personal_words(password, &known) || estimate.score() < PASSWORD_MIN_SCORE {
        let why = estimate
            .feedback()
            .and_then(|f| f.warning())
            .map(|w| format!(" ({w})"))
            .unwrap_or_default();
        return Err(err(
            Rule::Weak,
            format!(
                "{field} is too easy to guess{why}: it is a common password, a pattern or your own name. \
                 Choose a longer passphrase of unrelated words."
            ),
        ));
    }
    Ok(())
}

/// Checks the fields every save has, in the order of the form (spec §5 'User form').
pub fn check_profile(
    p: &mut Problems,
    first_name: Option<&str>,
    last_name: Option<&str>,
    username: Option<&str>,
) -> Option<ProfileDraft> {
    let first = p.text("firstName", first_name, NAME_MAX);
    let last = p.text("lastName", last_name, NAME_MAX);
    let user = match super::rules::check_email("username", username.unwrap_or("")) {
        Ok(u) => Some(u),
        Err(e) => {
            p.0.push(e);
            None
        }
    };
    Some(ProfileDraft {
        first_name: first?,
        last_name: last?,
        username: user?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_have_bounds() {
        assert_eq!(
            check_password("password", "", &[]).unwrap_err().rule,
            Rule::Required
        );
        assert_eq!(
            check_password("password", "short", &[]).unwrap_err().rule,
            Rule::TooShort
        );
        assert!(check_password("password", "twelve tulips bloom", &[]).is_ok());
        assert_eq!(
            check_password("password", &"x".repeat(129), &[])
                .unwrap_err()
                .rule,
            Rule::TooLong
        );
        assert_eq!(
            check_password("password", "tab\there is bad", &[])
                .unwrap_err()
                .rule,
            Rule::Invalid
        );
        assert!(check_password("password", "é-ü-ß ".repeat(21).trim(), &[]).is_ok());
    }

    #[test]
    fn common_and_patterned_passwords_are_weak() {
        for pw in [
            "aaaaaaaaaaaa",
            "123456789012",
            "passwordpassword",
            "qwertyuiopasdf",
            "password1234",
            "P@ssw0rd2024!",
            "abcdefghijkl",
            "iloveyou1234",
            "0123456789abc",
            "welcome12345",
            "letmeinletmein",
            &"é".repeat(12),
        ] {
            let e = check_password("newPassword", pw, &[]).unwrap_err();
            assert_eq!(
                (e.field.as_str(), e.rule),
                ("newPassword", Rule::Weak),
                "{pw}"
            );
            assert!(
                e.message.starts_with("newPassword is too easy to guess"),
                "{e:?}"
            );
        }
    }

    #[test]
    fn passwords_made_of_the_user_are_weak() {
        let me = personal_words("grace.hopper@navy.example", &["Grace", "Hopper"]);
        assert!(me.contains(&"grace.hopper") && me.contains(&"navy"));
        for pw in [
            "grace.hopper@navy.example",
            "grace.hopper2024",
            "GraceHopperGrace",
            "hopperhopper1",
            "Navy.Grace.Hopper!",
        ] {
            assert_eq!(
                check_password("password", pw, &me).unwrap_err().rule,
                Rule::Weak,
                "{pw}"
            );
        }
        // Fine for someone else, and with enough of one's own.
        assert!(check_password("password", "grace.hopper2024", &[]).is_ok());
        assert!(check_password("password", "grace loves violet tundras", &me).is_ok());
    }

    #[test]
    fn passwords_made_of_the_product_or_the_site_are_weak() {
        let site = site_words([
            "Acme Card Services",
            "console.acme.example",
            "https://cx.acme.example:8443/",
        ]);
        assert!(site.contains(&"cxwatch".to_string()) && site.contains(&"acme".to_string()));
        assert!(!site.contains(&"8443".to_string()));
        let mut words = personal_words("ada@acme.example", &["Ada", "Lovelace"]);
        words.extend(site.iter().map(String::as_str));
        for pw in [
            "Cxwatch2026!",
            "cxwatch-cxwatch",
            "AcmeConsole2026!",
            "Acme2026!Acme",
        ] {
            let e = check_password("password", pw, &words).unwrap_err();
            assert_eq!(e.rule, Rule::Weak, "{pw}");
        }
        // Common patterns and famous passphrases, whoever the user.
        for pw in [
            "correcthorsebatterystaple",
            "CorrectHorseBatteryStaple",
            "correct horse battery staple",
        ] {
            let e = check_password("password", pw, &words).unwrap_err();
            assert_eq!(e.rule, Rule::Weak, "{pw}");
            let e = check_password("password", pw, &[]).unwrap_err();
            assert_eq!(e.rule, Rule::Weak, "{pw}");
        }
        assert!(check_password("password", "tulip orbit canyon", &words).is_ok());
    }

    #[test]
    fn passphrases_and_random_passwords_pass() {
        for pw in [
            "correct horse battery",
            "a long enough password",
            "my new long password",
            "another long password",
            "reset by the admin",
            "Xk7#pQ9!mZ2$",
            "tulip orbit canyon",
        ] {
            assert!(check_password("password", pw, &[]).is_ok(), "{pw}");
        }
    }

    #[test]
    fn profile_rules_run_in_form_order() {
        let mut p = Problems::default();
        assert!(check_profile(&mut p, None, Some(" "), Some("nope")).is_none());
        let fields: Vec<_> = p.0.iter().map(|e| (e.field.as_str(), e.rule)).collect();
        assert_eq!(
            fields,
            [
                ("firstName", Rule::Required),
                ("lastName", Rule::Required),
                ("username", Rule::Invalid)
            ]
        );
        let mut p = Problems::default();
        let d = check_profile(&mut p, Some(" Ada "), Some("Lovelace"), Some("ADA@x.test")).unwrap();
        assert_eq!(d.first_name, "Ada");
        assert_eq!(d.username, "ADA@x.test");
    }
}
