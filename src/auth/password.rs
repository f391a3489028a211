//! Passwords: argon2id hashes stored as PHC strings, and the rules for new passwords.

use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::Argon2;

/// Longest password sign-in looks at (characters): keeps hashing cheap for hostile input.
/// New passwords follow the tighter rule of [`crate::domain::user::check_password`].
pub const MAX_PASSWORD_LEN: usize = 1024;

/// An argon2id hash with the same parameters as [`hash_password`], of a password nobody
/// knows. Unknown usernames are checked against it so that they cost the same time as a
/// wrong password (the test `dummy_hash_uses_current_parameters` keeps them in step).
const DUMMY_HASH: &str =
    "$argon2id$v=19$m=19456,t=2,p=1$Y3h3YXRjaC1kdW1teS1zYWx0$4R8LahEm+/xIyVFVUnKT9gtF/URWzkb6WuSt3HLoh5I";

#[derive(Debug, thiserror::Error)]
#[error("password hashing failed: {0}")]
pub struct HashError(String);

/// The argon2id PHC string of `password` with a fresh random salt. CPU-heavy: call it off
/// the async threads.
pub fn hash_password(password: &str) -> Result<String, HashError> {
    let salt = SaltString::generate(&mut rand::rngs::OsRng);
    Argon2::default()
        .hash_password(password.as_bytes(), &salt)
        .map(|h| h.to_string())
        .map_err(|e| HashError(e.to_string()))
}

/// True when `password` matches the PHC string `phc`. A malformed stored hash never
/// matches (and is logged). CPU-heavy: call it off the async threads.
pub fn verify_password(password: &str, phc: &str) -> bool {
    match PasswordHash::new(phc) {
        Ok(parsed) => Argon2::default()
            .verify_password(password.as_bytes(), &parsed)
            .is_ok(),
        Err(e) => {
            tracing::error!(error = %e, "a stored password hash is malformed");
            false
        }
    }
}

/// Spends the time of one [`verify_password`] without any account: used for unknown
/// usernames so they cannot be told apart from wrong passwords by timing.
pub fn verify_dummy(password: &str) {
    let _ = verify_password(password, DUMMY_HASH);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hash_then_verify() {
        let h = hash_password("correct horse").unwrap();
        assert!(h.starts_with("$argon2id$v=19$"), "{h}");
        assert!(verify_password("correct horse", &h));
        assert!(!verify_password("correct hors", &h));
        // Salted: the same password hashes differently each time.
        assert_ne!(h, hash_password("correct horse").unwrap());
    }

    #[test]
    fn malformed_hash_never_matches() {
        assert!(!verify_password("x", "not a phc string"));
        assert!(!verify_password("", ""));
    }

    #[test]
    fn dummy_hash_uses_current_parameters() {
        let real = hash_password("whatever1").unwrap();
        let real = PasswordHash::new(&real).unwrap();
        let dummy = PasswordHash::new(DUMMY_HASH).unwrap();
        assert_eq!(dummy.algorithm, real.algorithm);
        assert_eq!(dummy.version, real.version);
        assert_eq!(dummy.params, real.params);
        assert_eq!(
            dummy.hash.unwrap().len(),
            real.hash.unwrap().len(),
            "same output length"
        );
    }
}
