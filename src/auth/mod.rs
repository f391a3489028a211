//! Who may use the embedded console: password hashing (argon2id), the random secrets behind
//! tokens and one-time ids, sign-in with its throttle, and the `cxwatch user` commands.
//!
//! Sessions are stored by [`crate::store::AuthStore`]; the HTTP side is [`crate::api::auth`]
//! and [`crate::api::users`].

pub mod cli;
pub mod password;
pub mod signin;
pub mod throttle;

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use rand::RngCore;

pub use signin::{SignInError, SignedIn, TokenLifetimes};
pub use throttle::Throttle;

/// Bytes of randomness in a token or one-time id.
pub const SECRET_BYTES: usize = 32;

/// A fresh secret: 32 random bytes from the operating system, base64url without padding
/// (43 characters). Only its SHA-256 is ever stored.
pub fn generate_secret() -> String {
    let mut bytes = [0u8; SECRET_BYTES];
    rand::rngs::OsRng.fill_bytes(&mut bytes);
    URL_SAFE_NO_PAD.encode(bytes)
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
}
