//! Users, console tokens, one-time ids and ingest API keys.
//!
//! Tokens and one-time ids are random secrets made by [`crate::auth::generate_secret`];
//! only their SHA-256 is stored ([`hash_secret`]).

use rusqlite::{params, Connection, OptionalExtension};
use sha2::{Digest, Sha256};

use super::StoreResult;

pub const ROLE_ADMIN: &str = "ROLE_ADMIN";
pub const ROLE_USER: &str = "ROLE_USER";

/// How long a one-time id (GET /api/auth/getToken) stays valid.
pub const ONE_TIME_ID_TTL_SECS: i64 = 120;

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

/// A console user as stored.
#[derive(Debug, Clone, PartialEq)]
pub struct UserRecord {
    pub id: i64,
    pub username: String,
    pub first_name: String,
    pub last_name: String,
    pub roles: Vec<String>,
    pub access_type: String,
    /// argon2id PHC string.
    pub password_hash: String,
}

/// What [`create_user`] needs.
#[derive(Debug, Clone)]
pub struct NewUser<'a> {
    pub username: &'a str,
    pub first_name: &'a str,
    pub last_name: &'a str,
    pub password_hash: &'a str,
    pub roles: &'a [String],
    pub access_type: &'a str,
}

const USER_COLUMNS: &str = "id, username, first_name, last_name, roles, access_type, password_hash";

fn user_row(r: &rusqlite::Row) -> rusqlite::Result<UserRecord> {
    Ok(UserRecord {
        id: r.get(0)?,
        username: r.get(1)?,
        first_name: r.get(2)?,
        last_name: r.get(3)?,
        roles: split_roles(&r.get::<_, String>(4)?),
        access_type: r.get(5)?,
        password_hash: r.get(6)?,
    })
}

fn is_unique_violation(e: &rusqlite::Error) -> bool {
    matches!(e, rusqlite::Error::SqliteFailure(f, _)
        if f.extended_code == rusqlite::ffi::SQLITE_CONSTRAINT_UNIQUE)
}

/// Adds a user; [`StoreError::Conflict`](super::StoreError::Conflict) when the username
/// (compared without case) is taken. Returns the new id.
pub fn create_user(conn: &Connection, user: &NewUser, now: i64) -> StoreResult<i64> {
    let inserted = conn.execute(
        "INSERT INTO users (username, first_name, last_name, password_hash, roles, access_type, created_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        params![
            user.username,
            user.first_name,
            user.last_name,
            user.password_hash,
            user.roles.join(","),
            user.access_type,
            now
        ],
    );
    match inserted {
        Ok(_) => Ok(conn.last_insert_rowid()),
        Err(e) if is_unique_violation(&e) => Err(super::StoreError::Conflict(format!(
            "a user named {} already exists",
            user.username
        ))),
        Err(e) => Err(e.into()),
    }
}

/// The user with this username (compared without case).
pub fn user_by_username(conn: &Connection, username: &str) -> StoreResult<Option<UserRecord>> {
    Ok(conn
        .query_row(
            &format!("SELECT {USER_COLUMNS} FROM users WHERE username = ?1"),
            params![username],
            user_row,
        )
        .optional()?)
}

pub fn user_by_id(conn: &Connection, id: i64) -> StoreResult<Option<UserRecord>> {
    Ok(conn
        .query_row(
            &format!("SELECT {USER_COLUMNS} FROM users WHERE id = ?1"),
            params![id],
            user_row,
        )
        .optional()?)
}

/// How many users exist (0 on a fresh install).
pub fn user_count(conn: &Connection) -> StoreResult<i64> {
    Ok(conn.query_row("SELECT COUNT(*) FROM users", [], |r| r.get(0))?)
}

/// Replaces a user's password hash, roles and access type (used to reset demo accounts).
pub fn reset_user(
    conn: &Connection,
    id: i64,
    password_hash: &str,
    roles: &[String],
    access_type: &str,
) -> StoreResult<()> {
    let n = conn.execute(
        "UPDATE users SET password_hash = ?2, roles = ?3, access_type = ?4 WHERE id = ?1",
        params![id, password_hash, roles.join(","), access_type],
    )?;
    if n == 0 {
        return Err(super::StoreError::NotFound(format!("no user with id {id}")));
    }
    Ok(())
}

/// Starts a session: stores the SHA-256 of a fresh token and returns the token.
pub fn create_token(
    conn: &Connection,
    user_id: i64,
    remember: bool,
    now: i64,
    expires_at: i64,
) -> StoreResult<String> {
    let token = crate::auth::generate_secret();
    conn.execute(
        "INSERT INTO tokens (token_hash, user_id, remember, created_at, expires_at)
         VALUES (?1, ?2, ?3, ?4, ?5)",
        params![hash_secret(&token), user_id, remember, now, expires_at],
    )?;
    Ok(token)
}

/// Ends a session (sign-out). True when the token existed.
pub fn delete_token(conn: &Connection, token_hash: &str) -> StoreResult<bool> {
    Ok(conn.execute("DELETE FROM tokens WHERE token_hash = ?1", [token_hash])? > 0)
}

/// Ends every session of a user. Returns how many there were.
pub fn delete_user_tokens(conn: &Connection, user_id: i64) -> StoreResult<usize> {
    Ok(conn.execute("DELETE FROM tokens WHERE user_id = ?1", [user_id])?)
}

/// Removes expired tokens and one-time ids. Returns how many rows went.
pub fn delete_expired(conn: &Connection, now: i64) -> StoreResult<usize> {
    let tokens = conn.execute("DELETE FROM tokens WHERE expires_at <= ?1", [now])?;
    let ids = conn.execute("DELETE FROM one_time_ids WHERE expires_at <= ?1", [now])?;
    Ok(tokens + ids)
}

/// Mints a one-time id for `user_id`, valid [`ONE_TIME_ID_TTL_SECS`] and exchangeable once
/// for a token at GET /api/auth/getToken?id=.
pub fn create_one_time_id(conn: &Connection, user_id: i64, now: i64) -> StoreResult<String> {
    let id = crate::auth::generate_secret();
    conn.execute(
        "INSERT INTO one_time_ids (id_hash, user_id, created_at, expires_at)
         VALUES (?1, ?2, ?3, ?4)",
        params![hash_secret(&id), user_id, now, now + ONE_TIME_ID_TTL_SECS],
    )?;
    Ok(id)
}

/// Uses up a one-time id: its user when it exists and has not expired. Either way the id
/// is gone afterwards, so a second exchange fails.
pub fn consume_one_time_id(conn: &Connection, id: &str, now: i64) -> StoreResult<Option<i64>> {
    let row: Option<(i64, i64)> = conn
        .query_row(
            "DELETE FROM one_time_ids WHERE id_hash = ?1 RETURNING user_id, expires_at",
            params![hash_secret(id)],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()?;
    Ok(row.and_then(|(user, expires_at)| (expires_at > now).then_some(user)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{Store, StoreError};

    fn store() -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        (dir, store)
    }

    fn add(store: &Store, username: &str) -> StoreResult<i64> {
        let roles = vec![ROLE_ADMIN.to_string()];
        store.write_blocking(|tx| {
            create_user(
                tx,
                &NewUser {
                    username,
                    first_name: "Ada",
                    last_name: "L",
                    password_hash: "$argon2id$x",
                    roles: &roles,
                    access_type: "read-write",
                },
                1000,
            )
        })
    }

    #[test]
    fn users_are_unique_without_case() {
        let (_d, store) = store();
        let id = add(&store, "a@b.test").unwrap();
        let err = add(&store, "A@B.TEST").unwrap_err();
        assert!(matches!(err, StoreError::Conflict(_)), "{err}");
        assert!(err.to_string().contains("already exists"), "{err}");
        let u = store
            .read_blocking(|c| user_by_username(c, "A@b.test"))
            .unwrap()
            .unwrap();
        assert_eq!(u.id, id);
        assert_eq!(u.roles, vec!["ROLE_ADMIN"]);
        assert_eq!(u.first_name, "Ada");
        assert_eq!(store.read_blocking(user_count).unwrap(), 1);
        assert_eq!(store.read_blocking(|c| user_by_id(c, id)).unwrap(), Some(u));
    }

    #[test]
    fn tokens_expire_and_end() {
        let (_d, store) = store();
        let id = add(&store, "a@b.test").unwrap();
        let token = store
            .write_blocking(|tx| create_token(tx, id, false, 1000, 2000))
            .unwrap();
        let s = store
            .read_blocking(|c| session_for_token(c, &token, 1999))
            .unwrap()
            .unwrap();
        assert_eq!(s.user_id, id);
        assert_eq!(s.token_hash, hash_secret(&token));
        assert!(store
            .read_blocking(|c| session_for_token(c, &token, 2000))
            .unwrap()
            .is_none());
        // Expired rows are removed; live ones stay.
        let live = store
            .write_blocking(|tx| create_token(tx, id, true, 1000, 5000))
            .unwrap();
        assert_eq!(
            store.write_blocking(|tx| delete_expired(tx, 2000)).unwrap(),
            1
        );
        assert!(store
            .read_blocking(|c| session_for_token(c, &live, 2000))
            .unwrap()
            .is_some());
        // Sign-out.
        assert!(store
            .write_blocking(|tx| delete_token(tx, &hash_secret(&live)))
            .unwrap());
        assert!(store
            .read_blocking(|c| session_for_token(c, &live, 2000))
            .unwrap()
            .is_none());
    }

    #[test]
    fn one_time_ids_work_once_and_expire() {
        let (_d, store) = store();
        let id = add(&store, "a@b.test").unwrap();
        let otid = store
            .write_blocking(|tx| create_one_time_id(tx, id, 1000))
            .unwrap();
        assert_eq!(
            store
                .write_blocking(|tx| consume_one_time_id(tx, &otid, 1001))
                .unwrap(),
            Some(id)
        );
        assert_eq!(
            store
                .write_blocking(|tx| consume_one_time_id(tx, &otid, 1002))
                .unwrap(),
            None,
            "single use"
        );
        let late = store
            .write_blocking(|tx| create_one_time_id(tx, id, 1000))
            .unwrap();
        assert_eq!(
            store
                .write_blocking(|tx| consume_one_time_id(tx, &late, 1000 + ONE_TIME_ID_TTL_SECS))
                .unwrap(),
            None,
            "expired"
        );
        assert_eq!(
            store
                .write_blocking(|tx| consume_one_time_id(tx, "unknown", 1000))
                .unwrap(),
            None
        );
        let stored: String = store
            .read_blocking(|c| {
                Ok(
                    c.query_row("SELECT id_hash FROM one_time_ids LIMIT 1", [], |r| r.get(0))
                        .optional()?
                        .unwrap_or_default(),
                )
            })
            .unwrap();
        assert!(stored.is_empty(), "used and expired ids are deleted");
    }

    #[test]
    fn reset_replaces_password_and_role() {
        let (_d, store) = store();
        let id = add(&store, "a@b.test").unwrap();
        let roles = vec![ROLE_USER.to_string()];
        store
            .write_blocking(|tx| reset_user(tx, id, "$argon2id$y", &roles, "read-only"))
            .unwrap();
        let u = store.read_blocking(|c| user_by_id(c, id)).unwrap().unwrap();
        assert_eq!(u.password_hash, "$argon2id$y");
        assert_eq!(u.roles, vec!["ROLE_USER"]);
        assert_eq!(u.access_type, "read-only");
        let err = store
            .write_blocking(|tx| reset_user(tx, 999, "h", &roles, "read-only"))
            .unwrap_err();
        assert!(matches!(err, StoreError::NotFound(_)));
    }
}
