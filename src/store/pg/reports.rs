//! PostgreSQL: [`ReportViewStore`](crate::store::ReportViewStore) (the saved reports
//! themselves are `store::reports`, written once for both backends): the latency heat map
//! and the export from `rollup_hour` (merged in Rust, the code SQLite runs), and the runs
//! behind a report's cell, paged. The long reads (the export, the runs a latency filter
//! walks) go through a portal, a batch of rows at a time, so memory stays flat and the
//! connection can answer other reads (scripts) between batches.
use std::collections::hash_map::Entry;
use std::collections::HashMap;

use async_trait::async_trait;

use crate::store::runs::ms_to_time;
use chrono::NaiveDate;
use deadpool_postgres::GenericClient;
use tokio::sync::mpsc;

use super::metrics::u;
use super::nocase;
use super::Postgres;
use crate::domain::buckets;
use crate::domain::page::{Page, PageRequest};
use crate::domain::report::{Report, ReportType};
use crate::domain::run::{RunSortField, RunStatus, RunType};
use crate::store::catalog::status_texts;
use crate::store::reports::*;
use crate::store::run_detail::ScriptSegment;
use crate::store::runs::RunRow;
use crate::store::sql::Pg;
use crate::store::ReportViewStore;
use crate::store::{StoreError, StoreResult};

/// Rows fetched from a portal at a time.
const BATCH: i32 = 1000;

async fn latency(
    c: &impl GenericClient,
    rep: &Report,
    from: NaiveDate,
    to: NaiveDate,
) -> StoreResult<LatencyData> {
    let mut acc = LatencyAcc::new();
    let stmt = c
        .prepare_cached(
            "SELECT r.test_case_id, r.hour, r.pass + r.warn + r.fail + r.stopped,
                    r.lat_n, r.lat_sum, r.lat_hist, r.segments, r.day
               FROM group_cases g JOIN rollup_hour r
                 ON r.test_case_id = g.test_case_id AND r.run_type = $2
                AND r.day BETWEEN $3 AND $4
              WHERE g.group_id = $1",
        )
        .await?;
    let rows = c
        .query(
            &stmt,
            &[
                &rep.group_id,
                &i16::from(rep.run_type.code()),
                &buckets::day_number(from),
                &buckets::day_number(to),
            ],
        )
        .await?;
    let u = |r: &tokio_postgres::Row, i: usize| r.get::<_, i64>(i).max(0) as u64;
    for r in &rows {
        acc.add(LatencyRow {
            case: r.get(0),
            day: r.get(7),
            hour: r.get::<_, i16>(1) as usize,
            runs: u(r, 2),
            lat_n: u(r, 3),
            lat_sum: u(r, 4),
            lat_hist: r.get(5),
            segments: r.get(6),
        })?;
    }
    // The names of every segment seen, in one read.
    let (case_ids, seg_ids): (Vec<i64>, Vec<i64>) = acc.segment_keys().into_iter().unzip();
    let names: HashMap<(i64, i64), (String, String)> = if case_ids.is_empty() {
        HashMap::new()
    } else {
        c.query(
            "SELECT k.case_id, k.segment_id, tc.name, coalesce(s.name, '')
               FROM unnest($1::BIGINT[], $2::BIGINT[]) AS k(case_id, segment_id)
               JOIN test_cases tc ON tc.id = k.case_id
               LEFT JOIN segments s ON s.test_case_id = k.case_id AND s.segment_id = k.segment_id",
            &[&case_ids, &seg_ids],
        )
        .await?
        .iter()
        .map(|r| {
            (
                (r.get("case_id"), r.get("segment_id")),
                (r.get("name"), r.get(3)),
            )
        })
        .collect()
    };
    acc.finish(|case, seg| Ok(names.get(&(case, seg)).cloned().unwrap_or_default()))
}

async fn script_shape(c: &impl GenericClient, id: i64) -> StoreResult<Vec<ScriptShape>> {
    let stmt = c
        .prepare_cached("SELECT body FROM run_scripts WHERE id = $1")
        .await?;
    let body: String = c.query_one(&stmt, &[&id]).await?.get(0);
    let script: Vec<ScriptSegment> = serde_json::from_str(&body)
        .map_err(|e| StoreError::Invalid(format!("stored script {id}: {e}")))?;
    Ok(ScriptShape::of(&script))
}

async fn runs(
    c: &mut super::Client,
    q: &ReportRunQuery,
    page: PageRequest,
) -> StoreResult<Page<ReportRunRow>> {
    let texts = status_texts(&Pg(&*c)).await?;
    let wher = "g.group_id = $1 AND r.run_time >= $2 AND r.run_time < $3
        AND r.status BETWEEN $4 AND $5 AND r.run_type = $6
        AND ($7::BIGINT IS NULL
             OR g.test_case_id IN (SELECT test_case_id FROM segments WHERE segment_id = $7))
        AND ($8::INT IS NULL
             OR extract(hour FROM to_timestamp(r.run_time / 1000.0) AT TIME ZONE $11::TEXT) = $8)
        AND ($9::INT IS NULL OR r.mos BETWEEN $9 AND $10)";
    let from = "group_cases g JOIN test_runs r ON r.test_case_id = g.test_case_id
        JOIN test_cases tc ON tc.id = r.test_case_id";
    let (mos_lo, mos_hi) = match q.mos {
        Some((lo, hi)) => (Some(lo as i32), Some(hi as i32)),
        None => (None, None),
    };
    let hour = q.hour.map(i32::from);
    let (status_lo, status_hi) = (i16::from(q.status.0), i16::from(q.status.1));
    let run_type = i16::from(q.run_type.code());
    let tz = q.tz.name();
    let (size, offset) = (i64::from(page.size), page.offset() as i64);
    let args: [&(dyn tokio_postgres::types::ToSql + Sync); 13] = [
        &q.group_id,
        &q.from_ms,
        &q.to_ms,
        &status_lo,
        &status_hi,
        &run_type,
        &q.segment_id,
        &hour,
        &mos_lo,
        &mos_hi,
        &tz,
        &size,
        &offset,
    ];
    let map = |r: &tokio_postgres::Row| -> CandidateRun {
        let status = u8::try_from(r.get::<_, i16>(4))
            .ok()
            .and_then(RunStatus::from_code)
            .unwrap_or(RunStatus::Fail);
        let run_ms: i64 = r.get(3);
        CandidateRun {
            row: RunRow {
                id: r.get(0),
                test_case_id: r.get(1),
                test_case_name: r.get(2),
                run_time: ms_to_time(run_ms),
                duration_ms: r.get(5),
                status,
                run_type: u8::try_from(r.get::<_, i16>(6))
                    .ok()
                    .and_then(RunType::from_code)
                    .unwrap_or(RunType::Manual),
                mos: r.get::<_, Option<i32>>(7).map(|m| m.max(0) as u32),
                status_text: texts.get(&status.status_id()).cloned().unwrap_or_default(),
            },
            script_id: r.get(8),
            run_ms,
            results: r.get::<_, Option<Vec<u8>>>(9).unwrap_or_default(),
        }
    };
    let order = q.sort.map_or_else(
        || "r.run_time DESC, r.id DESC".to_string(),
        |s| RunSortField::order_by(s, "r.", "lower(tc.name COLLATE \"C\")"),
    );
    let mut scripts: HashMap<i64, Vec<ScriptShape>> = HashMap::new();
    if !RunWalk::needed(q) {
        let total: i64 = c
            .query_one(
                &format!("SELECT count(*) FROM {from} WHERE {wher}"),
                &args[..11],
            )
            .await?
            .get(0);
        let found: Vec<CandidateRun> = c
            .query(
                &format!(
                    "SELECT r.id, r.test_case_id, tc.name, r.run_time, r.status, r.duration_ms,
                            r.run_type, r.mos, r.script_id, r.results
                       FROM {from} WHERE {wher}
                      ORDER BY {order} LIMIT $12 OFFSET $13"
                ),
                &args,
            )
            .await?
            .iter()
            .map(map)
            .collect();
        for cand in &found {
            if let Entry::Vacant(e) = scripts.entry(cand.script_id) {
                e.insert(script_shape(&*c, cand.script_id).await?);
            }
        }
        return RunWalk::sql_page(q, found, total, |id| {
            (scripts.get(&id).cloned())
                .ok_or_else(|| StoreError::Invalid(format!("script {id} not read")))
        });
    }
    // The stored step results decide (a latency filter or a sort by latency): walk the
    // candidates in the SQL order, a batch at a time through a portal.
    let tx = c.build_transaction().read_only(true).start().await?;
    let select = tx
        .prepare(&format!(
            "SELECT r.id, r.test_case_id, tc.name, r.run_time, r.status, r.duration_ms,
                    r.run_type, r.mos, r.script_id, r.results
               FROM {from} WHERE {wher}
              ORDER BY {order}"
        ))
        .await?;
    let portal = tx.bind(&select, &args[..11]).await?;
    let mut walk = RunWalk::new(q, page);
    loop {
        let rows = tx.query_portal(&portal, BATCH).await?;
        for r in &rows {
            let cand = map(r);
            let script = match scripts.entry(cand.script_id) {
                Entry::Occupied(e) => e.into_mut(),
                Entry::Vacant(e) => e.insert(script_shape(&tx, cand.script_id).await?),
            };
            walk.push(cand, script)?;
        }
        if rows.len() < BATCH as usize {
            break;
        }
    }
    tx.commit().await?;
    Ok(walk.finish())
}

async fn export(
    c: &mut super::Client,
    rep: &Report,
    from: NaiveDate,
    to: NaiveDate,
    out: &mpsc::Sender<Vec<ExportRow>>,
) -> StoreResult<u64> {
    let by_segment = rep.report_type == ReportType::SegmentPerformance;
    let names: HashMap<(i64, i64), String> = if by_segment {
        c.query(
            "SELECT s.test_case_id, s.segment_id, s.name
               FROM group_cases g JOIN segments s ON s.test_case_id = g.test_case_id
              WHERE g.group_id = $1",
            &[&rep.group_id],
        )
        .await?
        .iter()
        .map(|r| ((r.get("test_case_id"), r.get("segment_id")), r.get("name")))
        .collect()
    } else {
        HashMap::new()
    };
    // One test case at a time (by name), then day and hour, as SQLite's.
    let sql = format!(
        "SELECT tc.id, tc.name, r.day, r.hour, r.pass, r.warn, r.fail, r.stopped,
                r.lat_n, r.lat_sum, r.mos_n, r.mos_sum, {}
           FROM group_cases gc JOIN test_cases tc ON tc.id = gc.test_case_id
           JOIN rollup_hour r ON r.test_case_id = tc.id AND r.run_type = $2
                             AND r.day BETWEEN $3 AND $4
          WHERE gc.group_id = $1 {}
          ORDER BY {}, tc.id, r.day, r.hour",
        if by_segment {
            "r.segments"
        } else {
            "NULL::BYTEA"
        },
        if by_segment {
            "AND r.segments IS NOT NULL"
        } else {
            ""
        },
        nocase("tc.name")
    );
    let tx = c.build_transaction().read_only(true).start().await?;
    let stmt = tx.prepare(&sql).await?;
    let portal = tx
        .bind(
            &stmt,
            &[
                &rep.group_id,
                &i16::from(rep.run_type.code()),
                &buckets::day_number(from),
                &buckets::day_number(to),
            ],
        )
        .await?;
    // Batches as SQLite's: full once a rollup row brings them to EXPORT_BATCH rows.
    let mut batch = Vec::with_capacity(EXPORT_BATCH);
    let mut sent = 0u64;
    loop {
        let rows = tx.query_portal(&portal, BATCH).await?;
        for r in &rows {
            let case: i64 = r.get(0);
            let name: String = r.get(1);
            let date = buckets::day_date(r.get(2));
            let hour = r.get::<_, i16>(3) as u8;
            if by_segment {
                let Some(segs) = r.get::<_, Option<&[u8]>>(12) else {
                    continue;
                };
                ExportRow::push_segments(&mut batch, (date, hour, case, &name), segs, |id| {
                    names.get(&(case, id)).cloned().unwrap_or_default()
                })?;
            } else {
                batch.push(ExportRow {
                    date,
                    hour,
                    test_case_id: case,
                    test_case_name: name,
                    segment: None,
                    counts: [u(r, 4), u(r, 5), u(r, 6), u(r, 7)],
                    lat_n: u(r, 8),
                    lat_sum: u(r, 9),
                    mos_n: u(r, 10),
                    mos_sum: u(r, 11),
                });
            }
            if batch.len() >= EXPORT_BATCH {
                sent += batch.len() as u64;
                let full = std::mem::replace(&mut batch, Vec::with_capacity(EXPORT_BATCH));
                if out.send(full).await.is_err() {
                    // The receiver is gone: the transaction (and its portal) ends unfinished.
                    return Ok(sent);
                }
            }
        }
        if rows.len() < BATCH as usize {
            break;
        }
    }
    tx.commit().await?;
    if !batch.is_empty() {
        sent += batch.len() as u64;
        let _ = out.send(batch).await;
    }
    Ok(sent)
}

#[async_trait]
impl ReportViewStore for Postgres {
    async fn report_latency(
        &self,
        report: Report,
        from: NaiveDate,
        to: NaiveDate,
    ) -> StoreResult<LatencyData> {
        let c = self.client().await?;
        latency(&c, &report, from, to).await
    }

    async fn report_runs(
        &self,
        q: ReportRunQuery,
        page: PageRequest,
    ) -> StoreResult<Page<ReportRunRow>> {
        let mut c = self.client().await?;
        runs(&mut c, &q, page).await
    }

    async fn export_report(
        &self,
        report: Report,
        from: NaiveDate,
        to: NaiveDate,
        tx: mpsc::Sender<Vec<ExportRow>>,
    ) -> StoreResult<u64> {
        let mut c = self.client().await?;
        export(&mut c, &report, from, to, &tx).await
    }
}
