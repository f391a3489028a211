//! Auto tickets (issue 12): the Jira issues the alert engine opens itself.
//!
//! **Durable jobs.** When an event opens for a setting with attach ticket, the engine
//! queues a job ([`queue_in`]) in the ingest transaction that opens the event, so both are
//! kept or neither. The worker (`jira::worker`) leases due jobs ([`AutoTicketStore::claim_ticket_jobs`]:
//! the attempt is counted when leased), opens the issue, and records its key
//! ([`AutoTicketStore::ticket_job_done`]: the auto ticket row and the event's `jira_ticket`
//! in one transaction) or makes the job due again after a back-off. A job is never given
//! up: a Jira outage delays its ticket and never loses it. Each job carries a unique Jira
//! label; before opening an issue again the worker searches Jira for it, so a crash
//! between Jira's answer and the commit never opens two.

use async_trait::async_trait;
use rusqlite::{params, OptionalExtension, Transaction};

use super::{Sqlite, StoreResult};
use crate::domain::caller::Scope;
use crate::domain::page::{Page, PageRequest};

/// A leased job, ready to open its issue.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TicketJob {
    pub id: i64,
    pub event_id: i64,
    pub label: String,
    pub project: String,
    pub assignee: String,
    pub username: String,
    pub summary: String,
    pub description: String,
    pub csv_name: String,
    pub csv: Vec<u8>,
    /// Counting this one.
    pub attempts: u32,
}

/// What the engine queues for an event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewTicketJob {
    pub event_id: i64,
    pub setting_id: i64,
    pub project: String,
    pub assignee: String,
    pub username: String,
    pub summary: String,
    pub description: String,
    pub csv_name: String,
    pub csv: Vec<u8>,
}

/// A ticket the engine opened (spec §3 'Auto ticket').
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AutoTicket {
    pub id: i64,
    pub alert_setting_id: i64,
    pub event_id: i64,
    pub group_id: i64,
    pub testcase_id: i64,
    pub jira_ticket: String,
    /// Comma-separated, oldest first.
    pub run_ids: String,
    /// When the event opened (UTC ms).
    pub alert_ms: i64,
}

/// The unique Jira label of the job of event `event_id`.
pub fn job_label(event_id: i64) -> String {
    format!("cxwatch-alert-{event_id}")
}

/// Queues the ticket job of an event inside the engine's transaction (once per event).
pub(crate) fn queue_in(tx: &Transaction, j: &NewTicketJob, now_ms: i64) -> StoreResult<()> {
    tx.prepare_cached(
        "INSERT INTO ticket_jobs (event_id, setting_id, label, project, assignee, username,
                summary, description, csv_name, csv, created_ms, next_ms)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?11)
         ON CONFLICT (event_id) DO NOTHING",
    )?
    .execute(params![
        j.event_id,
        j.setting_id,
        job_label(j.event_id),
        j.project,
        j.assignee,
        j.username,
        j.summary,
        j.description,
        j.csv_name,
        j.csv,
        now_ms
    ])?;
    Ok(())
}

#[async_trait]
pub trait AutoTicketStore {
    /// Leases up to `limit` due jobs until `now_ms + lease_ms` and counts the attempt.
    async fn claim_ticket_jobs(
        &self,
        now_ms: i64,
        lease_ms: i64,
        limit: u32,
    ) -> StoreResult<Vec<TicketJob>>;
    /// Records the issue of job `id`: the auto ticket row and the event's `jira_ticket`.
    async fn ticket_job_done(&self, id: i64, key: String) -> StoreResult<()>;
    /// Records a failed attempt; the job is due again at `retry_at_ms`.
    async fn ticket_job_failed(&self, id: i64, reason: String, retry_at_ms: i64)
        -> StoreResult<()>;
    /// When the next queued job is due (leased ones: when their lease ends).
    async fn next_ticket_due_ms(&self) -> StoreResult<Option<i64>>;
    /// Jobs still waiting for their ticket.
    async fn queued_ticket_jobs(&self) -> StoreResult<i64>;
    /// The tickets opened for setting `setting_id`, newest first, within the caller's groups.
    async fn list_auto_tickets(
        &self,
        scope: Scope,
        setting_id: i64,
        page: PageRequest,
    ) -> StoreResult<Page<AutoTicket>>;
    /// One auto ticket, within the caller's groups.
    async fn auto_ticket(&self, scope: Scope, id: i64) -> StoreResult<Option<AutoTicket>>;
    /// The auto ticket with Jira key `key`, within the caller's groups.
    async fn auto_ticket_with_key(
        &self,
        scope: Scope,
        key: &str,
    ) -> StoreResult<Option<AutoTicket>>;
    /// Sets the description of the alert event of auto ticket `id` (after its ticket was
    /// edited); audited as an `alert_event` update. `None` when the ticket is not there.
    async fn set_auto_ticket_description(
        &self,
        scope: Scope,
        id: i64,
        description: String,
    ) -> StoreResult<Option<()>>;
}

const COLUMNS: &str =
    "a.id, a.setting_id, a.event_id, a.group_id, a.test_case_id, a.jira_ticket, a.run_ids, a.alert_ms";

fn row(r: &rusqlite::Row) -> rusqlite::Result<AutoTicket> {
    Ok(AutoTicket {
        id: r.get(0)?,
        alert_setting_id: r.get(1)?,
        event_id: r.get(2)?,
        group_id: r.get(3)?,
        testcase_id: r.get(4)?,
        jira_ticket: r.get(5)?,
        run_ids: r.get(6)?,
        alert_ms: r.get(7)?,
    })
}

fn scope_clause(scope: Scope) -> (&'static str, i64) {
    match scope {
        Scope::All => ("?1 = ?1", 0),
        Scope::User(u) => (
            "a.group_id IN (SELECT group_id FROM user_groups WHERE user_id = ?1)",
            u,
        ),
    }
}

#[async_trait]
impl AutoTicketStore for Sqlite {
    async fn claim_ticket_jobs(
        &self,
        now_ms: i64,
        lease_ms: i64,
        limit: u32,
    ) -> StoreResult<Vec<TicketJob>> {
        self.write(move |tx| {
            let ids: Vec<i64> = tx
                .prepare_cached(
                    "SELECT id FROM ticket_jobs
                      WHERE state = 'queued' AND next_ms <= ?1
                        AND (lease_ms IS NULL OR lease_ms <= ?1)
                      ORDER BY next_ms, id LIMIT ?2",
                )?
                .query_map(params![now_ms, limit], |r| r.get(0))?
                .collect::<Result<_, _>>()?;
            let mut out = Vec::with_capacity(ids.len());
            for id in ids {
                tx.prepare_cached(
                    "UPDATE ticket_jobs SET lease_ms = ?2, attempts = attempts + 1 WHERE id = ?1",
                )?
                .execute(params![id, now_ms + lease_ms])?;
                out.push(
                    tx.prepare_cached(
                        "SELECT id, event_id, label, project, assignee, username, summary,
                                description, csv_name, csv, attempts
                           FROM ticket_jobs WHERE id = ?1",
                    )?
                    .query_row([id], |r| {
                        Ok(TicketJob {
                            id: r.get(0)?,
                            event_id: r.get(1)?,
                            label: r.get(2)?,
                            project: r.get(3)?,
                            assignee: r.get(4)?,
                            username: r.get(5)?,
                            summary: r.get(6)?,
                            description: r.get(7)?,
                            csv_name: r.get(8)?,
                            csv: r.get(9)?,
                            attempts: r.get::<_, i64>(10)?.max(0) as u32,
                        })
                    })?,
                );
            }
            Ok(out)
        })
        .await
    }

    async fn ticket_job_done(&self, id: i64, key: String) -> StoreResult<()> {
        self.write(move |tx| {
            let job: Option<(i64, i64)> = tx
                .query_row(
                    "SELECT event_id, setting_id FROM ticket_jobs WHERE id = ?1 AND state = 'queued'",
                    [id],
                    |r| Ok((r.get(0)?, r.get(1)?)),
                )
                .optional()?;
            let Some((event, setting)) = job else {
                return Ok(());
            };
            tx.execute(
                "UPDATE ticket_jobs SET state = 'done', lease_ms = NULL, reason = NULL WHERE id = ?1",
                [id],
            )?;
            tx.execute(
                "UPDATE alert_events SET jira_ticket = ?2 WHERE id = ?1",
                params![event, key],
            )?;
            tx.execute(
                "INSERT INTO auto_tickets (setting_id, event_id, group_id, test_case_id,
                        jira_ticket, run_ids, alert_ms)
                 SELECT ?2, e.id, e.group_id, e.test_case_id, ?3,
                        coalesce((SELECT group_concat(run_id, ',') FROM
                                   (SELECT run_id FROM alert_event_runs WHERE event_id = e.id
                                     ORDER BY run_id)), ''),
                        e.alert_ms
                   FROM alert_events e WHERE e.id = ?1
                 ON CONFLICT (event_id) DO NOTHING",
                params![event, setting, key],
            )?;
            Ok(())
        })
        .await
    }

    async fn ticket_job_failed(
        &self,
        id: i64,
        reason: String,
        retry_at_ms: i64,
    ) -> StoreResult<()> {
        self.write(move |tx| {
            tx.execute(
                "UPDATE ticket_jobs SET next_ms = ?2, lease_ms = NULL, reason = ?3
                  WHERE id = ?1 AND state = 'queued'",
                params![id, retry_at_ms, reason],
            )?;
            Ok(())
        })
        .await
    }

    async fn next_ticket_due_ms(&self) -> StoreResult<Option<i64>> {
        self.read(|c| {
            Ok(c.query_row(
                "SELECT min(max(next_ms, coalesce(lease_ms, 0))) FROM ticket_jobs
                  WHERE state = 'queued'",
                [],
                |r| r.get(0),
            )?)
        })
        .await
    }

    async fn queued_ticket_jobs(&self) -> StoreResult<i64> {
        self.read(|c| {
            Ok(c.query_row(
                "SELECT count(*) FROM ticket_jobs WHERE state = 'queued'",
                [],
                |r| r.get(0),
            )?)
        })
        .await
    }

    async fn list_auto_tickets(
        &self,
        scope: Scope,
        setting_id: i64,
        page: PageRequest,
    ) -> StoreResult<Page<AutoTicket>> {
        self.read(move |c| {
            let (wher, user) = scope_clause(scope);
            let total: i64 = c.query_row(
                &format!("SELECT count(*) FROM auto_tickets a WHERE {wher} AND a.setting_id = ?2"),
                params![user, setting_id],
                |r| r.get(0),
            )?;
            let items = c
                .prepare_cached(&format!(
                    "SELECT {COLUMNS} FROM auto_tickets a WHERE {wher} AND a.setting_id = ?2
                      ORDER BY a.alert_ms DESC, a.id DESC LIMIT ?3 OFFSET ?4"
                ))?
                .query_map(
                    params![user, setting_id, page.size, page.offset() as i64],
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

    async fn auto_ticket(&self, scope: Scope, id: i64) -> StoreResult<Option<AutoTicket>> {
        self.read(move |c| {
            let (wher, user) = scope_clause(scope);
            Ok(c.query_row(
                &format!("SELECT {COLUMNS} FROM auto_tickets a WHERE {wher} AND a.id = ?2"),
                params![user, id],
                row,
            )
            .optional()?)
        })
        .await
    }

    async fn auto_ticket_with_key(
        &self,
        scope: Scope,
        key: &str,
    ) -> StoreResult<Option<AutoTicket>> {
        let key = key.to_string();
        self.read(move |c| {
            let (wher, user) = scope_clause(scope);
            Ok(c.query_row(
                &format!(
                    "SELECT {COLUMNS} FROM auto_tickets a WHERE {wher} AND a.jira_ticket = ?2
                      ORDER BY a.id LIMIT 1"
                ),
                params![user, key],
                row,
            )
            .optional()?)
        })
        .await
    }

    async fn set_auto_ticket_description(
        &self,
        scope: Scope,
        id: i64,
        description: String,
    ) -> StoreResult<Option<()>> {
        self.write(move |tx| {
            let (wher, user) = scope_clause(scope);
            let event: Option<i64> = tx
                .query_row(
                    &format!("SELECT a.event_id FROM auto_tickets a WHERE {wher} AND a.id = ?2"),
                    params![user, id],
                    |r| r.get(0),
                )
                .optional()?;
            let Some(event) = event else {
                return Ok(None);
            };
            let before = super::audit::snapshot(tx, "alert_events", event)?;
            tx.execute(
                "UPDATE alert_events SET description = ?2 WHERE id = ?1",
                params![event, description],
            )?;
            let after = super::audit::snapshot(tx, "alert_events", event)?;
            super::audit::record(tx, "alert_event", "update", event, before, after)?;
            Ok(Some(()))
        })
        .await
    }
}
