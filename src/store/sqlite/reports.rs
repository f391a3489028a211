//! SQLite: [`ReportViewStore`] (the saved reports themselves are `store::reports`, written
//! once for both backends). The heat map and the export read `rollup_hour`, merged in Rust
//! by the code both backends share (`store::reports`); the runs behind a cell are read with
//! the site's local hour as a function of the connection.

use std::collections::BTreeMap;

use async_trait::async_trait;
use chrono::NaiveDate;
use rusqlite::functions::FunctionFlags;
use rusqlite::{params, Connection, OptionalExtension};
use tokio::sync::mpsc;

use crate::domain::buckets;
use crate::domain::page::{Page, PageRequest};
use crate::domain::report::{Report, ReportType};
use crate::domain::run::{RunSortField, RunStatus, RunType};
use crate::store::catalog::status_texts;
use crate::store::reports::{
    CandidateRun, ExportRow, LatencyAcc, LatencyData, LatencyRow, ReportRunQuery, ReportRunRow,
    ReportViewStore, RunWalk, ScriptShape, EXPORT_BATCH,
};
use crate::store::runs::{ms_to_time, RunRow};
use crate::store::sql::{self, Lite};
use crate::store::{Sqlite, StoreResult};

use super::blob;
use super::rollups::load_script;

fn latency(
    conn: &Connection,
    rep: &Report,
    from: NaiveDate,
    to: NaiveDate,
) -> StoreResult<LatencyData> {
    let mut acc = LatencyAcc::new();
    let mut stmt = conn.prepare_cached(
        "SELECT r.test_case_id, r.hour, r.pass + r.warn + r.fail + r.stopped,
                r.lat_n, r.lat_sum, r.lat_hist, r.segments, r.day
           FROM group_cases g JOIN rollup_hour r
             ON r.test_case_id = g.test_case_id AND r.run_type = ?2
            AND r.day BETWEEN ?3 AND ?4
          WHERE g.group_id = ?1",
    )?;
    let mut rows = stmt.query(params![
        rep.group_id,
        rep.run_type.code(),
        buckets::day_number(from),
        buckets::day_number(to)
    ])?;
    while let Some(r) = rows.next()? {
        acc.add(LatencyRow {
            case: r.get(0)?,
            day: r.get(7)?,
            hour: r.get(1)?,
            runs: r.get::<_, i64>(2)?.max(0) as u64,
            lat_n: r.get::<_, i64>(3)?.max(0) as u64,
            lat_sum: r.get::<_, i64>(4)?.max(0) as u64,
            lat_hist: blob(r, 5)?,
            segments: blob(r, 6)?,
        })?;
    }
    let mut names = conn.prepare_cached(
        "SELECT tc.name, coalesce(s.name, '') FROM test_cases tc
           LEFT JOIN segments s ON s.test_case_id = tc.id AND s.segment_id = ?2
          WHERE tc.id = ?1",
    )?;
    acc.finish(|case, seg| {
        Ok(names
            .query_row(params![case, seg], |r| Ok((r.get("name")?, r.get(1)?)))
            .optional()?
            .unwrap_or_default())
    })
}

fn runs(
    conn: &Connection,
    q: &ReportRunQuery,
    page: PageRequest,
) -> StoreResult<Page<ReportRunRow>> {
    let texts = sql::finish(status_texts(&Lite(conn)))?;
    let tz = q.tz;
    conn.create_scalar_function(
        "cx_local_hour",
        1,
        FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC,
        move |ctx| {
            let ms: i64 = ctx.get(0)?;
            Ok(i64::from(buckets::local_slot(tz, ms).1))
        },
    )?;
    let wher = "g.group_id = ?1 AND r.run_time >= ?2 AND r.run_time < ?3
        AND r.status BETWEEN ?4 AND ?5 AND r.run_type = ?6
        AND (?7 IS NULL OR g.test_case_id IN (SELECT test_case_id FROM segments WHERE segment_id = ?7))
        AND (?8 IS NULL OR cx_local_hour(r.run_time) = ?8)
        AND (?9 IS NULL OR r.mos BETWEEN ?9 AND ?10)";
    let from = "group_cases g JOIN test_runs r ON r.test_case_id = g.test_case_id
        JOIN test_cases tc ON tc.id = r.test_case_id";
    let (mos_lo, mos_hi) = match q.mos {
        Some((lo, hi)) => (Some(lo), Some(hi)),
        None => (None, None),
    };
    let base = params![
        q.group_id,
        q.from_ms,
        q.to_ms,
        q.status.0,
        q.status.1,
        q.run_type.code(),
        q.segment_id,
        q.hour,
        mos_lo,
        mos_hi
    ];
    let map = |r: &rusqlite::Row| -> rusqlite::Result<CandidateRun> {
        let status = RunStatus::from_code(r.get(4)?).unwrap_or(RunStatus::Fail);
        let run_ms: i64 = r.get(3)?;
        Ok(CandidateRun {
            row: RunRow {
                id: r.get(0)?,
                test_case_id: r.get(1)?,
                test_case_name: r.get(2)?,
                run_time: ms_to_time(run_ms),
                duration_ms: r.get(5)?,
                status,
                run_type: RunType::from_code(r.get(6)?).unwrap_or(RunType::Manual),
                mos: r.get(7)?,
                status_text: texts.get(&status.status_id()).cloned().unwrap_or_default(),
            },
            script_id: r.get(8)?,
            run_ms,
            results: r.get(9)?,
        })
    };
    let order = q.sort.map_or_else(
        || "r.run_time DESC, r.id DESC".to_string(),
        |s| RunSortField::order_by(s, "r.", "tc.name COLLATE NOCASE"),
    );
    let select = format!(
        "SELECT r.id, r.test_case_id, tc.name, r.run_time, r.status, r.duration_ms,
                r.run_type, r.mos, r.script_id, r.results
           FROM {from} WHERE {wher}
          ORDER BY {order}"
    );
    let mut scripts: BTreeMap<i64, Vec<ScriptShape>> = BTreeMap::new();
    let mut shape = |id: i64| -> StoreResult<Vec<ScriptShape>> {
        if let Some(s) = scripts.get(&id) {
            return Ok(s.clone());
        }
        let s = ScriptShape::of(&load_script(conn, id)?);
        scripts.insert(id, s.clone());
        Ok(s)
    };
    if !RunWalk::needed(q) {
        let total: i64 = conn.query_row(
            &format!("SELECT count(*) FROM {from} WHERE {wher}"),
            base,
            |r| r.get(0),
        )?;
        let mut stmt = conn.prepare(&format!("{select} LIMIT ?11 OFFSET ?12"))?;
        let found = stmt
            .query_map(
                params![
                    q.group_id,
                    q.from_ms,
                    q.to_ms,
                    q.status.0,
                    q.status.1,
                    q.run_type.code(),
                    q.segment_id,
                    q.hour,
                    mos_lo,
                    mos_hi,
                    page.size,
                    page.offset() as i64
                ],
                map,
            )?
            .collect::<Result<Vec<_>, _>>()?;
        return RunWalk::sql_page(q, found, total, &mut shape);
    }
    // The stored step results decide (a latency filter or a sort by latency): walk the
    // candidates in the SQL order.
    let mut walk = RunWalk::new(q, page);
    let mut stmt = conn.prepare(&select)?;
    let mut rows = stmt.query(base)?;
    while let Some(r) = rows.next()? {
        let c = map(r)?;
        let script = shape(c.script_id)?;
        walk.push(c, &script)?;
    }
    Ok(walk.finish())
}

fn export(
    conn: &Connection,
    rep: &Report,
    from: NaiveDate,
    to: NaiveDate,
    tx: &mpsc::Sender<Vec<ExportRow>>,
) -> StoreResult<u64> {
    let cases: Vec<(i64, String)> = conn
        .prepare_cached(
            "SELECT tc.id, tc.name FROM group_cases gc JOIN test_cases tc ON tc.id = gc.test_case_id
              WHERE gc.group_id = ?1 ORDER BY tc.name COLLATE NOCASE, tc.id",
        )?
        .query_map([rep.group_id], |r| Ok((r.get("id")?, r.get("name")?)))?
        .collect::<Result<_, _>>()?;
    let by_segment = rep.report_type == ReportType::SegmentPerformance;
    let mut stmt = conn.prepare_cached(
        "SELECT day, hour, pass, warn, fail, stopped, lat_n, lat_sum, mos_n, mos_sum, segments
           FROM rollup_hour WHERE test_case_id = ?1 AND run_type = ?2 AND day BETWEEN ?3 AND ?4
          ORDER BY day, hour",
    )?;
    let mut seg_names =
        conn.prepare_cached("SELECT segment_id, name FROM segments WHERE test_case_id = ?1")?;
    let (d0, d1) = (buckets::day_number(from), buckets::day_number(to));
    let mut batch = Vec::with_capacity(EXPORT_BATCH);
    let mut sent = 0u64;
    let u = |v: i64| v.max(0) as u64;
    for (case, name) in cases {
        let names: BTreeMap<i64, String> = if by_segment {
            seg_names
                .query_map([case], |r| Ok((r.get("segment_id")?, r.get("name")?)))?
                .collect::<Result<_, _>>()?
        } else {
            BTreeMap::new()
        };
        let mut rows = stmt.query(params![case, rep.run_type.code(), d0, d1])?;
        while let Some(r) = rows.next()? {
            let date = buckets::day_date(r.get(0)?);
            let hour: u8 = r.get(1)?;
            if by_segment {
                let Some(segs) = blob(r, 10)? else { continue };
                ExportRow::push_segments(&mut batch, (date, hour, case, &name), segs, |id| {
                    names.get(&id).cloned().unwrap_or_default()
                })?;
            } else {
                batch.push(ExportRow {
                    date,
                    hour,
                    test_case_id: case,
                    test_case_name: name.clone(),
                    segment: None,
                    counts: [u(r.get(2)?), u(r.get(3)?), u(r.get(4)?), u(r.get(5)?)],
                    lat_n: u(r.get(6)?),
                    lat_sum: u(r.get(7)?),
                    mos_n: u(r.get(8)?),
                    mos_sum: u(r.get(9)?),
                });
            }
            if batch.len() >= EXPORT_BATCH {
                sent += batch.len() as u64;
                let full = std::mem::replace(&mut batch, Vec::with_capacity(EXPORT_BATCH));
                if tx.blocking_send(full).is_err() {
                    return Ok(sent);
                }
            }
        }
    }
    if !batch.is_empty() {
        sent += batch.len() as u64;
        let _ = tx.blocking_send(batch);
    }
    Ok(sent)
}

#[async_trait]
impl ReportViewStore for Sqlite {
    async fn report_latency(
        &self,
        report: Report,
        from: NaiveDate,
        to: NaiveDate,
    ) -> StoreResult<LatencyData> {
        self.read(move |c| latency(c, &report, from, to)).await
    }

    async fn report_runs(
        &self,
        q: ReportRunQuery,
        page: PageRequest,
    ) -> StoreResult<Page<ReportRunRow>> {
        self.read(move |c| runs(c, &q, page)).await
    }

    async fn export_report(
        &self,
        report: Report,
        from: NaiveDate,
        to: NaiveDate,
        tx: mpsc::Sender<Vec<ExportRow>>,
    ) -> StoreResult<u64> {
        self.read(move |c| export(c, &report, from, to, &tx)).await
    }
}
