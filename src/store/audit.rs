//! The audit log: who changed what, when, from where, with the values before and after.
//!
//! **Adding audit to a store mutation is one call inside its transaction:**
//!
//! ```ignore
//! sql::write!(self, |c| {
//!     let before = audit::snapshot(c, "test_case_groups", id).await?;   // for update/delete
//!     ... the change ...
//!     let after = audit::snapshot(c, "test_case_groups", id).await?;
//!     audit::record(c, "group", "update", id, before, after).await
//! })
//! ```
//!
//! Written once for both backends ([`super::sql::Exec`]); SQLite code of its own calls them
//! through `sql::finish(audit::record(&Lite(tx), …))`. `record` takes who and from where
//! from the request (or the CLI) that runs the transaction: the API layer sets it for each
//! call (`api::mod`'s `routes`, [`as_actor`]), the CLI with [`Actor::cli`]; it crosses into
//! the blocking writer thread in `Sqlite::write`. [`snapshot`] reads a row as JSON without
//! its secret columns (any column whose name holds `password`, `hash`, `token` or
//! `secret`); flags read 0/1 and blobs "(binary)" on both backends.

use std::cell::RefCell;

use async_trait::async_trait;
use serde_json::{Map, Value};

use super::sql::{self, Exec, SqlStore};
use super::{now_secs, StoreResult};
use crate::domain::page::{Page, PageRequest};

/// Who makes a change and from where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Actor {
    pub user_id: Option<i64>,
    pub username: String,
    pub address: String,
}

impl Actor {
    /// The command line: the system user running it (`cli:root`, `cli:alice`).
    pub fn cli() -> Actor {
        Actor {
            user_id: None,
            username: format!("cli:{}", os_user()),
            address: "local".into(),
        }
    }
}

/// Who runs the command: the person behind `sudo` (`SUDO_USER`), else the account of the
/// process's real uid, else `USER` or `LOGNAME`, else the uid itself (`uid 1000`, a container
/// user with no account). Read from the account database first because a service's shell,
/// cron or `docker exec` often sets no `USER`, which left the log saying `cli:unknown`.
fn os_user() -> String {
    let env = |k: &str| std::env::var(k).ok().filter(|v| !v.trim().is_empty());
    if let Some(who) = env("SUDO_USER") {
        return who;
    }
    // SAFETY: getuid cannot fail and touches no memory of ours.
    let uid = unsafe { libc::getuid() };
    account_name(uid)
        .or_else(|| env("USER"))
        .or_else(|| env("LOGNAME"))
        .unwrap_or_else(|| format!("uid {uid}"))
}

/// The name of account `uid` in the system's account database (getpwuid_r), if it has one.
fn account_name(uid: libc::uid_t) -> Option<String> {
    let mut buf = vec![0u8; 1024];
    loop {
        // SAFETY: `pwd` and `result` are written by getpwuid_r only; the strings it points
        // `pwd` at live in `buf`, which outlives the read of `pw_name` below.
        let mut pwd: libc::passwd = unsafe { std::mem::zeroed() };
        let mut result: *mut libc::passwd = std::ptr::null_mut();
        let rc = unsafe {
            libc::getpwuid_r(
                uid,
                &mut pwd,
                buf.as_mut_ptr().cast(),
                buf.len(),
                &mut result,
            )
        };
        if rc == libc::ERANGE && buf.len() < 1 << 20 {
            buf.resize(buf.len() * 2, 0);
            continue;
        }
        if rc != 0 || result.is_null() || pwd.pw_name.is_null() {
            return None;
        }
        let name = unsafe { std::ffi::CStr::from_ptr(pwd.pw_name) }
            .to_string_lossy()
            .into_owned();
        return (!name.is_empty()).then_some(name);
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

/// The actor of the running task (taken before the store's work leaves for its thread),
/// or of the writer thread's transaction.
pub(super) fn current() -> Option<Actor> {
    ACTOR
        .try_with(Clone::clone)
        .ok()
        .or_else(|| IN_WRITE.with(|a| a.borrow().clone()))
}

/// Runs `f` on the writer thread with `actor` known to [`record`].
pub(super) fn within<T>(actor: Option<Actor>, f: impl FnOnce() -> T) -> T {
    IN_WRITE.with(|a| *a.borrow_mut() = actor);
    let out = f();
    IN_WRITE.with(|a| *a.borrow_mut() = None);
    out
}

/// Records a change in the transaction `c`. `kind`: the resource (`user`, `group`,
/// `api_key`, `session`, …); `action`: `create`, `update`, `delete`, `password`,
/// `sign_in`, `sign_out`, …; `target`: the id or name changed.
pub async fn record(
    c: &impl Exec,
    kind: &str,
    action: &str,
    target: impl ToString,
    before: Option<Value>,
    after: Option<Value>,
) -> StoreResult<()> {
    let actor = current().unwrap_or(Actor {
        user_id: None,
        username: "system".into(),
        address: "local".into(),
    });
    record_as(c, &actor, kind, action, target, before, after).await
}

/// [`record`] with the actor given (sign-in, where the session's user is the author).
pub async fn record_as(
    c: &impl Exec,
    actor: &Actor,
    kind: &str,
    action: &str,
    target: impl ToString,
    before: Option<Value>,
    after: Option<Value>,
) -> StoreResult<()> {
    let address = current()
        .map(|a| a.address)
        .filter(|_| actor.address.is_empty())
        .unwrap_or_else(|| actor.address.clone());
    c.execute(
        "INSERT INTO audit_log (at, user_id, username, address, kind, action, target, before, after)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
        &[
            &now_secs(),
            &actor.user_id,
            &actor.username,
            &address,
            &kind,
            &action,
            &target.to_string(),
            &before.map(|v| scrub(v).to_string()),
            &after.map(|v| scrub(v).to_string()),
        ],
    )
    .await?;
    Ok(())
}

/// A row of `table` (by `id`) as a JSON object without secret columns; None when absent.
pub async fn snapshot(c: &impl Exec, table: &str, id: i64) -> StoreResult<Option<Value>> {
    let row = c
        .query_opt(&format!("SELECT * FROM \"{table}\" WHERE id = $1"), &[&id])
        .await?;
    let Some(row) = row else {
        return Ok(None);
    };
    let map: Map<String, Value> = row
        .columns()
        .map(|(name, v)| {
            let v = match v {
                sql::Value::Null => Value::Null,
                sql::Value::Int(n) => (*n).into(),
                sql::Value::Real(f) => (*f).into(),
                sql::Value::Text(t) => t.clone().into(),
                sql::Value::Bytes(_) => Value::String("(binary)".into()),
            };
            (name.to_string(), v)
        })
        .collect();
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
    /// Only this action (`create`, `delete`, `sign_in`, …).
    pub action: Option<String>,
    /// Text found, without case, in the username, address, kind, action, target or the
    /// values before or after.
    pub search: Option<String>,
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
impl<S: SqlStore> AuditStore for S {
    async fn list_audit(
        &self,
        page: PageRequest,
        filter: AuditFilter,
    ) -> StoreResult<Page<AuditRecord>> {
        let search = sql::search(filter.search.as_deref());
        sql::read!(self, |c| {
            let found = [
                "username", "address", "kind", "action", "target", "before", "after",
            ]
            .map(|col| {
                format!(
                    "{} LIKE $6 ESCAPE '\\'",
                    c.fold(&format!("COALESCE({col}, '')"))
                )
            })
            .join(" OR ");
            let cond = format!(
                "(CAST($1 AS BIGINT) IS NULL OR user_id = $1)
                 AND (CAST($2 AS TEXT) IS NULL OR kind = $2)
                 AND (CAST($3 AS BIGINT) IS NULL OR at >= $3)
                 AND (CAST($4 AS BIGINT) IS NULL OR at < $4)
                 AND (CAST($5 AS TEXT) IS NULL OR action = $5)
                 AND (CAST($6 AS TEXT) IS NULL OR {found})"
            );
            let total: i64 = c
                .scalar(
                    &format!("SELECT count(*) FROM audit_log WHERE {cond}"),
                    &[
                        &filter.user_id,
                        &filter.kind,
                        &filter.from,
                        &filter.to,
                        &filter.action,
                        &search,
                    ],
                )
                .await?;
            let json = |s: Option<String>| s.and_then(|s| serde_json::from_str(&s).ok());
            let rows = c
                .query(
                    &format!(
                        "SELECT id, at, user_id, username, address, kind, action, target, before, after
                         FROM audit_log WHERE {cond} ORDER BY id DESC LIMIT $7 OFFSET $8"
                    ),
                    &[
                        &filter.user_id,
                        &filter.kind,
                        &filter.from,
                        &filter.to,
                        &filter.action,
                        &search,
                        &page.size,
                        &(page.offset() as i64),
                    ],
                )
                .await?;
            let items = rows
                .iter()
                .map(|r| {
                    Ok(AuditRecord {
                        id: r.col("id")?,
                        at: r.col("at")?,
                        user_id: r.col("user_id")?,
                        username: r.col("username")?,
                        address: r.col("address")?,
                        kind: r.col("kind")?,
                        action: r.col("action")?,
                        target: r.col("target")?,
                        before: json(r.col("before")?),
                        after: json(r.col("after")?),
                    })
                })
                .collect::<StoreResult<Vec<_>>>()?;
            Ok(Page {
                items,
                total: total as u64,
            })
        })
    }

    async fn purge_audit(&self, before: i64) -> StoreResult<usize> {
        sql::write!(self, |c| {
            Ok(c.execute("DELETE FROM audit_log WHERE at < $1", &[&before])
                .await? as usize)
        })
    }
}

/// A row as the log shows it, with the ids `sql` lists for it under `key`.
async fn with_ids(
    c: &impl Exec,
    row: Option<Value>,
    key: &str,
    sql: &str,
    id: i64,
) -> StoreResult<Option<Value>> {
    let Some(mut v) = row else {
        return Ok(None);
    };
    let ids: Vec<i64> = c.column(sql, &[&id]).await?;
    if let Value::Object(map) = &mut v {
        map.insert(key.into(), ids.into());
    }
    Ok(Some(v))
}

/// A user as the log shows it: their row without the password hash, and their group ids.
pub async fn user(c: &impl Exec, id: i64) -> StoreResult<Option<Value>> {
    let row = snapshot(c, "users", id).await?;
    with_ids(
        c,
        row,
        "group_ids",
        "SELECT group_id FROM user_groups WHERE user_id = $1 ORDER BY group_id",
        id,
    )
    .await
}

/// A group as the log shows it: its row and its test case ids.
pub async fn group(c: &impl Exec, id: i64) -> StoreResult<Option<Value>> {
    let row = snapshot(c, "test_case_groups", id).await?;
    with_ids(
        c,
        row,
        "test_case_ids",
        "SELECT test_case_id FROM group_cases WHERE group_id = $1 ORDER BY test_case_id",
        id,
    )
    .await
}

/// A distribution list as the log shows it: its row and its contacts (label, type, address).
pub async fn distribution_list(c: &impl Exec, id: i64) -> StoreResult<Option<Value>> {
    let Some(mut v) = snapshot(c, "distribution_lists", id).await? else {
        return Ok(None);
    };
    let contacts = c
        .query(
            "SELECT name, type, info FROM distribution_contacts WHERE list_id = $1 ORDER BY position",
            &[&id],
        )
        .await?
        .iter()
        .map(|r| {
            Ok(serde_json::json!({
                "name": r.col::<String>("name")?,
                "type": r.col::<i64>("type")?,
                "info": r.col::<String>("info")?,
            }))
        })
        .collect::<StoreResult<Vec<Value>>>()?;
    if let Value::Object(map) = &mut v {
        map.insert("contacts".into(), contacts.into());
    }
    Ok(Some(v))
}

/// Records a session event whose author is the user it concerns (sign-in, sign-out),
/// from the address of the request.
pub async fn record_by_user(
    c: &impl Exec,
    user_id: i64,
    kind: &str,
    action: &str,
) -> StoreResult<()> {
    let username: String = c
        .scalar_opt("SELECT username FROM users WHERE id = $1", &[&user_id])
        .await?
        .unwrap_or_default();
    let actor = Actor {
        user_id: Some(user_id),
        username,
        address: String::new(),
    };
    record_as(c, &actor, kind, action, user_id, None, None).await
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_cli_names_the_account_of_its_uid() {
        // SAFETY: as in os_user.
        let uid = unsafe { libc::getuid() };
        let expected = std::process::Command::new("id")
            .args(["-un"])
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string());
        assert_eq!(account_name(uid), expected, "uid {uid}");
        assert_eq!(account_name(u32::MAX - 7), None);
    }

    #[test]
    fn secrets_never_reach_the_log() {
        let v = scrub(
            json!({"username": "a", "password_hash": "x", "newPassword": "p",
                             "keys": [{"name": "k", "token": "t"}]}),
        );
        assert_eq!(v, json!({"username": "a", "keys": [{"name": "k"}]}));
    }
}
