//! Every group's day at once (the dashboard's table): each group the scope sees with its
//! pass, warning and failure counts and its 24 local hour slots over site-local dates, for
//! one run type. The same sums as a group's `metric` added over its test cases, read from
//! the hourly rollups in one query for all groups (`store::rollups`).

use async_trait::async_trait;
use chrono::NaiveDate;

use super::sql::{self, Exec, SqlStore};
use super::StoreResult;
use crate::domain::buckets::{self, SLOTS};
use crate::domain::caller::Scope;
use crate::domain::run::RunType;

/// Pass, warning, failure (failed and stopped).
pub type Triple = [u64; 3];

/// One group's counts over the range and per local hour slot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupHourly {
    pub id: i64,
    pub counts: Triple,
    /// Per local hour 0..23, summed over the days of the range.
    pub hourly: [Triple; SLOTS],
}

/// Local dates `from..=to`, one run type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HourlyQuery {
    pub from: NaiveDate,
    pub to: NaiveDate,
    pub run_type: RunType,
}

#[async_trait]
pub trait HourlyStore {
    /// Every group the scope sees, by id, with its counts (zeros for none).
    async fn groups_hourly(&self, scope: Scope, q: HourlyQuery) -> StoreResult<Vec<GroupHourly>>;
}

#[async_trait]
impl<S: SqlStore> HourlyStore for S {
    async fn groups_hourly(&self, scope: Scope, q: HourlyQuery) -> StoreResult<Vec<GroupHourly>> {
        let user = match scope {
            Scope::All => None,
            Scope::User(u) => Some(u),
        };
        let (d0, d1) = (
            i64::from(buckets::day_number(q.from)),
            i64::from(buckets::day_number(q.to)),
        );
        let rt = i64::from(q.run_type.code());
        sql::read!(self, |c| {
            let rows = c
                .query(
                    "SELECT g.id, CAST(r.hour AS BIGINT), CAST(sum(r.pass) AS BIGINT),
                            CAST(sum(r.warn) AS BIGINT), CAST(sum(r.fail + r.stopped) AS BIGINT)
                       FROM test_case_groups g
                       LEFT JOIN group_cases gc ON gc.group_id = g.id
                       LEFT JOIN rollup_hour r ON r.test_case_id = gc.test_case_id
                            AND r.run_type = $2 AND r.day BETWEEN $3 AND $4
                      WHERE CAST($1 AS BIGINT) IS NULL
                         OR g.id IN (SELECT group_id FROM user_groups WHERE user_id = $1)
                      GROUP BY g.id, r.hour
                      ORDER BY g.id",
                    &[&user, &rt, &d0, &d1],
                )
                .await?;
            let mut out: Vec<GroupHourly> = Vec::new();
            for r in &rows {
                let id: i64 = r.col("id")?;
                if out.last().is_none_or(|g| g.id != id) {
                    out.push(GroupHourly {
                        id,
                        counts: [0; 3],
                        hourly: [[0; 3]; SLOTS],
                    });
                }
                let Some(hour) = r.get::<Option<i64>>(1)? else {
                    continue;
                };
                let n = |i| -> StoreResult<u64> {
                    Ok(r.get::<Option<i64>>(i)?.unwrap_or(0).max(0) as u64)
                };
                let add = [n(2)?, n(3)?, n(4)?];
                if let Some(g) = out.last_mut() {
                    for (k, v) in add.iter().enumerate() {
                        g.counts[k] += v;
                        if let Some(slot) =
                            usize::try_from(hour).ok().and_then(|h| g.hourly.get_mut(h))
                        {
                            slot[k] += v;
                        }
                    }
                }
            }
            Ok(out)
        })
    }
}
