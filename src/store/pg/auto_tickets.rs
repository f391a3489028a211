//! PostgreSQL: [`AutoTicketStore`](crate::store::AutoTicketStore), as `store/auto_tickets.rs`
//! has it for SQLite. The engine queues a job with [`queue_in`] in the ingest transaction
//! that opens the event; workers of several instances lease due jobs with
//! `FOR UPDATE SKIP LOCKED`, so two never open the same ticket at once.
use async_trait::async_trait;
use deadpool_postgres::GenericClient;
use tokio_postgres::Row;

use super::catalog::scope_user;
use super::Postgres;
use crate::domain::caller::Scope;
use crate::domain::page::{Page, PageRequest};
use crate::store::auto_tickets::{job_label, AutoTicket, NewTicketJob, TicketJob};
use crate::store::AutoTicketStore;
use crate::store::StoreResult;

/// Queues the ticket job of an event inside the engine's transaction (once per event).
pub(crate) async fn queue_in(
    tx: &impl GenericClient,
    j: &NewTicketJob,
    now_ms: i64,
) -> StoreResult<()> {
    let stmt = tx
        .prepare_cached(
            "INSERT INTO ticket_jobs (event_id, setting_id, label, project, assignee, username,
                    summary, description, csv_name, csv, created_ms, next_ms)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $11)
             ON CONFLICT (event_id) DO NOTHING",
        )
        .await?;
    tx.execute(
        &stmt,
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

const COLUMNS: &str =
    "a.id, a.setting_id, a.event_id, a.group_id, a.test_case_id, a.jira_ticket, a.run_ids, a.alert_ms";

fn row(r: &Row) -> AutoTicket {
    AutoTicket {
        id: r.get(0),
        alert_setting_id: r.get(1),
        event_id: r.get(2),
        group_id: r.get(3),
        testcase_id: r.get(4),
        jira_ticket: r.get(5),
        run_ids: r.get(6),
        alert_ms: r.get(7),
    }
}

/// The scope as a condition on `a.group_id` with the user as `$1` (NULL: every group).
const SCOPE: &str = "($1::BIGINT IS NULL
    OR a.group_id IN (SELECT group_id FROM user_groups WHERE user_id = $1))";

#[async_trait]
impl AutoTicketStore for Postgres {
    async fn claim_ticket_jobs(
        &self,
        now_ms: i64,
        lease_ms: i64,
        limit: u32,
    ) -> StoreResult<Vec<TicketJob>> {
        let c = self.client().await?;
        // One statement, its own transaction: SKIP LOCKED leaves a job another worker is
        // leasing right now to it.
        let stmt = c
            .prepare_cached(
                "WITH due AS (
                     SELECT id FROM ticket_jobs
                      WHERE state = 'queued' AND next_ms <= $1
                        AND (lease_ms IS NULL OR lease_ms <= $1)
                      ORDER BY next_ms, id LIMIT $2
                        FOR UPDATE SKIP LOCKED)
                 UPDATE ticket_jobs j SET lease_ms = $3, attempts = j.attempts + 1
                   FROM due WHERE j.id = due.id
                 RETURNING j.id, j.event_id, j.label, j.project, j.assignee, j.username,
                           j.summary, j.description, j.csv_name, j.csv, j.attempts, j.next_ms",
            )
            .await?;
        let mut jobs: Vec<(i64, TicketJob)> = c
            .query(&stmt, &[&now_ms, &i64::from(limit), &(now_ms + lease_ms)])
            .await?
            .iter()
            .map(|r| {
                (
                    r.get(11),
                    TicketJob {
                        id: r.get(0),
                        event_id: r.get(1),
                        label: r.get(2),
                        project: r.get(3),
                        assignee: r.get(4),
                        username: r.get(5),
                        summary: r.get(6),
                        description: r.get(7),
                        csv_name: r.get(8),
                        csv: r.get(9),
                        attempts: r.get::<_, i64>(10).clamp(0, i64::from(u32::MAX)) as u32,
                    },
                )
            })
            .collect();
        jobs.sort_by_key(|(next, j)| (*next, j.id));
        Ok(jobs.into_iter().map(|(_, j)| j).collect())
    }

    async fn ticket_job_done(&self, id: i64, key: String) -> StoreResult<()> {
        let mut c = self.client().await?;
        let tx = c.transaction().await?;
        let job = tx
            .query_opt(
                "UPDATE ticket_jobs SET state = 'done', lease_ms = NULL, reason = NULL
                  WHERE id = $1 AND state = 'queued' RETURNING event_id, setting_id",
                &[&id],
            )
            .await?;
        let Some(job) = job else {
            return Ok(());
        };
        let (event, setting): (i64, i64) = (job.get(0), job.get(1));
        tx.execute(
            "UPDATE alert_events SET jira_ticket = $2 WHERE id = $1",
            &[&event, &key],
        )
        .await?;
        tx.execute(
            "INSERT INTO auto_tickets (setting_id, event_id, group_id, test_case_id,
                    jira_ticket, run_ids, alert_ms)
             SELECT $2::BIGINT, e.id, e.group_id, e.test_case_id, $3::TEXT,
                    coalesce((SELECT string_agg(run_id::TEXT, ',' ORDER BY run_id)
                                FROM alert_event_runs WHERE event_id = e.id), ''),
                    e.alert_ms
               FROM alert_events e WHERE e.id = $1
             ON CONFLICT (event_id) DO NOTHING",
            &[&event, &setting, &key],
        )
        .await?;
        tx.commit().await?;
        Ok(())
    }

    async fn ticket_job_failed(
        &self,
        id: i64,
        reason: String,
        retry_at_ms: i64,
    ) -> StoreResult<()> {
        let c = self.client().await?;
        c.execute(
            "UPDATE ticket_jobs SET next_ms = $2, lease_ms = NULL, reason = $3
              WHERE id = $1 AND state = 'queued'",
            &[&id, &retry_at_ms, &reason],
        )
        .await?;
        Ok(())
    }

    async fn next_ticket_due_ms(&self) -> StoreResult<Option<i64>> {
        let c = self.client().await?;
        Ok(c.query_one(
            "SELECT min(greatest(next_ms, coalesce(lease_ms, 0))) FROM ticket_jobs
              WHERE state = 'queued'",
            &[],
        )
        .await?
        .get(0))
    }

    async fn queued_ticket_jobs(&self) -> StoreResult<i64> {
        let c = self.client().await?;
        Ok(c.query_one(
            "SELECT count(*) FROM ticket_jobs WHERE state = 'queued'",
            &[],
        )
        .await?
        .get(0))
    }

    async fn list_auto_tickets(
        &self,
        scope: Scope,
        setting_id: i64,
        page: PageRequest,
    ) -> StoreResult<Page<AutoTicket>> {
        let c = self.client().await?;
        let user = scope_user(scope);
        let total: i64 = c
            .query_one(
                &format!("SELECT count(*) FROM auto_tickets a WHERE {SCOPE} AND a.setting_id = $2"),
                &[&user, &setting_id],
            )
            .await?
            .get(0);
        let stmt = c
            .prepare_cached(&format!(
                "SELECT {COLUMNS} FROM auto_tickets a WHERE {SCOPE} AND a.setting_id = $2
                  ORDER BY a.alert_ms DESC, a.id DESC LIMIT $3 OFFSET $4"
            ))
            .await?;
        let items = c
            .query(
                &stmt,
                &[
                    &user,
                    &setting_id,
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

    async fn auto_ticket(&self, scope: Scope, id: i64) -> StoreResult<Option<AutoTicket>> {
        let c = self.client().await?;
        Ok(c.query_opt(
            &format!("SELECT {COLUMNS} FROM auto_tickets a WHERE {SCOPE} AND a.id = $2"),
            &[&scope_user(scope), &id],
        )
        .await?
        .as_ref()
        .map(row))
    }

    async fn auto_ticket_with_key(
        &self,
        scope: Scope,
        key: &str,
    ) -> StoreResult<Option<AutoTicket>> {
        let c = self.client().await?;
        Ok(c.query_opt(
            &format!(
                "SELECT {COLUMNS} FROM auto_tickets a WHERE {SCOPE} AND a.jira_ticket = $2
                  ORDER BY a.id LIMIT 1"
            ),
            &[&scope_user(scope), &key],
        )
        .await?
        .as_ref()
        .map(row))
    }

    async fn set_auto_ticket_description(
        &self,
        scope: Scope,
        id: i64,
        description: String,
    ) -> StoreResult<Option<()>> {
        let mut c = self.client().await?;
        let tx = c.transaction().await?;
        let event = tx
            .query_opt(
                &format!("SELECT a.event_id FROM auto_tickets a WHERE {SCOPE} AND a.id = $2"),
                &[&scope_user(scope), &id],
            )
            .await?;
        let Some(event) = event else {
            return Ok(None);
        };
        let event: i64 = event.get(0);
        // The event's row locked first: its before and after are this change's alone.
        tx.execute(
            "SELECT 1 FROM alert_events WHERE id = $1 FOR NO KEY UPDATE",
            &[&event],
        )
        .await?;
        let before = super::audit::snapshot(&tx, "alert_events", event).await?;
        tx.execute(
            "UPDATE alert_events SET description = $2 WHERE id = $1",
            &[&event, &description],
        )
        .await?;
        let after = super::audit::snapshot(&tx, "alert_events", event).await?;
        super::audit::record(&tx, "alert_event", "update", event, before, after).await?;
        tx.commit().await?;
        Ok(Some(()))
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
            queue_in(&tx, &job, 0).await.unwrap();
            // Once per event.
            queue_in(&tx, &job, 0).await.unwrap();
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
