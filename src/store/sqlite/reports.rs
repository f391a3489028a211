//! Saved reports (spec §3 'Report') and what their views read: the list the server pages,
//! one report, its changes, the latency heat map of a type-6 report and the CSV export rows
//! (both from the hourly rollups, `store::rollups`), and the runs behind a report's cell or
//! segment (the only query here that reads runs; paged).
//!
//! A report belongs to one test case group: a caller whose scope does not hold that group
//! neither sees nor changes it.

use std::collections::BTreeMap;

use async_trait::async_trait;

use crate::store::runs::ms_to_time;
use chrono::NaiveDate;
use chrono_tz::Tz;
use rusqlite::functions::FunctionFlags;
use rusqlite::{params, Connection, OptionalExtension, Transaction};
use tokio::sync::mpsc;

use crate::domain::buckets::{self, SLOTS};
use crate::domain::caller::{Scope, Visibility};
use crate::domain::dist;
use crate::domain::page::{Page, PageRequest};
use crate::domain::report::{
    bucket_of, Report, ReportDraft, ReportFilter, ReportSortField, ReportType, Timeframe,
    LATENCY_BUCKETS,
};
use crate::domain::run::{Channel, RunStatus, RunType};
use crate::store::audit;
use crate::store::catalog::{group_visibility, status_texts};
use crate::store::channel_of;
use crate::store::rollups::{self, load_script};
use crate::store::run_detail::ScriptSegment;
use crate::store::runs::RunRow;
use crate::store::sql::{self, Lite};
use crate::store::{group_field, invalid, now_secs, takes_ticket, Sqlite, StoreError, StoreResult};

#[async_trait]
pub trait ReportStore {
    /// One page of the reports the scope may see that match the filter.
    async fn list_reports(
        &self,
        scope: Scope,
        page: PageRequest,
        filter: &ReportFilter,
    ) -> StoreResult<Page<Report>>;
    /// Report `id`, when it exists and the scope may see its group.
    async fn report(&self, scope: Scope, id: i64) -> StoreResult<Visibility<Report>>;
    /// Adds a report; a `testCaseGroupID` problem when the group does not exist or is not
    /// the scope's, a `reportTypeID` one when the type does not fit the group's channel.
    async fn create_report(&self, scope: Scope, draft: &ReportDraft) -> StoreResult<i64>;
    /// Replaces report `id` (same checks as create).
    async fn update_report(
        &self,
        scope: Scope,
        id: i64,
        draft: &ReportDraft,
    ) -> StoreResult<Visibility<()>>;
    async fn delete_report(&self, scope: Scope, id: i64) -> StoreResult<Visibility<()>>;
    /// Records the issue-tracker ticket opened for report `id` (audited as the report's
    /// `ticket`); a conflict when the report already has another ticket.
    async fn set_report_ticket(
        &self,
        scope: Scope,
        id: i64,
        key: &str,
    ) -> StoreResult<Visibility<()>>;
    /// The report holding ticket `key`, when one does and the scope may see its group.
    async fn report_with_ticket(&self, scope: Scope, key: &str) -> StoreResult<Visibility<Report>>;
    /// The latency heat map of a report over local dates `from..=to`, from the rollups.
    async fn report_latency(
        &self,
        report: Report,
        from: NaiveDate,
        to: NaiveDate,
    ) -> StoreResult<LatencyData>;
    /// One page of the runs of the report's group matching `q`, newest first.
    async fn report_runs(&self, q: ReportRunQuery, page: PageRequest) -> StoreResult<Page<RunRow>>;
    /// Streams the export rows of a report over `from..=to` into `tx` in batches, in
    /// constant memory (one test case at a time, by name, then day and hour). Stops early
    /// when the receiver is gone.
    async fn export_report(
        &self,
        report: Report,
        from: NaiveDate,
        to: NaiveDate,
        tx: mpsc::Sender<Vec<ExportRow>>,
    ) -> StoreResult<u64>;
}

/// Figures of one local hour slot of a latency heat map.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LatencyHour {
    /// Runs in the slot (of the test case group, or having the segment).
    pub runs: u64,
    /// Step latencies measured, their sum (ms).
    pub lat_n: u64,
    pub lat_sum: u64,
    /// Step latencies per bucket of `LATENCY_BUCKETS`.
    pub buckets: [u64; LATENCY_BUCKETS.len()],
}

#[derive(Debug, Clone, PartialEq)]
pub struct LatencySegment {
    pub test_case_id: i64,
    pub test_case_name: String,
    pub segment_id: i64,
    pub segment_name: String,
    pub hours: Vec<LatencyHour>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct LatencyData {
    /// The whole group, 24 slots.
    pub hours: Vec<LatencyHour>,
    /// Per segment with runs in the range, by test case name then segment id.
    pub segments: Vec<LatencySegment>,
}

/// Which runs of a report's group to list (spec §7 `reports/{reportId}/testruns`).
#[derive(Debug, Clone, PartialEq)]
pub struct ReportRunQuery {
    pub group_id: i64,
    pub tz: Tz,
    /// UTC ms `[from, to)`.
    pub from_ms: i64,
    pub to_ms: i64,
    pub run_type: RunType,
    /// Stored status codes `lo..=hi`.
    pub status: (u8, u8),
    /// Runs of test cases that have this segment.
    pub segment_id: Option<i64>,
    /// Local hour slot.
    pub hour: Option<u8>,
    /// Runs with a step latency (of the segment, when given) in `[lo, hi)` ms.
    pub latency: Option<(u32, Option<u32>)>,
    /// MOS in hundredths, inclusive.
    pub mos: Option<(u32, u32)>,
}

/// One line of a report's CSV: a test case (or segment) in one local hour.
#[derive(Debug, Clone, PartialEq)]
pub struct ExportRow {
    pub date: NaiveDate,
    pub hour: u8,
    pub test_case_id: i64,
    pub test_case_name: String,
    pub segment: Option<(i64, String)>,
    /// pass, warn, fail, stopped.
    pub counts: [u64; 4],
    pub lat_n: u64,
    pub lat_sum: u64,
    pub mos_n: u64,
    pub mos_sum: u64,
}

impl ExportRow {
    /// Pushes the rows of a rollup row's segments (`segs`, of test case `case` named `name`,
    /// at `date` and `hour`) onto `batch`, each segment named by `segment_name`.
    pub(crate) fn push_segments(
        batch: &mut Vec<ExportRow>,
        (date, hour, case, name): (NaiveDate, u8, i64, &str),
        segs: &[u8],
        segment_name: impl Fn(i64) -> String,
    ) -> StoreResult<()> {
        rollups::for_each_segment(segs, |s| {
            batch.push(ExportRow {
                date,
                hour,
                test_case_id: case,
                test_case_name: name.to_string(),
                segment: Some((s.segment_id, segment_name(s.segment_id))),
                counts: s.counts,
                lat_n: s.lat_n,
                lat_sum: s.lat_sum,
                mos_n: 0,
                mos_sum: 0,
            });
            Ok(())
        })
        .map_err(corrupt)
    }
}

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

/// A report's type fits its group's channel (a voice report needs a voice group).
pub(crate) fn type_fits(d: &ReportDraft, channel: Channel) -> StoreResult<()> {
    if d.report_type.fits(channel) {
        return Ok(());
    }
    Err(invalid(
        "reportTypeID",
        format!(
            "A {} report needs a voice group; this group is {}.",
            d.report_type.name(),
            channel.label()
        ),
    ))
}

pub(crate) fn date_text(d: Option<NaiveDate>) -> Option<String> {
    d.map(|d| d.format("%Y-%m-%d").to_string())
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
    let pattern = search.map(crate::store::like);
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

fn corrupt(e: crate::domain::varint::Corrupt) -> StoreError {
    StoreError::Invalid(format!("stored rollup: {e}"))
}

fn blob<'a>(r: &'a rusqlite::Row, i: usize) -> rusqlite::Result<Option<&'a [u8]>> {
    r.get_ref(i)?
        .as_blob_or_null()
        .map_err(rusqlite::Error::from)
}

fn add_hist(h: &mut LatencyHour, hist: Option<&[u8]>, pairs: &mut dist::Pairs) -> StoreResult<()> {
    if let Some(hist) = hist {
        pairs.clear();
        dist::decode_into(hist, pairs).map_err(corrupt)?;
        for &(v, n) in pairs.iter() {
            let i = (bucket_of(v).id - 1) as usize;
            h.buckets[i] += u64::from(n);
        }
    }
    Ok(())
}

/// The latency heat map built from hourly rollup rows, whichever backend read them: the
/// group's hours, and each test case's segments by hour.
#[derive(Default)]
pub(in crate::store) struct LatencyAcc {
    hours: Vec<LatencyHour>,
    segs: BTreeMap<(i64, i64), Vec<LatencyHour>>,
    pairs: dist::Pairs,
}

/// One hourly rollup row as the heat map reads it.
pub(in crate::store) struct LatencyRow<'a> {
    pub case: i64,
    pub hour: usize,
    pub runs: u64,
    pub lat_n: u64,
    pub lat_sum: u64,
    pub lat_hist: Option<&'a [u8]>,
    pub segments: Option<&'a [u8]>,
}

impl LatencyAcc {
    pub(in crate::store) fn new() -> LatencyAcc {
        LatencyAcc {
            hours: vec![LatencyHour::default(); SLOTS],
            ..Default::default()
        }
    }

    /// Adds a row (an hour outside the day is ignored).
    pub(in crate::store) fn add(&mut self, r: LatencyRow) -> StoreResult<()> {
        let Some(h) = self.hours.get_mut(r.hour) else {
            return Ok(());
        };
        h.runs += r.runs;
        h.lat_n += r.lat_n;
        h.lat_sum += r.lat_sum;
        add_hist(h, r.lat_hist, &mut self.pairs)?;
        let Some(segments) = r.segments else {
            return Ok(());
        };
        let (segs, pairs) = (&mut self.segs, &mut self.pairs);
        let mut err = None;
        rollups::for_each_segment(segments, |s| {
            let hs = segs
                .entry((r.case, s.segment_id))
                .or_insert_with(|| vec![LatencyHour::default(); SLOTS]);
            let h = &mut hs[r.hour];
            h.runs += s.counts.iter().sum::<u64>();
            h.lat_n += s.lat_n;
            h.lat_sum += s.lat_sum;
            if !s.lat_hist.is_empty() {
                if let Err(e) = add_hist(h, Some(s.lat_hist), pairs) {
                    err = Some(e);
                }
            }
            Ok(())
        })
        .map_err(corrupt)?;
        err.map_or(Ok(()), Err)
    }

    /// The (test case, segment) pairs seen, to look their names up.
    pub(in crate::store) fn segment_keys(&self) -> Vec<(i64, i64)> {
        self.segs.keys().copied().collect()
    }

    /// The heat map, segments named by `names` ((test case, segment) -> (test case name,
    /// segment name)) and ordered by test case name without case, then ids.
    pub(in crate::store) fn finish(
        self,
        mut names: impl FnMut(i64, i64) -> StoreResult<(String, String)>,
    ) -> StoreResult<LatencyData> {
        let mut segments = Vec::with_capacity(self.segs.len());
        for ((case, seg), hours) in self.segs {
            let (case_name, seg_name) = names(case, seg)?;
            segments.push(LatencySegment {
                test_case_id: case,
                test_case_name: case_name,
                segment_id: seg,
                segment_name: seg_name,
                hours,
            });
        }
        segments.sort_by(|a, b| {
            a.test_case_name
                .to_lowercase()
                .cmp(&b.test_case_name.to_lowercase())
                .then(a.test_case_id.cmp(&b.test_case_id))
                .then(a.segment_id.cmp(&b.segment_id))
        });
        Ok(LatencyData {
            hours: self.hours,
            segments,
        })
    }
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

/// Segment ids and step counts of a script, to split a run's step results.
pub(crate) struct ScriptShape {
    segment_id: i64,
    steps: usize,
}

impl ScriptShape {
    pub(crate) fn of(script: &[ScriptSegment]) -> Vec<ScriptShape> {
        script
            .iter()
            .map(|s| ScriptShape {
                segment_id: s.segment_id,
                steps: s.steps.len(),
            })
            .collect()
    }
}

/// A run a report's run list may show, with what a latency filter needs to check it.
pub(crate) struct CandidateRun {
    pub(crate) row: RunRow,
    pub(crate) script_id: i64,
    pub(crate) run_ms: i64,
    pub(crate) results: Vec<u8>,
}

impl CandidateRun {
    /// Does the run have a step latency (of segment `seg`, when given) in `[lo, hi)`?
    /// `script` is the shape of the run's script.
    pub(crate) fn has_latency(
        &self,
        script: &[ScriptShape],
        seg: Option<i64>,
        (lo, hi): (u32, Option<u32>),
    ) -> StoreResult<bool> {
        let steps = crate::store::run_detail::decode(&self.results, self.run_ms)
            .map_err(|e| StoreError::Invalid(format!("stored run detail: {e}")))?;
        let mut at = 0usize;
        for s in script {
            let mine = steps.get(at..at + s.steps).unwrap_or(&[]);
            at += s.steps;
            if seg.is_some_and(|id| id != s.segment_id) {
                continue;
            }
            let hit = mine.iter().filter_map(|t| t.latency).any(|l| {
                let l = l.clamp(0, i64::from(u32::MAX)) as u32;
                l >= lo && hi.is_none_or(|h| l < h)
            });
            if hit {
                return Ok(true);
            }
        }
        Ok(false)
    }
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

const EXPORT_BATCH: usize = 1000;

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
