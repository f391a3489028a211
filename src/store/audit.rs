//! The audit log: who changed what, when, from where, with the values before and after.
//!
//! **Adding audit to a store mutation is one call inside its transaction:**
//!
//! ```ignore
//! self.write(move |tx| {
//!     let before = audit::snapshot(tx, "test_case_groups", id)?;   // for update/delete
//!     ... the change ...
//!     audit::record(tx, "group", "update", id, before, audit::snapshot(tx, "test_case_groups", id)?)?;
//!     Ok(())
//! })
//! ```
//!
//! `record` takes who and from where from the request (or the CLI) that runs the
//! transaction: the API layer sets it for each call (`api::mod`'s `routes`, [`as_actor`]),
//! the CLI with [`Actor::cli`]; it crosses into the blocking writer thread in
//! `Sqlite::write`. [`snapshot`] reads a row as JSON without its secret columns (any column
//! whose name holds `password`, `hash`, `token` or `secret`).

use std::cell::RefCell;

use async_trait::async_trait;
use rusqlite::{params, Transaction};
use serde_json::{Map, Value};

use super::{now_secs, Sqlite, StoreResult};
use crate::domain::page::{Page, PageRequest};

/// Who makes a change and from where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Actor {
    pub user_id: Option<i64>,
    pub username: String,
    pub address: String,
}

impl Actor {
    /// The command line: the system user running it.
    pub fn cli() -> Actor {
        let who = std::env::var("SUDO_USER")
            .or_else(|_| std::env::var("USER"))
            .unwrap_or_else(|_| "unknown".into());
        Actor {
            user_id: None,
            username: format!("cli:{who}"),
            address: "local".into(),
        }
    }
}

tokio::task_local! {
    static ACTOR: Actor;
}

thread_local! {
    static IN_WRITE: RefCell<Option<Actor>> = const { RefCell::new(None) };
}

/// Runs `f` with `actor` as the author of every change it makes.
pub async fn as_actor<F: std::future::Future>(actor: Actor, f: F) -> F::Output {
    ACTOR.scope(actor, f).await
}

/// The actor of the running task (taken before the store's work leaves for its thread).
pub(super) fn current() -> Option<Actor> {
    ACTOR.try_with(Clone::clone).ok()
}

/// Runs `f` on the writer thread with `actor` known to [`record`].
pub(super) fn within<T>(actor: Option<Actor>, f: impl FnOnce() -> T) -> T {
    IN_WRITE.with(|a| *a.borrow_mut() = actor);
    let out = f();
    IN_WRITE.with(|a| *a.borrow_mut() = None);
    out
}

/// Records a change in the transaction `tx`. `kind`: the resource (`user`, `group`,
/// `api_key`, `session`, …); `action`: `create`, `update`, `delete`, `password`,
/// `sign_in`, `sign_out`, …; `target`: the id or name changed.
pub fn record(
    tx: &Transaction,
    kind: &str,
    action: &str,
    target: impl ToString,
    before: Option<Value>,
    after: Option<Value>,
) -> StoreResult<()> {
    let actor = IN_WRITE.with(|a| a.borrow().clone()).unwrap_or(Actor {
        user_id: None,
        username: "system".into(),
        address: "local".into(),
    });
    record_as(tx, &actor, kind, action, target, before, after)
}

/// [`record`] with the actor given (sign-in, where the session's user is the author).
pub fn record_as(
    tx: &Transaction,
    actor: &Actor,
    kind: &str,
    action: &str,
    target: impl ToString,
    before: Option<Value>,
    after: Option<Value>,
) -> StoreResult<()> {
    let address = IN_WRITE
        .with(|a| a.borrow().as_ref().map(|a| a.address.clone()))
        .filter(|_| actor.address.is_empty())
        .unwrap_or_else(|| actor.address.clone());
    tx.prepare_cached(
        "INSERT INTO audit_log (at, user_id, username, address, kind, action, target, before, after)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
    )?
    .execute(params![
        now_secs(),
        actor.user_id,
        actor.username,
        address,
        kind,
        action,
        target.to_string(),
        before.map(|v| scrub(v).to_string()),
        after.map(|v| scrub(v).to_string()),
    ])?;
    Ok(())
}

/// A row of `table` (by `id`) as a JSON object without secret columns; None when absent.
pub fn snapshot(tx: &Transaction, table: &str, id: i64) -> StoreResult<Option<Value>> {
    let mut stmt = tx.prepare(&format!("SELECT * FROM \"{table}\" WHERE id = ?1"))?;
    let names: Vec<String> = stmt.column_names().iter().map(|s| s.to_string()).collect();
    let mut rows = stmt.query([id])?;
    let Some(row) = rows.next()? else {
        return Ok(None);
    };
    let mut map = Map::new();
    for (i, name) in names.iter().enumerate() {
        let v = match row.get_ref(i)? {
            rusqlite::types::ValueRef::Null => Value::Null,
            rusqlite::types::ValueRef::Integer(n) => n.into(),
            rusqlite::types::ValueRef::Real(f) => f.into(),
            rusqlite::types::ValueRef::Text(t) => String::from_utf8_lossy(t).into_owned().into(),
            rusqlite::types::ValueRef::Blob(_) => Value::String("(binary)".into()),
        };
        map.insert(name.clone(), v);
    }
    Ok(Some(scrub(Value::Object(map))))
}

/// Drops every key naming a secret, at any depth.
pub fn scrub(value: Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.into_iter()
                .filter(|(k, _)| !is_secret(k))
                .map(|(k, v)| (k, scrub(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.into_iter().map(scrub).collect()),
        other => other,
    }
}

fn is_secret(key: &str) -> bool {
    let k = key.to_ascii_lowercase();
    ["password", "hash", "token", "secret"]
        .iter()
        .any(|s| k.contains(s))
}

/// One audit record.
#[derive(Debug, Clone, PartialEq)]
pub struct AuditRecord {
    pub id: i64,
    pub at: i64,
    pub user_id: Option<i64>,
    pub username: String,
    pub address: String,
    pub kind: String,
    pub action: String,
    pub target: String,
    pub before: Option<Value>,
    pub after: Option<Value>,
}

/// Which records to list.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AuditFilter {
    pub user_id: Option<i64>,
    pub kind: Option<String>,
    /// Seconds, inclusive.
    pub from: Option<i64>,
    /// Seconds, exclusive.
    pub to: Option<i64>,
}

#[async_trait]
pub trait AuditStore {
    /// Records, newest first.
    async fn list_audit(
        &self,
        page: PageRequest,
        filter: AuditFilter,
    ) -> StoreResult<Page<AuditRecord>>;
    /// Deletes the records older than `before` (seconds); the retention task's call.
    async fn purge_audit(&self, before: i64) -> StoreResult<usize>;
}

#[async_trait]
impl AuditStore for Sqlite {
    async fn list_audit(
        &self,
        page: PageRequest,
        filter: AuditFilter,
    ) -> StoreResult<Page<AuditRecord>> {
        self.read(move |c| {
            let cond = "(?1 IS NULL OR user_id = ?1) AND (?2 IS NULL OR kind = ?2)
                        AND (?3 IS NULL OR at >= ?3) AND (?4 IS NULL OR at < ?4)";
            let args = params![filter.user_id, filter.kind, filter.from, filter.to];
            let total: i64 = c.query_row(
                &format!("SELECT count(*) FROM audit_log WHERE {cond}"),
                args,
                |r| r.get(0),
            )?;
            let json = |s: Option<String>| s.and_then(|s| serde_json::from_str(&s).ok());
            let items = c
                .prepare(&format!(
                    "SELECT id, at, user_id, username, address, kind, action, target, before, after
                     FROM audit_log WHERE {cond} ORDER BY id DESC LIMIT ?5 OFFSET ?6"
                ))?
                .query_map(
                    params![
                        filter.user_id,
                        filter.kind,
                        filter.from,
                        filter.to,
                        page.size,
                        page.offset() as i64
                    ],
                    |r| {
                        Ok(AuditRecord {
                            id: r.get(0)?,
                            at: r.get(1)?,
                            user_id: r.get(2)?,
                            username: r.get(3)?,
                            address: r.get(4)?,
                            kind: r.get(5)?,
                            action: r.get(6)?,
                            target: r.get(7)?,
                            before: json(r.get(8)?),
                            after: json(r.get(9)?),
                        })
                    },
                )?
                .collect::<Result<Vec<_>, _>>()?;
            Ok(Page {
                items,
                total: total as u64,
            })
        })
        .await
    }

    async fn purge_audit(&self, before: i64) -> StoreResult<usize> {
        self.write(move |tx| Ok(tx.execute("DELETE FROM audit_log WHERE at < ?1", [before])?))
            .await
    }
}

/// A user as the log shows it: their row without the password hash, and their group ids.
pub fn user(tx: &Transaction, id: i64) -> StoreResult<Option<Value>> {
    let Some(mut v) = snapshot(tx, "users", id)? else {
        return Ok(None);
    };
    let groups: Vec<i64> = tx
        .prepare_cached("SELECT group_id FROM user_groups WHERE user_id = ?1 ORDER BY group_id")?
        .query_map([id], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    if let Value::Object(map) = &mut v {
        map.insert("group_ids".into(), groups.into());
    }
    Ok(Some(v))
}

/// A group as the log shows it: its row and its test case ids.
pub fn group(tx: &Transaction, id: i64) -> StoreResult<Option<Value>> {
    let Some(mut v) = snapshot(tx, "test_case_groups", id)? else {
        return Ok(None);
    };
    let cases: Vec<i64> = tx
        .prepare_cached(
            "SELECT test_case_id FROM group_cases WHERE group_id = ?1 ORDER BY test_case_id",
        )?
        .query_map([id], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    if let Value::Object(map) = &mut v {
        map.insert("test_case_ids".into(), cases.into());
    }
    Ok(Some(v))
}

/// A distribution list as the log shows it: its row and its contacts (label, type, address).
pub fn distribution_list(tx: &Transaction, id: i64) -> StoreResult<Option<Value>> {
    let Some(mut v) = snapshot(tx, "distribution_lists", id)? else {
        return Ok(None);
    };
    let contacts: Vec<Value> = tx
        .prepare_cached(
            "SELECT name, type, info FROM distribution_contacts WHERE list_id = ?1 ORDER BY position",
        )?
        .query_map([id], |r| {
            Ok(serde_json::json!({
                "name": r.get::<_, String>(0)?,
                "type": r.get::<_, i64>(1)?,
                "info": r.get::<_, String>(2)?,
            }))
        })?
        .collect::<Result<_, _>>()?;
    if let Value::Object(map) = &mut v {
        map.insert("contacts".into(), contacts.into());
    }
    Ok(Some(v))
}

/// Records a session event whose author is the user it concerns (sign-in, sign-out),
/// from the address of the request.
pub fn record_by_user(tx: &Transaction, user_id: i64, kind: &str, action: &str) -> StoreResult<()> {
    use rusqlite::OptionalExtension;
    let username: String = tx
        .query_row("SELECT username FROM users WHERE id = ?1", [user_id], |r| {
            r.get(0)
        })
        .optional()?
        .unwrap_or_default();
    let actor = Actor {
        user_id: Some(user_id),
        username,
        address: String::new(),
    };
    record_as(tx, &actor, kind, action, user_id, None, None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn secrets_never_reach_the_log() {
        let v = scrub(
            json!({"username": "a", "password_hash": "x", "newPassword": "p",
                             "keys": [{"name": "k", "token": "t"}]}),
        );
        assert_eq!(v, json!({"username": "a", "keys": [{"name": "k"}]}));
    }
}
