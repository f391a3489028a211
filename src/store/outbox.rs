//! The outbox: notifications waiting to be delivered, and what became of them. The trait
//! and its types; the SQL is in `sqlite/outbox.rs` and `pg/outbox.rs`.
//!
//! **Queueing with a cause.** Whatever causes a notification writes it in the same
//! transaction as itself, so that both are kept or neither: inside the store, call the
//! backend's `enqueue_in` (one notification) or `enqueue_list_in` (one per contact of a
//! distribution list) with the cause's transaction, then wake the sender
//! (`notify::Notifier::wake`) after the commit. A key already queued is not queued twice.
//! Outside a cause's transaction, [`OutboxStore::enqueue`] queues in its own.
//!
//! **Delivery.** `notify` leases due rows ([`OutboxStore::claim_due`]: the attempt is
//! counted when leased), delivers them, and marks each sent, due again later, or failed.
//! A lease left behind by a killed process expires and its row is delivered again: at
//! least once, with the row's key as the e-mail's Message-ID and the gateway's `{key}`.

use async_trait::async_trait;

use super::StoreResult;
use crate::domain::notify::{
    Attachment, Message, NewNotification, Notification, NotificationState,
};
use crate::domain::page::{Page, PageRequest};

/// Milliseconds since the Unix epoch, the unit of the outbox's `*_ms` columns.
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

/// A leased notification with its attachments, ready to deliver.
#[derive(Debug, Clone)]
pub struct Claimed {
    pub notification: Notification,
    pub attachments: Vec<Attachment>,
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
    /// attempt.
    async fn claim_due(&self, now_ms: i64, lease_ms: i64, limit: u32) -> StoreResult<Vec<Claimed>>;
    /// Marks a notification delivered.
    async fn mark_sent(&self, id: i64, at_ms: i64) -> StoreResult<()>;
    /// Records a failed attempt: due again at `retry_at_ms`, or failed for good when `None`.
    async fn mark_attempt_failed(
        &self,
        id: i64,
        reason: &str,
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
    async fn outbox_counts(&self) -> StoreResult<OutboxCounts>;
    /// Ends every lease (at the sender's start: a killed process's leases are void).
    async fn release_leases(&self) -> StoreResult<u64>;
}
