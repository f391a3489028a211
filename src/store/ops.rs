//! What the operations side reads at scrape time (`GET /metrics`, `crate::telemetry`):
//! figures computed from the data, not counted in memory.
//!
//! The outbox gauges read the outbox (`outbox.rs`); the alert-event gauge counts the open
//! events (`alerts.rs`); `docs/metrics.md` names the metrics.

use async_trait::async_trait;

use super::sql::{self, Db, Exec, SqlStore};
use super::StoreResult;

/// Figures of the notification outbox.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct OutboxFigures {
    /// Notifications waiting to be sent.
    pub depth: i64,
    /// Notifications given up on (failed for good).
    pub failed: i64,
}

#[async_trait]
pub trait OpsStore {
    /// Bytes the database takes on disk (pages in use plus the write-ahead log).
    async fn database_size(&self) -> StoreResult<i64>;

    /// Time of the last stored run of every test case that has one: (test case id, seconds).
    /// Each test case's last run start, in Unix milliseconds (as stored).
    async fn last_runs(&self) -> StoreResult<Vec<(i64, i64)>>;

    /// Alert events not yet closed. 0 until alert events are stored (hook here).
    async fn open_alert_events(&self) -> StoreResult<i64> {
        Ok(0)
    }

    /// The notification outbox: waiting and failed notifications.
    async fn outbox_figures(&self) -> StoreResult<OutboxFigures>;

    /// Hands back what the idle connections cache (SQLite's readers' page caches, full
    /// after a burst of reads); the server calls it every 30 s. PostgreSQL's caches are the
    /// database server's.
    fn release_memory(&self);
}

#[async_trait]
impl<S: SqlStore + super::AlertEventStore + super::OutboxStore> OpsStore for S {
    async fn open_alert_events(&self) -> StoreResult<i64> {
        self.open_alert_count(crate::domain::caller::Scope::All)
            .await
    }

    async fn outbox_figures(&self) -> StoreResult<OutboxFigures> {
        let counts = self.outbox_counts().await?;
        Ok(OutboxFigures {
            depth: counts.queued,
            failed: counts.failed,
        })
    }

    fn release_memory(&self) {
        if let Db::Sqlite(s) = self.db() {
            s.inner.release_memory();
        }
    }

    async fn database_size(&self) -> StoreResult<i64> {
        match self.db() {
            // Pages in use plus the write-ahead log.
            Db::Sqlite(s) => {
                let wal = std::fs::metadata(s.inner.path.with_extension("db-wal"))
                    .map(|m| m.len() as i64)
                    .unwrap_or(0);
                let pages: i64 = sql::read!(s, |c| {
                    c.scalar(
                        "SELECT page_count * page_size FROM pragma_page_count(), pragma_page_size()",
                        &[],
                    )
                    .await
                })?;
                Ok(pages + wal)
            }
            // The whole database (tables, indexes, TOAST; the WAL is the server's).
            Db::Postgres(p) => {
                sql::read!(p, |c| {
                    c.scalar("SELECT pg_database_size(current_database())", &[])
                        .await
                })
            }
        }
    }

    async fn last_runs(&self) -> StoreResult<Vec<(i64, i64)>> {
        // One index probe per test case (test_runs_case_time), never a scan of the runs.
        sql::read!(self, |c| {
            let rows = c
                .query(
                    "SELECT id, (SELECT max(run_time) FROM test_runs WHERE test_case_id = tc.id)
                       FROM test_cases tc ORDER BY id",
                    &[],
                )
                .await?;
            let mut out = Vec::with_capacity(rows.len());
            for r in rows {
                if let Some(t) = r.get::<Option<i64>>(1)? {
                    out.push((r.col("id")?, t));
                }
            }
            Ok(out)
        })
    }
}
