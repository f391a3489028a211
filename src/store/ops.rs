//! What the operations side reads at scrape time (`GET /metrics`, `crate::telemetry`):
//! figures computed from the data, not counted in memory.
//!
//! The outbox gauges read the outbox (`outbox.rs`); the alert-event gauge counts the open
//! events (`alerts.rs`); `docs/metrics.md` names the metrics.

use async_trait::async_trait;

use super::{Sqlite, StoreResult};

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
}

#[async_trait]
impl OpsStore for Sqlite {
    async fn open_alert_events(&self) -> StoreResult<i64> {
        super::AlertEventStore::open_alert_count(self, crate::domain::caller::Scope::All).await
    }

    async fn outbox_figures(&self) -> StoreResult<OutboxFigures> {
        let counts = super::OutboxStore::outbox_counts(self).await?;
        Ok(OutboxFigures {
            depth: counts.queued,
            failed: counts.failed,
        })
    }

    async fn database_size(&self) -> StoreResult<i64> {
        let wal = std::fs::metadata(self.inner.path.with_extension("db-wal"))
            .map(|m| m.len() as i64)
            .unwrap_or(0);
        let pages = self
            .read(|c| {
                Ok(c.query_row(
                    "SELECT page_count * page_size FROM pragma_page_count(), pragma_page_size()",
                    [],
                    |r| r.get::<_, i64>(0),
                )?)
            })
            .await?;
        Ok(pages + wal)
    }

    async fn last_runs(&self) -> StoreResult<Vec<(i64, i64)>> {
        // One index probe per test case (test_runs_case_time), never a scan of the runs.
        self.read(|c| {
            let rows = c
                .prepare_cached(
                    "SELECT id, (SELECT max(run_time) FROM test_runs WHERE test_case_id = tc.id)
                     FROM test_cases tc",
                )?
                .query_map([], |r| {
                    Ok((r.get::<_, i64>(0)?, r.get::<_, Option<i64>>(1)?))
                })?
                .filter_map(|r| match r {
                    Ok((id, Some(t))) => Some(Ok((id, t))),
                    Ok((_, None)) => None,
                    Err(e) => Some(Err(e)),
                })
                .collect::<Result<Vec<_>, _>>()?;
            Ok(rows)
        })
        .await
    }
}
