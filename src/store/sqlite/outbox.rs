//! SQLite: [`OutboxStore`], and the queueing inside a cause's transaction
//! ([`enqueue_in`], [`enqueue_list_in`]) that the alert engine uses.

use std::collections::BTreeMap;

use async_trait::async_trait;
use rusqlite::{params, Connection, OptionalExtension, Transaction};

use crate::domain::distribution::ContactType;
use crate::domain::notify::{
    address, Attachment, Message, NewNotification, Notification, NotificationState,
};
use crate::domain::page::{Page, PageRequest};
use crate::store::distributions::distribution_by_id;
use crate::store::outbox::{now_ms, Claimed, NotificationFilter, OutboxCounts, OutboxStore};
use crate::store::sql::{self, Lite};
use crate::store::{Sqlite, StoreError, StoreResult};

/// Queues one notification inside the cause's transaction; returns its id. A key already
/// in the outbox is not queued again (its id is returned).
pub(super) fn enqueue_in(tx: &Transaction, n: &NewNotification, now_ms: i64) -> StoreResult<i64> {
    let vars = serde_json::to_string(&n.vars).map_err(|e| StoreError::Invalid(e.to_string()))?;
    let inserted = tx.execute(
        "INSERT INTO outbox (key, channel, recipient, subject, body_text, body_html, vars, cause,
                             created_ms, next_ms)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?9)
         ON CONFLICT (key) DO NOTHING",
        params![
            n.key,
            n.channel.id(),
            n.recipient,
            n.subject,
            n.text,
            n.html,
            vars,
            n.cause,
            now_ms
        ],
    )?;
    if inserted == 0 {
        return Ok(
            tx.query_row("SELECT id FROM outbox WHERE key = ?1", [&n.key], |r| {
                r.get(0)
            })?,
        );
    }
    let id = tx.last_insert_rowid();
    let mut ins = tx.prepare_cached(
        "INSERT INTO outbox_attachments (outbox_id, position, name, content_type, data)
         VALUES (?1, ?2, ?3, ?4, ?5)",
    )?;
    for (i, a) in n.attachments.iter().enumerate() {
        ins.execute(params![id, i as i64, a.name, a.content_type, a.data])?;
    }
    Ok(id)
}

/// Queues `msg` to every contact of distribution list `list_id` inside the cause's
/// transaction (keys `{key_prefix}:{row}`); a `NotFound` when the list does not exist.
pub(super) fn enqueue_list_in(
    tx: &Transaction,
    list_id: i64,
    msg: &Message,
    key_prefix: &str,
    cause: &str,
    now_ms: i64,
) -> StoreResult<Vec<i64>> {
    let Some(list) = sql::finish(distribution_by_id(&Lite(tx), list_id))? else {
        return Err(StoreError::NotFound(format!(
            "Distribution list {list_id} does not exist."
        )));
    };
    address(&list.contacts, msg, key_prefix, cause)
        .iter()
        .map(|n| enqueue_in(tx, n, now_ms))
        .collect()
}

/// The notifications of these causes, oldest first (an alert event's, by `alert:{id}` and
/// `recovery:{id}`).
pub(super) fn notifications_of_causes(
    conn: &Connection,
    causes: &[String],
) -> StoreResult<Vec<Notification>> {
    let mut out = Vec::new();
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM outbox WHERE cause = ?1 ORDER BY id"
    ))?;
    for cause in causes {
        let rows = stmt
            .query_map([cause], row)?
            .collect::<Result<Vec<_>, _>>()?;
        out.extend(rows);
    }
    Ok(out)
}

const COLUMNS: &str = "id, key, channel, recipient, subject, body_text, body_html, vars, cause,
                       state, attempts, reason, created_ms, next_ms, sent_ms";

fn row(r: &rusqlite::Row) -> rusqlite::Result<Notification> {
    let vars: String = r.get(7)?;
    Ok(Notification {
        id: r.get(0)?,
        key: r.get(1)?,
        channel: ContactType::of_id(r.get(2)?).unwrap_or(ContactType::Email),
        recipient: r.get(3)?,
        subject: r.get(4)?,
        text: r.get(5)?,
        html: r.get(6)?,
        vars: serde_json::from_str::<BTreeMap<String, String>>(&vars).unwrap_or_default(),
        cause: r.get(8)?,
        state: NotificationState::parse(&r.get::<_, String>(9)?)
            .unwrap_or(NotificationState::Queued),
        attempts: r.get(10)?,
        reason: r.get(11)?,
        created_ms: r.get(12)?,
        next_ms: r.get(13)?,
        sent_ms: r.get(14)?,
    })
}

fn attachments_of(conn: &Connection, id: i64) -> StoreResult<Vec<Attachment>> {
    let mut stmt = conn.prepare_cached(
        "SELECT name, content_type, data FROM outbox_attachments WHERE outbox_id = ?1
          ORDER BY position",
    )?;
    let rows = stmt
        .query_map([id], |r| {
            Ok(Attachment {
                name: r.get(0)?,
                content_type: r.get(1)?,
                data: r.get(2)?,
            })
        })?
        .collect::<Result<_, _>>()?;
    Ok(rows)
}

#[async_trait]
impl OutboxStore for Sqlite {
    async fn enqueue(&self, items: Vec<NewNotification>) -> StoreResult<Vec<i64>> {
        self.write(move |tx| {
            let now = now_ms();
            items.iter().map(|n| enqueue_in(tx, n, now)).collect()
        })
        .await
    }

    async fn enqueue_list(
        &self,
        list_id: i64,
        msg: Message,
        key_prefix: String,
        cause: String,
    ) -> StoreResult<Vec<i64>> {
        self.write(move |tx| enqueue_list_in(tx, list_id, &msg, &key_prefix, &cause, now_ms()))
            .await
    }

    async fn claim_due(&self, now_ms: i64, lease_ms: i64, limit: u32) -> StoreResult<Vec<Claimed>> {
        self.write(move |tx| {
            let ids: Vec<i64> = {
                let mut stmt = tx.prepare_cached(
                    "SELECT id FROM outbox
                      WHERE state = 'queued' AND next_ms <= ?1
                        AND (lease_ms IS NULL OR lease_ms <= ?1)
                      ORDER BY next_ms, id LIMIT ?2",
                )?;
                let ids = stmt
                    .query_map(params![now_ms, limit], |r| r.get(0))?
                    .collect::<Result<_, _>>()?;
                ids
            };
            let mut out = Vec::with_capacity(ids.len());
            let mut lease = tx.prepare_cached(
                "UPDATE outbox SET lease_ms = ?2, attempts = attempts + 1 WHERE id = ?1",
            )?;
            let mut read =
                tx.prepare_cached(&format!("SELECT {COLUMNS} FROM outbox WHERE id = ?1"))?;
            for id in ids {
                lease.execute(params![id, now_ms + lease_ms])?;
                let notification = read.query_row([id], row)?;
                out.push(Claimed {
                    notification,
                    attachments: attachments_of(tx, id)?,
                });
            }
            Ok(out)
        })
        .await
    }

    async fn mark_sent(&self, id: i64, at_ms: i64) -> StoreResult<()> {
        self.write(move |tx| {
            tx.execute(
                "UPDATE outbox SET state = 'sent', sent_ms = ?2, lease_ms = NULL, reason = NULL
                  WHERE id = ?1 AND state = 'queued'",
                params![id, at_ms],
            )?;
            Ok(())
        })
        .await
    }

    async fn mark_attempt_failed(
        &self,
        id: i64,
        reason: &str,
        retry_at_ms: Option<i64>,
    ) -> StoreResult<()> {
        let reason = reason.to_string();
        self.write(move |tx| {
            match retry_at_ms {
                Some(at) => tx.execute(
                    "UPDATE outbox SET next_ms = ?2, lease_ms = NULL, reason = ?3
                      WHERE id = ?1 AND state = 'queued'",
                    params![id, at, reason],
                )?,
                None => tx.execute(
                    "UPDATE outbox SET state = 'failed', lease_ms = NULL, reason = ?2
                      WHERE id = ?1 AND state = 'queued'",
                    params![id, reason],
                )?,
            };
            Ok(())
        })
        .await
    }

    async fn notification(&self, id: i64) -> StoreResult<Option<Notification>> {
        self.read(move |c| {
            Ok(c.query_row(
                &format!("SELECT {COLUMNS} FROM outbox WHERE id = ?1"),
                [id],
                row,
            )
            .optional()?)
        })
        .await
    }

    async fn list_notifications(
        &self,
        page: PageRequest,
        filter: &NotificationFilter,
    ) -> StoreResult<Page<Notification>> {
        let f = filter.clone();
        self.read(move |c| {
            let state = f.state.map(NotificationState::as_str);
            let wher = "(?1 IS NULL OR cause = ?1) AND (?2 IS NULL OR state = ?2)";
            let total: i64 = c.query_row(
                &format!("SELECT count(*) FROM outbox WHERE {wher}"),
                params![f.cause, state],
                |r| r.get(0),
            )?;
            let mut stmt = c.prepare_cached(&format!(
                "SELECT {COLUMNS} FROM outbox WHERE {wher} ORDER BY id DESC LIMIT ?3 OFFSET ?4"
            ))?;
            let items = stmt
                .query_map(
                    params![f.cause, state, page.size, page.offset() as i64],
                    row,
                )?
                .collect::<Result<_, _>>()?;
            Ok(Page {
                items,
                total: total as u64,
            })
        })
        .await
    }

    async fn next_due_ms(&self) -> StoreResult<Option<i64>> {
        self.read(|c| {
            Ok(c.query_row(
                "SELECT min(max(next_ms, coalesce(lease_ms, 0))) FROM outbox WHERE state = 'queued'",
                [],
                |r| r.get(0),
            )?)
        })
        .await
    }

    async fn release_leases(&self) -> StoreResult<u64> {
        self.write(|tx| {
            Ok(tx.execute(
                "UPDATE outbox SET lease_ms = NULL WHERE state = 'queued' AND lease_ms IS NOT NULL",
                [],
            )? as u64)
        })
        .await
    }

    async fn outbox_counts(&self) -> StoreResult<OutboxCounts> {
        self.read(|c| {
            Ok(c.query_row(
                "SELECT coalesce(sum(state = 'queued'), 0), coalesce(sum(state = 'sent'), 0),
                        coalesce(sum(state = 'failed'), 0) FROM outbox",
                [],
                |r| {
                    Ok(OutboxCounts {
                        queued: r.get(0)?,
                        sent: r.get(1)?,
                        failed: r.get(2)?,
                    })
                },
            )?)
        })
        .await
    }
}
