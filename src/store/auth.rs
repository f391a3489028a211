//! Console sessions: tokens and one-time ids, and the credentials sign-in checks.
//!
//! Tokens and one-time ids are random secrets made by [`generate_secret`]; only their
//! SHA-256 is stored ([`hash_secret`]). Every instance behind a load balancer reads the same
//! tokens (PostgreSQL): a token one instance issued works on all of them.

use async_trait::async_trait;
use sha2::{Digest, Sha256};

use super::audit;
use super::sql::{self, Exec, SqlStore};
use super::users::{split_roles, user_by_id, user_by_username};
use super::StoreResult;
use crate::domain::caller::{AccessType, Caller};
use crate::domain::user::User;

/// How long a one-time id (GET /api/auth/getToken) stays valid.
pub const ONE_TIME_ID_TTL_SECS: i64 = 120;

/// A token's last use is written at most this often (seconds), so that a call does not
/// write to the database each time. The idle limit is therefore met up to this much early,
/// never late.
pub const TOUCH_EVERY_SECS: i64 = 60;

/// A user with the password hash sign-in verifies.
#[derive(Debug, Clone)]
pub struct Credentials {
    pub user: User,
    /// argon2id PHC string.
    pub password_hash: String,
}

#[async_trait]
pub trait AuthStore {
    /// The caller behind a console token that exists and has not expired.
    async fn caller_for_token(&self, token: &str, now: i64) -> StoreResult<Option<Caller>>;
    /// A call made with a console token: its caller, as [`Self::caller_for_token`], unless
    /// the session made no call for `idle_secs` (0: no idle limit) and is not a kiosk
    /// session; the call is the session's last use (written at most every
    /// [`TOUCH_EVERY_SECS`]).
    async fn use_token(&self, token: &str, now: i64, idle_secs: i64)
        -> StoreResult<Option<Caller>>;
    /// The user with this username (without case) and their password hash.
    async fn credentials(&self, username: &str) -> StoreResult<Option<Credentials>>;
    /// Starts a session: sweeps expired tokens and ids, stores the SHA-256 of a fresh token
    /// and returns the token.
    async fn start_session(
        &self,
        user_id: i64,
        remember: bool,
        now: i64,
        expires_at: i64,
    ) -> StoreResult<String>;
    /// Starts a kiosk session (read-only, for a wall display) like [`Self::start_session`];
    /// `None`, and no session, when the user is not allowed kiosk sessions.
    async fn start_kiosk_session(
        &self,
        user_id: i64,
        now: i64,
        expires_at: i64,
    ) -> StoreResult<Option<String>>;
    /// Ends the session whose token has this hash (sign-out).
    async fn end_session(&self, token_hash: &str) -> StoreResult<()>;
    /// Mints a one-time id for `user_id`, valid [`ONE_TIME_ID_TTL_SECS`].
    async fn create_one_time_id(&self, user_id: i64, now: i64) -> StoreResult<String>;
    /// Uses up a one-time id and starts a session for its user: the user and the token, or
    /// `None` when the id is unknown, used or expired. The id is gone afterwards either way.
    async fn exchange_one_time_id(
        &self,
        id: &str,
        now: i64,
        expires_at: i64,
    ) -> StoreResult<Option<(User, String)>>;
}

/// Bytes of randomness in a token or one-time id.
pub const SECRET_BYTES: usize = 32;

/// A fresh secret: 32 random bytes from the operating system, base64url without padding
/// (43 characters). Only its SHA-256 is ever stored.
pub fn generate_secret() -> String {
    use base64::engine::general_purpose::URL_SAFE_NO_PAD;
    use base64::Engine;
    use rand::RngCore;
    let mut bytes = [0u8; SECRET_BYTES];
    rand::rngs::OsRng.fill_bytes(&mut bytes);
    URL_SAFE_NO_PAD.encode(bytes)
}

/// Hex SHA-256, used to store tokens and keys.
pub fn hash_secret(secret: &str) -> String {
    hex::encode(Sha256::digest(secret.as_bytes()))
}

#[async_trait]
impl<S: SqlStore> AuthStore for S {
    async fn caller_for_token(&self, token: &str, now: i64) -> StoreResult<Option<Caller>> {
        sql::read!(self, [hash = hash_secret(token)], |c| {
            Ok(token_caller(c, hash, now).await?.map(|(caller, _)| caller))
        })
    }

    async fn use_token(
        &self,
        token: &str,
        now: i64,
        idle_secs: i64,
    ) -> StoreResult<Option<Caller>> {
        let found = sql::read!(self, [hash = hash_secret(token)], |c| {
            token_caller(c, hash, now).await
        })?;
        let Some((caller, last_used)) = found else {
            return Ok(None);
        };
        if !caller.kiosk && idle_secs > 0 && now - last_used >= idle_secs {
            return Ok(None);
        }
        if now - last_used >= TOUCH_EVERY_SECS {
            sql::write!(self, [h = caller.token_hash.clone()], |c| {
                c.execute(
                    "UPDATE tokens SET last_used_at = $2 WHERE token_hash = $1 AND last_used_at < $2",
                    &[&h, &now],
                )
                .await?;
                Ok(())
            })?;
        }
        Ok(Some(caller))
    }

    async fn credentials(&self, username: &str) -> StoreResult<Option<Credentials>> {
        sql::read!(self, [username = username.to_string()], |c| {
            let Some(user) = user_by_username(c, &username).await? else {
                return Ok(None);
            };
            let password_hash = c
                .scalar("SELECT password_hash FROM users WHERE id = $1", &[&user.id])
                .await?;
            Ok(Some(Credentials {
                user,
                password_hash,
            }))
        })
    }

    async fn start_session(
        &self,
        user_id: i64,
        remember: bool,
        now: i64,
        expires_at: i64,
    ) -> StoreResult<String> {
        sql::write!(self, |c| {
            delete_expired(c, now).await?;
            let token = create_token(c, user_id, remember, false, now, expires_at).await?;
            audit::record_by_user(c, user_id, "session", "sign_in").await?;
            Ok(token)
        })
    }

    async fn start_kiosk_session(
        &self,
        user_id: i64,
        now: i64,
        expires_at: i64,
    ) -> StoreResult<Option<String>> {
        sql::write!(self, |c| {
            delete_expired(c, now).await?;
            let allowed: Option<bool> = c
                .scalar_opt("SELECT kiosk FROM users WHERE id = $1", &[&user_id])
                .await?;
            if allowed != Some(true) {
                return Ok(None);
            }
            Ok(Some(
                create_token(c, user_id, true, true, now, expires_at).await?,
            ))
        })
    }

    async fn end_session(&self, token_hash: &str) -> StoreResult<()> {
        sql::write!(self, [hash = token_hash.to_string()], |c| {
            let user: Option<i64> = c
                .scalar_opt(
                    "DELETE FROM tokens WHERE token_hash = $1 RETURNING user_id",
                    &[&hash],
                )
                .await?;
            if let Some(user_id) = user {
                audit::record_by_user(c, user_id, "session", "sign_out").await?;
            }
            Ok(())
        })
    }

    async fn create_one_time_id(&self, user_id: i64, now: i64) -> StoreResult<String> {
        sql::write!(self, |c| {
            let id = generate_secret();
            c.execute(
                "INSERT INTO one_time_ids (id_hash, user_id, created_at, expires_at)
                 VALUES ($1, $2, $3, $4)",
                &[
                    &hash_secret(&id),
                    &user_id,
                    &now,
                    &(now + ONE_TIME_ID_TTL_SECS),
                ],
            )
            .await?;
            Ok(id)
        })
    }

    async fn exchange_one_time_id(
        &self,
        id: &str,
        now: i64,
        expires_at: i64,
    ) -> StoreResult<Option<(User, String)>> {
        sql::write!(self, [hash = hash_secret(id)], |c| {
            delete_expired(c, now).await?;
            // DELETE … RETURNING: of two instances given the same id, one gets the row.
            let row = c
                .query_opt(
                    "DELETE FROM one_time_ids WHERE id_hash = $1 RETURNING user_id, expires_at",
                    &[&hash],
                )
                .await?;
            let Some(row) = row else {
                return Ok(None);
            };
            let (user_id, expires): (i64, i64) = (row.get(0)?, row.get(1)?);
            if expires <= now {
                return Ok(None);
            }
            let Some(user) = user_by_id(c, user_id).await? else {
                return Ok(None);
            };
            let token = create_token(c, user.id, false, false, now, expires_at).await?;
            audit::record_by_user(c, user.id, "session", "sign_in_link").await?;
            Ok(Some((user, token)))
        })
    }
}

/// The caller of the unexpired token whose hash is `hash`, and when it was last used.
async fn token_caller(c: &impl Exec, hash: String, now: i64) -> StoreResult<Option<(Caller, i64)>> {
    let row = c
        .query_opt(
            "SELECT u.id, u.username, u.roles, u.access_type, t.kiosk, t.last_used_at
               FROM tokens t JOIN users u ON u.id = t.user_id
              WHERE t.token_hash = $1 AND t.expires_at > $2",
            &[&hash, &now],
        )
        .await?;
    let Some(r) = row else {
        return Ok(None);
    };
    Ok(Some((
        Caller {
            user_id: r.col("id")?,
            username: r.col("username")?,
            roles: split_roles(&r.col::<String>("roles")?),
            access: AccessType::of(&r.col::<String>("access_type")?),
            token_hash: hash,
            kiosk: r.col("kiosk")?,
        },
        r.col("last_used_at")?,
    )))
}

async fn create_token(
    c: &impl Exec,
    user_id: i64,
    remember: bool,
    kiosk: bool,
    now: i64,
    expires_at: i64,
) -> StoreResult<String> {
    let token = generate_secret();
    c.execute(
        "INSERT INTO tokens (token_hash, user_id, remember, kiosk, created_at, expires_at, last_used_at)
         VALUES ($1, $2, $3, $4, $5, $6, $5)",
        &[
            &hash_secret(&token),
            &user_id,
            &remember,
            &kiosk,
            &now,
            &expires_at,
        ],
    )
    .await?;
    // A person's sign-in (not a wall display's): the handover view starts from the previous.
    if !kiosk {
        super::opstate::sign_in_in(c, user_id, now.saturating_mul(1000)).await?;
    }
    Ok(token)
}

/// Removes expired tokens and one-time ids.
async fn delete_expired(c: &impl Exec, now: i64) -> StoreResult<()> {
    c.execute("DELETE FROM tokens WHERE expires_at <= $1", &[&now])
        .await?;
    c.execute("DELETE FROM one_time_ids WHERE expires_at <= $1", &[&now])
        .await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::caller::Role;

    use crate::domain::user::UserDraft;
    use crate::store::Store;

    async fn store_with_user() -> (tempfile::TempDir, Store, i64) {
        let (dir, store) = crate::store::testing::store().await;
        let draft = UserDraft {
            username: "a@b.test".into(),
            first_name: "Ada".into(),
            last_name: "L".into(),
            role: Role::Admin,
            access: AccessType::ReadWrite,
            group_ids: vec![],
        };
        let id = store.create_user(&draft, "$argon2id$x").await.unwrap();
        (dir, store, id)
    }

    #[test]
    fn secrets_are_long_random_and_url_safe() {
        use base64::engine::general_purpose::URL_SAFE_NO_PAD;
        use base64::Engine;
        let a = generate_secret();
        let b = generate_secret();
        assert_eq!(a.len(), 43);
        assert_ne!(a, b);
        assert!(a
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_'));
        assert_eq!(URL_SAFE_NO_PAD.decode(&a).unwrap().len(), SECRET_BYTES);
    }

    #[tokio::test(flavor = "multi_thread")]
    async fn tokens_expire_and_end() {
        let (_d, store, id) = store_with_user().await;
        let token = store.start_session(id, false, 1000, 2000).await.unwrap();
        let c = store.caller_for_token(&token, 1999).await.unwrap().unwrap();
        assert_eq!(c.user_id, id);
        assert_eq!(c.token_hash, hash_secret(&token));
        assert!(store
            .caller_for_token(&token, 2000)
            .await
            .unwrap()
            .is_none());
        let live = store.start_session(id, true, 2000, 5000).await.unwrap();
        assert!(store.caller_for_token(&live, 2001).await.unwrap().is_some());
        store.end_session(&hash_secret(&live)).await.unwrap();
        assert!(store.caller_for_token(&live, 2001).await.unwrap().is_none());
    }

    #[tokio::test(flavor = "multi_thread")]
    async fn kiosk_sessions_only_for_allowed_users_and_end_when_forbidden() {
        let (_d, store, id) = store_with_user().await;
        assert_eq!(
            store.start_kiosk_session(id, 1000, 9000).await.unwrap(),
            None
        );
        let normal = store.start_session(id, false, 1000, 9000).await.unwrap();
        store.set_kiosk(id, true).await.unwrap();
        assert!(store.user(id).await.unwrap().unwrap().kiosk);
        let kiosk = store
            .start_kiosk_session(id, 1000, 9000)
            .await
            .unwrap()
            .unwrap();
        let c = store.caller_for_token(&kiosk, 1001).await.unwrap().unwrap();
        assert!(c.kiosk && !c.can_write());
        let n = store
            .caller_for_token(&normal, 1001)
            .await
            .unwrap()
            .unwrap();
        assert!(!n.kiosk && n.can_write());
        store.set_kiosk(id, false).await.unwrap();
        assert!(store
            .caller_for_token(&kiosk, 1002)
            .await
            .unwrap()
            .is_none());
        assert!(store
            .caller_for_token(&normal, 1002)
            .await
            .unwrap()
            .is_some());
        assert!(store.set_kiosk(id + 100, true).await.is_err());
    }

    #[tokio::test(flavor = "multi_thread")]
    async fn one_time_ids_work_once_and_expire() {
        let (_d, store, id) = store_with_user().await;
        let otid = store.create_one_time_id(id, 1000).await.unwrap();
        let (user, token) = store
            .exchange_one_time_id(&otid, 1001, 9000)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(user.id, id);
        assert!(store
            .caller_for_token(&token, 1002)
            .await
            .unwrap()
            .is_some());
        assert!(
            store
                .exchange_one_time_id(&otid, 1002, 9000)
                .await
                .unwrap()
                .is_none(),
            "single use"
        );
        let late = store.create_one_time_id(id, 1000).await.unwrap();
        assert!(
            store
                .exchange_one_time_id(&late, 1000 + ONE_TIME_ID_TTL_SECS, 9000)
                .await
                .unwrap()
                .is_none(),
            "expired"
        );
        assert!(store
            .exchange_one_time_id("unknown", 1000, 9000)
            .await
            .unwrap()
            .is_none());
    }
}
