//! The auto tickets' worker: opens the Jira issue of each queued ticket job
//! (`store::auto_tickets`) and records its key.
//!
//! It leases due jobs, and for each: when an earlier attempt may have reached Jira (this
//! is not the job's first attempt), it first searches Jira for the job's unique label and
//! takes the issue found instead of opening another; else it opens a Bug with the label,
//! attaches the runs' CSV, and records the key. A failed attempt (Jira down, refusing,
//! slow) makes the job due again after a back-off (`notify.retry_first_secs`, doubling, at
//! most `notify.retry_max_secs`); jobs are never given up. It looks every `notify.poll_ms`.
//! Tickets go to the top-level `[jira]`; without it, jobs wait (logged once).

use crate::clock::now_ms;
use crate::config::{Config, JiraConfig, NotifyConfig};
use crate::domain::notify::retry_delay_ms;
use crate::jira::{Attachment, IssueDraft, Jira};
use crate::store::auto_tickets::TicketJob;
use crate::store::{Store, StoreResult};

/// Starts the worker on the current tokio runtime when `[jira]` is configured.
pub fn start(store: Store, config: &Config) -> anyhow::Result<()> {
    if !config.jira.is_set() {
        tracing::info!("auto tickets: no [jira] configured; ticket jobs wait until it is");
        return Ok(());
    }
    let jira = Jira::new(&config.jira)?;
    let worker = Worker {
        store,
        jira,
        jira_cfg: config.jira.clone(),
        notify: config.notify.clone(),
    };
    tokio::spawn(super::jobs::run(worker));
    Ok(())
}

struct Worker {
    store: Store,
    jira: Jira,
    jira_cfg: JiraConfig,
    notify: NotifyConfig,
}

#[async_trait::async_trait]
impl super::jobs::Queue for Worker {
    type Job = TicketJob;
    const LEASE: &'static str = "tickets";

    fn store(&self) -> &Store {
        &self.store
    }

    fn poll_ms(&self) -> u64 {
        self.notify.poll_ms
    }

    async fn next_due_ms(&self) -> StoreResult<Option<i64>> {
        self.store.next_ticket_due_ms().await
    }

    async fn claim(&self, now_ms: i64) -> StoreResult<Vec<TicketJob>> {
        self.store
            .claim_ticket_jobs(now_ms, self.lease_ms(), 20)
            .await
    }

    async fn work(&self, jobs: Vec<TicketJob>) {
        for job in jobs {
            self.work_one(job).await;
        }
    }
}

impl Worker {
    /// Longer than an attempt can take: search, create and attach, each with the time-out.
    fn lease_ms(&self) -> i64 {
        (self.jira_cfg.timeout_secs.max(1) as i64 * 3 + 30) * 1000
    }

    async fn work_one(&self, job: TicketJob) {
        let (id, attempts) = (job.id, job.attempts);
        match self.open(&job).await {
            Ok(key) => {
                if let Err(e) = self.store.ticket_job_done(id, key.clone()).await {
                    // The lease runs out and the next attempt finds the issue by its label.
                    tracing::error!(id, error = %e, "auto tickets: cannot record {key}");
                } else {
                    tracing::info!(id, event = job.event_id, %key, "auto ticket opened");
                }
            }
            Err(reason) => {
                let at = now_ms()
                    + retry_delay_ms(
                        attempts,
                        self.notify.retry_first_secs,
                        self.notify.retry_max_secs,
                    );
                tracing::warn!(id, attempts, %reason, "auto ticket not opened; will retry");
                if let Err(e) = self.store.ticket_job_failed(id, reason, at).await {
                    tracing::error!(id, error = %e, "auto tickets: cannot record a failed attempt");
                }
            }
        }
    }

    /// The issue's key: the one an earlier attempt opened, else a new one.
    async fn open(&self, job: &TicketJob) -> Result<String, String> {
        if job.attempts > 1 {
            let jql = format!("labels = \"{}\"", job.label);
            let found = self
                .jira
                .search_keys(&jql, 1)
                .await
                .map_err(|e| e.to_string())?;
            if let Some(key) = found.into_iter().next() {
                return Ok(key);
            }
        }
        let draft = IssueDraft {
            project: job.project.clone(),
            summary: job.summary.clone(),
            assignee: job.assignee.clone(),
            labels: vec![job.label.clone()],
            description: job.description.clone(),
        };
        let key = self
            .jira
            .create_issue(&draft)
            .await
            .map_err(|e| e.to_string())?;
        let csv = Attachment {
            file_name: job.csv_name.clone(),
            content_type: "text/csv".into(),
            bytes: job.csv.clone(),
        };
        if let Err(e) = self.jira.attach(&key, &csv).await {
            // The issue exists: record it (the next attempt would find it by its label and
            // the CSV would be lost either way).
            tracing::warn!(%key, error = %e, "auto ticket: the runs' CSV was not attached");
        }
        Ok(key)
    }
}
