//! PostgreSQL: sessions and one-time ids ([`AuthStore`]), as `store/auth.rs` keeps them on
//! SQLite. Every instance behind a load balancer reads the same tokens: a token one
//! instance issued works on all of them.

use async_trait::async_trait;
use deadpool_postgres::GenericClient;

use super::users::{user_by_id, user_by_username};
use super::{audit, Postgres};
use crate::domain::caller::{AccessType, Caller};
use crate::domain::user::User;
use crate::store::auth::{
    generate_secret, hash_secret, split_roles, AuthStore, Credentials, ONE_TIME_ID_TTL_SECS,
};
use crate::store::StoreResult;

async fn create_token(
    c: &impl GenericClient,
    user_id: i64,
    remember: bool,
    kiosk: bool,
    now: i64,
    expires_at: i64,
) -> StoreResult<String> {
    let token = generate_secret();
    c.execute(
        "INSERT INTO tokens (token_hash, user_id, remember, kiosk, created_at, expires_at)
         VALUES ($1, $2, $3, $4, $5, $6)",
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
    Ok(token)
}

async fn delete_expired(c: &impl GenericClient, now: i64) -> StoreResult<()> {
    c.execute("DELETE FROM tokens WHERE expires_at <= $1", &[&now])
        .await?;
    c.execute("DELETE FROM one_time_ids WHERE expires_at <= $1", &[&now])
        .await?;
    Ok(())
}

#[async_trait]
impl AuthStore for Postgres {
    async fn caller_for_token(&self, token: &str, now: i64) -> StoreResult<Option<Caller>> {
        let hash = hash_secret(token);
        let c = self.client().await?;
        let stmt = c
            .prepare_cached(
                "SELECT u.id, u.username, u.roles, u.access_type, t.kiosk
                   FROM tokens t JOIN users u ON u.id = t.user_id
                  WHERE t.token_hash = $1 AND t.expires_at > $2",
            )
            .await?;
        Ok(c.query_opt(&stmt, &[&hash, &now]).await?.map(|r| Caller {
            user_id: r.get(0),
            username: r.get(1),
            roles: split_roles(r.get::<_, &str>(2)),
            access: AccessType::of(r.get::<_, &str>(3)),
            token_hash: hash.clone(),
            kiosk: r.get(4),
        }))
    }

    async fn credentials(&self, username: &str) -> StoreResult<Option<Credentials>> {
        let c = self.client().await?;
        let Some(user) = user_by_username(&c, username).await? else {
            return Ok(None);
        };
        let password_hash = c
            .query_one("SELECT password_hash FROM users WHERE id = $1", &[&user.id])
            .await?
            .get(0);
        Ok(Some(Credentials {
            user,
            password_hash,
        }))
    }

    async fn start_session(
        &self,
        user_id: i64,
        remember: bool,
        now: i64,
        expires_at: i64,
    ) -> StoreResult<String> {
        let mut c = self.client().await?;
        let tx = c.transaction().await?;
        delete_expired(&tx, now).await?;
        let token = create_token(&tx, user_id, remember, false, now, expires_at).await?;
        audit::record_by_user(&tx, user_id, "session", "sign_in").await?;
        tx.commit().await?;
        Ok(token)
    }

    async fn start_kiosk_session(
        &self,
        user_id: i64,
        now: i64,
        expires_at: i64,
    ) -> StoreResult<Option<String>> {
        let mut c = self.client().await?;
        let tx = c.transaction().await?;
        delete_expired(&tx, now).await?;
        let allowed: Option<bool> = tx
            .query_opt("SELECT kiosk FROM users WHERE id = $1", &[&user_id])
            .await?
            .map(|r| r.get(0));
        if allowed != Some(true) {
            return Ok(None);
        }
        let token = create_token(&tx, user_id, true, true, now, expires_at).await?;
        tx.commit().await?;
        Ok(Some(token))
    }

    async fn end_session(&self, token_hash: &str) -> StoreResult<()> {
        let mut c = self.client().await?;
        let tx = c.transaction().await?;
        let user: Option<i64> = tx
            .query_opt(
                "DELETE FROM tokens WHERE token_hash = $1 RETURNING user_id",
                &[&token_hash],
            )
            .await?
            .map(|r| r.get(0));
        if let Some(user_id) = user {
            audit::record_by_user(&tx, user_id, "session", "sign_out").await?;
        }
        tx.commit().await?;
        Ok(())
    }

    async fn create_one_time_id(&self, user_id: i64, now: i64) -> StoreResult<String> {
        let id = generate_secret();
        self.client()
            .await?
            .execute(
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
    }

    async fn exchange_one_time_id(
        &self,
        id: &str,
        now: i64,
        expires_at: i64,
    ) -> StoreResult<Option<(User, String)>> {
        let mut c = self.client().await?;
        let tx = c.transaction().await?;
        delete_expired(&tx, now).await?;
        // DELETE … RETURNING: of two instances given the same id, one gets the row.
        let row: Option<(i64, i64)> = tx
            .query_opt(
                "DELETE FROM one_time_ids WHERE id_hash = $1 RETURNING user_id, expires_at",
                &[&hash_secret(id)],
            )
            .await?
            .map(|r| (r.get(0), r.get(1)));
        let Some(user_id) = row.and_then(|(u, exp)| (exp > now).then_some(u)) else {
            tx.commit().await?;
            return Ok(None);
        };
        let Some(user) = user_by_id(&tx, user_id).await? else {
            tx.commit().await?;
            return Ok(None);
        };
        let token = create_token(&tx, user.id, false, false, now, expires_at).await?;
        audit::record_by_user(&tx, user.id, "session", "sign_in_link").await?;
        tx.commit().await?;
        Ok(Some((user, token)))
    }
}
