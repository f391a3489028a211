//! Single sign-on sign-ins under way (OpenID Connect): the state, nonce and PKCE verifier
//! between the redirect to the provider and its return, kept in the database so that any
//! instance can finish a sign-in another one started. Only the SHA-256 of the state is stored.

use async_trait::async_trait;

use super::auth::hash_secret;
use super::sql::{self, Exec, SqlStore};
use super::StoreResult;

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
impl<S: SqlStore> SsoStore for S {
    async fn save_sso_login(
        &self,
        state: &str,
        login: &PendingSsoLogin,
        now: i64,
        expires_at: i64,
    ) -> StoreResult<()> {
        sql::write!(self, [hash = hash_secret(state), l = login.clone()], |c| {
            c.execute("DELETE FROM sso_logins WHERE expires_at <= $1", &[&now])
                .await?;
            c.execute(
                "INSERT INTO sso_logins
                   (state_hash, tenant, nonce, pkce_verifier, redirect_url, created_at, expires_at)
                 VALUES ($1, $2, $3, $4, $5, $6, $7)",
                &[
                    &hash,
                    &l.tenant,
                    &l.nonce,
                    &l.pkce_verifier,
                    &l.redirect_url,
                    &now,
                    &expires_at,
                ],
            )
            .await?;
            Ok(())
        })
    }

    async fn take_sso_login(&self, state: &str, now: i64) -> StoreResult<SsoLoginLookup> {
        sql::write!(self, [hash = hash_secret(state)], |c| {
            let row = c
                .query_opt(
                    "DELETE FROM sso_logins WHERE state_hash = $1
                     RETURNING tenant, nonce, pkce_verifier, redirect_url, expires_at",
                    &[&hash],
                )
                .await?;
            Ok(match row {
                Some(r) if r.col::<i64>("expires_at")? > now => {
                    SsoLoginLookup::Found(PendingSsoLogin {
                        tenant: r.col("tenant")?,
                        nonce: r.col("nonce")?,
                        pkce_verifier: r.col("pkce_verifier")?,
                        redirect_url: r.col("redirect_url")?,
                    })
                }
                Some(_) => SsoLoginLookup::Expired,
                None => SsoLoginLookup::Unknown,
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let (_dir, store) = crate::store::testing::store().await;
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
