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
}

impl UserSortField {
    pub fn parse(s: &str) -> Option<UserSortField> {
        Some(match s {
            "id" => UserSortField::Id,
            "firstName" => UserSortField::FirstName,
            "lastName" => UserSortField::LastName,
            "username" => UserSortField::Username,
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

/// A new password's rules (`field` names it in the answer).
pub fn check_password(field: &str, password: &str) -> Result<(), FieldError> {
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
            check_password("password", "").unwrap_err().rule,
            Rule::Required
        );
        assert_eq!(
            check_password("password", "short").unwrap_err().rule,
            Rule::TooShort
        );
        assert!(check_password("password", "twelve chars").is_ok());
        assert_eq!(
            check_password("password", &"x".repeat(129))
                .unwrap_err()
                .rule,
            Rule::TooLong
        );
        assert!(check_password("password", &"é".repeat(128)).is_ok());
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
