//! From a verified ID token's claims to a console user: who they are (the username claim, an
//! e-mail address) and what they may do (role, access and test case groups from the groups
//! claim). Pure functions, unit tested here.

use serde_json::{Map, Value};

use crate::config::SsoConfig;
use crate::domain::caller::{AccessType, Role};
use crate::domain::rules::{check_email, check_text};
use crate::domain::user::NAME_MAX;

/// Who signed in, as the provider says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Identity {
    /// The username claim, checked as an e-mail address.
    pub username: String,
    pub first_name: String,
    pub last_name: String,
    /// The groups claim (empty when absent).
    pub groups: Vec<String>,
}

/// What the groups give: the role, access and test case groups of the console user.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grant {
    pub role: Role,
    pub access: AccessType,
    /// Test case group ids (ROLE_USER only).
    pub group_ids: Vec<i64>,
}

/// A claim as text: a string, or the first string of a list.
fn text_claim<'a>(claims: &'a Map<String, Value>, name: &str) -> Option<&'a str> {
    match claims.get(name)? {
        Value::String(s) => Some(s.as_str()),
        Value::Array(a) => a.iter().find_map(Value::as_str),
        _ => None,
    }
    .map(str::trim)
    .filter(|s| !s.is_empty())
}

/// The groups claim: a list of names (ids on Entra ID), or one name.
pub fn groups(claims: &Map<String, Value>, name: &str) -> Vec<String> {
    match claims.get(name) {
        Some(Value::String(s)) => vec![s.clone()],
        Some(Value::Array(a)) => a
            .iter()
            .filter_map(Value::as_str)
            .map(String::from)
            .collect(),
        _ => Vec::new(),
    }
}

/// Whether `claims` hold what `config` reads (the username claim and, when roles come from
/// groups, the groups claim); if not, the caller asks the provider's userinfo endpoint too.
pub fn complete(claims: &Map<String, Value>, config: &SsoConfig) -> bool {
    text_claim(claims, &config.username_claim).is_some()
        && (config.mapping == crate::config::SsoMapping::Existing
            || claims.contains_key(&config.groups_claim))
}

/// Why claims give no identity.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum IdentityError {
    #[error("the token has no '{0}' claim")]
    MissingUsername(String),
    #[error("the '{claim}' claim is not an e-mail address: {message}")]
    NotAnEmail { claim: String, message: String },
}

/// The identity in the claims.
pub fn identity(
    claims: &Map<String, Value>,
    config: &SsoConfig,
) -> Result<Identity, IdentityError> {
    let claim = &config.username_claim;
    let raw =
        text_claim(claims, claim).ok_or_else(|| IdentityError::MissingUsername(claim.clone()))?;
    let username = check_email("username", raw).map_err(|e| IdentityError::NotAnEmail {
        claim: claim.clone(),
        message: e.message,
    })?;
    let name = |keys: &[&str]| {
        keys.iter()
            .find_map(|k| text_claim(claims, k))
            .map(|s| s.chars().take(NAME_MAX).collect::<String>())
            .filter(|s| check_text("name", s, NAME_MAX).is_ok())
            .unwrap_or_default()
    };
    let mut first_name = name(&["given_name"]);
    let last_name = name(&["family_name"]);
    if first_name.is_empty() && last_name.is_empty() {
        first_name = name(&["name"]);
    }
    if first_name.is_empty() && last_name.is_empty() {
        first_name = username.split('@').next().unwrap_or_default().to_string();
    }
    Ok(Identity {
        username,
        first_name,
        last_name,
        groups: groups(claims, &config.groups_claim),
    })
}

/// What `groups` give under `config`: ROLE_ADMIN for a member of an `admin_groups` group;
/// otherwise ROLE_USER with the test case groups of every `test_case_groups` entry they are
/// in, when they are in one of those or in `user_groups`. Read-write for a member of a
/// `read_write_groups` group. `None`: the groups let them in nowhere.
pub fn grant(groups: &[String], config: &SsoConfig) -> Option<Grant> {
    let member = |list: &[String]| list.iter().any(|g| groups.contains(g));
    let access = if member(&config.read_write_groups) {
        AccessType::ReadWrite
    } else {
        AccessType::ReadOnly
    };
    if member(&config.admin_groups) {
        return Some(Grant {
            role: Role::Admin,
            access,
            group_ids: Vec::new(),
        });
    }
    let mut group_ids: Vec<i64> = config
        .test_case_groups
        .iter()
        .filter(|(g, _)| groups.contains(g))
        .flat_map(|(_, ids)| ids.iter().copied())
        .collect();
    group_ids.sort_unstable();
    group_ids.dedup();
    let in_some =
        member(&config.user_groups) || config.test_case_groups.keys().any(|g| groups.contains(g));
    in_some.then_some(Grant {
        role: Role::User,
        access,
        group_ids,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn config() -> SsoConfig {
        SsoConfig {
            admin_groups: vec!["cx-admins".into()],
            read_write_groups: vec!["cx-editors".into()],
            user_groups: vec!["cx-users".into()],
            test_case_groups: [
                ("emea".to_string(), vec![3, 1]),
                ("apac".to_string(), vec![2, 3]),
            ]
            .into_iter()
            .collect(),
            ..SsoConfig::default()
        }
    }

    fn claims(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    fn g(names: &[&str]) -> Vec<String> {
        names.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn admins_users_and_strangers() {
        let c = config();
        let admin = grant(&g(&["cx-admins", "cx-editors", "emea"]), &c).unwrap();
        assert_eq!(
            (admin.role, admin.access),
            (Role::Admin, AccessType::ReadWrite)
        );
        assert!(admin.group_ids.is_empty());
        let user = grant(&g(&["emea", "apac"]), &c).unwrap();
        assert_eq!((user.role, user.access), (Role::User, AccessType::ReadOnly));
        assert_eq!(user.group_ids, vec![1, 2, 3]);
        let plain = grant(&g(&["cx-users", "cx-editors"]), &c).unwrap();
        assert_eq!(
            (plain.role, plain.access),
            (Role::User, AccessType::ReadWrite)
        );
        assert!(plain.group_ids.is_empty());
        assert_eq!(grant(&g(&["marketing"]), &c), None);
        assert_eq!(grant(&[], &c), None);
        // Names match exactly (Keycloak's full paths, Entra's object ids).
        assert_eq!(grant(&g(&["CX-ADMINS", "/cx-users"]), &c), None);
    }

    #[test]
    fn identity_from_the_configured_claims() {
        let c = config();
        let id = identity(
            &claims(
                json!({"email": " Ann@Acme.test ", "given_name": "Ann", "family_name": "Lee",
                "groups": ["emea", 7]}),
            ),
            &c,
        )
        .unwrap();
        assert_eq!(id.username, "Ann@Acme.test");
        assert_eq!(
            (id.first_name.as_str(), id.last_name.as_str()),
            ("Ann", "Lee")
        );
        assert_eq!(id.groups, g(&["emea"]));
        let upn = SsoConfig {
            username_claim: "upn".into(),
            groups_claim: "roles".into(),
            ..config()
        };
        let id = identity(
            &claims(json!({"upn": "bo@acme.test", "name": "Bo", "roles": "cx-admins"})),
            &upn,
        )
        .unwrap();
        assert_eq!((id.first_name.as_str(), id.last_name.as_str()), ("Bo", ""));
        assert_eq!(id.groups, g(&["cx-admins"]));
        let bare = identity(&claims(json!({"email": "cy@acme.test"})), &c).unwrap();
        assert_eq!(bare.first_name, "cy");
        assert!(bare.groups.is_empty());
    }

    #[test]
    fn identity_needs_an_email_username() {
        let c = config();
        assert_eq!(
            identity(&claims(json!({"sub": "x"})), &c),
            Err(IdentityError::MissingUsername("email".into()))
        );
        assert!(matches!(
            identity(&claims(json!({"email": "not an address"})), &c),
            Err(IdentityError::NotAnEmail { .. })
        ));
    }

    #[test]
    fn complete_when_the_read_claims_are_there() {
        let c = config();
        assert!(complete(
            &claims(json!({"email": "a@b.test", "groups": []})),
            &c
        ));
        assert!(!complete(&claims(json!({"email": "a@b.test"})), &c));
        let existing = SsoConfig {
            mapping: crate::config::SsoMapping::Existing,
            ..config()
        };
        assert!(complete(&claims(json!({"email": "a@b.test"})), &existing));
        assert!(!complete(&claims(json!({"sub": "a"})), &existing));
    }
}
