//! PostgreSQL: single sign-on sign-ins under way ([`SsoStore`]): any instance finishes a
//! sign-in another one started, and a state works once (`DELETE … RETURNING`).

use async_trait::async_trait;

use super::Postgres;
use crate::store::auth::hash_secret;
use crate::store::sso::{PendingSsoLogin, SsoLoginLookup};
use crate::store::{SsoStore, StoreResult};

#[async_trait]
impl SsoStore for Postgres {
    async fn save_sso_login(
        &self,
        state: &str,
        login: &PendingSsoLogin,
        now: i64,
        expires_at: i64,
    ) -> StoreResult<()> {
        let mut c = self.client().await?;
        let tx = c.transaction().await?;
        tx.execute("DELETE FROM sso_logins WHERE expires_at <= $1", &[&now])
            .await?;
        tx.execute(
            "INSERT INTO sso_logins
               (state_hash, tenant, nonce, pkce_verifier, redirect_url, created_at, expires_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7)",
            &[
                &hash_secret(state),
                &login.tenant,
                &login.nonce,
                &login.pkce_verifier,
                &login.redirect_url,
                &now,
                &expires_at,
            ],
        )
        .await?;
        tx.commit().await?;
        Ok(())
    }

    async fn take_sso_login(&self, state: &str, now: i64) -> StoreResult<SsoLoginLookup> {
        let row = self
            .client()
            .await?
            .query_opt(
                "DELETE FROM sso_logins WHERE state_hash = $1
                 RETURNING tenant, nonce, pkce_verifier, redirect_url, expires_at",
                &[&hash_secret(state)],
            )
            .await?;
        Ok(match row {
            Some(r) if r.get::<_, i64>(4) > now => SsoLoginLookup::Found(PendingSsoLogin {
                tenant: r.get(0),
                nonce: r.get(1),
                pkce_verifier: r.get(2),
                redirect_url: r.get(3),
            }),
            Some(_) => SsoLoginLookup::Expired,
            None => SsoLoginLookup::Unknown,
        })
    }
}
