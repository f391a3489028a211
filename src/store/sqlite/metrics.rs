//! SQLite: [`MetricStore`], from `rollup_hour`.

use std::collections::{BTreeMap, HashMap};

use async_trait::async_trait;
use rusqlite::{params, Connection, OptionalExtension};

use crate::domain::buckets::{self, SLOTS};
use crate::domain::caller::{Scope, Visibility};
use crate::domain::dist::{self, Summary};
use crate::domain::run::Channel;
use crate::store::catalog::group_visibility;
use crate::store::channel_of;
use crate::store::metrics::{
    add_segments, case_metrics, mos_summaries, segment_metrics, Acc, EntityMetric, Level,
    MetricQuery, MetricStore, MosQuery,
};
use crate::store::rollups::corrupt;
use crate::store::sql::{self, Lite};
use crate::store::{Sqlite, StoreResult};

use super::blob;

#[async_trait]
impl MetricStore for Sqlite {
    async fn group_metric(
        &self,
        scope: Scope,
        q: MetricQuery,
    ) -> StoreResult<Visibility<Vec<EntityMetric>>> {
        self.read(move |c| {
            sql::finish(group_visibility(&Lite(c), scope, q.group_id))?
                .try_map(|()| group_metric(c, &q))
        })
        .await
    }

    async fn group_mos_leaving_out(
        &self,
        scope: Scope,
        q: MosQuery,
        leave_out: Vec<(usize, u32)>,
    ) -> StoreResult<Visibility<Vec<Option<Summary>>>> {
        self.read(move |c| {
            sql::finish(group_visibility(&Lite(c), scope, q.group_id))?
                .try_map(|()| group_mos(c, &q, &leave_out))
        })
        .await
    }
}

/// The group's metric, one entity per test case (ordered by name) or per segment of a test
/// case that has runs in the range (ordered by test case name, then segment id).
fn group_metric(conn: &Connection, q: &MetricQuery) -> StoreResult<Vec<EntityMetric>> {
    let (d0, d1) = (buckets::day_number(q.from), buckets::day_number(q.to));
    let mut cases: Vec<(i64, String, Channel)> = Vec::new();
    {
        let mut stmt = conn.prepare_cached(
            "SELECT tc.id, tc.name, tc.channel FROM group_cases gc
               JOIN test_cases tc ON tc.id = gc.test_case_id
              WHERE gc.group_id = ?1 ORDER BY tc.name COLLATE NOCASE, tc.id",
        )?;
        let mut rows = stmt.query([q.group_id])?;
        while let Some(r) = rows.next()? {
            cases.push((r.get(0)?, r.get(1)?, channel_of(&r.get::<_, String>(2)?)?));
        }
    }
    let rt = q.run_type.code();
    match q.level {
        Level::Case => {
            let mut accs: HashMap<i64, Acc> = HashMap::with_capacity(cases.len());
            let mut stmt = conn.prepare_cached(
                "SELECT r.test_case_id, r.hour, r.pass, r.warn, r.fail, r.stopped,
                        r.mos_n, r.mos_sum, r.mos_hist, r.lat_n, r.lat_sum, r.lat_hist
                   FROM group_cases g JOIN rollup_hour r
                     ON r.test_case_id = g.test_case_id AND r.run_type = ?2
                    AND r.day BETWEEN ?3 AND ?4
                  WHERE g.group_id = ?1",
            )?;
            let mut rows = stmt.query(params![q.group_id, rt, d0, d1])?;
            while let Some(r) = rows.next()? {
                let acc = accs.entry(r.get(0)?).or_default();
                let n = |i| r.get::<_, i64>(i).map(|v| v.max(0) as u64);
                acc.add_counts(r.get::<_, usize>(1)?, [n(2)?, n(3)?, n(4)?, n(5)?]);
                acc.mos
                    .add(r.get(6)?, r.get(7)?, blob(r, 8)?)
                    .map_err(corrupt)?;
                acc.lat
                    .add(r.get(9)?, r.get(10)?, blob(r, 11)?)
                    .map_err(corrupt)?;
            }
            Ok(case_metrics(&cases, accs))
        }
        Level::Segment => {
            let mut accs: BTreeMap<(i64, i64), Acc> = BTreeMap::new();
            let mut stmt = conn.prepare_cached(
                "SELECT r.test_case_id, r.hour, r.segments
                   FROM group_cases g JOIN rollup_hour r
                     ON r.test_case_id = g.test_case_id AND r.run_type = ?2
                    AND r.day BETWEEN ?3 AND ?4
                  WHERE g.group_id = ?1 AND r.segments IS NOT NULL",
            )?;
            let mut rows = stmt.query(params![q.group_id, rt, d0, d1])?;
            while let Some(r) = rows.next()? {
                let case: i64 = r.get(0)?;
                let hour: usize = r.get(1)?;
                let Some(segments) = blob(r, 2)? else {
                    continue;
                };
                add_segments(&mut accs, case, hour, segments)?;
            }
            let mut name_stmt = conn.prepare_cached(
                "SELECT name FROM segments WHERE test_case_id = ?1 AND segment_id = ?2",
            )?;
            segment_metrics(&cases, accs, |case, seg| {
                Ok(name_stmt
                    .query_row(params![case, seg], |r| r.get(0))
                    .optional()?
                    .unwrap_or_default())
            })
        }
    }
}

/// MOS of the group's runs per local hour slot over the range: 24 entries, `None` for an
/// hour without runs that have a MOS.
fn group_mos(
    conn: &Connection,
    q: &MosQuery,
    leave_out: &[(usize, u32)],
) -> StoreResult<Vec<Option<Summary>>> {
    let MosQuery {
        group_id,
        from,
        to,
        run_type,
    } = *q;
    let mut hours: Vec<dist::Acc> = (0..SLOTS).map(|_| dist::Acc::default()).collect();
    let mut stmt = conn.prepare_cached(
        "SELECT r.hour, r.mos_n, r.mos_sum, r.mos_hist
           FROM group_cases g JOIN rollup_hour r
             ON r.test_case_id = g.test_case_id AND r.run_type = ?2
            AND r.day BETWEEN ?3 AND ?4
          WHERE g.group_id = ?1 AND r.mos_n > 0",
    )?;
    let mut rows = stmt.query(params![
        group_id,
        run_type.code(),
        buckets::day_number(from),
        buckets::day_number(to)
    ])?;
    while let Some(r) = rows.next()? {
        let hour: usize = r.get(0)?;
        if let Some(acc) = hours.get_mut(hour) {
            acc.add(r.get(1)?, r.get(2)?, blob(r, 3)?)
                .map_err(corrupt)?;
        }
    }
    Ok(mos_summaries(hours, leave_out))
}
