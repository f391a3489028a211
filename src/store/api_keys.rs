//! Ingest API keys (`cxwatch apikey ...`). Only the SHA-256 of a key is kept; the key
//! itself is shown once, when it is made.

use async_trait::async_trait;
use rand::RngCore;

use super::audit;
use super::auth::hash_secret;
use super::sql::{self, Exec, SqlStore};
use super::{now_secs, FieldConflict, StoreError, StoreResult};
use crate::domain::rules::{FieldError, Rule};

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
            let key = generate();
            let inserted = c
                .execute(
                    "INSERT INTO api_keys (name, key_hash, created_at) VALUES ($1, $2, $3)",
                    &[&name, &hash_secret(&key), &now_secs()],
                )
                .await;
            match inserted {
                Err(e) if sql::is_unique_violation(&e) => {
                    return Err(StoreError::Field(
                        FieldConflict::Conflict,
                        FieldError {
                            field: "name".into(),
                            rule: Rule::Taken,
                            message: format!("An API key named {name:?} already exists."),
                        },
                    ))
                }
                other => other?,
            };
            let after = serde_json::json!({ "name": name });
            audit::record(c, "api_key", "create", &name, None, Some(after)).await?;
            Ok(key)
        })
    }

    async fn api_keys(&self) -> StoreResult<Vec<(String, i64)>> {
        sql::read!(self, |c| {
            c.query("SELECT name, created_at FROM api_keys ORDER BY name", &[])
                .await?
                .iter()
                .map(|r| Ok((r.col("name")?, r.col("created_at")?)))
                .collect()
        })
    }

    async fn remove_api_key(&self, name: &str) -> StoreResult<()> {
        sql::write!(self, [name = name.to_string()], |c| {
            let n = c
                .execute("DELETE FROM api_keys WHERE name = $1", &[&name.trim()])
                .await?;
            if n == 0 {
                return Err(StoreError::NotFound(format!(
                    "No API key is named {name:?}."
                )));
            }
            let before = serde_json::json!({ "name": name });
            audit::record(c, "api_key", "delete", &name, Some(before), None).await
        })
    }

    async fn api_key_valid(&self, key: &str) -> StoreResult<bool> {
        sql::read!(self, [hash = hash_secret(key)], |c| {
            Ok(
                c.query_opt("SELECT 1 FROM api_keys WHERE key_hash = $1", &[&hash])
                    .await?
                    .is_some(),
            )
        })
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
