//! The last passing run of a run's test case before it: what the run detail compares a run
//! with ('compare with the last passing run'). One seek on `test_runs_case_time` (test case,
//! then time, read backwards from the run's time; status is in the index, so the runs that
//! did not pass are skipped without reading the table), whatever the number of runs stored.

use async_trait::async_trait;

use chrono::{DateTime, Utc};

use super::catalog::case_visibility;
use super::runs::ms_to_time;
use super::sql::{self, Exec, SqlStore};
use super::StoreResult;
use crate::domain::caller::{Scope, Visibility};

/// The passing run found: its id and start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LastPass {
    pub run_id: i64,
    pub run_time: DateTime<Utc>,
}

#[async_trait]
pub trait LastPassStore {
    /// The newest run of run `id`'s test case that passed and started before it (at the same
    /// instant: with a smaller id); `Visible(None)` when there is none. Hidden or missing as
    /// run `id` is for the scope.
    async fn last_passing_run(
        &self,
        scope: Scope,
        id: i64,
    ) -> StoreResult<Visibility<Option<LastPass>>>;
}

/// `status` of a passing run in `test_runs` (0 pass, 1 warn, 2 fail, 3 stopped).
const PASS: i64 = 0;

#[async_trait]
impl<S: SqlStore> LastPassStore for S {
    async fn last_passing_run(
        &self,
        scope: Scope,
        id: i64,
    ) -> StoreResult<Visibility<Option<LastPass>>> {
        sql::read!(self, |c| {
            let Some(row) = c
                .query_opt(
                    "SELECT test_case_id, run_time FROM test_runs WHERE id = $1",
                    &[&id],
                )
                .await?
            else {
                return Ok(Visibility::Missing);
            };
            let case: i64 = row.get(0)?;
            let time: i64 = row.get(1)?;
            if let Err(unseen) = case_visibility(c, scope, case).await?.visible() {
                return Ok(unseen);
            }
            // Two seeks rather than one OR: each is a range of the index read and stopped at
            // its first row; an OR of the two would read the case's whole history. The second
            // orders by time alone, the index's own order read backwards (no sort step); of
            // two earlier passes at one instant it takes either.
            let same_instant = c
                .scalar::<Option<i64>>(
                    "SELECT max(id) FROM test_runs
                      WHERE test_case_id = $1 AND run_time = $2 AND status = $3 AND id < $4",
                    &[&case, &time, &PASS, &id],
                )
                .await?;
            if let Some(run_id) = same_instant {
                return Ok(Visibility::Visible(Some(LastPass {
                    run_id,
                    run_time: ms_to_time(time),
                })));
            }
            let before = c
                .query_opt(
                    "SELECT id, run_time FROM test_runs
                      WHERE test_case_id = $1 AND run_time < $2 AND status = $3
                      ORDER BY run_time DESC
                      LIMIT 1",
                    &[&case, &time, &PASS],
                )
                .await?;
            Ok(Visibility::Visible(match before {
                Some(r) => Some(LastPass {
                    run_id: r.col("id")?,
                    run_time: ms_to_time(r.col("run_time")?),
                }),
                None => None,
            }))
        })
    }
}
