//! Ingest API keys (`cxwatch apikey ...`). Only the SHA-256 of a key is kept; the key
//! itself is shown once, when it is made. Names are unique without case (ASCII letters, as
//! group and list names); each key remembers when it was last used, which the ingest guard
//! writes at most once a minute per key (`auth::KeyUse`).

use async_trait::async_trait;
use rand::RngCore;

use super::audit;
use super::auth::hash_secret;
use super::sql::{self, Exec, SqlStore};
use super::{now_secs, FieldConflict, StoreError, StoreResult};
use crate::domain::rules::{FieldError, Rule};

/// A key as the console and the CLI list it (never the key).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiKeyInfo {
    pub name: String,
    /// Seconds since the epoch.
    pub created_at: i64,
    /// When an engine last posted with it (UTC ms, to the minute): None when never.
    pub last_used_ms: Option<i64>,
}

#[async_trait]
pub trait ApiKeyStore {
    /// Makes a key named `name` and returns it (the only time it can be seen). A name
    /// another key has, without case, is a `name` conflict naming that key.
    async fn add_api_key(&self, name: &str) -> StoreResult<String>;
    /// The keys by name.
    async fn api_keys(&self) -> StoreResult<Vec<ApiKeyInfo>>;
    /// Removes the key named `name` (without case): engines using it are refused from then
    /// on.
    async fn remove_api_key(&self, name: &str) -> StoreResult<()>;
    /// The id of the registered ingest API key `key`, if it is one.
    async fn api_key_id(&self, key: &str) -> StoreResult<Option<i64>>;
    /// Records that key `id` was used at `at_ms` (never moving its time back).
    async fn touch_api_key(&self, id: i64, at_ms: i64) -> StoreResult<()>;
}

fn taken(name: &str, existing: &str) -> StoreError {
    let message = if existing == name {
        format!("An API key named {name:?} already exists.")
    } else {
        format!(
            "An API key named {existing:?} already exists: key names are compared without case, so {name:?} is the same name."
        )
    };
    StoreError::Field(
        FieldConflict::Conflict,
        FieldError {
            field: "name".into(),
            rule: Rule::Taken,
            message,
        },
    )
}

#[async_trait]
impl<S: SqlStore> ApiKeyStore for S {
    async fn add_api_key(&self, name: &str) -> StoreResult<String> {
        let name = name.trim().to_string();
        if name.is_empty() || name.chars().count() > 100 {
            let rule = if name.is_empty() {
                Rule::Required
            } else {
                Rule::TooLong
            };
            return Err(StoreError::Field(
                FieldConflict::Invalid,
                FieldError {
                    field: "name".into(),
                    rule,
                    message: "An API key needs a name of 1 to 100 characters.".into(),
                },
            ));
        }
        sql::write!(self, |c| {
            if let Some(existing) = named(c, &name).await? {
                return Err(taken(&name, &existing));
            }
            let key = generate();
            let inserted = c
                .execute(
                    "INSERT INTO api_keys (name, key_hash, created_at) VALUES ($1, $2, $3)",
                    &[&name, &hash_secret(&key), &now_secs()],
                )
                .await;
            match inserted {
                // Made meanwhile by another instance: the index refuses it.
                Err(e) if sql::is_unique_violation(&e) => return Err(taken(&name, &name)),
                other => other?,
            };
            let after = serde_json::json!({ "name": name });
            audit::record(c, "api_key", "create", &name, None, Some(after)).await?;
            Ok(key)
        })
    }

    async fn api_keys(&self) -> StoreResult<Vec<ApiKeyInfo>> {
        sql::read!(self, |c| {
            c.query(
                "SELECT name, created_at, last_used_ms FROM api_keys ORDER BY name",
                &[],
            )
            .await?
            .iter()
            .map(|r| {
                Ok(ApiKeyInfo {
                    name: r.col("name")?,
                    created_at: r.col("created_at")?,
                    last_used_ms: r.col("last_used_ms")?,
                })
            })
            .collect()
        })
    }

    async fn remove_api_key(&self, name: &str) -> StoreResult<()> {
        sql::write!(self, [name = name.trim().to_string()], |c| {
            let Some(stored) = named(c, &name).await? else {
                return Err(StoreError::NotFound(format!(
                    "No API key is named {name:?}."
                )));
            };
            c.execute("DELETE FROM api_keys WHERE name = $1", &[&stored])
                .await?;
            let before = serde_json::json!({ "name": stored });
            audit::record(c, "api_key", "delete", &stored, Some(before), None).await
        })
    }

    async fn api_key_id(&self, key: &str) -> StoreResult<Option<i64>> {
        sql::read!(self, [hash = hash_secret(key)], |c| {
            c.scalar_opt("SELECT id FROM api_keys WHERE key_hash = $1", &[&hash])
                .await
        })
    }

    async fn touch_api_key(&self, id: i64, at_ms: i64) -> StoreResult<()> {
        sql::write!(self, |c| {
            c.execute(
                "UPDATE api_keys SET last_used_ms = $2
                  WHERE id = $1 AND (last_used_ms IS NULL OR last_used_ms < $2)",
                &[&id, &at_ms],
            )
            .await?;
            Ok(())
        })
    }
}

/// The stored name of the key named `name` without case (ASCII letters, as the unique
/// index of migration 0036 folds them), if any.
async fn named(c: &impl Exec, name: &str) -> StoreResult<Option<String>> {
    c.scalar_opt(
        &format!(
            "SELECT name FROM api_keys WHERE {} = {}",
            fold_eq(c, "name"),
            fold_eq(c, "CAST($1 AS TEXT)")
        ),
        &[&name],
    )
    .await
}

/// `value` with ASCII letters lowered on both backends (SQLite's lower() folds only those;
/// PostgreSQL's does in the "C" collation).
fn fold_eq(c: &impl Exec, value: &str) -> String {
    match c.dialect() {
        sql::Dialect::Sqlite => format!("lower({value})"),
        sql::Dialect::Postgres => format!("lower({value} COLLATE \"C\")"),
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
