//! Single sign-on sign-ins under way (OpenID Connect): the state, nonce and PKCE verifier
//! between the redirect to the provider and its return, kept in the database so that any
//! instance can finish a sign-in another one started. Only the SHA-256 of the state is stored.

use async_trait::async_trait;
use rusqlite::{params, OptionalExtension};

use super::auth::hash_secret;
use super::{Sqlite, StoreResult};

/// A started sign-in, as saved at the redirect and taken back at the return.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingSsoLogin {
    /// Name of the tenant whose provider was used.
    pub tenant: String,
    pub nonce: String,
    pub pkce_verifier: String,
    /// The `redirect_uri` sent to the provider (the token request repeats it).
    pub redirect_url: String,
}

/// What taking back a state found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SsoLoginLookup {
    Found(PendingSsoLogin),
    /// Known but past its expiry (deleted now).
    Expired,
    /// Never issued, or already used.
    Unknown,
}

#[async_trait]
pub trait SsoStore {
    /// Saves a started sign-in under its state, valid until `expires_at`; sweeps expired ones.
    async fn save_sso_login(
        &self,
        state: &str,
        login: &PendingSsoLogin,
        now: i64,
        expires_at: i64,
    ) -> StoreResult<()>;
    /// Takes back (deletes) the sign-in started with `state`: each state works once.
    async fn take_sso_login(&self, state: &str, now: i64) -> StoreResult<SsoLoginLookup>;
}

#[async_trait]
impl SsoStore for Sqlite {
    async fn save_sso_login(
        &self,
        state: &str,
        login: &PendingSsoLogin,
        now: i64,
        expires_at: i64,
    ) -> StoreResult<()> {
        let hash = hash_secret(state);
        let l = login.clone();
        self.write(move |tx| {
            tx.execute("DELETE FROM sso_logins WHERE expires_at <= ?1", [now])?;
            tx.execute(
                "INSERT INTO sso_logins
                   (state_hash, tenant, nonce, pkce_verifier, redirect_url, created_at, expires_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                params![
                    hash,
                    l.tenant,
                    l.nonce,
                    l.pkce_verifier,
                    l.redirect_url,
                    now,
                    expires_at
                ],
            )?;
            Ok(())
        })
        .await
    }

    async fn take_sso_login(&self, state: &str, now: i64) -> StoreResult<SsoLoginLookup> {
        let hash = hash_secret(state);
        self.write(move |tx| {
            let row = tx
                .query_row(
                    "DELETE FROM sso_logins WHERE state_hash = ?1
                     RETURNING tenant, nonce, pkce_verifier, redirect_url, expires_at",
                    [hash],
                    |r| {
                        Ok((
                            PendingSsoLogin {
                                tenant: r.get(0)?,
                                nonce: r.get(1)?,
                                pkce_verifier: r.get(2)?,
                                redirect_url: r.get(3)?,
                            },
                            r.get::<_, i64>(4)?,
                        ))
                    },
                )
                .optional()?;
            Ok(match row {
                Some((login, expires_at)) if expires_at > now => SsoLoginLookup::Found(login),
                Some(_) => SsoLoginLookup::Expired,
                None => SsoLoginLookup::Unknown,
            })
        })
        .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{Store, StoreOptions};

    fn login() -> PendingSsoLogin {
        PendingSsoLogin {
            tenant: "acme".into(),
            nonce: "n".into(),
            pkce_verifier: "v".into(),
            redirect_url: "https://c.test/api/auth/sso/callback".into(),
        }
    }

    #[tokio::test(flavor = "multi_thread")]
    async fn a_state_works_once_and_expires() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path(), StoreOptions::default()).unwrap();
        store
            .save_sso_login("s1", &login(), 100, 200)
            .await
            .unwrap();
        store
            .save_sso_login("s2", &login(), 100, 200)
            .await
            .unwrap();
        assert_eq!(
            store.take_sso_login("s1", 150).await.unwrap(),
            SsoLoginLookup::Found(login())
        );
        assert_eq!(
            store.take_sso_login("s1", 150).await.unwrap(),
            SsoLoginLookup::Unknown
        );
        assert_eq!(
            store.take_sso_login("s2", 200).await.unwrap(),
            SsoLoginLookup::Expired
        );
        assert_eq!(
            store.take_sso_login("other", 150).await.unwrap(),
            SsoLoginLookup::Unknown
        );
    }
}
