//! The loop of a durable job queue that one instance works at a time: the outbox's sender
//! (`notify::Sender`) and the auto tickets' worker (`notify::tickets`).
//!
//! While it holds the queue's lease (always on SQLite; on PostgreSQL one instance of
//! several, `store::leases`), it reads when the next job is due, sleeps until then (at most
//! `poll_ms`, or until woken), leases the due jobs (each attempt counted when leased, so a
//! killed process's jobs come due again when their lease runs out) and works them. Each job
//! records its own outcome and, on failure, when it is due again (`domain::notify::
//! retry_delay_ms`). A lost lease stops the work and waits to take it over.

use std::time::Duration;

use async_trait::async_trait;

use crate::clock::now_ms;
use crate::store::leases::{acquire, Lease};
use crate::store::{Store, StoreResult};

#[async_trait]
pub trait Queue: Send + Sync + 'static {
    type Job: Send;
    /// The lease naming the work (`notify`, `tickets`), and the log's name of the queue.
    const LEASE: &'static str;

    fn store(&self) -> &Store;

    /// How often the queue is read when nothing wakes it.
    fn poll_ms(&self) -> u64;

    /// Once the lease is held, before any job: take back what a dead holder had leased.
    async fn resume(&self) {}

    /// When the next job is due (UTC ms), if any.
    async fn next_due_ms(&self) -> StoreResult<Option<i64>>;

    /// Leases the jobs due at `now_ms`.
    async fn claim(&self, now_ms: i64) -> StoreResult<Vec<Self::Job>>;

    /// Works the leased jobs, recording each one's outcome.
    async fn work(&self, jobs: Vec<Self::Job>);

    /// Waits `ms` (a queue that can be woken returns earlier).
    async fn wait(&self, ms: u64) {
        tokio::time::sleep(Duration::from_millis(ms)).await;
    }
}

/// Works `queue` for ever, under its lease.
pub async fn run<Q: Queue>(queue: Q) {
    loop {
        let lease = acquire(queue.store(), Q::LEASE).await;
        queue.resume().await;
        work_while(&queue, &lease).await;
        tracing::warn!(
            queue = Q::LEASE,
            "the lease is lost; another instance works the queue now"
        );
    }
}

async fn work_while<Q: Queue>(queue: &Q, lease: &Lease) {
    let poll = queue.poll_ms();
    while !lease.is_lost() {
        // A read first: the write transaction of a claim only when something is due, so an
        // idle queue never takes the writer from ingest.
        let due = queue.next_due_ms().await.unwrap_or_else(|e| {
            tracing::error!(queue = Q::LEASE, error = %e, "cannot read when the next job is due");
            None
        });
        let now = now_ms();
        if let Some(wait) = due.map_or(Some(poll), |d| (d > now).then(|| (d - now) as u64)) {
            queue.wait(wait.clamp(1, poll)).await;
            continue;
        }
        match queue.claim(now).await {
            Ok(jobs) if !jobs.is_empty() => queue.work(jobs).await,
            Ok(_) => queue.wait(poll).await,
            Err(e) => {
                tracing::error!(queue = Q::LEASE, error = %e, "cannot lease due jobs");
                tokio::time::sleep(Duration::from_millis(poll)).await;
            }
        }
    }
}
