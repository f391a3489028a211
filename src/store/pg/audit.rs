//! PostgreSQL: the audit log ([`AuditStore`]) and the calls every mutation makes inside
//! its transaction, as `store/audit.rs` has them for SQLite:
//!
//! ```ignore
//! let before = audit::snapshot(&tx, "reports", id).await?;
//! ... the change ...
//! audit::record(&tx, "report", "update", id, before, audit::snapshot(&tx, "reports", id).await?).await?;
//! ```
//!
//! Who and from where come from the task (`store::audit::as_actor`): PostgreSQL's calls run
//! on the caller's task, so no hand-over to a thread is needed.

use async_trait::async_trait;
use deadpool_postgres::GenericClient;
use serde_json::Value;

use super::Postgres;
use crate::domain::page::{Page, PageRequest};
use crate::store::audit::{scrub, Actor, AuditFilter, AuditRecord, AuditStore};
use crate::store::{now_secs, StoreResult};

/// Records a change in the transaction `tx` (see `store::audit::record`).
pub async fn record(
    tx: &impl GenericClient,
    kind: &str,
    action: &str,
    target: impl ToString,
    before: Option<Value>,
    after: Option<Value>,
) -> StoreResult<()> {
    let actor = crate::store::audit::current().unwrap_or(Actor {
        user_id: None,
        username: "system".into(),
        address: "local".into(),
    });
    record_as(tx, &actor, kind, action, target, before, after).await
}

/// [`record`] with the actor given (sign-in, where the session's user is the author).
pub async fn record_as(
    tx: &impl GenericClient,
    actor: &Actor,
    kind: &str,
    action: &str,
    target: impl ToString,
    before: Option<Value>,
    after: Option<Value>,
) -> StoreResult<()> {
    let address = crate::store::audit::current()
        .map(|a| a.address)
        .filter(|_| actor.address.is_empty())
        .unwrap_or_else(|| actor.address.clone());
    let stmt = tx
        .prepare_cached(
            "INSERT INTO audit_log (at, user_id, username, address, kind, action, target, before, after)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
        )
        .await?;
    tx.execute(
        &stmt,
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
/// Flags read 0/1 and blobs "(binary)", as SQLite's snapshot shows them, so the log reads
/// the same on both backends.
pub async fn snapshot(tx: &impl GenericClient, table: &str, id: i64) -> StoreResult<Option<Value>> {
    let row = tx
        .query_opt(
            &format!("SELECT row_to_json(t)::text FROM \"{table}\" t WHERE id = $1"),
            &[&id],
        )
        .await?;
    let Some(row) = row else {
        return Ok(None);
    };
    let text: String = row.get(0);
    let mut v: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
    if let Value::Object(map) = &mut v {
        for (_, field) in map.iter_mut() {
            match field {
                Value::Bool(b) => *field = Value::from(i64::from(*b)),
                Value::String(s) if s.starts_with("\\x") => *field = "(binary)".into(),
                _ => {}
            }
        }
    }
    Ok(Some(scrub(v)))
}

/// A user as the log shows it: their row without the password hash, and their group ids.
pub async fn user(tx: &impl GenericClient, id: i64) -> StoreResult<Option<Value>> {
    with_ids(
        tx,
        snapshot(tx, "users", id).await?,
        "group_ids",
        "SELECT group_id FROM user_groups WHERE user_id = $1 ORDER BY group_id",
        id,
    )
    .await
}

/// A group as the log shows it: its row and its test case ids.
pub async fn group(tx: &impl GenericClient, id: i64) -> StoreResult<Option<Value>> {
    with_ids(
        tx,
        snapshot(tx, "test_case_groups", id).await?,
        "test_case_ids",
        "SELECT test_case_id FROM group_cases WHERE group_id = $1 ORDER BY test_case_id",
        id,
    )
    .await
}

async fn with_ids(
    tx: &impl GenericClient,
    row: Option<Value>,
    key: &str,
    sql: &str,
    id: i64,
) -> StoreResult<Option<Value>> {
    let Some(mut v) = row else {
        return Ok(None);
    };
    let stmt = tx.prepare_cached(sql).await?;
    let ids: Vec<i64> = tx
        .query(&stmt, &[&id])
        .await?
        .iter()
        .map(|r| r.get(0))
        .collect();
    if let Value::Object(map) = &mut v {
        map.insert(key.into(), ids.into());
    }
    Ok(Some(v))
}

/// A distribution list as the log shows it: its row and its contacts (label, type, address).
pub async fn distribution_list(tx: &impl GenericClient, id: i64) -> StoreResult<Option<Value>> {
    let Some(mut v) = snapshot(tx, "distribution_lists", id).await? else {
        return Ok(None);
    };
    let stmt = tx
        .prepare_cached(
            "SELECT name, type, info FROM distribution_contacts WHERE list_id = $1 ORDER BY position",
        )
        .await?;
    let contacts: Vec<Value> = tx
        .query(&stmt, &[&id])
        .await?
        .iter()
        .map(|r| {
            serde_json::json!({
                "name": r.get::<_, String>(0),
                "type": r.get::<_, i64>(1),
                "info": r.get::<_, String>(2),
            })
        })
        .collect();
    if let Value::Object(map) = &mut v {
        map.insert("contacts".into(), contacts.into());
    }
    Ok(Some(v))
}

/// Records a session event whose author is the user it concerns (sign-in, sign-out).
pub async fn record_by_user(
    tx: &impl GenericClient,
    user_id: i64,
    kind: &str,
    action: &str,
) -> StoreResult<()> {
    let username: String = tx
        .query_opt("SELECT username FROM users WHERE id = $1", &[&user_id])
        .await?
        .map(|r| r.get(0))
        .unwrap_or_default();
    let actor = Actor {
        user_id: Some(user_id),
        username,
        address: String::new(),
    };
    record_as(tx, &actor, kind, action, user_id, None, None).await
}

#[async_trait]
impl AuditStore for Postgres {
    async fn list_audit(
        &self,
        page: PageRequest,
        filter: AuditFilter,
    ) -> StoreResult<Page<AuditRecord>> {
        let c = self.client().await?;
        let cond = "($1::BIGINT IS NULL OR user_id = $1) AND ($2::TEXT IS NULL OR kind = $2)
                    AND ($3::BIGINT IS NULL OR at >= $3) AND ($4::BIGINT IS NULL OR at < $4)";
        let args: [&(dyn tokio_postgres::types::ToSql + Sync); 4] =
            [&filter.user_id, &filter.kind, &filter.from, &filter.to];
        let total: i64 = c
            .query_one(
                &format!("SELECT count(*) FROM audit_log WHERE {cond}"),
                &args,
            )
            .await?
            .get(0);
        let json = |s: Option<String>| s.and_then(|s| serde_json::from_str(&s).ok());
        let (limit, offset) = (i64::from(page.size), page.offset() as i64);
        let items = c
            .query(
                &format!(
                    "SELECT id, at, user_id, username, address, kind, action, target, before, after
                     FROM audit_log WHERE {cond} ORDER BY id DESC LIMIT $5 OFFSET $6"
                ),
                &[
                    &filter.user_id,
                    &filter.kind,
                    &filter.from,
                    &filter.to,
                    &limit,
                    &offset,
                ],
            )
            .await?
            .iter()
            .map(|r| AuditRecord {
                id: r.get(0),
                at: r.get(1),
                user_id: r.get(2),
                username: r.get(3),
                address: r.get(4),
                kind: r.get(5),
                action: r.get(6),
                target: r.get(7),
                before: json(r.get(8)),
                after: json(r.get(9)),
            })
            .collect();
        Ok(Page {
            items,
            total: total as u64,
        })
    }

    async fn purge_audit(&self, before: i64) -> StoreResult<usize> {
        let c = self.client().await?;
        Ok(c.execute("DELETE FROM audit_log WHERE at < $1", &[&before])
            .await? as usize)
    }
}
