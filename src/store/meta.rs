//! Small named values kept beside the data (the demo's progress, for one), as text.

use async_trait::async_trait;

use super::sql::{self, Exec, SqlStore};
use super::StoreResult;

#[async_trait]
pub trait MetaStore {
    async fn meta(&self, key: &str) -> StoreResult<Option<String>>;
    async fn set_meta(&self, key: &str, value: &str) -> StoreResult<()>;
    /// Whether the database answers (`/healthz`).
    async fn ping(&self) -> StoreResult<()>;
}

#[async_trait]
impl<S: SqlStore> MetaStore for S {
    async fn ping(&self) -> StoreResult<()> {
        sql::read!(self, |c| c.query("SELECT 1", &[]).await.map(drop))
    }

    async fn meta(&self, key: &str) -> StoreResult<Option<String>> {
        sql::read!(self, [key = key.to_string()], |c| {
            c.scalar_opt("SELECT value FROM meta WHERE key = $1", &[&key])
                .await
        })
    }

    async fn set_meta(&self, key: &str, value: &str) -> StoreResult<()> {
        sql::write!(
            self,
            [key = key.to_string(), value = value.to_string()],
            |c| {
                c.execute(
                    "INSERT INTO meta (key, value) VALUES ($1, $2)
                     ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                    &[&key, &value],
                )
                .await
                .map(drop)
            }
        )
    }
}
