//! Who may use the embedded console: password hashing (argon2id), the random secrets behind
//! tokens and one-time ids, sign-in with its throttle, and the `cxwatch user` commands.
//!
//! SQL lives in [`crate::store::auth`]; the HTTP side is [`crate::api::auth`].

pub mod cli;
pub mod password;
pub mod signin;
pub mod throttle;

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use rand::RngCore;

pub use signin::{SignInError, SignedIn, TokenLifetimes};
pub use throttle::Throttle;

use crate::store::auth::{ROLE_ADMIN, ROLE_USER};

/// Bytes of randomness in a token or one-time id.
pub const SECRET_BYTES: usize = 32;

/// A fresh secret: 32 random bytes from the operating system, base64url without padding
/// (43 characters). Only its SHA-256 is ever stored.
pub fn generate_secret() -> String {
    let mut bytes = [0u8; SECRET_BYTES];
    rand::rngs::OsRng.fill_bytes(&mut bytes);
    URL_SAFE_NO_PAD.encode(bytes)
}

/// The two roles of the spec.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// `ROLE_ADMIN`: sees everything, manages settings and users.
    Admin,
    /// `ROLE_USER`: restricted to the test case groups assigned to them.
    User,
}

impl Role {
    /// The role list stored for the user and returned by sign-in.
    pub fn roles(self) -> Vec<String> {
        match self {
            Role::Admin => vec![ROLE_ADMIN.to_string()],
            Role::User => vec![ROLE_USER.to_string()],
        }
    }
}

/// `read-write` or `read-only` (anyone not `read-write` is read-only).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    ReadWrite,
    ReadOnly,
}

impl Access {
    pub fn as_str(self) -> &'static str {
        match self {
            Access::ReadWrite => "read-write",
            Access::ReadOnly => "read-only",
        }
    }
}

/// Usernames are e-mail addresses (spec §3 'User'): `local@domain`, no spaces, at most 254
/// characters. Returns the trimmed username or what is wrong with it.
pub fn check_username(username: &str) -> Result<String, String> {
    let u = username.trim();
    if u.is_empty() {
        return Err("username is required".into());
    }
    if u.chars().count() > 254 {
        return Err("username is too long (at most 254 characters)".into());
    }
    let valid = match u.split_once('@') {
        Some((local, domain)) => {
            !local.is_empty()
                && !domain.is_empty()
                && !domain.contains('@')
                && !u.chars().any(|c| c.is_whitespace() || c.is_control())
        }
        None => false,
    };
    if !valid {
        return Err(format!(
            "username '{u}' is not an e-mail address (expected name@domain)"
        ));
    }
    Ok(u.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_are_long_random_and_url_safe() {
        let a = generate_secret();
        let b = generate_secret();
        assert_eq!(a.len(), 43);
        assert_ne!(a, b);
        assert!(a
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_'));
        assert_eq!(URL_SAFE_NO_PAD.decode(&a).unwrap().len(), SECRET_BYTES);
    }

    #[test]
    fn usernames_must_be_email_addresses() {
        assert_eq!(check_username("  a@b.test ").unwrap(), "a@b.test");
        assert!(check_username("").unwrap_err().contains("required"));
        assert!(check_username("   ").unwrap_err().contains("required"));
        for bad in ["admin", "@b.test", "a@", "a b@c.test", "a@b@c"] {
            assert!(check_username(bad).unwrap_err().contains("e-mail"), "{bad}");
        }
        assert!(check_username(&format!("{}@b.test", "a".repeat(260)))
            .unwrap_err()
            .contains("too long"));
    }

    #[test]
    fn roles_follow_the_spec() {
        assert_eq!(Role::Admin.roles(), vec!["ROLE_ADMIN"]);
        assert_eq!(Role::User.roles(), vec!["ROLE_USER"]);
        assert_eq!(Access::ReadOnly.as_str(), "read-only");
        assert_eq!(Access::ReadWrite.as_str(), "read-write");
    }
}
