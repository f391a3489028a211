//! Users, console tokens and ingest API keys.

use rusqlite::{params, Connection, OptionalExtension};
use sha2::{Digest, Sha256};

use super::StoreResult;

pub const ROLE_ADMIN: &str = "ROLE_ADMIN";
pub const ROLE_USER: &str = "ROLE_USER";

/// Who is calling: the user behind a valid console token.
#[derive(Debug, Clone)]
pub struct Session {
    pub user_id: i64,
    pub username: String,
    pub roles: Vec<String>,
    pub access_type: String,
    /// SHA-256 of the token, to end this session on sign-out.
    pub token_hash: String,
}

impl Session {
    /// First role ROLE_USER: sees only the groups assigned to them.
    pub fn is_restricted(&self) -> bool {
        self.roles.first().map(String::as_str) == Some(ROLE_USER)
    }
    /// Anyone whose access type is not `read-write` is read-only.
    pub fn can_write(&self) -> bool {
        self.access_type == "read-write"
    }
}

/// Hex SHA-256, used to store tokens and keys.
pub fn hash_secret(secret: &str) -> String {
    hex::encode(Sha256::digest(secret.as_bytes()))
}

/// The session for a bearer token, if the token exists and has not expired.
pub fn session_for_token(conn: &Connection, token: &str, now: i64) -> StoreResult<Option<Session>> {
    let hash = hash_secret(token);
    let row = conn
        .query_row(
            "SELECT u.id, u.username, u.roles, u.access_type
               FROM tokens t JOIN users u ON u.id = t.user_id
              WHERE t.token_hash = ?1 AND t.expires_at > ?2",
            params![hash, now],
            |r| {
                Ok(Session {
                    user_id: r.get(0)?,
                    username: r.get(1)?,
                    roles: split_roles(&r.get::<_, String>(2)?),
                    access_type: r.get(3)?,
                    token_hash: hash.clone(),
                })
            },
        )
        .optional()?;
    Ok(row)
}

pub fn split_roles(roles: &str) -> Vec<String> {
    roles
        .split(',')
        .map(str::trim)
        .filter(|r| !r.is_empty())
        .map(String::from)
        .collect()
}

/// True when `key` is a registered ingest API key.
pub fn api_key_valid(conn: &Connection, key: &str) -> StoreResult<bool> {
    let found: Option<i64> = conn
        .query_row(
            "SELECT id FROM api_keys WHERE key_hash = ?1",
            params![hash_secret(key)],
            |r| r.get(0),
        )
        .optional()?;
    Ok(found.is_some())
}
