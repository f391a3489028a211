//! Sign-in, one-time id exchange and sign-out, on top of the store. The HTTP handlers in
//! `api::auth` only check input and shape answers.

use super::password::{verify_dummy, verify_password};
use super::Throttle;
use crate::config::AuthConfig;
use crate::domain::user::User;
use crate::store::{now_secs, Store, StoreError};

/// The one answer to a wrong password and to an unknown username (spec §8).
pub const BAD_CREDENTIALS: &str =
    "Please check your credentials and try again, otherwise contact support";

/// The answer to a kiosk sign-in of a user who may not open kiosk sessions.
pub const KIOSK_NOT_ALLOWED: &str =
    "This user may not open a kiosk session: an administrator allows it in the user's form.";

/// Password checks running at once. Each takes about 19 MiB and a core for tens of
/// milliseconds, so a flood of sign-ins waits here instead of exhausting memory.
static VERIFY_SLOTS: tokio::sync::Semaphore = tokio::sync::Semaphore::const_new(4);

/// How long tokens live, from `[auth]` in the config.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TokenLifetimes {
    pub normal_secs: i64,
    pub remember_secs: i64,
}

impl TokenLifetimes {
    pub fn from_config(auth: &AuthConfig) -> Self {
        let normal = i64::try_from(auth.token_ttl_secs).unwrap_or(i64::MAX / 4);
        let remember = i64::try_from(auth.remember_ttl_days)
            .unwrap_or(i64::MAX)
            .saturating_mul(86_400)
            .min(i64::MAX / 4);
        TokenLifetimes {
            normal_secs: normal,
            // Remember Me never shortens a session.
            remember_secs: remember.max(normal),
        }
    }

    /// Lifetime in seconds of a token with or without Remember Me.
    pub fn secs(&self, remember: bool) -> i64 {
        if remember {
            self.remember_secs
        } else {
            self.normal_secs
        }
    }
}

/// A new session.
#[derive(Debug, Clone)]
pub struct SignedIn {
    pub user: User,
    /// The bearer token; only its hash is stored.
    pub token: String,
    pub remember: bool,
    /// Seconds since the epoch when the token stops working.
    pub expires_at: i64,
    /// A kiosk session: read-only, not signed out when idle (it lives as long as Remember Me).
    pub kiosk: bool,
}

#[derive(Debug, thiserror::Error)]
pub enum SignInError {
    /// Unknown username or wrong password: the same answer for both.
    #[error("{BAD_CREDENTIALS}")]
    BadCredentials,
    /// Too many failures for this username from this source, or from this source across
    /// usernames; try again after this many seconds.
    #[error("{}", super::throttle::too_many_message(*.0))]
    Throttled(u64),
    /// Right credentials, but an administrator has not allowed this user kiosk sessions.
    #[error("{KIOSK_NOT_ALLOWED}")]
    KioskNotAllowed,
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Checks `username` and `password` and starts a session. Unknown usernames cost the same
/// time as wrong passwords; repeated failures for a username from `source`, and many
/// failures from `source` whatever the usernames, are throttled. Expired tokens and
/// one-time ids are swept on the way.
pub async fn sign_in(
    store: &Store,
    throttle: &Throttle,
    lifetimes: TokenLifetimes,
    username: &str,
    source: &str,
    password: String,
    remember: bool,
) -> Result<SignedIn, SignInError> {
    let user = check_credentials(store, throttle, username, source, password).await?;
    let now = now_secs();
    let expires_at = now + lifetimes.secs(remember);
    let token = store
        .start_session(user.id, remember, now, expires_at)
        .await?;
    tracing::info!(username = %user.username, remember, "signed in");
    Ok(SignedIn {
        user,
        token,
        remember,
        expires_at,
        kiosk: false,
    })
}

/// Like [`sign_in`], for a kiosk session (a wall display): read-only on the server whatever
/// the user's access, with the Remember Me lifetime, and only for a user an administrator
/// allowed it ([`SignInError::KioskNotAllowed`] after the credentials are checked).
pub async fn sign_in_kiosk(
    store: &Store,
    throttle: &Throttle,
    lifetimes: TokenLifetimes,
    username: &str,
    source: &str,
    password: String,
) -> Result<SignedIn, SignInError> {
    let user = check_credentials(store, throttle, username, source, password).await?;
    let now = now_secs();
    let expires_at = now + lifetimes.secs(true);
    let Some(token) = store.start_kiosk_session(user.id, now, expires_at).await? else {
        tracing::warn!(username = %user.username, "kiosk sign-in refused: not allowed");
        return Err(SignInError::KioskNotAllowed);
    };
    tracing::info!(username = %user.username, "signed in for a kiosk session");
    Ok(SignedIn {
        user,
        token,
        remember: true,
        expires_at,
        kiosk: true,
    })
}

/// The user behind `username` and `password`, throttled and timed alike for unknown users.
async fn check_credentials(
    store: &Store,
    throttle: &Throttle,
    username: &str,
    source: &str,
    password: String,
) -> Result<User, SignInError> {
    throttle
        .attempt(store, username, source)
        .await?
        .map_err(SignInError::Throttled)?;
    let found = store.credentials(username).await?;
    let slot = VERIFY_SLOTS
        .acquire()
        .await
        .map_err(|e| StoreError::Task(e.to_string()))?;
    let checked = tokio::task::spawn_blocking(move || match found {
        Some(c) => {
            let ok = verify_password(&password, &c.password_hash);
            (Some(c.user), ok)
        }
        None => {
            verify_dummy(&password);
            (None, false)
        }
    })
    .await;
    drop(slot);
    let (user, ok) = checked.map_err(|e| StoreError::Task(e.to_string()))?;
    let user = match (user, ok) {
        (Some(u), true) => u,
        (known, _) => {
            tracing::warn!(
                username,
                source,
                known_user = known.is_some(),
                "sign-in failed"
            );
            return Err(SignInError::BadCredentials);
        }
    };
    throttle.succeeded(store, username, source).await?;
    Ok(user)
}

/// Exchanges a one-time id for a session (no Remember Me). `None` when the id is unknown,
/// used or expired.
pub async fn exchange_one_time_id(
    store: &Store,
    lifetimes: TokenLifetimes,
    id: String,
) -> Result<Option<SignedIn>, StoreError> {
    let now = now_secs();
    let expires_at = now + lifetimes.secs(false);
    let found = store.exchange_one_time_id(&id, now, expires_at).await?;
    Ok(found.map(|(user, token)| {
        tracing::info!(username = %user.username, "signed in with a one-time id");
        SignedIn {
            user,
            token,
            remember: false,
            expires_at,
            kiosk: false,
        }
    }))
}

/// Ends the session whose token has this hash.
pub async fn sign_out(store: &Store, token_hash: String) -> Result<(), StoreError> {
    store.end_session(&token_hash).await
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::auth::password::hash_password;
    use crate::domain::caller::{AccessType, Role};
    use crate::domain::user::UserDraft;

    #[test]
    fn remember_is_longer_never_shorter() {
        let l = TokenLifetimes::from_config(&AuthConfig {
            token_ttl_secs: 3600,
            remember_ttl_days: 30,
            ..AuthConfig::default()
        });
        assert_eq!(l.secs(false), 3600);
        assert_eq!(l.secs(true), 30 * 86_400);
        let l = TokenLifetimes::from_config(&AuthConfig {
            token_ttl_secs: 90 * 86_400,
            remember_ttl_days: 30,
            ..AuthConfig::default()
        });
        assert_eq!(l.secs(true), 90 * 86_400);
        let l = TokenLifetimes::from_config(&AuthConfig {
            token_ttl_secs: u64::MAX,
            remember_ttl_days: u64::MAX,
            ..AuthConfig::default()
        });
        assert!(l.secs(true) > 0 && now_secs().checked_add(l.secs(true)).is_some());
    }

    async fn with_user() -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path(), crate::store::StoreOptions::default()).unwrap();
        let hash = hash_password("right-password").unwrap();
        let draft = UserDraft {
            username: "u@x.test".into(),
            first_name: "U".into(),
            last_name: "X".into(),
            role: Role::User,
            access: AccessType::ReadOnly,
            group_ids: vec![],
        };
        store.create_user(&draft, &hash).await.unwrap();
        (dir, store)
    }

    const HERE: &str = "192.0.2.1";
    const THERE: &str = "198.51.100.2";

    const L: TokenLifetimes = TokenLifetimes {
        normal_secs: 60,
        remember_secs: 600,
    };

    #[tokio::test(flavor = "multi_thread")]
    async fn sign_in_checks_password_and_starts_a_session() {
        let (_d, store) = with_user().await;
        let throttle = Throttle::default();
        let s = sign_in(
            &store,
            &throttle,
            L,
            "U@x.test",
            HERE,
            "right-password".into(),
            true,
        )
        .await
        .unwrap();
        assert_eq!(s.user.username, "u@x.test");
        assert!(s.remember);
        assert!((s.expires_at - now_secs() - 600).abs() <= 2);
        let session = store
            .caller_for_token(&s.token, now_secs())
            .await
            .unwrap()
            .unwrap();
        assert_eq!(session.roles, vec!["ROLE_USER"]);
        assert!(!session.can_write());

        for (name, pw) in [("u@x.test", "wrong-password"), ("nobody@x.test", "x")] {
            let err = sign_in(&store, &throttle, L, name, HERE, pw.into(), false)
                .await
                .unwrap_err();
            assert!(matches!(err, SignInError::BadCredentials), "{err}");
            assert_eq!(err.to_string(), BAD_CREDENTIALS);
        }

        sign_out(&store, session.token_hash.clone()).await.unwrap();
        assert!(store
            .caller_for_token(&s.token, now_secs())
            .await
            .unwrap()
            .is_none());
    }

    #[tokio::test(flavor = "multi_thread")]
    async fn repeated_failures_are_throttled_even_with_the_right_password() {
        let (_d, store) = with_user().await;
        let throttle = Throttle::default();
        for _ in 0..5 {
            let err = sign_in(&store, &throttle, L, "u@x.test", HERE, "bad".into(), false)
                .await
                .unwrap_err();
            assert!(matches!(err, SignInError::BadCredentials));
        }
        let err = sign_in(
            &store,
            &throttle,
            L,
            "u@x.test",
            HERE,
            "right-password".into(),
            false,
        )
        .await
        .unwrap_err();
        assert!(
            matches!(err, SignInError::Throttled(s) if (29..=30).contains(&s)),
            "{err}"
        );
        assert!(err
            .to_string()
            .starts_with("Too many failed sign-in attempts"));
        // The rightful user from another address is not made to wait.
        let s = sign_in(
            &store,
            &throttle,
            L,
            "u@x.test",
            THERE,
            "right-password".into(),
            false,
        )
        .await
        .unwrap();
        assert_eq!(s.user.username, "u@x.test");
    }

    #[tokio::test(flavor = "multi_thread")]
    async fn one_source_guessing_many_usernames_is_throttled() {
        let (_d, store) = with_user().await;
        let throttle = Throttle::default();
        for i in 0..20 {
            let name = format!("guess{i}@x.test");
            let err = sign_in(&store, &throttle, L, &name, HERE, "x".into(), false)
                .await
                .unwrap_err();
            assert!(matches!(err, SignInError::BadCredentials), "{i}: {err}");
        }
        let err = sign_in(
            &store,
            &throttle,
            L,
            "u@x.test",
            HERE,
            "right-password".into(),
            false,
        )
        .await
        .unwrap_err();
        // Three minutes from when the first failure started to be forgotten.
        assert!(
            matches!(err, SignInError::Throttled(s) if (150..=180).contains(&s)),
            "{err}"
        );
        // From elsewhere the user signs in.
        sign_in(
            &store,
            &throttle,
            L,
            "u@x.test",
            THERE,
            "right-password".into(),
            false,
        )
        .await
        .unwrap();
    }

    #[tokio::test(flavor = "multi_thread")]
    async fn one_time_id_exchange() {
        let (_d, store) = with_user().await;
        let u = store.user_by_username("u@x.test").await.unwrap().unwrap();
        let otid = store.create_one_time_id(u.id, now_secs()).await.unwrap();
        let s = exchange_one_time_id(&store, L, otid.clone())
            .await
            .unwrap()
            .unwrap();
        assert_eq!(s.user.username, "u@x.test");
        assert!(!s.remember);
        assert!(exchange_one_time_id(&store, L, otid)
            .await
            .unwrap()
            .is_none());
    }
}
