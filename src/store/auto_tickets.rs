//! Auto tickets: the Jira issues the alert engine opens itself.
//!
//! **Durable jobs.** When an event opens for a setting with attach ticket, the engine
//! queues a job ([`queue_in`]) in the ingest transaction that opens the event, so both are
//! kept or neither. The worker (`jira::worker`) leases due jobs ([`AutoTicketStore::claim_ticket_jobs`]:
//! the attempt is counted when leased), opens the issue, and records its key
//! ([`AutoTicketStore::ticket_job_done`]: the auto ticket row and the event's `jira_ticket`
//! in one transaction) or makes the job due again after a back-off. A job is never given
//! up: a Jira outage delays its ticket and never loses it. Each job carries a unique Jira
//! label; before opening an issue again the worker searches Jira for it, so a crash
//! between Jira's answer and the commit never opens two. Workers of several instances
//! (PostgreSQL) lease with `FOR UPDATE SKIP LOCKED`, so two never open the same ticket at once.

use async_trait::async_trait;

use super::audit;
use super::sql::{self, Exec, Row, SqlStore};
use super::StoreResult;
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

/// A ticket job still waiting for its issue: what the admin needs to see
/// why an auto ticket is not there yet and when it is tried again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WaitingTicket {
    pub id: i64,
    pub setting_id: i64,
    pub event_id: i64,
    pub testcase_id: i64,
    /// When the event opened (UTC ms).
    pub alert_ms: i64,
    /// Attempts made so far (0: not tried yet).
    pub attempts: u32,
    /// Why the last attempt failed (Jira's refusal, or why Jira was not reached).
    pub reason: Option<String>,
    /// When the next attempt is due (UTC ms).
    pub next_ms: i64,
    pub project: String,
    pub assignee: String,
}

/// After a setting's ticket details change: its queued jobs take the new project, assignee
/// and username and are due at once, so that a ticket Jira refused for a wrong assignee is
/// opened with the right one instead of failing for ever.
pub(crate) async fn repoint_in(
    c: &impl Exec,
    setting_id: i64,
    project: &str,
    assignee: &str,
    username: &str,
    now_ms: i64,
) -> StoreResult<u64> {
    c.execute(
        "UPDATE ticket_jobs SET project = $2, assignee = $3, username = $4,
                next_ms = CASE WHEN next_ms > $5 THEN $5 ELSE next_ms END
          WHERE setting_id = $1 AND state = 'queued'
            AND (project <> $2 OR assignee <> $3 OR username <> $4)",
        &[&setting_id, &project, &assignee, &username, &now_ms],
    )
    .await
}

/// The unique Jira label of the job of event `event_id`.
pub fn job_label(event_id: i64) -> String {
    format!("cxwatch-alert-{event_id}")
}

/// Queues the ticket job of an event inside the engine's transaction (once per event).
pub(crate) async fn queue_in(c: &impl Exec, j: &NewTicketJob, now_ms: i64) -> StoreResult<()> {
    c.execute(
        "INSERT INTO ticket_jobs (event_id, setting_id, label, project, assignee, username,
                summary, description, csv_name, csv, created_ms, next_ms)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $11)
         ON CONFLICT (event_id) DO NOTHING",
        &[
            &j.event_id,
            &j.setting_id,
            &job_label(j.event_id),
            &j.project,
            &j.assignee,
            &j.username,
            &j.summary,
            &j.description,
            &j.csv_name,
            &j.csv,
            &now_ms,
        ],
    )
    .await?;
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
    /// The jobs of setting `setting_id` still waiting for their ticket (at most 100), newest
    /// event first, within the caller's groups.
    async fn waiting_tickets(
        &self,
        scope: Scope,
        setting_id: i64,
    ) -> StoreResult<Vec<WaitingTicket>>;
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

fn row(r: &Row) -> StoreResult<AutoTicket> {
    Ok(AutoTicket {
        id: r.col("id")?,
        alert_setting_id: r.col("setting_id")?,
        event_id: r.col("event_id")?,
        group_id: r.col("group_id")?,
        testcase_id: r.col("test_case_id")?,
        jira_ticket: r.col("jira_ticket")?,
        run_ids: r.col("run_ids")?,
        alert_ms: r.col("alert_ms")?,
    })
}

/// The scope as a condition on `a.group_id` with the user as `$1` (NULL: every group).
const SCOPE: &str = "(CAST($1 AS BIGINT) IS NULL
    OR a.group_id IN (SELECT group_id FROM user_groups WHERE user_id = $1))";

#[async_trait]
impl<S: SqlStore> AutoTicketStore for S {
    async fn claim_ticket_jobs(
        &self,
        now_ms: i64,
        lease_ms: i64,
        limit: u32,
    ) -> StoreResult<Vec<TicketJob>> {
        sql::write!(self, |c| {
            let returning = "id, event_id, label, project, assignee, username, summary,
                             description, csv_name, csv, attempts, next_ms";
            let mut jobs = sql::lease_due(
                c,
                "ticket_jobs",
                returning,
                now_ms,
                limit,
                now_ms + lease_ms,
            )
            .await?
            .iter()
            .map(|r| {
                Ok((
                    r.col::<i64>("next_ms")?,
                    TicketJob {
                        id: r.col("id")?,
                        event_id: r.col("event_id")?,
                        label: r.col("label")?,
                        project: r.col("project")?,
                        assignee: r.col("assignee")?,
                        username: r.col("username")?,
                        summary: r.col("summary")?,
                        description: r.col("description")?,
                        csv_name: r.col("csv_name")?,
                        csv: r.col("csv")?,
                        attempts: r.col::<i64>("attempts")?.clamp(0, i64::from(u32::MAX)) as u32,
                    },
                ))
            })
            .collect::<StoreResult<Vec<_>>>()?;
            jobs.sort_by_key(|(next, j)| (*next, j.id));
            Ok(jobs.into_iter().map(|(_, j)| j).collect())
        })
    }

    async fn ticket_job_done(&self, id: i64, key: String) -> StoreResult<()> {
        sql::write!(self, |c| {
            let job = c
                .query_opt(
                    "UPDATE ticket_jobs SET state = 'done', lease_ms = NULL, reason = NULL
                      WHERE id = $1 AND state = 'queued' RETURNING event_id, setting_id",
                    &[&id],
                )
                .await?;
            let Some(job) = job else {
                return Ok(());
            };
            let (event, setting): (i64, i64) = (job.col("event_id")?, job.col("setting_id")?);
            c.execute(
                "UPDATE alert_events SET jira_ticket = $2 WHERE id = $1",
                &[&event, &key],
            )
            .await?;
            c.execute(
                "INSERT INTO auto_tickets (setting_id, event_id, group_id, test_case_id,
                        jira_ticket, run_ids, alert_ms)
                 SELECT CAST($2 AS BIGINT), e.id, e.group_id, e.test_case_id, CAST($3 AS TEXT),
                        coalesce((SELECT string_agg(CAST(run_id AS TEXT), ',' ORDER BY run_id)
                                    FROM alert_event_runs WHERE event_id = e.id), ''),
                        e.alert_ms
                   FROM alert_events e WHERE e.id = $1
                 ON CONFLICT (event_id) DO NOTHING",
                &[&event, &setting, &key],
            )
            .await?;
            Ok(())
        })
    }

    async fn ticket_job_failed(
        &self,
        id: i64,
        reason: String,
        retry_at_ms: i64,
    ) -> StoreResult<()> {
        sql::write!(self, |c| {
            c.execute(
                "UPDATE ticket_jobs SET next_ms = $2, lease_ms = NULL, reason = $3
                  WHERE id = $1 AND state = 'queued'",
                &[&id, &retry_at_ms, &reason],
            )
            .await?;
            Ok(())
        })
    }

    async fn next_ticket_due_ms(&self) -> StoreResult<Option<i64>> {
        sql::read!(self, |c| {
            c.scalar(
                "SELECT min(CASE WHEN next_ms > coalesce(lease_ms, 0) THEN next_ms
                                 ELSE coalesce(lease_ms, 0) END)
                   FROM ticket_jobs WHERE state = 'queued'",
                &[],
            )
            .await
        })
    }

    async fn queued_ticket_jobs(&self) -> StoreResult<i64> {
        sql::read!(self, |c| {
            c.scalar(
                "SELECT count(*) FROM ticket_jobs WHERE state = 'queued'",
                &[],
            )
            .await
        })
    }

    async fn waiting_tickets(
        &self,
        scope: Scope,
        setting_id: i64,
    ) -> StoreResult<Vec<WaitingTicket>> {
        let user = scope.user();
        sql::read!(self, |c| {
            c.query(
                &format!(
                    "SELECT j.id, j.setting_id, j.event_id, a.test_case_id, a.alert_ms,
                            j.attempts, j.reason, j.next_ms, j.project, j.assignee
                       FROM ticket_jobs j JOIN alert_events a ON a.id = j.event_id
                      WHERE {SCOPE} AND j.setting_id = $2 AND j.state = 'queued'
                      ORDER BY a.alert_ms DESC, j.id DESC LIMIT 100"
                ),
                &[&user, &setting_id],
            )
            .await?
            .iter()
            .map(|r| {
                Ok(WaitingTicket {
                    id: r.col("id")?,
                    setting_id: r.col("setting_id")?,
                    event_id: r.col("event_id")?,
                    testcase_id: r.col("test_case_id")?,
                    alert_ms: r.col("alert_ms")?,
                    attempts: r.col::<i64>("attempts")?.clamp(0, i64::from(u32::MAX)) as u32,
                    reason: r.col("reason")?,
                    next_ms: r.col("next_ms")?,
                    project: r.col("project")?,
                    assignee: r.col("assignee")?,
                })
            })
            .collect()
        })
    }

    async fn list_auto_tickets(
        &self,
        scope: Scope,
        setting_id: i64,
        page: PageRequest,
    ) -> StoreResult<Page<AutoTicket>> {
        let user = scope.user();
        sql::read!(self, |c| {
            let total: i64 = c
                .scalar(
                    &format!(
                        "SELECT count(*) FROM auto_tickets a WHERE {SCOPE} AND a.setting_id = $2"
                    ),
                    &[&user, &setting_id],
                )
                .await?;
            let items = c
                .query(
                    &format!(
                        "SELECT {COLUMNS} FROM auto_tickets a WHERE {SCOPE} AND a.setting_id = $2
                          ORDER BY a.alert_ms DESC, a.id DESC LIMIT $3 OFFSET $4"
                    ),
                    &[&user, &setting_id, &page.size, &(page.offset() as i64)],
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

    async fn auto_ticket(&self, scope: Scope, id: i64) -> StoreResult<Option<AutoTicket>> {
        sql::read!(self, |c| {
            c.query_opt(
                &format!("SELECT {COLUMNS} FROM auto_tickets a WHERE {SCOPE} AND a.id = $2"),
                &[&scope.user(), &id],
            )
            .await?
            .as_ref()
            .map(row)
            .transpose()
        })
    }

    async fn auto_ticket_with_key(
        &self,
        scope: Scope,
        key: &str,
    ) -> StoreResult<Option<AutoTicket>> {
        sql::read!(self, [key = key.to_string()], |c| {
            c.query_opt(
                &format!(
                    "SELECT {COLUMNS} FROM auto_tickets a WHERE {SCOPE} AND a.jira_ticket = $2
                      ORDER BY a.id LIMIT 1"
                ),
                &[&scope.user(), &key],
            )
            .await?
            .as_ref()
            .map(row)
            .transpose()
        })
    }

    async fn set_auto_ticket_description(
        &self,
        scope: Scope,
        id: i64,
        description: String,
    ) -> StoreResult<Option<()>> {
        sql::write!(self, |c| {
            let event: Option<i64> = c
                .scalar_opt(
                    &format!("SELECT a.event_id FROM auto_tickets a WHERE {SCOPE} AND a.id = $2"),
                    &[&scope.user(), &id],
                )
                .await?;
            let Some(event) = event else {
                return Ok(None);
            };
            // The event's row locked first (PostgreSQL): its before and after are this
            // change's alone.
            if c.postgres() {
                c.execute(
                    "SELECT 1 FROM alert_events WHERE id = $1 FOR NO KEY UPDATE",
                    &[&event],
                )
                .await?;
            }
            let before = audit::snapshot(c, "alert_events", event).await?;
            c.execute(
                "UPDATE alert_events SET description = $2 WHERE id = $1",
                &[&event, &description],
            )
            .await?;
            let after = audit::snapshot(c, "alert_events", event).await?;
            audit::record(c, "alert_event", "update", event, before, after).await?;
            Ok(Some(()))
        })
    }
}

#[cfg(test)]
mod pg_tests {
    //! Run with `TEST_POSTGRES_URL` set (each test gets a fresh database); without it they
    //! pass at once.
    use std::collections::BTreeSet;
    use std::sync::Arc;

    use super::*;
    use crate::store::pg::testdb::connect;
    use crate::store::pg::Postgres;
    use crate::store::sql::Pg;

    /// Events 1..=n of group 5 with runs, and their jobs queued as the engine queues them.
    async fn events_with_jobs(pg: &Postgres, n: i64) {
        let mut c = pg.client().await.unwrap();
        let tx = c.transaction().await.unwrap();
        for e in 1..=n {
            tx.execute(
                "INSERT INTO alert_events (id, setting_id, setting_name, group_id, group_name,
                        test_case_id, distribution_id, distribution_name, status_id, alert_ms)
                 VALUES ($1, 9, 'Billing down', 5, 'Billing', 1, 1, 'On call', 7, $2)",
                &[&e, &(1_000 * e)],
            )
            .await
            .unwrap();
            tx.execute(
                "INSERT INTO alert_event_runs (event_id, run_id) VALUES ($1, 30), ($1, 4), ($1, 200)",
                &[&e],
            )
            .await
            .unwrap();
            let job = NewTicketJob {
                event_id: e,
                setting_id: 9,
                project: "CX".into(),
                assignee: "ann".into(),
                username: "ann".into(),
                summary: format!("event {e}"),
                description: "d".into(),
                csv_name: "runs.csv".into(),
                csv: b"runId\n4\n".to_vec(),
            };
            queue_in(&Pg(&tx), &job, 0).await.unwrap();
            // Once per event.
            queue_in(&Pg(&tx), &job, 0).await.unwrap();
        }
        tx.commit().await.unwrap();
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn jobs_are_leased_once_and_their_tickets_recorded() {
        let Some(url) = crate::store::pg::testdb::fresh().await else {
            return;
        };
        let dir = tempfile::tempdir().unwrap();
        let a = Arc::new(connect(&url, dir.path()).await);
        let b = Arc::new(connect(&url, dir.path()).await);
        events_with_jobs(&a, 30).await;
        assert_eq!(a.queued_ticket_jobs().await.unwrap(), 30);
        let mut tasks = Vec::new();
        for store in [a.clone(), b.clone(), a.clone(), b.clone()] {
            tasks.push(tokio::spawn(async move {
                let mut mine = Vec::new();
                loop {
                    let got = store.claim_ticket_jobs(10, 60_000, 4).await.unwrap();
                    if got.is_empty() {
                        return mine;
                    }
                    mine.extend(got);
                }
            }));
        }
        let mut events = BTreeSet::new();
        let mut job_of = std::collections::HashMap::new();
        for t in tasks {
            for j in t.await.unwrap() {
                assert!(events.insert(j.event_id), "leased twice");
                job_of.insert(j.event_id, j.id);
                assert_eq!(j.attempts, 1);
                assert_eq!(j.label, format!("cxwatch-alert-{}", j.event_id));
                assert_eq!(j.csv, b"runId\n4\n");
            }
        }
        assert_eq!(events, (1..=30).collect());
        assert_eq!(a.next_ticket_due_ms().await.unwrap(), Some(60_010));
        a.ticket_job_failed(job_of[&2], "Jira down".into(), 50)
            .await
            .unwrap();
        let again = a.claim_ticket_jobs(50, 1_000, 10).await.unwrap();
        assert_eq!(again.len(), 1);
        assert_eq!((again[0].event_id, again[0].attempts), (2, 2));
        for e in 1..=3 {
            a.ticket_job_done(job_of[&e], format!("CX-{e}"))
                .await
                .unwrap();
        }
        // Done twice: nothing more.
        a.ticket_job_done(job_of[&1], "CX-99".into()).await.unwrap();
        assert_eq!(a.queued_ticket_jobs().await.unwrap(), 27);
        let page = a
            .list_auto_tickets(Scope::All, 9, PageRequest { no: 0, size: 2 })
            .await
            .unwrap();
        assert_eq!(page.total, 3);
        let keys: Vec<&str> = page.items.iter().map(|t| t.jira_ticket.as_str()).collect();
        assert_eq!(keys, ["CX-3", "CX-2"], "newest event first");
        assert_eq!(page.items[0].run_ids, "4,30,200");
        let one = a
            .auto_ticket_with_key(Scope::All, "CX-1")
            .await
            .unwrap()
            .unwrap();
        assert_eq!((one.event_id, one.group_id, one.alert_ms), (1, 5, 1_000));
        assert_eq!(
            a.auto_ticket(Scope::All, one.id).await.unwrap(),
            Some(one.clone())
        );
        // A user without group 5 sees none of them.
        assert_eq!(a.auto_ticket(Scope::User(77), one.id).await.unwrap(), None);
        assert_eq!(
            a.set_auto_ticket_description(Scope::User(77), one.id, "x".into())
                .await
                .unwrap(),
            None
        );
        a.set_auto_ticket_description(Scope::All, one.id, "Billing down again".into())
            .await
            .unwrap()
            .unwrap();
        let c = a.client().await.unwrap();
        let row = c
            .query_one(
                "SELECT e.jira_ticket, e.description,
                        (SELECT count(*) FROM audit_log WHERE kind = 'alert_event'
                            AND action = 'update' AND target = '1')
                   FROM alert_events e WHERE e.id = 1",
                &[],
            )
            .await
            .unwrap();
        assert_eq!(row.get::<_, Option<String>>(0).as_deref(), Some("CX-1"));
        assert_eq!(
            row.get::<_, Option<String>>(1).as_deref(),
            Some("Billing down again")
        );
        assert_eq!(row.get::<_, i64>(2), 1);
    }
}
