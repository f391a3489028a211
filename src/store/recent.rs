//! The last minutes of every group (the dashboard's status strip): how many of the group's
//! runs passed, warned and failed in a short window ending now. The window is minutes, not
//! hours, so it reads the runs themselves through `test_runs_case_time` (a covering index:
//! one range per test case), never the hourly rollups. Runs marked in a maintenance window
//! are counted apart, not as passes, warnings or failures.

use async_trait::async_trait;

use super::sql::{self, Exec, SqlStore};
use super::{StoreError, StoreResult};
use crate::domain::caller::Scope;
use crate::domain::run::{Channel, RunType};

/// One group's runs in the window.
#[derive(Debug, Clone, PartialEq)]
pub struct GroupRecent {
    pub id: i64,
    pub name: String,
    pub channel: Channel,
    pub pass: i64,
    pub warn: i64,
    /// Failed and stopped runs.
    pub fail: i64,
    /// Runs stored while a maintenance window covered them: left out of the
    /// counts above.
    pub maintenance: i64,
    /// Time of the latest run in the window (ms since the epoch, UTC).
    pub last_run_ms: Option<i64>,
}

/// What to count: runs with `from_ms <= run_time < to_ms`, of one run type or both.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RecentQuery {
    pub from_ms: i64,
    pub to_ms: i64,
    pub run_type: Option<RunType>,
}

#[async_trait]
pub trait RecentStore {
    /// Every group the scope sees, by name, with its runs in the window (zeros for none).
    async fn recent_status(&self, scope: Scope, q: RecentQuery) -> StoreResult<Vec<GroupRecent>>;
}

#[async_trait]
impl<S: SqlStore> RecentStore for S {
    async fn recent_status(&self, scope: Scope, q: RecentQuery) -> StoreResult<Vec<GroupRecent>> {
        let user = match scope {
            Scope::All => None,
            Scope::User(u) => Some(u),
        };
        let (lo, hi) = q
            .run_type
            .map_or((0, 1), |t| (i64::from(t.code()), i64::from(t.code())));
        sql::read!(self, |c| {
            let sql = format!(
                "SELECT g.id, g.name, g.channel,
                        count(*) FILTER (WHERE r.status = 0 AND m.run_id IS NULL) AS pass,
                        count(*) FILTER (WHERE r.status = 1 AND m.run_id IS NULL) AS warn,
                        count(*) FILTER (WHERE r.status >= 2 AND m.run_id IS NULL) AS fail,
                        max(r.run_time) AS last_run_ms, count(m.run_id) AS maintenance
                   FROM test_case_groups g
                   LEFT JOIN group_cases gc ON gc.group_id = g.id
                   LEFT JOIN test_runs r ON r.test_case_id = gc.test_case_id
                        AND r.run_time >= $2 AND r.run_time < $3
                        AND r.run_type BETWEEN $4 AND $5
                   LEFT JOIN maintenance_runs m ON m.run_id = r.id
                  WHERE CAST($1 AS BIGINT) IS NULL
                     OR g.id IN (SELECT group_id FROM user_groups WHERE user_id = $1)
                  GROUP BY g.id, g.name, g.channel
                  ORDER BY {}, g.id",
                c.nocase("g.name")
            );
            c.query(&sql, &[&user, &q.from_ms, &q.to_ms, &lo, &hi])
                .await?
                .iter()
                .map(|r| {
                    let channel: String = r.col("channel")?;
                    Ok(GroupRecent {
                        id: r.col("id")?,
                        name: r.col("name")?,
                        channel: Channel::parse(&channel).ok_or_else(|| {
                            StoreError::Invalid(format!("unknown channel {channel:?}"))
                        })?,
                        pass: r.col("pass")?,
                        warn: r.col("warn")?,
                        fail: r.col("fail")?,
                        maintenance: r.col("maintenance")?,
                        last_run_ms: r.col("last_run_ms")?,
                    })
                })
                .collect()
        })
    }
}
