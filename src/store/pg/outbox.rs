//! PostgreSQL: [`OutboxStore`](crate::store::OutboxStore), as `store/sqlite/outbox.rs` has it
//! for SQLite. A cause queues its notifications in its own transaction with [`enqueue_in`] or
//! [`enqueue_list_in`]; a key already queued is not queued twice (`ON CONFLICT (key)`).
//!
//! One instance sends at a time (the lease `notify`, `store::leases`); even so
//! [`OutboxStore::claim_due`] leases due rows with `FOR UPDATE SKIP LOCKED`, so that two
//! senders (a lease lost and taken over) never take the same row at once.
use std::collections::{BTreeMap, HashMap};

use async_trait::async_trait;
use deadpool_postgres::GenericClient;
use tokio_postgres::Row;

use super::Postgres;
use crate::domain::distribution::ContactType;
use crate::domain::notify::{
    address, Attachment, Message, NewNotification, Notification, NotificationState,
};
use crate::domain::page::{Page, PageRequest};
use crate::store::distributions::distribution_by_id;
use crate::store::outbox::{now_ms, Claimed, NotificationFilter, OutboxCounts};
use crate::store::OutboxStore;
use crate::store::{StoreError, StoreResult};

/// Queues one notification inside the cause's transaction; returns its id. A key already
/// in the outbox is not queued again (its id is returned).
pub(crate) async fn enqueue_in(
    tx: &impl GenericClient,
    n: &NewNotification,
    now_ms: i64,
) -> StoreResult<i64> {
    let vars = serde_json::to_string(&n.vars).map_err(|e| StoreError::Invalid(e.to_string()))?;
    let stmt = tx
        .prepare_cached(
            "INSERT INTO outbox (key, channel, recipient, subject, body_text, body_html, vars,
                                 cause, created_ms, next_ms)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9)
             ON CONFLICT (key) DO NOTHING RETURNING id",
        )
        .await?;
    let inserted = tx
        .query_opt(
            &stmt,
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
            ],
        )
        .await?;
    let Some(row) = inserted else {
        let stmt = tx
            .prepare_cached("SELECT id FROM outbox WHERE key = $1")
            .await?;
        return Ok(tx.query_one(&stmt, &[&n.key]).await?.get(0));
    };
    let id: i64 = row.get(0);
    if !n.attachments.is_empty() {
        let positions: Vec<i64> = (0..n.attachments.len() as i64).collect();
        let names: Vec<&str> = n.attachments.iter().map(|a| a.name.as_str()).collect();
        let types: Vec<&str> = n
            .attachments
            .iter()
            .map(|a| a.content_type.as_str())
            .collect();
        let data: Vec<&[u8]> = n.attachments.iter().map(|a| a.data.as_slice()).collect();
        let stmt = tx
            .prepare_cached(
                "INSERT INTO outbox_attachments (outbox_id, position, name, content_type, data)
                 SELECT $1::BIGINT, * FROM unnest($2::BIGINT[], $3::TEXT[], $4::TEXT[], $5::BYTEA[])",
            )
            .await?;
        tx.execute(&stmt, &[&id, &positions, &names, &types, &data])
            .await?;
    }
    Ok(id)
}

/// Queues `msg` to every contact of distribution list `list_id` inside the cause's
/// transaction (keys `{key_prefix}:{row}`); a `NotFound` when the list does not exist.
pub(crate) async fn enqueue_list_in(
    tx: &impl GenericClient,
    list_id: i64,
    msg: &Message,
    key_prefix: &str,
    cause: &str,
    now_ms: i64,
) -> StoreResult<Vec<i64>> {
    let Some(list) = distribution_by_id(&crate::store::sql::Pg(tx), list_id).await? else {
        return Err(StoreError::NotFound(format!(
            "Distribution list {list_id} does not exist."
        )));
    };
    let mut ids = Vec::with_capacity(list.contacts.len());
    for n in address(&list.contacts, msg, key_prefix, cause) {
        ids.push(enqueue_in(tx, &n, now_ms).await?);
    }
    Ok(ids)
}

/// The notifications of these causes, oldest first (an alert event's, by `alert:{id}` and
/// `recovery:{id}`): each cause's in turn.
pub(crate) async fn notifications_of_causes(
    c: &impl GenericClient,
    causes: &[String],
) -> StoreResult<Vec<Notification>> {
    let stmt = c
        .prepare_cached(&format!(
            "SELECT {COLUMNS} FROM outbox WHERE cause = ANY($1::TEXT[])
              ORDER BY array_position($1, cause), id"
        ))
        .await?;
    Ok(c.query(&stmt, &[&causes]).await?.iter().map(row).collect())
}

const COLUMNS: &str = "id, key, channel, recipient, subject, body_text, body_html, vars, cause,
                       state, attempts, reason, created_ms, next_ms, sent_ms";

fn row(r: &Row) -> Notification {
    let vars: String = r.get(7);
    Notification {
        id: r.get(0),
        key: r.get(1),
        channel: ContactType::of_id(r.get(2)).unwrap_or(ContactType::Email),
        recipient: r.get(3),
        subject: r.get(4),
        text: r.get(5),
        html: r.get(6),
        vars: serde_json::from_str::<BTreeMap<String, String>>(&vars).unwrap_or_default(),
        cause: r.get(8),
        state: NotificationState::parse(r.get::<_, &str>(9)).unwrap_or(NotificationState::Queued),
        attempts: r.get::<_, i64>(10).clamp(0, i64::from(u32::MAX)) as u32,
        reason: r.get(11),
        created_ms: r.get(12),
        next_ms: r.get(13),
        sent_ms: r.get(14),
    }
}

#[async_trait]
impl OutboxStore for Postgres {
    async fn enqueue(&self, items: Vec<NewNotification>) -> StoreResult<Vec<i64>> {
        let mut c = self.client().await?;
        let tx = c.transaction().await?;
        let now = now_ms();
        let mut ids = Vec::with_capacity(items.len());
        for n in &items {
            ids.push(enqueue_in(&tx, n, now).await?);
        }
        tx.commit().await?;
        Ok(ids)
    }

    async fn enqueue_list(
        &self,
        list_id: i64,
        msg: Message,
        key_prefix: String,
        cause: String,
    ) -> StoreResult<Vec<i64>> {
        let mut c = self.client().await?;
        let tx = c.transaction().await?;
        let ids = enqueue_list_in(&tx, list_id, &msg, &key_prefix, &cause, now_ms()).await?;
        tx.commit().await?;
        Ok(ids)
    }

    async fn claim_due(&self, now_ms: i64, lease_ms: i64, limit: u32) -> StoreResult<Vec<Claimed>> {
        let mut c = self.client().await?;
        let tx = c.transaction().await?;
        // SKIP LOCKED: rows another sender is leasing right now are left to it.
        let stmt = tx
            .prepare_cached(&format!(
                "WITH due AS (
                     SELECT id FROM outbox
                      WHERE state = 'queued' AND next_ms <= $1
                        AND (lease_ms IS NULL OR lease_ms <= $1)
                      ORDER BY next_ms, id LIMIT $2
                        FOR UPDATE SKIP LOCKED)
                 UPDATE outbox o SET lease_ms = $3, attempts = o.attempts + 1
                   FROM due WHERE o.id = due.id
                 RETURNING {}",
                COLUMNS
                    .split(',')
                    .map(|c| format!("o.{}", c.trim()))
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
            .await?;
        let mut claimed: Vec<Notification> = tx
            .query(&stmt, &[&now_ms, &i64::from(limit), &(now_ms + lease_ms)])
            .await?
            .iter()
            .map(row)
            .collect();
        claimed.sort_by_key(|n| (n.next_ms, n.id));
        let ids: Vec<i64> = claimed.iter().map(|n| n.id).collect();
        let stmt = tx
            .prepare_cached(
                "SELECT outbox_id, name, content_type, data FROM outbox_attachments
                  WHERE outbox_id = ANY($1) ORDER BY outbox_id, position",
            )
            .await?;
        let mut attachments: HashMap<i64, Vec<Attachment>> = HashMap::new();
        for r in tx.query(&stmt, &[&ids]).await? {
            attachments.entry(r.get(0)).or_default().push(Attachment {
                name: r.get(1),
                content_type: r.get(2),
                data: r.get(3),
            });
        }
        tx.commit().await?;
        Ok(claimed
            .into_iter()
            .map(|notification| Claimed {
                attachments: attachments.remove(&notification.id).unwrap_or_default(),
                notification,
            })
            .collect())
    }

    async fn mark_sent(&self, id: i64, at_ms: i64) -> StoreResult<()> {
        let c = self.client().await?;
        c.execute(
            "UPDATE outbox SET state = 'sent', sent_ms = $2, lease_ms = NULL, reason = NULL
              WHERE id = $1 AND state = 'queued'",
            &[&id, &at_ms],
        )
        .await?;
        Ok(())
    }

    async fn mark_attempt_failed(
        &self,
        id: i64,
        reason: &str,
        retry_at_ms: Option<i64>,
    ) -> StoreResult<()> {
        let c = self.client().await?;
        match retry_at_ms {
            Some(at) => {
                c.execute(
                    "UPDATE outbox SET next_ms = $2, lease_ms = NULL, reason = $3
                      WHERE id = $1 AND state = 'queued'",
                    &[&id, &at, &reason],
                )
                .await?
            }
            None => {
                c.execute(
                    "UPDATE outbox SET state = 'failed', lease_ms = NULL, reason = $2
                      WHERE id = $1 AND state = 'queued'",
                    &[&id, &reason],
                )
                .await?
            }
        };
        Ok(())
    }

    async fn notification(&self, id: i64) -> StoreResult<Option<Notification>> {
        let c = self.client().await?;
        Ok(c.query_opt(
            &format!("SELECT {COLUMNS} FROM outbox WHERE id = $1"),
            &[&id],
        )
        .await?
        .as_ref()
        .map(row))
    }

    async fn list_notifications(
        &self,
        page: PageRequest,
        filter: &NotificationFilter,
    ) -> StoreResult<Page<Notification>> {
        let c = self.client().await?;
        let state = filter.state.map(NotificationState::as_str);
        let wher = "($1::TEXT IS NULL OR cause = $1) AND ($2::TEXT IS NULL OR state = $2)";
        let total: i64 = c
            .query_one(
                &format!("SELECT count(*) FROM outbox WHERE {wher}"),
                &[&filter.cause, &state],
            )
            .await?
            .get(0);
        let items = c
            .query(
                &format!(
                    "SELECT {COLUMNS} FROM outbox WHERE {wher} ORDER BY id DESC LIMIT $3 OFFSET $4"
                ),
                &[
                    &filter.cause,
                    &state,
                    &i64::from(page.size),
                    &(page.offset() as i64),
                ],
            )
            .await?
            .iter()
            .map(row)
            .collect();
        Ok(Page {
            items,
            total: total as u64,
        })
    }

    async fn next_due_ms(&self) -> StoreResult<Option<i64>> {
        let c = self.client().await?;
        Ok(c.query_one(
            "SELECT min(greatest(next_ms, coalesce(lease_ms, 0))) FROM outbox
              WHERE state = 'queued'",
            &[],
        )
        .await?
        .get(0))
    }

    async fn outbox_counts(&self) -> StoreResult<OutboxCounts> {
        let c = self.client().await?;
        let r = c
            .query_one(
                "SELECT count(*) FILTER (WHERE state = 'queued'),
                        count(*) FILTER (WHERE state = 'sent'),
                        count(*) FILTER (WHERE state = 'failed') FROM outbox",
                &[],
            )
            .await?;
        Ok(OutboxCounts {
            queued: r.get(0),
            sent: r.get(1),
            failed: r.get(2),
        })
    }

    /// Only the instance holding the lease `notify` sends (`store::leases`): at its start,
    /// the rows leased by an instance that died or lost the lease are void and due again.
    async fn release_leases(&self) -> StoreResult<u64> {
        let c = self.client().await?;
        Ok(c.execute(
            "UPDATE outbox SET lease_ms = NULL WHERE state = 'queued' AND lease_ms IS NOT NULL",
            &[],
        )
        .await?)
    }
}

#[cfg(test)]
mod tests {
    //! Run with `TEST_POSTGRES_URL` set (each test gets a fresh database); without it they
    //! pass at once.
    use std::collections::BTreeSet;
    use std::sync::Arc;

    use super::*;
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
                    let got = store.claim_due(now, 60_000, 7).await.unwrap();
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
        assert!(a.claim_due(now, 60_000, 100).await.unwrap().is_empty());
        assert_eq!(a.next_due_ms().await.unwrap(), Some(now + 60_000));
        a.mark_sent(ids[0], now).await.unwrap();
        a.mark_attempt_failed(ids[1], "refused", None)
            .await
            .unwrap();
        a.mark_attempt_failed(ids[2], "busy", Some(now + 5))
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
        let again = a.claim_due(now + 5, 60_000, 100).await.unwrap();
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
    }
}
