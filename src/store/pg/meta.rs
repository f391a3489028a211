//! PostgreSQL: small named values kept beside the data ([`MetaStore`]).

use async_trait::async_trait;

use super::Postgres;
use crate::store::{MetaStore, StoreResult};

#[async_trait]
impl MetaStore for Postgres {
    async fn ping(&self) -> StoreResult<()> {
        self.client().await?.simple_query("SELECT 1").await?;
        Ok(())
    }

    async fn meta(&self, key: &str) -> StoreResult<Option<String>> {
        Ok(self
            .client()
            .await?
            .query_opt("SELECT value FROM meta WHERE key = $1", &[&key])
            .await?
            .map(|r| r.get(0)))
    }

    async fn set_meta(&self, key: &str, value: &str) -> StoreResult<()> {
        self.client()
            .await?
            .execute(
                "INSERT INTO meta (key, value) VALUES ($1, $2)
                 ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
                &[&key, &value],
            )
            .await?;
        Ok(())
    }
}
