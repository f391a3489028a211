//! Ingest API keys (`cxwatch apikey ...`). Only the SHA-256 of a key is kept; the key
//! itself is shown once, when it is made.

use async_trait::async_trait;
use rand::RngCore;
use rusqlite::{params, Connection, OptionalExtension, Transaction};

use super::auth::hash_secret;
use super::{now_secs, Sqlite, StoreError, StoreResult};

#[async_trait]
pub trait ApiKeyStore {
    /// Makes a key named `name` and returns it (the only time it can be seen).
    async fn add_api_key(&self, name: &str) -> StoreResult<String>;
    /// Names and creation times (seconds since the epoch) of the keys.
    async fn api_keys(&self) -> StoreResult<Vec<(String, i64)>>;
    /// Removes the key named `name`: engines using it are refused from then on.
    async fn remove_api_key(&self, name: &str) -> StoreResult<()>;
    /// True when `key` is a registered ingest API key.
    async fn api_key_valid(&self, key: &str) -> StoreResult<bool>;
}

#[async_trait]
impl ApiKeyStore for Sqlite {
    async fn add_api_key(&self, name: &str) -> StoreResult<String> {
        let name = name.to_string();
        self.write(move |tx| {
            let key = add(tx, &name)?;
            let after = serde_json::json!({ "name": name });
            super::audit::record(tx, "api_key", "create", &name, None, Some(after))?;
            Ok(key)
        })
        .await
    }
    async fn api_keys(&self) -> StoreResult<Vec<(String, i64)>> {
        self.read(list).await
    }
    async fn remove_api_key(&self, name: &str) -> StoreResult<()> {
        let name = name.to_string();
        self.write(move |tx| {
            remove(tx, &name)?;
            let before = serde_json::json!({ "name": name });
            super::audit::record(tx, "api_key", "delete", &name, Some(before), None)
        })
        .await
    }
    async fn api_key_valid(&self, key: &str) -> StoreResult<bool> {
        let hash = hash_secret(key);
        self.read(move |c| {
            Ok(
                c.query_row("SELECT 1 FROM api_keys WHERE key_hash = ?1", [hash], |_| {
                    Ok(())
                })
                .optional()?
                .is_some(),
            )
        })
        .await
    }
}

/// Prefix of every key, so one is recognisable in a config file or a leak scan.
pub const PREFIX: &str = "cxw_";

/// A new random key: `cxw_` and 64 hex digits (256 bits).
pub(super) fn generate() -> String {
    let mut bytes = [0u8; 32];
    rand::rngs::OsRng.fill_bytes(&mut bytes);
    format!("{PREFIX}{}", hex::encode(bytes))
}

/// Makes a key named `name` and returns it (the only time it can be seen).
fn add(tx: &Transaction, name: &str) -> StoreResult<String> {
    let name = name.trim();
    if name.is_empty() || name.chars().count() > 100 {
        return Err(StoreError::Invalid(
            "An API key needs a name of 1 to 100 characters.".into(),
        ));
    }
    let taken: Option<i64> = tx
        .query_row("SELECT id FROM api_keys WHERE name = ?1", [name], |r| {
            r.get(0)
        })
        .optional()?;
    if taken.is_some() {
        return Err(StoreError::Conflict(format!(
            "An API key named {name:?} already exists."
        )));
    }
    let key = generate();
    tx.execute(
        "INSERT INTO api_keys (name, key_hash, created_at) VALUES (?1, ?2, ?3)",
        params![name, hash_secret(&key), now_secs()],
    )?;
    Ok(key)
}

/// Names and creation times (seconds since the epoch) of the keys.
fn list(conn: &Connection) -> StoreResult<Vec<(String, i64)>> {
    let mut stmt = conn.prepare("SELECT name, created_at FROM api_keys ORDER BY name")?;
    let rows = stmt
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<Result<_, _>>()?;
    Ok(rows)
}

/// Removes the key named `name`: engines using it are refused from then on.
fn remove(tx: &Transaction, name: &str) -> StoreResult<()> {
    let n = tx.execute("DELETE FROM api_keys WHERE name = ?1", [name.trim()])?;
    if n == 0 {
        return Err(StoreError::NotFound(format!(
            "No API key is named {name:?}."
        )));
    }
    Ok(())
}
