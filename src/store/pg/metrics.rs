//! PostgreSQL: [`MetricStore`](crate::store::MetricStore). Reads only `rollup_hour`, as
//! SQLite's does; the histograms and segment blobs are merged in Rust (`domain::dist`,
//! `store::rollups`), the same code SQLite runs.
use std::collections::{BTreeMap, HashMap};

use async_trait::async_trait;

use crate::store::sql::Pg;
use deadpool_postgres::GenericClient;

use super::nocase;
use super::Postgres;
use crate::domain::buckets::{self, SLOTS};
use crate::domain::caller::{Scope, Visibility};
use crate::domain::dist::{self, Summary};
use crate::domain::run::Channel;
use crate::store::catalog::{channel, group_visibility};
use crate::store::metrics::*;
use crate::store::rollups::corrupt;
use crate::store::MetricStore;
use crate::store::StoreResult;

/// A BIGINT count or sum, never negative.
pub(super) fn u(r: &tokio_postgres::Row, i: usize) -> u64 {
    r.get::<_, i64>(i).max(0) as u64
}

/// The test cases of a group ordered by name: id, name, channel.
async fn cases(c: &impl GenericClient, group_id: i64) -> StoreResult<Vec<(i64, String, Channel)>> {
    let stmt = c
        .prepare_cached(&format!(
            "SELECT tc.id, tc.name, tc.channel FROM group_cases gc
               JOIN test_cases tc ON tc.id = gc.test_case_id
              WHERE gc.group_id = $1 ORDER BY {}, tc.id",
            nocase("tc.name")
        ))
        .await?;
    c.query(&stmt, &[&group_id])
        .await?
        .iter()
        .map(|r| Ok((r.get(0), r.get(1), channel(r.get(2))?)))
        .collect()
}

/// The group's metric, one entity per test case (ordered by name) or per segment of a test
/// case that has runs in the range (ordered by test case name, then segment id).
async fn group_metric(c: &impl GenericClient, q: &MetricQuery) -> StoreResult<Vec<EntityMetric>> {
    let (d0, d1) = (buckets::day_number(q.from), buckets::day_number(q.to));
    let rt = i16::from(q.run_type.code());
    let cases = cases(c, q.group_id).await?;
    match q.level {
        Level::Case => {
            let mut accs: HashMap<i64, Acc> = HashMap::with_capacity(cases.len());
            let stmt = c
                .prepare_cached(
                    "SELECT r.test_case_id, r.hour, r.pass, r.warn, r.fail, r.stopped,
                            r.mos_n, r.mos_sum, r.mos_hist, r.lat_n, r.lat_sum, r.lat_hist
                       FROM group_cases g JOIN rollup_hour r
                         ON r.test_case_id = g.test_case_id AND r.run_type = $2
                        AND r.day BETWEEN $3 AND $4
                      WHERE g.group_id = $1",
                )
                .await?;
            for r in c.query(&stmt, &[&q.group_id, &rt, &d0, &d1]).await? {
                let acc = accs.entry(r.get(0)).or_default();
                acc.add_counts(
                    r.get::<_, i16>(1) as usize,
                    [u(&r, 2), u(&r, 3), u(&r, 4), u(&r, 5)],
                );
                acc.mos.add(u(&r, 6), u(&r, 7), r.get(8)).map_err(corrupt)?;
                acc.lat
                    .add(u(&r, 9), u(&r, 10), r.get(11))
                    .map_err(corrupt)?;
            }
            Ok(case_metrics(&cases, accs))
        }
        Level::Segment => {
            let mut accs: BTreeMap<(i64, i64), Acc> = BTreeMap::new();
            let stmt = c
                .prepare_cached(
                    "SELECT r.test_case_id, r.hour, r.segments
                       FROM group_cases g JOIN rollup_hour r
                         ON r.test_case_id = g.test_case_id AND r.run_type = $2
                        AND r.day BETWEEN $3 AND $4
                      WHERE g.group_id = $1 AND r.segments IS NOT NULL",
                )
                .await?;
            for r in c.query(&stmt, &[&q.group_id, &rt, &d0, &d1]).await? {
                let case: i64 = r.get(0);
                let hour = r.get::<_, i16>(1) as usize;
                let Some(segments) = r.get::<_, Option<&[u8]>>(2) else {
                    continue;
                };
                add_segments(&mut accs, case, hour, segments)?;
            }
            // The names of the group's segments, in one read.
            let names: HashMap<(i64, i64), String> = if accs.is_empty() {
                HashMap::new()
            } else {
                let stmt = c
                    .prepare_cached(
                        "SELECT s.test_case_id, s.segment_id, s.name
                           FROM group_cases g JOIN segments s ON s.test_case_id = g.test_case_id
                          WHERE g.group_id = $1",
                    )
                    .await?;
                c.query(&stmt, &[&q.group_id])
                    .await?
                    .iter()
                    .map(|r| ((r.get(0), r.get(1)), r.get(2)))
                    .collect()
            };
            segment_metrics(&cases, accs, |case, seg| {
                Ok(names.get(&(case, seg)).cloned().unwrap_or_default())
            })
        }
    }
}

/// MOS of the group's runs per local hour slot over the range: 24 entries, `None` for an
/// hour without runs that have a MOS.
async fn group_mos(
    c: &impl GenericClient,
    q: &MosQuery,
    leave_out: &[(usize, u32)],
) -> StoreResult<Vec<Option<Summary>>> {
    let mut hours: Vec<dist::Acc> = (0..SLOTS).map(|_| dist::Acc::default()).collect();
    let stmt = c
        .prepare_cached(
            "SELECT r.hour, r.mos_n, r.mos_sum, r.mos_hist
               FROM group_cases g JOIN rollup_hour r
                 ON r.test_case_id = g.test_case_id AND r.run_type = $2
                AND r.day BETWEEN $3 AND $4
              WHERE g.group_id = $1 AND r.mos_n > 0",
        )
        .await?;
    let rows = c
        .query(
            &stmt,
            &[
                &q.group_id,
                &i16::from(q.run_type.code()),
                &buckets::day_number(q.from),
                &buckets::day_number(q.to),
            ],
        )
        .await?;
    for r in rows {
        if let Some(acc) = hours.get_mut(r.get::<_, i16>(0) as usize) {
            acc.add(u(&r, 1), u(&r, 2), r.get(3)).map_err(corrupt)?;
        }
    }
    Ok(mos_summaries(hours, leave_out))
}

#[async_trait]
impl MetricStore for Postgres {
    async fn group_metric(
        &self,
        scope: Scope,
        q: MetricQuery,
    ) -> StoreResult<Visibility<Vec<EntityMetric>>> {
        let c = self.client().await?;
        if let Err(unseen) = group_visibility(&Pg(&c), scope, q.group_id)
            .await?
            .visible()
        {
            return Ok(unseen);
        }
        Ok(Visibility::Visible(group_metric(&c, &q).await?))
    }

    async fn group_mos_leaving_out(
        &self,
        scope: Scope,
        q: MosQuery,
        leave_out: Vec<(usize, u32)>,
    ) -> StoreResult<Visibility<Vec<Option<Summary>>>> {
        let c = self.client().await?;
        if let Err(unseen) = group_visibility(&Pg(&c), scope, q.group_id)
            .await?
            .visible()
        {
            return Ok(unseen);
        }
        Ok(Visibility::Visible(group_mos(&c, &q, &leave_out).await?))
    }
}
