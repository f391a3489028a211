//! Small named values kept beside the data (the demo's progress, for one), as text.

use async_trait::async_trait;
use rusqlite::{params, OptionalExtension};

use super::{Sqlite, StoreResult};

#[async_trait]
pub trait MetaStore {
    async fn meta(&self, key: &str) -> StoreResult<Option<String>>;
    async fn set_meta(&self, key: &str, value: &str) -> StoreResult<()>;
    /// Whether the database answers (`/healthz`).
    async fn ping(&self) -> StoreResult<()>;
}

#[async_trait]
impl MetaStore for Sqlite {
    async fn ping(&self) -> StoreResult<()> {
        self.read(|c| Ok(c.query_row("SELECT 1", [], |_| Ok(()))?))
            .await
    }

    async fn meta(&self, key: &str) -> StoreResult<Option<String>> {
        let key = key.to_string();
        self.read(move |c| {
            Ok(
                c.query_row("SELECT value FROM meta WHERE key = ?1", [key], |r| r.get(0))
                    .optional()?,
            )
        })
        .await
    }

    async fn set_meta(&self, key: &str, value: &str) -> StoreResult<()> {
        let (key, value) = (key.to_string(), value.to_string());
        self.write(move |tx| {
            tx.execute(
                "INSERT INTO meta (key, value) VALUES (?1, ?2)
                 ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                params![key, value],
            )?;
            Ok(())
        })
        .await
    }
}
