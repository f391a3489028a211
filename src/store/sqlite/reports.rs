//! SQLite: [`ReportStore`]. The heat map and the export read `rollup_hour`, merged in Rust
//! by the code both backends share (`store::reports`); the runs behind a cell are read with
//! the site's local hour as a function of the connection.

use std::collections::BTreeMap;

use async_trait::async_trait;
use chrono::NaiveDate;
use rusqlite::functions::FunctionFlags;
use rusqlite::{params, Connection, OptionalExtension, Transaction};
use tokio::sync::mpsc;

use crate::domain::buckets;
use crate::domain::caller::{Scope, Visibility};
use crate::domain::page::{Page, PageRequest};
use crate::domain::report::{
    Report, ReportDraft, ReportFilter, ReportSortField, ReportType, Timeframe,
};
use crate::domain::run::{RunStatus, RunType};
use crate::store::audit;
use crate::store::catalog::{group_visibility, status_texts};
use crate::store::channel_of;
use crate::store::reports::{
    date_text, type_fits, CandidateRun, ExportRow, LatencyAcc, LatencyData, LatencyRow,
    ReportRunQuery, ReportStore, ScriptShape, EXPORT_BATCH,
};
use crate::store::runs::{ms_to_time, RunRow};
use crate::store::sql::{self, Lite};
use crate::store::{group_field, like, now_secs, takes_ticket, Sqlite, StoreResult};

use super::blob;
use super::rollups::load_script;

const COLUMNS: &str = "r.id, r.name, r.report_type, r.group_id, g.name, g.channel, r.timeframe,
    r.begin_date, r.end_date, r.run_type, r.latency_warn, r.latency_fail, r.jira_ticket,
    r.modified_at";

fn report_row(r: &rusqlite::Row) -> rusqlite::Result<Report> {
    let date = |i: usize| -> rusqlite::Result<Option<NaiveDate>> {
        Ok(r.get::<_, Option<String>>(i)?
            .and_then(|s| buckets::parse_date(&s)))
    };
    Ok(Report {
        id: r.get(0)?,
        name: r.get(1)?,
        report_type: ReportType::from_id(r.get(2)?).unwrap_or(ReportType::TestCasePerformance),
        group_id: r.get(3)?,
        group_name: r.get(4)?,
        channel: channel_of(&r.get::<_, String>(5)?)?,
        timeframe: Timeframe::parse(&r.get::<_, String>(6)?).unwrap_or(Timeframe::Custom),
        custom: (date(7)?, date(8)?),
        run_type: RunType::from_code(r.get(9)?).unwrap_or(RunType::Manual),
        latency_warn: r.get(10)?,
        latency_fail: r.get(11)?,
        jira_ticket: r.get(12)?,
        modified_at: r.get(13)?,
    })
}

fn get(conn: &Connection, id: i64) -> StoreResult<Option<Report>> {
    Ok(conn
        .prepare_cached(&format!(
            "SELECT {COLUMNS} FROM reports r JOIN test_case_groups g ON g.id = r.group_id
              WHERE r.id = ?1"
        ))?
        .query_row([id], report_row)
        .optional()?)
}

fn visible_report(conn: &Connection, scope: Scope, id: i64) -> StoreResult<Visibility<Report>> {
    let Some(rep) = get(conn, id)? else {
        return Ok(Visibility::Missing);
    };
    Ok(sql::finish(group_visibility(&Lite(conn), scope, rep.group_id))?.map(|()| rep))
}

/// The group exists, is the scope's, and its channel fits the type.
fn check_group(tx: &Transaction, scope: Scope, d: &ReportDraft) -> StoreResult<()> {
    group_field(
        "testCaseGroupID",
        d.group_id,
        sql::finish(group_visibility(&Lite(tx), scope, d.group_id))?,
    )?;
    let channel: String = tx.query_row(
        "SELECT channel FROM test_case_groups WHERE id = ?1",
        [d.group_id],
        |r| r.get(0),
    )?;
    type_fits(d, channel_of(&channel)?)
}

/// `?1` as a JSON array of a list filter, `[]` when empty.
fn json_list<T: serde::Serialize>(v: &[T]) -> String {
    serde_json::to_string(v).unwrap_or_else(|_| "[]".into())
}

fn list(
    conn: &Connection,
    scope: Scope,
    page: PageRequest,
    f: &ReportFilter,
) -> StoreResult<Page<Report>> {
    let search = f.search.as_deref().map(str::trim).filter(|s| !s.is_empty());
    let pattern = search.map(like);
    let id_search: Option<i64> = search.and_then(|s| s.parse().ok());
    let user = match scope {
        Scope::All => None,
        Scope::User(u) => Some(u),
    };
    let types: Vec<i64> = f.types.iter().map(|t| t.id()).collect();
    let timeframes: Vec<&str> = f.timeframes.iter().map(|t| t.name()).collect();
    let group_names: Vec<String> = f.group_names.iter().map(|g| g.to_lowercase()).collect();
    // Today's range of every named timeframe: the date filters compare the range a report
    // covers today.
    let ranges: Vec<(String, String, String)> = Timeframe::ALL
        .into_iter()
        .filter_map(|t| {
            let (b, e) = crate::domain::report::resolve(t, f.today, (None, None))?;
            Some((t.name().to_string(), b.to_string(), e.to_string()))
        })
        .collect();
    let ranges = serde_json::to_string(&ranges).unwrap_or_else(|_| "[]".into());
    let order = match f.sort.field {
        ReportSortField::Id => "r.id",
        ReportSortField::Name => "r.name COLLATE NOCASE",
        ReportSortField::ReportType => "r.report_type",
        ReportSortField::GroupName => "g.name COLLATE NOCASE",
        ReportSortField::Timeframe => "r.timeframe",
        ReportSortField::LastModified => "r.modified_at",
    };
    let dir = if f.sort.descending { "DESC" } else { "ASC" };
    let from = "reports r JOIN test_case_groups g ON g.id = r.group_id
        LEFT JOIN (SELECT value->>0 AS name, value->>1 AS b, value->>2 AS e
                     FROM json_each(?9)) tf ON tf.name = r.timeframe";
    let wher = "(?1 IS NULL OR r.group_id IN (SELECT group_id FROM user_groups WHERE user_id = ?1))
        AND (?2 IS NULL OR lower(r.name) LIKE ?2 ESCAPE '\\' OR r.id = ?3)
        AND (?4 = '[]' OR r.report_type IN (SELECT value FROM json_each(?4)))
        AND (?5 = '[]' OR lower(g.name) IN (SELECT value FROM json_each(?5)))
        AND (?6 = '[]' OR r.timeframe IN (SELECT value FROM json_each(?6)))
        AND (?7 IS NULL OR coalesce(tf.b, r.begin_date) >= ?7)
        AND (?8 IS NULL OR coalesce(tf.e, r.end_date, r.begin_date) <= ?8)";
    let args = params![
        user,
        pattern,
        id_search,
        json_list(&types),
        json_list(&group_names),
        json_list(&timeframes),
        date_text(f.start),
        date_text(f.end),
        ranges,
    ];
    let total: i64 = conn.query_row(
        &format!("SELECT count(*) FROM {from} WHERE {wher}"),
        args,
        |r| r.get(0),
    )?;
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT {COLUMNS} FROM {from} WHERE {wher}
          ORDER BY {order} {dir}, r.id {dir} LIMIT ?10 OFFSET ?11"
    ))?;
    let items = stmt
        .query_map(
            params![
                user,
                pattern,
                id_search,
                json_list(&types),
                json_list(&group_names),
                json_list(&timeframes),
                date_text(f.start),
                date_text(f.end),
                ranges,
                page.size,
                page.offset() as i64
            ],
            report_row,
        )?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Page {
        items,
        total: total.max(0) as u64,
    })
}

fn latency(
    conn: &Connection,
    rep: &Report,
    from: NaiveDate,
    to: NaiveDate,
) -> StoreResult<LatencyData> {
    let mut acc = LatencyAcc::new();
    let mut stmt = conn.prepare_cached(
        "SELECT r.test_case_id, r.hour, r.pass + r.warn + r.fail + r.stopped,
                r.lat_n, r.lat_sum, r.lat_hist, r.segments
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
            .query_row(params![case, seg], |r| Ok((r.get(0)?, r.get(1)?)))
            .optional()?
            .unwrap_or_default())
    })
}

fn runs(conn: &Connection, q: &ReportRunQuery, page: PageRequest) -> StoreResult<Page<RunRow>> {
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
    let select = format!(
        "SELECT r.id, r.test_case_id, tc.name, r.run_time, r.status, r.duration_ms,
                r.run_type, r.mos, r.script_id, r.results
           FROM {from} WHERE {wher}
          ORDER BY r.run_time DESC, r.id DESC"
    );
    let Some(lat) = q.latency else {
        let total: i64 = conn.query_row(
            &format!("SELECT count(*) FROM {from} WHERE {wher}"),
            base,
            |r| r.get(0),
        )?;
        let mut stmt = conn.prepare(&format!("{select} LIMIT ?11 OFFSET ?12"))?;
        let items = stmt
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
            .map(|c| c.map(|c| c.row))
            .collect::<Result<Vec<_>, _>>()?;
        return Ok(Page {
            items,
            total: total.max(0) as u64,
        });
    };
    // A latency filter needs each candidate's step results: walk them newest first, count
    // every match and keep the page's.
    let mut scripts: BTreeMap<i64, Vec<ScriptShape>> = BTreeMap::new();
    let mut stmt = conn.prepare(&select)?;
    let mut rows = stmt.query(base)?;
    let (skip, take) = (page.offset(), u64::from(page.size));
    let mut total = 0u64;
    let mut items = Vec::new();
    while let Some(r) = rows.next()? {
        let c = map(r)?;
        let script = match scripts.entry(c.script_id) {
            std::collections::btree_map::Entry::Occupied(e) => e.into_mut(),
            std::collections::btree_map::Entry::Vacant(e) => {
                e.insert(ScriptShape::of(&load_script(conn, c.script_id)?))
            }
        };
        if c.has_latency(script, q.segment_id, lat)? {
            if total >= skip && total < skip + take {
                items.push(c.row);
            }
            total += 1;
        }
    }
    Ok(Page { items, total })
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
        .query_map([rep.group_id], |r| Ok((r.get(0)?, r.get(1)?)))?
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
                .query_map([case], |r| Ok((r.get(0)?, r.get(1)?)))?
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
impl ReportStore for Sqlite {
    async fn list_reports(
        &self,
        scope: Scope,
        page: PageRequest,
        filter: &ReportFilter,
    ) -> StoreResult<Page<Report>> {
        let filter = filter.clone();
        self.read(move |c| list(c, scope, page, &filter)).await
    }

    async fn report(&self, scope: Scope, id: i64) -> StoreResult<Visibility<Report>> {
        self.read(move |c| visible_report(c, scope, id)).await
    }

    async fn create_report(&self, scope: Scope, draft: &ReportDraft) -> StoreResult<i64> {
        let d = draft.clone();
        self.write(move |tx| {
            check_group(tx, scope, &d)?;
            tx.execute(
                "INSERT INTO reports (name, report_type, group_id, timeframe, begin_date,
                        end_date, run_type, latency_warn, latency_fail, modified_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
                params![
                    d.name,
                    d.report_type.id(),
                    d.group_id,
                    d.timeframe.name(),
                    date_text(d.custom.0),
                    date_text(d.custom.1),
                    d.run_type.code(),
                    d.latency_warn,
                    d.latency_fail,
                    now_secs()
                ],
            )?;
            let id = tx.last_insert_rowid();
            sql::finish(audit::record(
                &Lite(tx),
                "report",
                "create",
                id,
                None,
                sql::finish(audit::snapshot(&Lite(tx), "reports", id))?,
            ))?;
            Ok(id)
        })
        .await
    }

    async fn update_report(
        &self,
        scope: Scope,
        id: i64,
        draft: &ReportDraft,
    ) -> StoreResult<Visibility<()>> {
        let d = draft.clone();
        self.write(move |tx| {
            if let Err(unseen) = visible_report(tx, scope, id)?.visible() {
                return Ok(unseen);
            }
            check_group(tx, scope, &d)?;
            let before = sql::finish(audit::snapshot(&Lite(tx), "reports", id))?;
            tx.execute(
                "UPDATE reports SET name = ?2, report_type = ?3, group_id = ?4, timeframe = ?5,
                        begin_date = ?6, end_date = ?7, run_type = ?8, latency_warn = ?9,
                        latency_fail = ?10, modified_at = ?11
                  WHERE id = ?1",
                params![
                    id,
                    d.name,
                    d.report_type.id(),
                    d.group_id,
                    d.timeframe.name(),
                    date_text(d.custom.0),
                    date_text(d.custom.1),
                    d.run_type.code(),
                    d.latency_warn,
                    d.latency_fail,
                    now_secs()
                ],
            )?;
            let after = sql::finish(audit::snapshot(&Lite(tx), "reports", id))?;
            sql::finish(audit::record(
                &Lite(tx),
                "report",
                "update",
                id,
                before,
                after,
            ))?;
            Ok(Visibility::Visible(()))
        })
        .await
    }

    async fn delete_report(&self, scope: Scope, id: i64) -> StoreResult<Visibility<()>> {
        self.write(move |tx| {
            let v = visible_report(tx, scope, id)?.map(|_| ());
            if v == Visibility::Visible(()) {
                let before = sql::finish(audit::snapshot(&Lite(tx), "reports", id))?;
                tx.execute("DELETE FROM reports WHERE id = ?1", [id])?;
                sql::finish(audit::record(
                    &Lite(tx),
                    "report",
                    "delete",
                    id,
                    before,
                    None,
                ))?;
            }
            Ok(v)
        })
        .await
    }

    async fn set_report_ticket(
        &self,
        scope: Scope,
        id: i64,
        key: &str,
    ) -> StoreResult<Visibility<()>> {
        let key = key.to_string();
        self.write(move |tx| {
            let rep = match visible_report(tx, scope, id)?.visible() {
                Ok(r) => r,
                Err(unseen) => return Ok(unseen),
            };
            if !takes_ticket("Report", id, rep.jira_ticket.as_deref(), &key)? {
                return Ok(Visibility::Visible(()));
            }
            let before = sql::finish(audit::snapshot(&Lite(tx), "reports", id))?;
            tx.execute(
                "UPDATE reports SET jira_ticket = ?2 WHERE id = ?1",
                params![id, key],
            )?;
            let after = sql::finish(audit::snapshot(&Lite(tx), "reports", id))?;
            sql::finish(audit::record(
                &Lite(tx),
                "report",
                "ticket",
                id,
                before,
                after,
            ))?;
            Ok(Visibility::Visible(()))
        })
        .await
    }

    async fn report_with_ticket(&self, scope: Scope, key: &str) -> StoreResult<Visibility<Report>> {
        let key = key.to_string();
        self.read(move |c| {
            let ids: Vec<i64> = c
                .prepare_cached("SELECT id FROM reports WHERE jira_ticket = ?1 ORDER BY id")?
                .query_map([&key], |r| r.get(0))?
                .collect::<Result<_, _>>()?;
            // Several reports may share a ticket key only through old data; the first the
            // scope may see answers.
            let mut seen = Visibility::Missing;
            for id in ids {
                match visible_report(c, scope, id)? {
                    Visibility::Visible(r) => return Ok(Visibility::Visible(r)),
                    Visibility::Hidden => seen = Visibility::Hidden,
                    Visibility::Missing => {}
                }
            }
            Ok(seen)
        })
        .await
    }

    async fn report_latency(
        &self,
        report: Report,
        from: NaiveDate,
        to: NaiveDate,
    ) -> StoreResult<LatencyData> {
        self.read(move |c| latency(c, &report, from, to)).await
    }

    async fn report_runs(&self, q: ReportRunQuery, page: PageRequest) -> StoreResult<Page<RunRow>> {
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
