//! Who may use the embedded console: password hashing (argon2id), sign-in with its throttle,
//! and the `cxwatch user` commands.
//!
//! Sessions are stored by [`crate::store::AuthStore`]; the HTTP side is [`crate::api::auth`]
//! and [`crate::api::users`].

pub mod cli;
pub mod key_use;
pub mod password;
pub mod signin;
pub mod throttle;

pub use key_use::KeyUse;
pub use signin::{SignInError, SignedIn, TokenLifetimes};
pub use throttle::Throttle;
