//! The escalation worker: notifies an alert setting's second distribution list
//! when an event is still open and unacknowledged at the setting's delay
//! (`store::alert_life`, rule `domain::alerting::escalates`).
//!
//! It runs on [`super::jobs::run`] under the lease `escalations` (one instance at a time):
//! it reads when the next escalation is due, sleeps until then (at most `notify.poll_ms`),
//! and escalates what is due in one transaction per batch that queues the notifications in
//! the outbox (keys `escalation:{id}:…`, each queued once) and marks the events escalated.
//! Nothing is sent here: the outbox's sender delivers, so a `kill -9` loses nothing and
//! sends nothing twice.

use crate::config::Config;
use crate::store::{Store, StoreResult};

use super::Notifier;

/// Starts the worker on the current tokio runtime.
pub fn start(store: Store, config: &Config, notifier: Notifier) {
    tokio::spawn(super::jobs::run(Worker {
        store,
        tz: config.tz(),
        public_url: config.notify.public_url.clone(),
        poll_ms: config.notify.poll_ms,
        notifier,
    }));
}

struct Worker {
    store: Store,
    tz: chrono_tz::Tz,
    public_url: String,
    poll_ms: u64,
    notifier: Notifier,
}

#[async_trait::async_trait]
impl super::jobs::Queue for Worker {
    /// A batch's escalations, done when claimed (the claim's transaction queues them).
    type Job = usize;
    const LEASE: &'static str = "escalations";

    fn store(&self) -> &Store {
        &self.store
    }

    fn poll_ms(&self) -> u64 {
        self.poll_ms
    }

    async fn next_due_ms(&self) -> StoreResult<Option<i64>> {
        self.store.next_escalation_ms().await
    }

    async fn claim(&self, now_ms: i64) -> StoreResult<Vec<usize>> {
        let queued = self
            .store
            .escalate_due(self.tz, self.public_url.clone(), now_ms, 100)
            .await?;
        Ok(vec![queued])
    }

    async fn work(&self, jobs: Vec<usize>) {
        if jobs.iter().sum::<usize>() > 0 {
            self.notifier.wake();
        }
    }
}
