//! PostgreSQL: [`OpsStore`](crate::store::OpsStore), the figures `GET /metrics` reads.
use super::Postgres;
use crate::store::ops::*;
use crate::store::OpsStore;
use crate::store::StoreResult;
use async_trait::async_trait;

#[async_trait]
impl OpsStore for Postgres {
    /// The whole database's size on disk (tables, indexes, TOAST; the WAL is the server's).
    async fn database_size(&self) -> StoreResult<i64> {
        let c = self.client().await?;
        Ok(
            c.query_one("SELECT pg_database_size(current_database())", &[])
                .await?
                .get(0),
        )
    }

    async fn last_runs(&self) -> StoreResult<Vec<(i64, i64)>> {
        // One index probe per test case (test_runs_case_time), never a scan of the runs.
        let c = self.client().await?;
        let stmt = c
            .prepare_cached(
                "SELECT tc.id, last.t FROM test_cases tc
                   CROSS JOIN LATERAL (SELECT max(r.run_time) AS t FROM test_runs r
                                        WHERE r.test_case_id = tc.id) last
                  WHERE last.t IS NOT NULL
                  ORDER BY tc.id",
            )
            .await?;
        Ok(c.query(&stmt, &[])
            .await?
            .iter()
            .map(|r| (r.get(0), r.get(1)))
            .collect())
    }

    async fn open_alert_events(&self) -> StoreResult<i64> {
        // As `AlertEventStore::open_alert_count(Scope::All)`: the partial index of the open.
        let c = self.client().await?;
        Ok(
            c.query_one("SELECT count(*) FROM alert_events WHERE open", &[])
                .await?
                .get(0),
        )
    }

    async fn outbox_figures(&self) -> StoreResult<OutboxFigures> {
        let c = self.client().await?;
        let r = c
            .query_one(
                "SELECT count(*) FILTER (WHERE state = 'queued'),
                        count(*) FILTER (WHERE state = 'failed')
                   FROM outbox",
                &[],
            )
            .await?;
        Ok(OutboxFigures {
            depth: r.get(0),
            failed: r.get(1),
        })
    }
}
