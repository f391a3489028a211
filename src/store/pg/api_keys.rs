//! PostgreSQL: ingest API keys ([`ApiKeyStore`]), as `store/api_keys.rs` keeps them.

use async_trait::async_trait;

use super::{audit, is_unique_violation, Postgres};
use crate::store::api_keys::generate;
use crate::store::auth::hash_secret;
use crate::store::{now_secs, ApiKeyStore, StoreError, StoreResult};

#[async_trait]
impl ApiKeyStore for Postgres {
    async fn add_api_key(&self, name: &str) -> StoreResult<String> {
        let trimmed = name.trim();
        if trimmed.is_empty() || trimmed.chars().count() > 100 {
            return Err(StoreError::Invalid(
                "An API key needs a name of 1 to 100 characters.".into(),
            ));
        }
        let mut c = self.client().await?;
        let tx = c.transaction().await?;
        let key = generate();
        let inserted = tx
            .execute(
                "INSERT INTO api_keys (name, key_hash, created_at) VALUES ($1, $2, $3)",
                &[&trimmed, &hash_secret(&key), &now_secs()],
            )
            .await
            .map_err(StoreError::from);
        match inserted {
            Err(e) if is_unique_violation(&e, Some("api_keys_name_key")) => {
                return Err(StoreError::Conflict(format!(
                    "An API key named {trimmed:?} already exists."
                )))
            }
            other => other?,
        };
        let after = serde_json::json!({ "name": name });
        audit::record(&tx, "api_key", "create", name, None, Some(after)).await?;
        tx.commit().await?;
        Ok(key)
    }

    async fn api_keys(&self) -> StoreResult<Vec<(String, i64)>> {
        Ok(self
            .client()
            .await?
            .query("SELECT name, created_at FROM api_keys ORDER BY name", &[])
            .await?
            .iter()
            .map(|r| (r.get(0), r.get(1)))
            .collect())
    }

    async fn remove_api_key(&self, name: &str) -> StoreResult<()> {
        let mut c = self.client().await?;
        let tx = c.transaction().await?;
        let n = tx
            .execute("DELETE FROM api_keys WHERE name = $1", &[&name.trim()])
            .await?;
        if n == 0 {
            return Err(StoreError::NotFound(format!(
                "No API key is named {name:?}."
            )));
        }
        let before = serde_json::json!({ "name": name });
        audit::record(&tx, "api_key", "delete", name, Some(before), None).await?;
        tx.commit().await?;
        Ok(())
    }

    async fn api_key_valid(&self, key: &str) -> StoreResult<bool> {
        let c = self.client().await?;
        let stmt = c
            .prepare_cached("SELECT 1 FROM api_keys WHERE key_hash = $1")
            .await?;
        Ok(c.query_opt(&stmt, &[&hash_secret(key)]).await?.is_some())
    }
}
