//! The outbox: notifications waiting to be delivered, and what became of them, written once
//! for both backends (`store/sql.rs`).
//!
//! **Queueing with a cause.** Whatever causes a notification writes it in the same
//! transaction as itself, so that both are kept or neither: inside the store, call
//! [`enqueue_in`] (one notification) or [`enqueue_list_in`] (one per contact of a
//! distribution list) with the cause's transaction, then wake the sender
//! (`notify::Notifier::wake`) after the commit. A key already queued is not queued twice.
//! Outside a cause's transaction, [`OutboxStore::enqueue`] queues in its own.
//!
//! **Delivery.** `notify` leases due rows ([`OutboxStore::claim_due`]: the attempt is
//! counted when leased), delivers them, and marks each sent, due again later, or failed.
//! A lease left behind by a killed process expires and its row is delivered again: at
//! least once, with the row's key as the e-mail's Message-ID and the gateway's `{key}`. One
//! instance sends at a time (the lease `notify`, `store::leases`); even so the claim leases
//! due rows with `FOR UPDATE SKIP LOCKED` on PostgreSQL, so that two senders (a lease lost
//! and taken over) never take the same row at once.

use std::collections::{BTreeMap, HashMap};

use async_trait::async_trait;

use super::distributions::distribution_by_id;
use super::sql::{self, Exec, Row, SqlStore};
use super::{StoreError, StoreResult};
use crate::clock::now_ms;
use crate::domain::delivery::destination;
use crate::domain::distribution::ContactType;
use crate::domain::notify::{
    address, Attachment, Message, NewNotification, Notification, NotificationState,
};
use crate::domain::page::{Page, PageRequest};

/// A leased notification with its attachments, ready to deliver.
#[derive(Debug, Clone)]
pub struct Claimed {
    pub notification: Notification,
    pub attachments: Vec<Attachment>,
    /// The destination it counts against (`domain::delivery::destination`, as stored).
    pub dest: String,
}

/// Which notifications a list shows.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct NotificationFilter {
    pub cause: Option<String>,
    pub state: Option<NotificationState>,
}

/// What the outbox holds, by state.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct OutboxCounts {
    pub queued: i64,
    pub sent: i64,
    pub failed: i64,
}

/// What became of one attempt, to record ([`OutboxStore::record_outcomes`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Recorded {
    /// Delivered at `at_ms`.
    Sent { id: i64, at_ms: i64 },
    /// Not delivered: due again at `retry_at_ms`, or failed for good when `None`.
    Failed {
        id: i64,
        reason: String,
        /// The reason's stable code (`domain::delivery::ReasonCode::as_stored`).
        code: String,
        retry_at_ms: Option<i64>,
    },
}

/// Records outcomes in one statement, whatever their number (a row must still be queued: a
/// row another sender finished meanwhile is left as it is). One statement a notification was
/// most of what PostgreSQL spent on the sender (the largest cost in `pg_stat_statements`).
///
/// The outcomes cross as one JSON array, each with the state its row ends in and the times
/// that move: a delivery ends `sent` at its time, a retry stays `queued` with its next
/// time, a failure for good ends `failed`; each keeps its reason (none for a delivery).
async fn record_all_in(c: &impl Exec, outcomes: &[Recorded]) -> StoreResult<()> {
    let rows: Vec<serde_json::Value> = outcomes
        .iter()
        .map(|o| match o {
            Recorded::Sent { id, at_ms } => {
                serde_json::json!({ "id": id, "state": "sent", "sent_ms": at_ms })
            }
            Recorded::Failed {
                id,
                reason,
                code,
                retry_at_ms: Some(at),
            } => serde_json::json!({
                "id": id, "state": "queued", "next_ms": at, "reason": reason, "code": code
            }),
            Recorded::Failed {
                id,
                reason,
                code,
                retry_at_ms: None,
            } => serde_json::json!({ "id": id, "state": "failed", "reason": reason, "code": code }),
        })
        .collect();
    let json = serde_json::Value::Array(rows).to_string();
    let from = if c.postgres() {
        // Planned for this call (the outbox grows: a plan cached while it was small would
        // scan it).
        c.execute("SET LOCAL plan_cache_mode = force_custom_plan", &[])
            .await?;
        "json_to_recordset(CAST($1 AS JSON))
              AS v(id BIGINT, state TEXT, sent_ms BIGINT, next_ms BIGINT, reason TEXT, code TEXT)"
    } else {
        "(SELECT json_extract(value, '$.id') AS id, json_extract(value, '$.state') AS state,
                 json_extract(value, '$.sent_ms') AS sent_ms,
                 json_extract(value, '$.next_ms') AS next_ms,
                 json_extract(value, '$.reason') AS reason,
                 json_extract(value, '$.code') AS code
            FROM json_each($1)) AS v"
    };
    c.execute(
        &format!(
            "UPDATE outbox SET state = v.state, sent_ms = coalesce(v.sent_ms, outbox.sent_ms),
                    next_ms = coalesce(v.next_ms, outbox.next_ms), lease_ms = NULL,
                    reason = v.reason, reason_code = v.code
               FROM {from}
              WHERE outbox.id = v.id AND outbox.state = 'queued'"
        ),
        &[&json],
    )
    .await?;
    Ok(())
}

#[async_trait]
pub trait OutboxStore {
    /// Queues notifications in one transaction of their own; returns their ids (the id of
    /// the row already queued for a key given twice).
    async fn enqueue(&self, items: Vec<NewNotification>) -> StoreResult<Vec<i64>>;
    /// Queues one notification per contact of a distribution list (see [`enqueue_list_in`]).
    async fn enqueue_list(
        &self,
        list_id: i64,
        msg: Message,
        key_prefix: String,
        cause: String,
    ) -> StoreResult<Vec<i64>>;
    /// Leases up to `limit` due notifications until `now_ms + lease_ms` and counts the
    /// attempt, leaving those whose destination is in `busy` (its slots are all taken).
    async fn claim_due(
        &self,
        now_ms: i64,
        lease_ms: i64,
        limit: u32,
        busy: &[String],
    ) -> StoreResult<Vec<Claimed>>;
    /// Fails for good, in one statement, every due notification (not leased) of a channel
    /// in `unsendable`, each with its channel's reason and `code`, its attempt counted: a
    /// channel without a server needs no slot, no lease and no commit a notification.
    /// Returns the ids failed, with their channel.
    async fn fail_unsendable(
        &self,
        now_ms: i64,
        unsendable: &[(ContactType, String)],
        code: &str,
    ) -> StoreResult<Vec<(i64, ContactType)>>;
    /// Gives leased notifications back unattempted (their destination turned out busy):
    /// due again at once, their attempt not counted.
    async fn unclaim(&self, ids: Vec<i64>) -> StoreResult<()>;
    /// Marks a notification delivered.
    async fn mark_sent(&self, id: i64, at_ms: i64) -> StoreResult<()>;
    /// Records what became of several attempts, in one transaction (the sender's group
    /// commit: one commit for the outcomes that came in while the previous one was written).
    async fn record_outcomes(&self, outcomes: Vec<Recorded>) -> StoreResult<()>;
    /// Records a failed attempt: due again at `retry_at_ms`, or failed for good when `None`.
    async fn mark_attempt_failed(
        &self,
        id: i64,
        reason: &str,
        code: &str,
        retry_at_ms: Option<i64>,
    ) -> StoreResult<()>;
    async fn notification(&self, id: i64) -> StoreResult<Option<Notification>>;
    /// Newest first.
    async fn list_notifications(
        &self,
        page: PageRequest,
        filter: &NotificationFilter,
    ) -> StoreResult<Page<Notification>>;
    /// When the next queued notification is due (leased ones: when their lease ends).
    async fn next_due_ms(&self) -> StoreResult<Option<i64>>;
    /// The same, leaving out the rows of the destinations in `busy`.
    async fn next_due_ms_except(&self, busy: &[String]) -> StoreResult<Option<i64>>;
    async fn outbox_counts(&self) -> StoreResult<OutboxCounts>;
    /// Ends every lease (at the sender's start: a killed process's leases are void).
    async fn release_leases(&self) -> StoreResult<u64>;
}

/// Queues one notification inside the cause's transaction; returns its id. A key already
/// in the outbox is not queued again (its id is returned).
pub(crate) async fn enqueue_in(
    c: &impl Exec,
    n: &NewNotification,
    now_ms: i64,
) -> StoreResult<i64> {
    let vars = serde_json::to_string(&n.vars).map_err(|e| StoreError::Invalid(e.to_string()))?;
    let inserted: Option<i64> = c
        .scalar_opt(
            "INSERT INTO outbox (key, channel, recipient, subject, body_text, body_html, vars,
                                 cause, created_ms, next_ms, dest)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9, $10)
             ON CONFLICT (key) DO NOTHING RETURNING id",
            &[
                &n.key,
                &n.channel.id(),
                &n.recipient,
                &n.subject,
                &n.text,
                &n.html,
                &vars,
                &n.cause,
                &now_ms,
                &destination(n.channel, &n.recipient),
            ],
        )
        .await?;
    let Some(id) = inserted else {
        return c
            .scalar("SELECT id FROM outbox WHERE key = $1", &[&n.key])
            .await;
    };
    for (i, a) in n.attachments.iter().enumerate() {
        c.execute(
            "INSERT INTO outbox_attachments (outbox_id, position, name, content_type, data,
                                             content_id)
             VALUES ($1, $2, $3, $4, $5, $6)",
            &[
                &id,
                &(i as i64),
                &a.name,
                &a.content_type,
                &a.data,
                &a.content_id,
            ],
        )
        .await?;
    }
    Ok(id)
}

/// Queues `msg` to every contact of distribution list `list_id` inside the cause's
/// transaction (keys `{key_prefix}:{row}`); a `NotFound` when the list does not exist.
pub(crate) async fn enqueue_list_in(
    c: &impl Exec,
    list_id: i64,
    msg: &Message,
    key_prefix: &str,
    cause: &str,
    now_ms: i64,
) -> StoreResult<Vec<i64>> {
    enqueue_kinds_in(c, list_id, msg, key_prefix, cause, now_ms, |_| true).await
}

/// As [`enqueue_list_in`], to the list's contacts of the kinds `keep` keeps (each keeps
/// its row's key).
pub(crate) async fn enqueue_kinds_in(
    c: &impl Exec,
    list_id: i64,
    msg: &Message,
    key_prefix: &str,
    cause: &str,
    now_ms: i64,
    keep: impl Fn(ContactType) -> bool,
) -> StoreResult<Vec<i64>> {
    let Some(list) = distribution_by_id(c, list_id).await? else {
        return Err(StoreError::NotFound(format!(
            "Distribution list {list_id} does not exist."
        )));
    };
    let mut ids = Vec::with_capacity(list.contacts.len());
    for n in address(&list.contacts, msg, key_prefix, cause) {
        if keep(n.channel) {
            ids.push(enqueue_in(c, &n, now_ms).await?);
        }
    }
    Ok(ids)
}

/// The notifications of these causes, oldest first (an alert event's, by `alert:{id}` and
/// `recovery:{id}`): each cause's in turn.
pub(crate) async fn notifications_of_causes(
    c: &impl Exec,
    causes: &[String],
) -> StoreResult<Vec<Notification>> {
    let mut out = Vec::new();
    for cause in causes {
        let rows = c
            .query(
                &format!("SELECT {COLUMNS} FROM outbox WHERE cause = $1 ORDER BY id"),
                &[cause],
            )
            .await?;
        for r in &rows {
            out.push(row(r)?);
        }
    }
    Ok(out)
}

const COLUMNS: &str = "id, key, channel, recipient, subject, body_text, body_html, vars, cause,
                       state, attempts, reason, created_ms, next_ms, sent_ms, reason_code, dest";

fn row(r: &Row) -> StoreResult<Notification> {
    let vars: String = r.col("vars")?;
    Ok(Notification {
        id: r.col("id")?,
        key: r.col("key")?,
        channel: ContactType::of_id(r.col("channel")?).unwrap_or(ContactType::Email),
        recipient: r.col("recipient")?,
        subject: r.col("subject")?,
        text: r.col("body_text")?,
        html: r.col("body_html")?,
        vars: serde_json::from_str::<BTreeMap<String, String>>(&vars).unwrap_or_default(),
        cause: r.col("cause")?,
        state: NotificationState::parse(&r.col::<String>("state")?)
            .unwrap_or(NotificationState::Queued),
        attempts: r.col::<i64>("attempts")?.clamp(0, i64::from(u32::MAX)) as u32,
        reason: r.col("reason")?,
        created_ms: r.col("created_ms")?,
        next_ms: r.col("next_ms")?,
        sent_ms: r.col("sent_ms")?,
        reason_code: r.col("reason_code")?,
    })
}

#[async_trait]
impl<S: SqlStore> OutboxStore for S {
    async fn enqueue(&self, items: Vec<NewNotification>) -> StoreResult<Vec<i64>> {
        sql::write!(self, |c| {
            let now = now_ms();
            let mut ids = Vec::with_capacity(items.len());
            for n in &items {
                ids.push(enqueue_in(c, n, now).await?);
            }
            Ok(ids)
        })
    }

    async fn enqueue_list(
        &self,
        list_id: i64,
        msg: Message,
        key_prefix: String,
        cause: String,
    ) -> StoreResult<Vec<i64>> {
        sql::write!(self, |c| {
            enqueue_list_in(c, list_id, &msg, &key_prefix, &cause, now_ms()).await
        })
    }

    async fn claim_due(
        &self,
        now_ms: i64,
        lease_ms: i64,
        limit: u32,
        busy: &[String],
    ) -> StoreResult<Vec<Claimed>> {
        let busy = busy.to_vec();
        sql::write!(self, |c| {
            // Each row has its own lease: several senders (a lease lost and taken over)
            // never take the same row at once (PostgreSQL: `SKIP LOCKED`).
            let skip = if busy.is_empty() {
                String::new()
            } else {
                format!(" AND dest NOT IN ({})", sql::placeholders(4, busy.len()))
            };
            let sql = format!(
                "WITH due AS (
                     SELECT id FROM outbox
                      WHERE state = 'queued' AND next_ms <= $1
                        AND (lease_ms IS NULL OR lease_ms <= $1){skip}
                      ORDER BY next_ms, id LIMIT $2{})
                 UPDATE outbox SET lease_ms = $3, attempts = attempts + 1
                  WHERE id IN (SELECT id FROM due)
                 RETURNING {COLUMNS}",
                c.pg_only(" FOR UPDATE SKIP LOCKED")
            );
            let until = now_ms + lease_ms;
            let mut params: Vec<&dyn sql::Param> = vec![&now_ms, &limit, &until];
            params.extend(busy.iter().map(|b| b as &dyn sql::Param));
            let rows = c.query(&sql, &params).await?;
            let mut claimed = rows
                .iter()
                .map(|r| Ok((row(r)?, r.col::<String>("dest")?)))
                .collect::<StoreResult<Vec<_>>>()?;
            claimed.sort_by_key(|(n, _)| (n.next_ms, n.id));
            let mut attachments: HashMap<i64, Vec<Attachment>> = HashMap::new();
            if !claimed.is_empty() {
                let ids: Vec<i64> = claimed.iter().map(|(n, _)| n.id).collect();
                let params: Vec<&dyn sql::Param> = ids.iter().map(|id| id as _).collect();
                let sql = format!(
                    "SELECT outbox_id, name, content_type, data, content_id FROM outbox_attachments
                      WHERE outbox_id IN ({}) ORDER BY outbox_id, position",
                    sql::placeholders(1, ids.len())
                );
                for r in c.query(&sql, &params).await? {
                    attachments
                        .entry(r.col("outbox_id")?)
                        .or_default()
                        .push(Attachment {
                            name: r.col("name")?,
                            content_type: r.col("content_type")?,
                            data: r.col("data")?,
                            content_id: r.col("content_id")?,
                        });
                }
            }
            Ok(claimed
                .into_iter()
                .map(|(notification, dest)| Claimed {
                    attachments: attachments.remove(&notification.id).unwrap_or_default(),
                    notification,
                    dest,
                })
                .collect())
        })
    }

    async fn fail_unsendable(
        &self,
        now_ms: i64,
        unsendable: &[(ContactType, String)],
        code: &str,
    ) -> StoreResult<Vec<(i64, ContactType)>> {
        if unsendable.is_empty() {
            return Ok(Vec::new());
        }
        let channels: Vec<(i64, String)> = unsendable
            .iter()
            .map(|(k, r)| (k.id(), r.clone()))
            .collect();
        let code = code.to_string();
        sql::write!(self, |c| {
            // $3, $5, … the channels, $4, $6, … their reasons.
            let when: String = (0..channels.len())
                .map(|i| format!(" WHEN ${} THEN ${}", 3 + 2 * i, 4 + 2 * i))
                .collect();
            let list: Vec<String> = (0..channels.len())
                .map(|i| format!("${}", 3 + 2 * i))
                .collect();
            let sql = format!(
                "UPDATE outbox SET state = 'failed', attempts = attempts + 1, lease_ms = NULL,
                        reason = CASE channel{when} END, reason_code = $2
                  WHERE state = 'queued' AND next_ms <= $1
                    AND (lease_ms IS NULL OR lease_ms <= $1) AND channel IN ({})
                 RETURNING id, channel",
                list.join(", ")
            );
            let mut params: Vec<&dyn sql::Param> = vec![&now_ms, &code];
            for (channel, reason) in &channels {
                params.push(channel);
                params.push(reason);
            }
            let mut failed = Vec::new();
            for r in c.query(&sql, &params).await? {
                if let Some(kind) = ContactType::of_id(r.col("channel")?) {
                    failed.push((r.col("id")?, kind));
                }
            }
            Ok(failed)
        })
    }

    async fn unclaim(&self, ids: Vec<i64>) -> StoreResult<()> {
        if ids.is_empty() {
            return Ok(());
        }
        sql::write!(self, |c| {
            let params: Vec<&dyn sql::Param> = ids.iter().map(|id| id as _).collect();
            c.execute(
                &format!(
                    "UPDATE outbox SET lease_ms = NULL, attempts = attempts - 1
                      WHERE state = 'queued' AND attempts > 0 AND id IN ({})",
                    sql::placeholders(1, ids.len())
                ),
                &params,
            )
            .await?;
            Ok(())
        })
    }

    async fn mark_sent(&self, id: i64, at_ms: i64) -> StoreResult<()> {
        self.record_outcomes(vec![Recorded::Sent { id, at_ms }])
            .await
    }

    async fn record_outcomes(&self, outcomes: Vec<Recorded>) -> StoreResult<()> {
        if outcomes.is_empty() {
            return Ok(());
        }
        sql::write!(self, |c| record_all_in(c, &outcomes).await)
    }

    async fn mark_attempt_failed(
        &self,
        id: i64,
        reason: &str,
        code: &str,
        retry_at_ms: Option<i64>,
    ) -> StoreResult<()> {
        self.record_outcomes(vec![Recorded::Failed {
            id,
            reason: reason.to_string(),
            code: code.to_string(),
            retry_at_ms,
        }])
        .await
    }

    async fn notification(&self, id: i64) -> StoreResult<Option<Notification>> {
        sql::read!(self, |c| {
            c.query_opt(
                &format!("SELECT {COLUMNS} FROM outbox WHERE id = $1"),
                &[&id],
            )
            .await?
            .as_ref()
            .map(row)
            .transpose()
        })
    }

    async fn list_notifications(
        &self,
        page: PageRequest,
        filter: &NotificationFilter,
    ) -> StoreResult<Page<Notification>> {
        let cause = filter.cause.clone();
        let state = filter.state.map(NotificationState::as_str);
        sql::read!(self, |c| {
            let wher =
                "(CAST($1 AS TEXT) IS NULL OR cause = $1) AND (CAST($2 AS TEXT) IS NULL OR state = $2)";
            let total: i64 = c
                .scalar(
                    &format!("SELECT count(*) FROM outbox WHERE {wher}"),
                    &[&cause, &state],
                )
                .await?;
            let items = c
                .query(
                    &format!(
                        "SELECT {COLUMNS} FROM outbox WHERE {wher} ORDER BY id DESC LIMIT $3 OFFSET $4"
                    ),
                    &[&cause, &state, &page.size, &(page.offset() as i64)],
                )
                .await?
                .iter()
                .map(row)
                .collect::<StoreResult<_>>()?;
            Ok(Page {
                items,
                total: total as u64,
            })
        })
    }

    async fn next_due_ms(&self) -> StoreResult<Option<i64>> {
        self.next_due_ms_except(&[]).await
    }

    async fn next_due_ms_except(&self, busy: &[String]) -> StoreResult<Option<i64>> {
        if !busy.is_empty() {
            let busy = busy.to_vec();
            return sql::read!(self, |c| {
                let params: Vec<&dyn sql::Param> =
                    busy.iter().map(|b| b as &dyn sql::Param).collect();
                c.scalar(
                    &format!(
                        "SELECT min(CASE WHEN next_ms > coalesce(lease_ms, 0) THEN next_ms
                                         ELSE coalesce(lease_ms, 0) END)
                           FROM outbox WHERE state = 'queued' AND dest NOT IN ({})",
                        sql::placeholders(1, busy.len())
                    ),
                    &params,
                )
                .await
            });
        }
        sql::read!(self, |c| {
            c.scalar(
                "SELECT min(CASE WHEN next_ms > coalesce(lease_ms, 0) THEN next_ms
                                 ELSE coalesce(lease_ms, 0) END)
                   FROM outbox WHERE state = 'queued'",
                &[],
            )
            .await
        })
    }

    async fn outbox_counts(&self) -> StoreResult<OutboxCounts> {
        sql::read!(self, |c| {
            let r = c
                .query_one(
                    "SELECT count(*) FILTER (WHERE state = 'queued') AS queued,
                            count(*) FILTER (WHERE state = 'sent') AS sent,
                            count(*) FILTER (WHERE state = 'failed') AS failed FROM outbox",
                    &[],
                )
                .await?;
            Ok(OutboxCounts {
                queued: r.col("queued")?,
                sent: r.col("sent")?,
                failed: r.col("failed")?,
            })
        })
    }

    /// Only the instance holding the lease `notify` sends (`store::leases`): at its start,
    /// the rows leased by an instance that died or lost the lease are void and due again.
    async fn release_leases(&self) -> StoreResult<u64> {
        sql::write!(self, |c| {
            c.execute(
                "UPDATE outbox SET lease_ms = NULL WHERE state = 'queued' AND lease_ms IS NOT NULL",
                &[],
            )
            .await
        })
    }
}

#[cfg(test)]
mod tests {
    //! The PostgreSQL tests run with `TEST_POSTGRES_URL` set (each gets a fresh database);
    //! without it they pass at once.
    use std::collections::BTreeSet;
    use std::sync::Arc;

    use super::*;
    use crate::domain::distribution::ContactType;
    use crate::store::pg::testdb::connect;

    fn note(key: &str, attachments: Vec<Attachment>) -> NewNotification {
        NewNotification {
            key: key.into(),
            channel: ContactType::Email,
            recipient: "ops@example.com".into(),
            subject: format!("subject {key}"),
            text: "text".into(),
            html: Some("<p>html</p>".into()),
            vars: [("testCase".to_string(), "Case 1".to_string())].into(),
            attachments,
            cause: "test".into(),
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn two_senders_never_take_the_same_row() {
        let Some(url) = crate::store::pg::testdb::fresh().await else {
            return;
        };
        let dir = tempfile::tempdir().unwrap();
        let a = Arc::new(connect(&url, dir.path()).await);
        let b = Arc::new(connect(&url, dir.path()).await);
        let wav = Attachment {
            name: "run-1.wav".into(),
            content_type: "audio/wav".into(),
            data: vec![0, 1, 2, 255],
            content_id: None,
        };
        let items: Vec<NewNotification> = (0..60)
            .map(|i| {
                note(
                    &format!("k{i}"),
                    if i == 3 { vec![wav.clone()] } else { vec![] },
                )
            })
            .collect();
        let ids = a.enqueue(items.clone()).await.unwrap();
        assert_eq!(ids.len(), 60);
        // A key already queued is not queued again: its id is answered.
        assert_eq!(
            a.enqueue(vec![items[5].clone()]).await.unwrap(),
            vec![ids[5]]
        );
        let now = now_ms();
        let mut tasks = Vec::new();
        for store in [a.clone(), b.clone(), a.clone(), b.clone()] {
            tasks.push(tokio::spawn(async move {
                let mut mine = Vec::new();
                loop {
                    let got = store.claim_due(now, 60_000, 7, &[]).await.unwrap();
                    if got.is_empty() {
                        return mine;
                    }
                    mine.extend(got);
                }
            }));
        }
        let mut seen = BTreeSet::new();
        let mut total = 0;
        for t in tasks {
            for c in t.await.unwrap() {
                total += 1;
                assert!(seen.insert(c.notification.id), "taken twice");
                assert_eq!(c.notification.attempts, 1);
                if c.notification.key == "k3" {
                    assert_eq!(c.attachments, vec![wav.clone()]);
                    assert_eq!(c.notification.vars["testCase"], "Case 1");
                } else {
                    assert!(c.attachments.is_empty());
                }
            }
        }
        assert_eq!(total, 60);
        assert_eq!(seen, ids.iter().copied().collect());
        // Leased: nothing due until the leases end; then they are due again.
        assert!(a.claim_due(now, 60_000, 100, &[]).await.unwrap().is_empty());
        assert_eq!(a.next_due_ms().await.unwrap(), Some(now + 60_000));
        a.mark_sent(ids[0], now).await.unwrap();
        a.mark_attempt_failed(ids[1], "refused", "failed", None)
            .await
            .unwrap();
        a.mark_attempt_failed(ids[2], "busy", "timeout", Some(now + 5))
            .await
            .unwrap();
        assert_eq!(
            a.outbox_counts().await.unwrap(),
            OutboxCounts {
                queued: 58,
                sent: 1,
                failed: 1
            }
        );
        assert_eq!(a.release_leases().await.unwrap(), 57);
        let again = a.claim_due(now + 5, 60_000, 100, &[]).await.unwrap();
        assert_eq!(again.len(), 58);
        assert_eq!(again[0].notification.id, ids[3], "by due time, then id");
        assert_eq!(again.last().unwrap().notification.id, ids[2]);
        let failed = a.notification(ids[1]).await.unwrap().unwrap();
        assert_eq!(failed.state, NotificationState::Failed);
        assert_eq!(failed.reason.as_deref(), Some("refused"));
        let page = a
            .list_notifications(
                PageRequest { no: 0, size: 5 },
                &NotificationFilter {
                    cause: Some("test".into()),
                    state: Some(NotificationState::Sent),
                },
            )
            .await
            .unwrap();
        assert_eq!(page.total, 1);
        assert_eq!(page.items[0].id, ids[0]);
        several_outcomes_in_one_statement(&*a).await;
    }

    #[tokio::test]
    async fn unsendable_channels_fail_in_one_statement_on_sqlite() {
        let dir = tempfile::tempdir().unwrap();
        let store =
            crate::store::Sqlite::open(dir.path(), crate::store::StoreOptions::default()).unwrap();
        unsendable_channels_fail_in_one_statement(&store).await;
    }

    #[tokio::test]
    async fn unsendable_channels_fail_in_one_statement_on_postgres() {
        let Some(url) = crate::store::pg::testdb::fresh().await else {
            return;
        };
        let dir = tempfile::tempdir().unwrap();
        unsendable_channels_fail_in_one_statement(&connect(&url, dir.path()).await).await;
    }

    /// The rows of the channels without a server fail for good, each with its channel's
    /// reason, their attempt counted; a row of another channel, one leased by a sender and
    /// one not due yet are left queued.
    async fn unsendable_channels_fail_in_one_statement(store: &impl OutboxStore) {
        let of = |key: &str, channel| NewNotification {
            channel,
            ..note(key, vec![])
        };
        let ids = store
            .enqueue(vec![
                of("sms", ContactType::Sms),
                of("teams", ContactType::Teams),
                of("mail", ContactType::Email),
                of("sms-leased", ContactType::Sms),
                of("sms-later", ContactType::Sms),
            ])
            .await
            .unwrap();
        let now = now_ms();
        // The leased row: another sender's, until its lease ends.
        let leased = store.claim_due(now, 60_000, 4, &[]).await.unwrap();
        assert_eq!(leased.len(), 4);
        store.unclaim(ids[..3].to_vec()).await.unwrap();
        store
            .record_outcomes(vec![Recorded::Failed {
                id: ids[4],
                reason: "busy".into(),
                code: "timeout".into(),
                retry_at_ms: Some(now + 60_000),
            }])
            .await
            .unwrap();
        let unsendable = [
            (ContactType::Sms, "no gateway, l'SMS \"non\"".to_string()),
            (ContactType::Teams, "no webhooks".to_string()),
        ];
        let mut failed = store
            .fail_unsendable(now, &unsendable, "not_configured")
            .await
            .unwrap();
        failed.sort_by_key(|(id, _)| *id);
        assert_eq!(
            failed,
            vec![(ids[0], ContactType::Sms), (ids[1], ContactType::Teams)]
        );
        let got = |i: usize| store.notification(ids[i]);
        let sms = got(0).await.unwrap().unwrap();
        assert_eq!(
            (sms.state, sms.attempts, sms.reason.as_deref()),
            (NotificationState::Failed, 1, Some(unsendable[0].1.as_str()))
        );
        assert_eq!(sms.reason_code.as_deref(), Some("not_configured"));
        let teams = got(1).await.unwrap().unwrap();
        assert_eq!(teams.reason.as_deref(), Some("no webhooks"));
        for i in [2, 3, 4] {
            assert_eq!(
                got(i).await.unwrap().unwrap().state,
                NotificationState::Queued
            );
        }
        // Nothing else to fail: a second call finds nothing.
        assert!(store
            .fail_unsendable(now, &unsendable, "not_configured")
            .await
            .unwrap()
            .is_empty());
        assert!(store
            .fail_unsendable(now, &[], "not_configured")
            .await
            .unwrap()
            .is_empty());
    }

    #[tokio::test]
    async fn several_outcomes_in_one_statement_on_sqlite() {
        let dir = tempfile::tempdir().unwrap();
        let store =
            crate::store::Sqlite::open(dir.path(), crate::store::StoreOptions::default()).unwrap();
        several_outcomes_in_one_statement(&store).await;
    }

    /// Outcomes recorded together: each row ends as its own says, and a row another sender
    /// finished already is left as it is.
    async fn several_outcomes_in_one_statement(store: &impl OutboxStore) {
        let ids = store
            .enqueue((0..4).map(|i| note(&format!("many{i}"), vec![])).collect())
            .await
            .unwrap();
        let now = now_ms();
        store.mark_sent(ids[0], now).await.unwrap();
        let reason = "l'hôte a dit \"non\" \\ 🚫";
        store
            .record_outcomes(vec![
                Recorded::Sent {
                    id: ids[0],
                    at_ms: now + 99,
                },
                Recorded::Sent {
                    id: ids[1],
                    at_ms: now + 1,
                },
                Recorded::Failed {
                    id: ids[2],
                    reason: reason.into(),
                    code: "http_status:404".into(),
                    retry_at_ms: None,
                },
                Recorded::Failed {
                    id: ids[3],
                    reason: "busy".into(),
                    code: "timeout".into(),
                    retry_at_ms: Some(now + 7),
                },
            ])
            .await
            .unwrap();
        let got = |i: usize| store.notification(ids[i]);
        let first = got(0).await.unwrap().unwrap();
        assert_eq!(
            (first.state, first.sent_ms),
            (NotificationState::Sent, Some(now))
        );
        let sent = got(1).await.unwrap().unwrap();
        assert_eq!(
            (sent.state, sent.sent_ms, sent.reason),
            (NotificationState::Sent, Some(now + 1), None)
        );
        let failed = got(2).await.unwrap().unwrap();
        assert_eq!(failed.state, NotificationState::Failed);
        assert_eq!(failed.reason.as_deref(), Some(reason));
        assert_eq!(failed.sent_ms, None);
        let retry = got(3).await.unwrap().unwrap();
        assert_eq!(
            (retry.state, retry.next_ms, retry.reason.as_deref()),
            (NotificationState::Queued, now + 7, Some("busy"))
        );
    }
}
