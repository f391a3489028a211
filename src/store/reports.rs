//! Saved reports (spec §3 'Report') and what their views read. [`ReportStore`], the
//! reports themselves (the list the server pages, one report, saves, deletes, the ticket
//! key), is written once here for both backends, with its audit. [`ReportViewStore`] reads
//! the hourly rollups (`store::rollups`) and runs in each backend's dialect
//! (`sqlite/reports.rs`, `pg/reports.rs`): the latency heat map of a type-6 report, the CSV
//! export rows, and the runs behind a report's cell or segment (paged); what both share
//! (the heat map built from rollup rows, the latency filter of a run list) is here too.
//!
//! A report belongs to one test case group: a caller whose scope does not hold that group
//! neither sees nor changes it.

use std::collections::BTreeMap;

use async_trait::async_trait;
use chrono::NaiveDate;
use chrono_tz::Tz;
use tokio::sync::mpsc;

use super::audit;
use super::catalog::{channel, group_visibility};
use super::rollups::{self, corrupt, RunFacts};
use super::run_detail::ScriptSegment;
use super::runs::RunRow;
use super::sql::{self, Exec, SqlStore};
use super::{group_field, invalid, like, now_secs, takes_ticket, StoreError, StoreResult};
use crate::domain::buckets::{self, SLOTS};
use crate::domain::caller::{Scope, Visibility};
use crate::domain::dist;
use crate::domain::page::{Page, PageRequest, Sort};
use crate::domain::report::{
    bucket_of, Report, ReportDraft, ReportFilter, ReportSortField, ReportType, Timeframe,
    LATENCY_BUCKETS,
};
use crate::domain::run::{Channel, RunSortField, RunType};

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
}

/// What a report's views read from the rollups and runs, in each backend's dialect
/// (`sqlite/reports.rs`, `pg/reports.rs`).
#[async_trait]
pub trait ReportViewStore {
    /// The latency heat map of a report over local dates `from..=to`, from the rollups.
    async fn report_latency(
        &self,
        report: Report,
        from: NaiveDate,
        to: NaiveDate,
    ) -> StoreResult<LatencyData>;
    /// One page of the runs of the report's group matching `q`, newest first unless `q.sort`
    /// asks otherwise, each with its slowest step latency.
    async fn report_runs(
        &self,
        q: ReportRunQuery,
        page: PageRequest,
    ) -> StoreResult<Page<ReportRunRow>>;
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

const COLUMNS: &str =
    "r.id, r.name, r.report_type, r.group_id, g.name AS group_name, g.channel, r.timeframe,
    r.begin_date, r.end_date, r.run_type, r.latency_warn, r.latency_fail, r.jira_ticket,
    r.modified_at";

/// Whether the scope (`$2`, NULL for all) sees the report's group, as a column (the check
/// of `catalog::group_visibility`, in the same read as the report).
const VISIBLE: &str = "CAST($2 AS BIGINT) IS NULL OR EXISTS (SELECT 1 FROM user_groups ug
    WHERE ug.user_id = $2 AND ug.group_id = r.group_id)";

/// A report of a row of [`COLUMNS`].
fn report_row(r: &sql::Row) -> StoreResult<Report> {
    let date = |name: &str| -> StoreResult<Option<NaiveDate>> {
        Ok(r.col::<Option<String>>(name)?
            .and_then(|s| buckets::parse_date(&s)))
    };
    let ms = |name: &str| -> StoreResult<u32> {
        Ok(u32::try_from(r.col::<i64>(name)?.max(0)).unwrap_or(u32::MAX))
    };
    Ok(Report {
        id: r.col("id")?,
        name: r.col("name")?,
        report_type: ReportType::from_id(r.col("report_type")?)
            .unwrap_or(ReportType::TestCasePerformance),
        group_id: r.col("group_id")?,
        group_name: r.col("group_name")?,
        channel: channel(&r.col::<String>("channel")?)?,
        timeframe: Timeframe::parse(&r.col::<String>("timeframe")?).unwrap_or(Timeframe::Custom),
        custom: (date("begin_date")?, date("end_date")?),
        run_type: u8::try_from(r.col::<i64>("run_type")?)
            .ok()
            .and_then(RunType::from_code)
            .unwrap_or(RunType::Manual),
        latency_warn: ms("latency_warn")?,
        latency_fail: ms("latency_fail")?,
        jira_ticket: r.col("jira_ticket")?,
        modified_at: r.col("modified_at")?,
    })
}

/// A row of [`COLUMNS`] and [`VISIBLE`] as the scope's answer.
fn visible_row(r: &sql::Row) -> StoreResult<Visibility<Report>> {
    if r.col::<bool>("visible")? {
        Ok(Visibility::Visible(report_row(r)?))
    } else {
        Ok(Visibility::Hidden)
    }
}

/// Report `id` and whether the scope sees it, in one read; `lock` (PostgreSQL) locks its
/// row until the transaction ends, for a change that checks it first.
async fn visible_report(
    c: &impl Exec,
    scope: Scope,
    id: i64,
    lock: bool,
) -> StoreResult<Visibility<Report>> {
    let lock = if lock {
        c.pg_only(" FOR UPDATE OF r")
    } else {
        ""
    };
    let row = c
        .query_opt(
            &format!(
                "SELECT {COLUMNS}, {VISIBLE} AS visible FROM reports r
                   JOIN test_case_groups g ON g.id = r.group_id
                  WHERE r.id = $1{lock}"
            ),
            &[&id, &scope.user()],
        )
        .await?;
    match row {
        None => Ok(Visibility::Missing),
        Some(r) => visible_row(&r),
    }
}

/// The group exists, is the scope's, and its channel fits the type.
async fn check_group(c: &impl Exec, scope: Scope, d: &ReportDraft) -> StoreResult<()> {
    group_field(
        "testCaseGroupID",
        d.group_id,
        group_visibility(c, scope, d.group_id).await?,
    )?;
    let kind: String = c
        .scalar(
            "SELECT channel FROM test_case_groups WHERE id = $1",
            &[&d.group_id],
        )
        .await?;
    type_fits(d, channel(&kind)?)
}

/// The draft's columns as an insert or update binds them: name, type, group, timeframe,
/// custom dates, run type, latency thresholds, and the time of the change.
fn draft_values(d: &ReportDraft) -> Vec<sql::Value> {
    use sql::Param;
    vec![
        d.name.value(),
        d.report_type.id().value(),
        d.group_id.value(),
        d.timeframe.name().value(),
        date_text(d.custom.0).value(),
        date_text(d.custom.1).value(),
        d.run_type.code().value(),
        d.latency_warn.value(),
        d.latency_fail.value(),
        now_secs().value(),
    ]
}

/// Appends `values` to `params`; their placeholders, for an `IN (…)` list.
fn push_list<'a>(
    params: &mut Vec<&'a dyn sql::Param>,
    values: impl ExactSizeIterator<Item = &'a dyn sql::Param>,
) -> String {
    let text = sql::placeholders(params.len() + 1, values.len());
    params.extend(values);
    text
}

#[async_trait]
impl<S: SqlStore> ReportStore for S {
    async fn list_reports(
        &self,
        scope: Scope,
        page: PageRequest,
        f: &ReportFilter,
    ) -> StoreResult<Page<Report>> {
        let search = f.search.as_deref().map(str::trim).filter(|s| !s.is_empty());
        let pattern = search.map(like);
        let id_search: Option<i64> = search.and_then(|s| s.parse().ok());
        let types: Vec<i64> = f.types.iter().map(|t| t.id()).collect();
        let timeframes: Vec<String> = f.timeframes.iter().map(|t| t.name().to_string()).collect();
        let group_names: Vec<String> = f.group_names.iter().map(|g| g.to_lowercase()).collect();
        // Today's range of every named timeframe: the date filters compare the range a
        // report covers today.
        let ranges: Vec<[String; 3]> = Timeframe::ALL
            .into_iter()
            .filter_map(|t| {
                let (b, e) = crate::domain::report::resolve(t, f.today, (None, None))?;
                Some([t.name().to_string(), b.to_string(), e.to_string()])
            })
            .collect();
        let (start, end) = (date_text(f.start), date_text(f.end));
        let (field, dir) = (f.sort.field, if f.sort.descending { "DESC" } else { "ASC" });
        sql::read!(self, |c| {
            // Text compared and ordered by byte on both (PostgreSQL in "C").
            let bytes = c.pg_only(" COLLATE \"C\"");
            let order = match field {
                ReportSortField::Id => "r.id".to_string(),
                ReportSortField::Name => c.nocase("r.name"),
                ReportSortField::ReportType => "r.report_type".to_string(),
                ReportSortField::GroupName => c.nocase("g.name"),
                ReportSortField::Timeframe => format!("r.timeframe{bytes}"),
                ReportSortField::LastModified => "r.modified_at".to_string(),
            };
            let user = scope.user();
            let mut params: Vec<&dyn sql::Param> = vec![&user, &pattern, &id_search, &start, &end];
            let mut wher = format!(
                "(CAST($1 AS BIGINT) IS NULL
                    OR r.group_id IN (SELECT group_id FROM user_groups WHERE user_id = $1))
                 AND (CAST($2 AS TEXT) IS NULL OR {} LIKE $2 ESCAPE '\\' OR r.id = $3)
                 AND (CAST($4 AS TEXT) IS NULL OR coalesce(tf.b, r.begin_date){bytes} >= $4)
                 AND (CAST($5 AS TEXT) IS NULL
                    OR coalesce(tf.e, r.end_date, r.begin_date){bytes} <= $5)",
                c.fold("r.name")
            );
            // The filters' lists follow, then today's ranges.
            if !types.is_empty() {
                let at = push_list(&mut params, types.iter().map(|t| t as _));
                wher += &format!(" AND r.report_type IN ({at})");
            }
            if !group_names.is_empty() {
                let at = push_list(&mut params, group_names.iter().map(|g| g as _));
                wher += &format!(" AND {} IN ({at})", c.nocase("g.name"));
            }
            if !timeframes.is_empty() {
                let at = push_list(&mut params, timeframes.iter().map(|t| t as _));
                wher += &format!(" AND r.timeframe IN ({at})");
            }
            let mut tf = Vec::with_capacity(ranges.len());
            for [name, b, e] in &ranges {
                let at = params.len();
                params.extend([name as &dyn sql::Param, b, e]);
                tf.push(format!(
                    "SELECT CAST(${} AS TEXT) AS name, CAST(${} AS TEXT) AS b, CAST(${} AS TEXT) AS e",
                    at + 1,
                    at + 2,
                    at + 3
                ));
            }
            if tf.is_empty() {
                tf.push("SELECT CAST(NULL AS TEXT) AS name, CAST(NULL AS TEXT) AS b, CAST(NULL AS TEXT) AS e".into());
            }
            let from = format!(
                "reports r JOIN test_case_groups g ON g.id = r.group_id
                 LEFT JOIN ({}) tf ON tf.name = r.timeframe",
                tf.join(" UNION ALL ")
            );
            let total: i64 = c
                .scalar(
                    &format!("SELECT count(*) FROM {from} WHERE {wher}"),
                    &params,
                )
                .await?;
            let (size, offset) = (i64::from(page.size), page.offset() as i64);
            let n = params.len();
            params.extend([&size as &dyn sql::Param, &offset]);
            let items = c
                .query(
                    &format!(
                        "SELECT {COLUMNS} FROM {from} WHERE {wher}
                          ORDER BY {order} {dir}, r.id {dir} LIMIT ${} OFFSET ${}",
                        n + 1,
                        n + 2
                    ),
                    &params,
                )
                .await?
                .iter()
                .map(report_row)
                .collect::<StoreResult<Vec<_>>>()?;
            Ok(Page {
                items,
                total: total.max(0) as u64,
            })
        })
    }

    async fn report(&self, scope: Scope, id: i64) -> StoreResult<Visibility<Report>> {
        sql::read!(self, |c| visible_report(c, scope, id, false).await)
    }

    async fn create_report(&self, scope: Scope, draft: &ReportDraft) -> StoreResult<i64> {
        sql::write!(self, [d = draft.clone()], |c| {
            check_group(c, scope, &d).await?;
            let values = draft_values(&d);
            let params: Vec<&dyn sql::Param> = values.iter().map(|v| v as _).collect();
            let id: i64 = c
                .scalar(
                    "INSERT INTO reports (name, report_type, group_id, timeframe, begin_date,
                            end_date, run_type, latency_warn, latency_fail, modified_at)
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING id",
                    &params,
                )
                .await?;
            let after = audit::snapshot(c, "reports", id).await?;
            audit::record(c, "report", "create", id, None, after).await?;
            Ok(id)
        })
    }

    async fn update_report(
        &self,
        scope: Scope,
        id: i64,
        draft: &ReportDraft,
    ) -> StoreResult<Visibility<()>> {
        sql::write!(self, [d = draft.clone()], |c| {
            if let Err(unseen) = visible_report(c, scope, id, true).await?.visible() {
                return Ok(unseen);
            }
            check_group(c, scope, &d).await?;
            let before = audit::snapshot(c, "reports", id).await?;
            let values = draft_values(&d);
            let mut params: Vec<&dyn sql::Param> = vec![&id];
            params.extend(values.iter().map(|v| v as &dyn sql::Param));
            c.execute(
                "UPDATE reports SET name = $2, report_type = $3, group_id = $4, timeframe = $5,
                        begin_date = $6, end_date = $7, run_type = $8, latency_warn = $9,
                        latency_fail = $10, modified_at = $11
                  WHERE id = $1",
                &params,
            )
            .await?;
            let after = audit::snapshot(c, "reports", id).await?;
            audit::record(c, "report", "update", id, before, after).await?;
            Ok(Visibility::Visible(()))
        })
    }

    async fn delete_report(&self, scope: Scope, id: i64) -> StoreResult<Visibility<()>> {
        sql::write!(self, |c| {
            let v = visible_report(c, scope, id, true).await?.map(|_| ());
            if v == Visibility::Visible(()) {
                let before = audit::snapshot(c, "reports", id).await?;
                c.execute("DELETE FROM reports WHERE id = $1", &[&id])
                    .await?;
                audit::record(c, "report", "delete", id, before, None).await?;
            }
            Ok(v)
        })
    }

    async fn set_report_ticket(
        &self,
        scope: Scope,
        id: i64,
        key: &str,
    ) -> StoreResult<Visibility<()>> {
        sql::write!(self, [key = key.to_string()], |c| {
            let rep = match visible_report(c, scope, id, true).await?.visible() {
                Ok(r) => r,
                Err(unseen) => return Ok(unseen),
            };
            if !takes_ticket("Report", id, rep.jira_ticket.as_deref(), &key)? {
                return Ok(Visibility::Visible(()));
            }
            let before = audit::snapshot(c, "reports", id).await?;
            c.execute(
                "UPDATE reports SET jira_ticket = $2 WHERE id = $1",
                &[&id, &key],
            )
            .await?;
            let after = audit::snapshot(c, "reports", id).await?;
            audit::record(c, "report", "ticket", id, before, after).await?;
            Ok(Visibility::Visible(()))
        })
    }

    async fn report_with_ticket(&self, scope: Scope, key: &str) -> StoreResult<Visibility<Report>> {
        sql::read!(self, [key = key.to_string()], |c| {
            // Several reports may share a ticket key only through old data; the first the
            // scope may see answers.
            let rows = c
                .query(
                    &format!(
                        "SELECT {COLUMNS}, {VISIBLE} AS visible FROM reports r
                           JOIN test_case_groups g ON g.id = r.group_id
                          WHERE r.jira_ticket = $1 ORDER BY r.id"
                    ),
                    &[&key, &scope.user()],
                )
                .await?;
            let seen = rows
                .iter()
                .map(|r| r.get::<bool>(14))
                .collect::<StoreResult<Vec<_>>>()?;
            let answers = rows.iter().zip(seen).map(|(r, seen)| match seen {
                true => Visibility::Visible(r),
                false => Visibility::Hidden,
            });
            Visibility::first(answers).try_map(report_row)
        })
    }
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
    /// The whole group per local date with runs, oldest first, 24 slots each.
    pub days: Vec<(NaiveDate, Vec<LatencyHour>)>,
    /// Per segment with runs in the range, by test case name then segment id.
    pub segments: Vec<LatencySegment>,
}

impl LatencyData {
    /// Takes the runs `marked` (stored while a maintenance window covered them)
    /// out of the heat map read from the rollups, each as it was added there (its run, step
    /// latencies and buckets, in its local hour, day and segments); days and segments left
    /// without runs go. Returns how many it took out.
    pub fn leave_out(&mut self, marked: &[RunFacts], tz: Tz) -> u64 {
        fn take(h: &mut LatencyHour, lats: &[u32]) {
            h.runs = h.runs.saturating_sub(1);
            h.lat_n = h.lat_n.saturating_sub(lats.len() as u64);
            h.lat_sum = h
                .lat_sum
                .saturating_sub(lats.iter().map(|&l| u64::from(l)).sum());
            for &l in lats {
                if let Some(b) = h.buckets.get_mut((bucket_of(l).id - 1) as usize) {
                    *b = b.saturating_sub(1);
                }
            }
        }
        for f in marked {
            let (day, hour) = buckets::local_slot(tz, f.run_ms);
            let hour = usize::from(hour);
            let all: Vec<u32> = f
                .segments
                .iter()
                .flat_map(|s| s.latencies.iter().copied())
                .collect();
            if let Some(h) = self.hours.get_mut(hour) {
                take(h, &all);
            }
            let date = buckets::day_date(day);
            if let Some(h) = self
                .days
                .iter_mut()
                .find(|(d, _)| *d == date)
                .and_then(|(_, hs)| hs.get_mut(hour))
            {
                take(h, &all);
            }
            for s in &f.segments {
                if let Some(h) = self
                    .segments
                    .iter_mut()
                    .find(|x| x.test_case_id == f.case_id && x.segment_id == s.segment_id)
                    .and_then(|x| x.hours.get_mut(hour))
                {
                    take(h, &s.latencies);
                }
            }
        }
        self.days.retain(|(_, hs)| hs.iter().any(|h| h.runs > 0));
        self.segments.retain(|s| s.hours.iter().any(|h| h.runs > 0));
        marked.len() as u64
    }
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
    /// The order asked for; none: newest first.
    pub sort: Option<Sort<RunSortField>>,
}

pub use crate::domain::report_csv::ExportRow;

impl ExportRow {
    /// Pushes the rows of a rollup row's segments (`segs`, of test case `case` named `name`,
    /// at `date` and `hour`) onto `batch`, each segment named by `segment_name`.
    pub(super) fn push_segments(
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

/// What the runs marked in maintenance windows added to a report's export rows,
/// by (local date, hour, test case, segment): the export and the scheduled mail read the
/// rollups, which hold every run, and take these out again, as the views do.
#[derive(Debug, Default)]
pub struct ExportLeaveOut {
    parts: std::collections::HashMap<(NaiveDate, u8, i64, Option<i64>), ExportPart>,
}

#[derive(Debug, Default)]
struct ExportPart {
    counts: [u64; 4],
    lat_n: u64,
    lat_sum: u64,
    mos_n: u64,
    mos_sum: u64,
}

impl ExportLeaveOut {
    pub fn new(marked: &[RunFacts], tz: Tz) -> ExportLeaveOut {
        let mut out = ExportLeaveOut::default();
        for f in marked {
            let (day, hour) = buckets::local_slot(tz, f.run_ms);
            let date = buckets::day_date(day);
            let case = out.parts.entry((date, hour, f.case_id, None)).or_default();
            case.counts[usize::from(f.status & 3)] += 1;
            if let Some(m) = f.mos {
                case.mos_n += 1;
                case.mos_sum += u64::from(m);
            }
            for s in &f.segments {
                case.lat_n += s.latencies.len() as u64;
                case.lat_sum += s.latencies.iter().map(|&l| u64::from(l)).sum::<u64>();
            }
            for s in &f.segments {
                let seg = out
                    .parts
                    .entry((date, hour, f.case_id, Some(s.segment_id)))
                    .or_default();
                seg.counts[usize::from(s.status & 3)] += 1;
                seg.lat_n += s.latencies.len() as u64;
                seg.lat_sum += s.latencies.iter().map(|&l| u64::from(l)).sum::<u64>();
            }
        }
        out
    }

    /// Takes the marked runs out of `row`; false when it has no run left (the export lists
    /// only hours with runs).
    pub fn apply(&self, row: &mut ExportRow) -> bool {
        let key = (
            row.date,
            row.hour,
            row.test_case_id,
            row.segment.as_ref().map(|s| s.0),
        );
        if let Some(p) = self.parts.get(&key) {
            for (c, t) in row.counts.iter_mut().zip(p.counts) {
                *c = c.saturating_sub(t);
            }
            row.lat_n = row.lat_n.saturating_sub(p.lat_n);
            row.lat_sum = row.lat_sum.saturating_sub(p.lat_sum);
            row.mos_n = row.mos_n.saturating_sub(p.mos_n);
            row.mos_sum = row.mos_sum.saturating_sub(p.mos_sum);
        }
        row.counts.iter().sum::<u64>() > 0
    }

    /// Takes the marked runs out of a batch of rows, dropping those left without runs.
    pub fn batch(&self, rows: &mut Vec<ExportRow>) {
        if !self.parts.is_empty() {
            rows.retain_mut(|r| self.apply(r));
        }
    }
}

/// Export rows sent at a time.
pub(super) const EXPORT_BATCH: usize = 1000;

/// A report's type fits its group's channel (a voice report needs a voice group).
pub(super) fn type_fits(d: &ReportDraft, channel: Channel) -> StoreResult<()> {
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

pub(super) fn date_text(d: Option<NaiveDate>) -> Option<String> {
    d.map(|d| d.format("%Y-%m-%d").to_string())
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
pub(super) struct LatencyAcc {
    hours: Vec<LatencyHour>,
    /// The whole group per day number, 24 slots each.
    days: BTreeMap<i32, Vec<LatencyHour>>,
    segs: BTreeMap<(i64, i64), Vec<LatencyHour>>,
    pairs: dist::Pairs,
}

/// One hourly rollup row as the heat map reads it.
pub(super) struct LatencyRow<'a> {
    pub case: i64,
    /// Day number (`buckets::day_number`).
    pub day: i32,
    pub hour: usize,
    pub runs: u64,
    pub lat_n: u64,
    pub lat_sum: u64,
    pub lat_hist: Option<&'a [u8]>,
    pub segments: Option<&'a [u8]>,
}

impl LatencyAcc {
    pub(super) fn new() -> LatencyAcc {
        LatencyAcc {
            hours: vec![LatencyHour::default(); SLOTS],
            ..Default::default()
        }
    }

    /// Adds a row (an hour outside the day is ignored).
    pub(super) fn add(&mut self, r: LatencyRow) -> StoreResult<()> {
        let Some(h) = self.hours.get_mut(r.hour) else {
            return Ok(());
        };
        h.runs += r.runs;
        h.lat_n += r.lat_n;
        h.lat_sum += r.lat_sum;
        add_hist(h, r.lat_hist, &mut self.pairs)?;
        let d = &mut self
            .days
            .entry(r.day)
            .or_insert_with(|| vec![LatencyHour::default(); SLOTS])[r.hour];
        d.runs += r.runs;
        d.lat_n += r.lat_n;
        d.lat_sum += r.lat_sum;
        add_hist(d, r.lat_hist, &mut self.pairs)?;
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
    pub(super) fn segment_keys(&self) -> Vec<(i64, i64)> {
        self.segs.keys().copied().collect()
    }

    /// The heat map, segments named by `names` ((test case, segment) -> (test case name,
    /// segment name)) and ordered by test case name without case, then ids.
    pub(super) fn finish(
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
            days: self
                .days
                .into_iter()
                .map(|(d, hours)| (buckets::day_date(d), hours))
                .collect(),
            segments,
        })
    }
}

/// Segment ids and step counts of a script, to split a run's step results.
#[derive(Debug, Clone)]
pub(super) struct ScriptShape {
    segment_id: i64,
    steps: usize,
}

impl ScriptShape {
    pub(super) fn of(script: &[ScriptSegment]) -> Vec<ScriptShape> {
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
pub(super) struct CandidateRun {
    pub(super) row: RunRow,
    pub(super) script_id: i64,
    pub(super) run_ms: i64,
    pub(super) results: Vec<u8>,
}

impl CandidateRun {
    /// The run's slowest step latency (ms) of segment `seg` (when given) in `[lo, hi)`, or
    /// `None` when it has none there. `script` is the shape of the run's script.
    pub(super) fn slowest(
        &self,
        script: &[ScriptShape],
        seg: Option<i64>,
        (lo, hi): (u32, Option<u32>),
    ) -> StoreResult<Option<i64>> {
        if self.results.is_empty() {
            return Ok(None);
        }
        let steps = super::run_detail::decode(&self.results, self.run_ms)
            .map_err(|e| StoreError::Invalid(format!("stored run detail: {e}")))?;
        let mut at = 0usize;
        let mut best = None;
        for s in script {
            let mine = steps.get(at..at + s.steps).unwrap_or(&[]);
            at += s.steps;
            if seg.is_some_and(|id| id != s.segment_id) {
                continue;
            }
            for l in mine.iter().filter_map(|t| t.latency) {
                let u = l.clamp(0, i64::from(u32::MAX)) as u32;
                if u >= lo && hi.is_none_or(|h| u < h) && best.is_none_or(|b| l > b) {
                    best = Some(l);
                }
            }
        }
        Ok(best)
    }
}

/// A run of a report's run list with its slowest step latency (ms; of the asked segment,
/// within the asked latency bucket), `None` when it has none there.
#[derive(Debug, Clone, PartialEq)]
pub struct ReportRunRow {
    pub run: RunRow,
    pub latency: Option<i64>,
}

/// A report's run list walked candidate by candidate, in the SQL order, when the stored step
/// results decide (a latency filter, or a sort by latency): counts the matches and keeps the
/// page's, or all of them to sort by latency at the end.
pub(super) struct RunWalk {
    page: PageRequest,
    filtered: bool,
    /// Sort by latency, descending?
    by_latency: Option<bool>,
    range: (u32, Option<u32>),
    segment: Option<i64>,
    total: u64,
    items: Vec<ReportRunRow>,
}

impl RunWalk {
    /// Whether `q` needs the walk (else SQL pages it).
    pub(super) fn needed(q: &ReportRunQuery) -> bool {
        q.latency.is_some() || q.sort.is_some_and(|s| s.field == RunSortField::Latency)
    }

    pub(super) fn new(q: &ReportRunQuery, page: PageRequest) -> RunWalk {
        RunWalk {
            page,
            filtered: q.latency.is_some(),
            by_latency: q
                .sort
                .filter(|s| s.field == RunSortField::Latency)
                .map(|s| s.descending),
            range: q.latency.unwrap_or((0, None)),
            segment: q.segment_id,
            total: 0,
            items: Vec::new(),
        }
    }

    /// A page SQL found (no filter, no walk; `total` runs in all), each run with its
    /// latency, its script's shape from `shape`.
    pub(super) fn sql_page(
        q: &ReportRunQuery,
        found: Vec<CandidateRun>,
        total: i64,
        mut shape: impl FnMut(i64) -> StoreResult<Vec<ScriptShape>>,
    ) -> StoreResult<Page<ReportRunRow>> {
        let mut items = Vec::with_capacity(found.len());
        for c in found {
            let script = shape(c.script_id)?;
            let latency = c.slowest(&script, q.segment_id, q.latency.unwrap_or((0, None)))?;
            items.push(ReportRunRow {
                run: c.row,
                latency,
            });
        }
        Ok(Page {
            items,
            total: total.max(0) as u64,
        })
    }

    pub(super) fn push(&mut self, c: CandidateRun, script: &[ScriptShape]) -> StoreResult<()> {
        let latency = c.slowest(script, self.segment, self.range)?;
        if self.filtered && latency.is_none() {
            return Ok(());
        }
        let (skip, take) = (self.page.offset(), u64::from(self.page.size));
        if self.by_latency.is_some() || (self.total >= skip && self.total < skip + take) {
            self.items.push(ReportRunRow {
                run: c.row,
                latency,
            });
        }
        self.total += 1;
        Ok(())
    }

    pub(super) fn finish(self) -> Page<ReportRunRow> {
        let Some(descending) = self.by_latency else {
            return Page {
                items: self.items,
                total: self.total,
            };
        };
        let mut items = self.items;
        // Stable: equal latencies stay newest first; a run without one last.
        items.sort_by(|a, b| match (a.latency, b.latency) {
            (Some(x), Some(y)) if descending => y.cmp(&x),
            (Some(x), Some(y)) => x.cmp(&y),
            (Some(_), None) => std::cmp::Ordering::Less,
            (None, Some(_)) => std::cmp::Ordering::Greater,
            (None, None) => std::cmp::Ordering::Equal,
        });
        let skip = usize::try_from(self.page.offset()).unwrap_or(usize::MAX);
        let items = items
            .into_iter()
            .skip(skip)
            .take(self.page.size as usize)
            .collect();
        Page {
            items,
            total: self.total,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::caller::{AccessType, Role};
    use crate::domain::page::Sort;
    use crate::domain::user::UserDraft;
    use crate::store::catalog::GroupDraft;

    fn draft(name: &str, group_id: i64, timeframe: Timeframe) -> ReportDraft {
        let custom = match timeframe {
            Timeframe::Custom => (
                NaiveDate::from_ymd_opt(2026, 1, 10),
                NaiveDate::from_ymd_opt(2026, 1, 12),
            ),
            _ => (None, None),
        };
        ReportDraft {
            name: name.into(),
            report_type: ReportType::Trend,
            group_id,
            timeframe,
            custom,
            run_type: RunType::Schedule,
            latency_warn: 100,
            latency_fail: 200,
        }
    }

    /// A deleted report's id is never given to another report, the last one made included,
    /// on both backends (a link, a ticket or an audit record names one report for ever).
    #[tokio::test(flavor = "multi_thread")]
    async fn report_ids_are_never_reused() {
        let (_dir, store) = crate::store::testing::store().await;
        let group = GroupDraft {
            name: "Retail".into(),
            channel: Channel::Voice,
            test_case_ids: vec![],
        };
        let g = store.create_group(&group).await.unwrap().group.id;
        let all = Scope::All;
        let first = store
            .create_report(all, &draft("First", g, Timeframe::Today))
            .await
            .unwrap();
        let mut last = first;
        for i in 0..3 {
            assert_eq!(
                store.delete_report(all, last).await.unwrap(),
                Visibility::Visible(())
            );
            let next = store
                .create_report(all, &draft(&format!("Again {i}"), g, Timeframe::Today))
                .await
                .unwrap();
            assert!(next > last, "report {next} after {last} was deleted");
            last = next;
        }
    }

    /// The list's filters and orders, the scope and the ticket key, on the store's
    /// backend (both, with `TEST_POSTGRES_URL`).
    #[tokio::test(flavor = "multi_thread")]
    async fn the_list_filters_named_timeframes_by_todays_range_and_keeps_to_the_scope() {
        let (_dir, store) = crate::store::testing::store().await;
        let group = |name: &str| GroupDraft {
            name: name.into(),
            channel: Channel::Voice,
            test_case_ids: vec![],
        };
        let retail = store.create_group(&group("Retail")).await.unwrap().group.id;
        let ops = store.create_group(&group("Ops")).await.unwrap().group.id;
        let (all, today) = (Scope::All, NaiveDate::from_ymd_opt(2026, 3, 4).unwrap());
        let alpha = draft("Alpha", retail, Timeframe::Today);
        let a = store.create_report(all, &alpha).await.unwrap();
        let b = store
            .create_report(all, &draft("beta", retail, Timeframe::Yesterday))
            .await
            .unwrap();
        let c = store
            .create_report(all, &draft("Gamma", ops, Timeframe::Custom))
            .await
            .unwrap();
        let list = |f: ReportFilter, scope: Scope| {
            let store = store.clone();
            async move {
                let p = store
                    .list_reports(scope, PageRequest { no: 0, size: 10 }, &f)
                    .await
                    .unwrap();
                assert_eq!(p.total as usize, p.items.len());
                p.items.iter().map(|r| r.id).collect::<Vec<_>>()
            }
        };
        let filter = |field: ReportSortField| ReportFilter {
            search: None,
            types: vec![],
            group_names: vec![],
            start: None,
            end: None,
            timeframes: vec![],
            sort: Sort {
                field,
                descending: false,
            },
            today,
        };
        let by_id = filter(ReportSortField::Id);
        assert_eq!(list(by_id.clone(), all).await, [a, b, c]);
        // Named timeframes compare today's range, a custom one its dates.
        let since_today = ReportFilter {
            start: Some(today),
            ..by_id.clone()
        };
        assert_eq!(list(since_today, all).await, [a]);
        let until_yesterday = ReportFilter {
            end: today.pred_opt(),
            ..by_id.clone()
        };
        assert_eq!(list(until_yesterday, all).await, [b, c]);
        let groups = ReportFilter {
            group_names: vec!["retail".into()],
            ..by_id.clone()
        };
        assert_eq!(list(groups, all).await, [a, b]);
        let frames = ReportFilter {
            timeframes: vec![Timeframe::Custom, Timeframe::Today],
            types: vec![ReportType::Trend],
            ..by_id.clone()
        };
        assert_eq!(list(frames, all).await, [a, c]);
        let other_type = ReportFilter {
            types: vec![ReportType::Mos],
            ..by_id.clone()
        };
        assert!(list(other_type, all).await.is_empty());
        let search = ReportFilter {
            search: Some(" BET ".into()),
            ..by_id.clone()
        };
        assert_eq!(list(search, all).await, [b]);
        let id = ReportFilter {
            search: Some(c.to_string()),
            ..by_id.clone()
        };
        assert!(list(id, all).await.contains(&c));
        // Orders: the timeframe's name by byte, the name without case.
        assert_eq!(
            list(filter(ReportSortField::Timeframe), all).await,
            [c, a, b]
        );
        assert_eq!(list(filter(ReportSortField::Name), all).await, [a, b, c]);

        // A user of Ops sees and changes only Gamma.
        let user = store
            .create_user(
                &UserDraft {
                    username: "u@x.test".into(),
                    first_name: "U".into(),
                    last_name: "Ser".into(),
                    role: Role::User,
                    access: AccessType::ReadWrite,
                    group_ids: vec![ops],
                },
                "h",
            )
            .await
            .unwrap();
        let mine = Scope::User(user);
        assert_eq!(list(by_id.clone(), mine).await, [c]);
        assert_eq!(store.report(mine, a).await.unwrap(), Visibility::Hidden);
        assert_eq!(store.report(mine, 999).await.unwrap(), Visibility::Missing);
        let renamed = draft("Alpha 2", retail, Timeframe::Today);
        assert_eq!(
            store.update_report(mine, a, &renamed).await.unwrap(),
            Visibility::Hidden
        );
        assert!(store.create_report(mine, &alpha).await.is_err());
        assert_eq!(
            store.delete_report(mine, a).await.unwrap(),
            Visibility::Hidden
        );

        // The ticket key: set once, the same key again is fine, another is a conflict.
        let vis = |v: Visibility<Report>| v.map(|r| r.id);
        assert_eq!(
            store.set_report_ticket(all, a, "CX-1").await.unwrap(),
            Visibility::Visible(())
        );
        assert_eq!(
            store.set_report_ticket(all, a, "CX-1").await.unwrap(),
            Visibility::Visible(())
        );
        assert!(matches!(
            store.set_report_ticket(all, a, "CX-2").await,
            Err(StoreError::Conflict(_))
        ));
        assert_eq!(
            vis(store.report_with_ticket(all, "CX-1").await.unwrap()),
            Visibility::Visible(a)
        );
        assert_eq!(
            vis(store.report_with_ticket(mine, "CX-1").await.unwrap()),
            Visibility::Hidden
        );
        assert_eq!(
            vis(store.report_with_ticket(all, "CX-9").await.unwrap()),
            Visibility::Missing
        );
        let stored = store.report(all, a).await.unwrap().visible::<()>().unwrap();
        assert_eq!(stored.jira_ticket.as_deref(), Some("CX-1"));
        assert_eq!((stored.latency_warn, stored.latency_fail), (100, 200));
        assert_eq!(stored.group_name, "Retail");
        assert_eq!(
            store.delete_report(all, a).await.unwrap(),
            Visibility::Visible(())
        );
        assert_eq!(store.report(all, a).await.unwrap(), Visibility::Missing);
    }
}
