//! `api/reports`: saved reports (spec §2 'Report list', 'Report add/edit form', 'Report
//! views by type', §3 'Report', 'Latency bucket', §5, §7 'Reports'). A caller sees and
//! changes only the reports of their own test case groups; read-only callers change
//! nothing. The report data reads the hourly rollups; only `testruns` lists runs (paged).
//! Types 2, 5, 7 and test case performance read `trs/v1/groups/{id}/metric` and `…/mos`
//! with the report's `timeframeBegin`, `timeframeEnd` and `runType`.

use chrono::NaiveDate;
use poem::web::Data;
use poem::Body;
use poem_openapi::param::{Path, Query};
use poem_openapi::payload::{Binary, Json};
use poem_openapi::{ApiResponse, Object, OpenApi};

use super::envelope::fails::*;
use super::envelope::{Answer, ApiError, ApiResult, Envelope, Listing};
use super::guard::Auth;
use super::lenient::{Filter, IntChoices, IntOf, IsoDate, Name, OneOf, Required, Text, TextRule};
use super::params;
use super::runs::RunItem;
use super::AppState;
use crate::domain::buckets;
use crate::domain::caller::{Caller, Need};
use crate::domain::csv::CsvWriter;
use crate::domain::page::Sort;
use crate::domain::report::{
    self, heat_colour, today_in, CellAsk, HeatColour, Report as DomainReport, ReportFilter,
    ReportInput, ReportSortField, ReportType, Timeframe, LATENCY_BUCKETS,
};
use crate::domain::rules::{Problems, Rule};
use crate::domain::run::Channel;
use crate::domain::run::RunType;
use crate::store::reports::{ExportLeaveOut, ExportRow, LatencyData, LatencyHour, ReportRunQuery};

pub struct ReportsApi;

/// Reports per page when none is given (spec §9: default 10).
const REPORT_PAGE_SIZE: u32 = 10;

/// A saved report (spec §3 'Report').
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct Report {
    pub id: i64,
    pub name: String,
    /// Equal to name.
    pub description: String,
    pub report_type_name: String,
    /// 1 test case performance, 2 trend, 5 segment performance, 6 latency by hour, 7 MOS.
    #[oai(rename = "reportTypeID")]
    pub report_type_id: i64,
    /// Warning latency threshold, ms (0 unless type 6).
    pub latency_warn: u32,
    /// Failure latency threshold, ms (0 unless type 6).
    pub latency_fail: u32,
    pub run_type: RunType,
    pub test_case_group_name: String,
    #[oai(rename = "testCaseGroupID")]
    pub test_case_group_id: i64,
    /// The group's channel.
    pub channel: Channel,
    pub timeframe_name: Timeframe,
    /// First local date the report covers today, `YYYY-MM-DD` (a named timeframe is
    /// computed from today in the site's time zone).
    pub timeframe_begin: String,
    /// Last local date the report covers today, `YYYY-MM-DD`.
    pub timeframe_end: String,
    /// RFC 3339 UTC.
    pub last_modified_time: String,
    /// Issue-tracker ticket key (null when none).
    #[oai(nullable)]
    pub jira_ticket: Option<String>,
    /// cxwatch: the report's delivery schedule, in lists (absent when it has none).
    #[oai(skip_serializing_if_is_none)]
    pub schedule: Option<super::report_schedules::ReportSchedule>,
}

impl Report {
    fn of(r: DomainReport, today: NaiveDate) -> Report {
        let (b, e) = r.range(today);
        Report {
            id: r.id,
            description: r.name.clone(),
            name: r.name,
            report_type_name: r.report_type.name().into(),
            report_type_id: r.report_type.id(),
            latency_warn: r.latency_warn,
            latency_fail: r.latency_fail,
            run_type: r.run_type,
            test_case_group_name: r.group_name,
            test_case_group_id: r.group_id,
            channel: r.channel,
            timeframe_name: r.timeframe,
            timeframe_begin: b.to_string(),
            timeframe_end: e.to_string(),
            last_modified_time: params::time(
                chrono::DateTime::from_timestamp(r.modified_at, 0).unwrap_or_default(),
            ),
            jira_ticket: r.jira_ticket,
            schedule: None,
        }
    }
}

/// Body of `POST reports` and `PUT reports/{id}` (spec §3 create/update payload). Checked
/// in the form's order: name, type, group, then for type 6 the thresholds.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct ReportSave {
    /// Ignored on create; on update absent or the id of the path.
    #[oai(nullable)]
    pub id: Option<i64>,
    /// 1 to 200 characters, no control or text-direction characters.
    pub name: Required<Text<Name<{ report::NAME_MAX }>>>,
    /// Ignored (the name is the description).
    #[oai(nullable)]
    pub description: Option<String>,
    /// Ignored (follows reportTypeID).
    #[oai(nullable)]
    pub report_type_name: Option<String>,
    /// A report type (`reports/types`).
    #[oai(rename = "reportTypeID")]
    pub report_type_id: Required<IntOf<ReportTypeIds>>,
    /// Ignored (follows testCaseGroupID).
    #[oai(nullable)]
    pub test_case_group_name: Option<String>,
    /// A test case group of the caller's.
    #[oai(rename = "testCaseGroupID")]
    pub test_case_group_id: Required<params::Id>,
    /// Default `Custom`.
    #[oai(nullable)]
    pub timeframe_name: Option<OneOf<Timeframe>>,
    /// Default `Manual`.
    #[oai(nullable)]
    pub run_type: Option<OneOf<RunType>>,
    /// Custom only: `YYYY-MM-DD`; required for Custom.
    #[oai(nullable)]
    pub timeframe_begin: Option<Text<IsoDate>>,
    /// Custom only: `YYYY-MM-DD`; empty means the begin date.
    #[oai(nullable)]
    pub timeframe_end: Option<Text<IsoDate>>,
    /// Type 6: warning threshold, 1 to 600000 ms (a latency bucket's uppperBound), below
    /// the failure threshold; otherwise ignored (the console sends 0).
    #[oai(nullable)]
    pub latency_warn: Option<params::Ranged<0, 600_000>>,
    /// Type 6: failure threshold, 1 to 600000 ms; otherwise ignored (0).
    #[oai(nullable)]
    pub latency_fail: Option<params::Ranged<0, 600_000>>,
}

impl ReportSave {
    fn draft(&self, p: &mut Problems) -> Option<report::ReportDraft> {
        report::check_report(
            p,
            &ReportInput {
                name: self.name.as_deref(),
                report_type: self.report_type_id.map(|t| t.0),
                group_id: self.test_case_group_id.map(|g| g.0),
                timeframe: self.timeframe_name.as_deref(),
                begin: self.timeframe_begin.as_deref(),
                end: self.timeframe_end.as_deref(),
                run_type: self.run_type.as_deref(),
                latency_warn: self.latency_warn.map(|v| v.0),
                latency_fail: self.latency_fail.map(|v| v.0),
            },
            params::MAX_RANGE_DAYS,
        )
    }
}

/// A report type (spec §9).
#[derive(Debug, Object)]
pub struct ReportTypeItem {
    pub id: i64,
    pub name: String,
}

/// A latency bucket (spec §3 'Latency bucket'), bounds in ms: `lowerBound <= latency <
/// uppperBound` (spelled so); the last bucket has no upper bound (the key is absent).
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct LatencyThreshold {
    pub id: i64,
    pub text: String,
    pub lower_bound: u32,
    #[oai(rename = "uppperBound", skip_serializing_if_is_none)]
    pub uppper_bound: Option<u32>,
}

/// One local hour slot of a latency heat map.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct LatencyByHr {
    /// Local hour 0 to 23.
    pub hour: u32,
    /// Average step latency in seconds, 2 decimals; null without measurements.
    #[oai(nullable)]
    pub latency: Option<f64>,
    /// Runs in the slot.
    pub run_count: u64,
    /// Step latencies measured in the slot.
    pub latency_count: u64,
    /// Step latencies per bucket, in the order of `buckets`.
    pub bucket_counts: Vec<u64>,
}

/// A bucket of the heat map with its colour for this report's thresholds.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct HeatBucket {
    #[oai(flatten)]
    pub bucket: LatencyThreshold,
    /// `green` (upper bound below the warning threshold), `orange` (below the failure
    /// threshold) or `red`.
    pub colour: String,
}

#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct LatencySegment {
    pub test_case_id: i64,
    pub test_case_name: String,
    pub segment_id: i64,
    pub segment_name: String,
    pub latency_by_hr: Vec<LatencyByHr>,
}

/// One local date of a type-6 report: the whole group's hours that day (the latency spike's
/// day, which the sum over the range loses).
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct LatencyDay {
    /// `YYYY-MM-DD`, local.
    pub date: String,
    /// 24 slots.
    pub latency_by_hr: Vec<LatencyByHr>,
}

/// Data of a type-6 report (spec §3: `segments[]` and `latencyByHr[]`).
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct LatencyReport {
    pub report_id: i64,
    /// `YYYY-MM-DD`, local.
    pub period_start: String,
    pub period_end: String,
    pub latency_warn: u32,
    pub latency_fail: u32,
    pub buckets: Vec<HeatBucket>,
    /// The whole group, 24 slots.
    pub latency_by_hr: Vec<LatencyByHr>,
    /// The whole group per local date with runs in the range, oldest first.
    pub latency_by_day: Vec<LatencyDay>,
    /// Per segment with runs in the range, by test case name then segment id.
    pub segments: Vec<LatencySegment>,
    /// Runs stored while a maintenance window covered them (cxwatch's addition):
    /// left out of every figure above. Absent when none.
    #[oai(skip_serializing_if_is_none)]
    pub maintenance_count: Option<u64>,
}

fn threshold(b: &report::LatencyBucket) -> LatencyThreshold {
    LatencyThreshold {
        id: b.id,
        text: b.text.into(),
        lower_bound: b.lower_bound,
        uppper_bound: b.upper_bound,
    }
}

fn by_hr(hours: Vec<LatencyHour>) -> Vec<LatencyByHr> {
    hours
        .into_iter()
        .enumerate()
        .map(|(h, x)| LatencyByHr {
            hour: h as u32,
            latency: (x.lat_n > 0).then(|| {
                (crate::domain::dist::round_div(x.lat_sum, x.lat_n) as f64 / 10.0).round() / 100.0
            }),
            run_count: x.runs,
            latency_count: x.lat_n,
            bucket_counts: x.buckets.to_vec(),
        })
        .collect()
}

fn colour(c: HeatColour) -> &'static str {
    match c {
        HeatColour::Green => "green",
        HeatColour::Orange => "orange",
        HeatColour::Red => "red",
    }
}

impl LatencyReport {
    fn of(r: &DomainReport, from: NaiveDate, to: NaiveDate, d: LatencyData) -> LatencyReport {
        LatencyReport {
            report_id: r.id,
            period_start: from.to_string(),
            period_end: to.to_string(),
            latency_warn: r.latency_warn,
            latency_fail: r.latency_fail,
            buckets: LATENCY_BUCKETS
                .iter()
                .map(|b| HeatBucket {
                    bucket: threshold(b),
                    colour: colour(heat_colour(b.upper_bound, r.latency_warn, r.latency_fail))
                        .into(),
                })
                .collect(),
            latency_by_hr: by_hr(d.hours),
            latency_by_day: d
                .days
                .into_iter()
                .map(|(date, hours)| LatencyDay {
                    date: date.to_string(),
                    latency_by_hr: by_hr(hours),
                })
                .collect(),
            segments: d
                .segments
                .into_iter()
                .map(|s| LatencySegment {
                    test_case_id: s.test_case_id,
                    test_case_name: s.test_case_name,
                    segment_id: s.segment_id,
                    segment_name: s.segment_name,
                    latency_by_hr: by_hr(s.hours),
                })
                .collect(),
            maintenance_count: None,
        }
    }
}

#[derive(ApiResponse)]
enum CsvResponse {
    /// The report as CSV (UTF-8 with a byte-order mark; columns in `docs/api.md`).
    #[oai(status = 200, content_type = "text/csv; charset=utf-8")]
    Csv(
        Binary<Body>,
        #[oai(header = "Content-Disposition")] String,
        #[oai(header = "Cache-Control")] String,
    ),
}

use crate::domain::report_csv::file_name;
pub use crate::domain::report_csv::{csv_line, percent, CSV_HEADER};

fn today(state: &AppState) -> NaiveDate {
    today_in(state.config.tz(), crate::clock::now())
}

async fn found(state: &AppState, caller: &Caller, id: i64) -> ApiResult<DomainReport> {
    let v = state.store.report(caller.scope(), id).await?;
    params::visible(v, format_args!("Report {id}"))
}

/// `reportTypeID` of a report saved: the ids of [`ReportType::ALL`].
pub struct ReportTypeIds;

impl IntChoices for ReportTypeIds {
    const NAME: &'static str = "integer(report type)";
    const VALUES: &'static [i64] = &[1, 2, 5, 6, 7];
}

/// `latencyThres`: a latency bucket id, or -1 for any.
pub struct LatencyBucketIds;

impl IntChoices for LatencyBucketIds {
    const NAME: &'static str = "integer(latency bucket)";
    const VALUES: &'static [i64] = &[-1, 1, 2, 3, 4, 5, 6, 7, 8];
}

/// `reportType` of the list: comma-separated report type ids.
pub struct ReportTypeList;

impl TextRule for ReportTypeList {
    const NAME: &'static str = "string(report type ids)";
    const PATTERN: Option<&'static str> = Some("^(1|2|5|6|7)(,(1|2|5|6|7))*$");
}

/// `timeframe` of the list: comma-separated timeframe names.
pub struct TimeframeList;

impl TextRule for TimeframeList {
    const NAME: &'static str = "string(timeframe names)";
    const PATTERN: Option<&'static str> = Some(concat!(
        "^(Custom|Today|Yesterday|Current Week|Last Week|Current Month|Last Month|Last Year)",
        "(,(Custom|Today|Yesterday|Current Week|Last Week|Current Month|Last Month|Last Year))*$"
    ));
}

fn list_of<T: Copy>(
    field: &str,
    v: Option<&str>,
    parse: impl Fn(&str) -> Option<T>,
    p: &mut Problems,
) -> Vec<T> {
    let mut out = Vec::new();
    for s in v
        .unwrap_or("")
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
    {
        match parse(s) {
            Some(t) => out.push(t),
            None => p.push(
                field,
                Rule::Invalid,
                format!("{field}: {s:?} is not known."),
            ),
        }
    }
    out
}

fn opt_date(field: &str, v: Option<&str>, p: &mut Problems) -> Option<NaiveDate> {
    let s = v.map(str::trim).filter(|s| !s.is_empty())?;
    let d = buckets::parse_date(s);
    if d.is_none() {
        p.push(
            field,
            Rule::Invalid,
            format!("{field} {s:?} is not a date (YYYY-MM-DD)."),
        );
    }
    d
}

#[OpenApi(prefix_path = "/reports", tag = "super::ApiTags::Reports")]
impl ReportsApi {
    /// Reports of the caller's test case groups, one page at a time, default newest
    /// (id descending) first.
    #[oai(path = "/", method = "get", operation_id = "listReports")]
    #[allow(clippy::too_many_arguments)]
    async fn list(
        &self,
        auth: Auth,
        state: Data<&AppState>,
        /// Page number, 0-based (default 0).
        #[oai(name = "pageNo")]
        page_no: Query<Option<params::PageNo>>,
        /// Reports per page, 1 to 1000 (default 10).
        #[oai(name = "pageSize")]
        page_size: Query<Option<params::PageSize>>,
        /// The id, or part of the name, without case.
        search: Query<Option<Filter>>,
        /// Comma-separated report type ids.
        #[oai(name = "reportType")]
        report_type: Query<Option<Text<ReportTypeList>>>,
        /// Comma-separated group names (whole names, without case).
        #[oai(name = "groupName")]
        group_name: Query<Option<Filter>>,
        /// Reports whose range (today's, for a named timeframe) starts on or after this
        /// date, `YYYY-MM-DD`.
        #[oai(name = "startDate")]
        start_date: Query<Option<params::Date>>,
        /// Reports whose range ends on or before this date.
        #[oai(name = "endDate")]
        end_date: Query<Option<params::Date>>,
        /// Comma-separated timeframe names.
        timeframe: Query<Option<Text<TimeframeList>>>,
        /// `field,direction`: field `id`, `name`, `reportTypeName`, `testCaseGroupName`,
        /// `timeframeName` or `lastModifiedTime` (default `id,desc`).
        sort: Query<Option<Text<params::ReportSort>>>,
    ) -> Answer<Json<Envelope<Listing<Report>>>, { BAD_REQUEST | INTERNAL }> {
        let caller = auth.require(Need::SignedIn)?;
        let mut p = Problems::default();
        let page = params::listing(
            params::value(page_no.0),
            params::value(page_size.0),
            REPORT_PAGE_SIZE,
            &mut p,
        );
        let sort = params::sort(
            sort.0.as_deref(),
            ReportSortField::parse,
            Sort {
                field: ReportSortField::Id,
                descending: true,
            },
            &mut p,
        );
        let types = list_of(
            "reportType",
            report_type.0.as_deref(),
            |s| s.parse().ok().and_then(ReportType::from_id),
            &mut p,
        );
        let timeframes = list_of(
            "timeframe",
            timeframe.0.as_deref(),
            Timeframe::parse,
            &mut p,
        );
        let start = opt_date("startDate", start_date.0.as_deref(), &mut p);
        let end = opt_date("endDate", end_date.0.as_deref(), &mut p);
        p.check()?;
        let list = page.ok_or_else(|| ApiError::bad_request("Bad paging."))?;
        let page = list.page;
        let today = today(&state);
        let filter = ReportFilter {
            search: search.0.map(Filter::into_string),
            types,
            group_names: group_name
                .0
                .map(Filter::into_string)
                .unwrap_or_default()
                .split(',')
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty())
                .collect(),
            start,
            end,
            timeframes,
            sort,
            today,
        };
        let reports = state
            .store
            .list_reports(caller.scope(), page, &filter)
            .await?;
        let ids: Vec<i64> = reports.items.iter().map(|r| r.id).collect();
        let mut schedules = state.store.report_schedules(ids).await?;
        Ok(Listing::ok(
            list,
            reports.map(|r| {
                let schedule = schedules.remove(&r.id).map(Into::into);
                Report {
                    schedule,
                    ..Report::of(r, today)
                }
            }),
        ))
    }

    /// Report types (spec §9), those that fit the channel when one is given: MOS is for
    /// voice only.
    #[oai(path = "/types", method = "get", operation_id = "reportTypes")]
    async fn types(
        &self,
        auth: Auth,
        /// Only the types this channel offers (MOS is voice only).
        channel: Query<Option<OneOf<Channel>>>,
    ) -> Answer<Json<Envelope<Vec<ReportTypeItem>>>, { BAD_REQUEST }> {
        auth.require(Need::SignedIn)?;
        let channel = match channel
            .0
            .as_deref()
            .map(str::trim)
            .filter(|s| !s.is_empty())
        {
            None => None,
            Some(c) => Some(Channel::parse(c).ok_or_else(|| {
                ApiError::fields(
                    super::envelope::ErrorCode::BadRequest,
                    vec![crate::domain::rules::FieldError {
                        field: "channel".into(),
                        rule: Rule::Invalid,
                        message: format!("channel {c:?} is not voice or web."),
                    }],
                )
            })?),
        };
        Ok(Envelope::ok(
            ReportType::ALL
                .into_iter()
                .filter(|t| channel.is_none_or(|c| t.fits(c)))
                .map(|t| ReportTypeItem {
                    id: t.id(),
                    name: t.name().into(),
                })
                .collect(),
        ))
    }

    /// The time frame names, in the form's order.
    #[oai(
        path = "/timeframes",
        method = "get",
        operation_id = "reportTimeframes"
    )]
    async fn timeframes(&self, auth: Auth) -> Answer<Json<Envelope<Vec<String>>>, { NONE }> {
        auth.require(Need::SignedIn)?;
        Ok(Envelope::ok(
            Timeframe::ALL
                .iter()
                .map(|t| t.name().to_string())
                .collect(),
        ))
    }

    /// The latency buckets a type-6 report takes its thresholds from.
    #[oai(
        path = "/latencythresholds",
        method = "get",
        operation_id = "reportLatencyThresholds"
    )]
    async fn latency_thresholds(
        &self,
        auth: Auth,
    ) -> Answer<Json<Envelope<Vec<LatencyThreshold>>>, { NONE }> {
        auth.require(Need::SignedIn)?;
        Ok(Envelope::ok(
            LATENCY_BUCKETS.iter().map(threshold).collect(),
        ))
    }

    /// One report, its range computed for today.
    #[oai(path = "/:id", method = "get", operation_id = "getReport")]
    async fn get(
        &self,
        auth: Auth,
        state: Data<&AppState>,
        id: Path<i64>,
    ) -> Answer<Json<Envelope<Report>>, { FORBIDDEN | NOT_FOUND | INTERNAL }> {
        let caller = auth.require(Need::SignedIn)?;
        let r = found(&state, caller, id.0).await?;
        Ok(Envelope::ok(Report::of(r, today(&state))))
    }

    /// Creates a report on one of the caller's groups (read-write access).
    #[oai(path = "/", method = "post", operation_id = "createReport")]
    async fn create(
        &self,
        auth: Auth,
        state: Data<&AppState>,
        body: Json<ReportSave>,
    ) -> Answer<Json<Envelope<Report>>, { BAD_REQUEST | FORBIDDEN | INTERNAL }> {
        let caller = auth.require(Need::Write)?;
        let mut p = Problems::default();
        let draft = body.draft(&mut p);
        p.check()?;
        let draft = draft.ok_or_else(|| ApiError::bad_request("The report is incomplete."))?;
        let id = state.store.create_report(caller.scope(), &draft).await?;
        let r = found(&state, caller, id).await?;
        Ok(Envelope::ok(Report::of(r, today(&state))))
    }

    /// Replaces a report of one of the caller's groups (read-write access).
    #[oai(path = "/:id", method = "put", operation_id = "updateReport")]
    async fn update(
        &self,
        auth: Auth,
        state: Data<&AppState>,
        id: Path<i64>,
        body: Json<ReportSave>,
    ) -> Answer<Json<Envelope<Report>>, { BAD_REQUEST | FORBIDDEN | NOT_FOUND | INTERNAL }> {
        let caller = auth.require(Need::Write)?;
        let mut p = Problems::default();
        p.same_id(id.0, body.id, "report");
        let draft = body.draft(&mut p);
        p.check()?;
        let draft = draft.ok_or_else(|| ApiError::bad_request("The report is incomplete."))?;
        let v = state
            .store
            .update_report(caller.scope(), id.0, &draft)
            .await?;
        params::visible(v, format_args!("Report {}", id.0))?;
        let r = found(&state, caller, id.0).await?;
        Ok(Envelope::ok(Report::of(r, today(&state))))
    }

    /// Deletes a report of one of the caller's groups (read-write access).
    #[oai(path = "/:id", method = "delete", operation_id = "deleteReport")]
    async fn delete(
        &self,
        auth: Auth,
        state: Data<&AppState>,
        id: Path<i64>,
    ) -> Answer<Json<Envelope<i64>>, { FORBIDDEN | NOT_FOUND | INTERNAL }> {
        let caller = auth.require(Need::Write)?;
        let v = state.store.delete_report(caller.scope(), id.0).await?;
        params::visible(v, format_args!("Report {}", id.0))?;
        Ok(Envelope::ok(id.0))
    }

    /// The latency heat map of a report over its range (any type; the view of type 6):
    /// step latencies per local hour slot and latency bucket, for the group and per
    /// segment, from the hourly rollups.
    #[oai(path = "/:id/latency", method = "get", operation_id = "reportLatency")]
    async fn latency(
        &self,
        auth: Auth,
        state: Data<&AppState>,
        id: Path<i64>,
    ) -> Answer<Json<Envelope<LatencyReport>>, { FORBIDDEN | NOT_FOUND | INTERNAL }> {
        let caller = auth.require(Need::SignedIn)?;
        let r = found(&state, caller, id.0).await?;
        let (from, to) = r.range(today(&state));
        let tz = state.config.tz();
        let (from_ms, to_ms) = buckets::local_range_ms(tz, from, to);
        let marked = state
            .store
            .marked_facts_of_group(r.group_id, from_ms, to_ms, r.run_type.code())
            .await?;
        let mut data = state.store.report_latency(r.clone(), from, to).await?;
        let left_out = data.leave_out(&marked, tz);
        let mut out = LatencyReport::of(&r, from, to, data);
        out.maintenance_count = (left_out > 0).then_some(left_out);
        Ok(Envelope::ok(out))
    }

    /// The report as CSV, streamed: one line per test case (per segment for type 5) and
    /// local hour with runs, in the site's time zone. The file name is in
    /// Content-Disposition.
    #[oai(path = "/:id/export", method = "get", operation_id = "exportReport")]
    async fn export(
        &self,
        auth: Auth,
        state: Data<&AppState>,
        id: Path<i64>,
    ) -> Answer<CsvResponse, { FORBIDDEN | NOT_FOUND | INTERNAL }> {
        let caller = auth.require(Need::SignedIn)?;
        let r = found(&state, caller, id.0).await?;
        let (from, to) = r.range(today(&state));
        let name = file_name(&r, from, to);
        let tz = state.config.tz();
        let (from_ms, to_ms) = buckets::local_range_ms(tz, from, to);
        let marked = state
            .store
            .marked_facts_of_group(r.group_id, from_ms, to_ms, r.run_type.code())
            .await?;
        let leave_out = ExportLeaveOut::new(&marked, tz);
        let (tx, rx) = tokio::sync::mpsc::channel::<Vec<ExportRow>>(4);
        let store = state.store.clone();
        tokio::spawn(async move {
            if let Err(e) = store.export_report(r, from, to, tx).await {
                tracing::error!(error = %e, "report export failed");
            }
        });
        let head = futures_util::stream::once(async {
            Ok::<_, std::io::Error>(bytes::Bytes::from(format!("\u{feff}{CSV_HEADER}")))
        });
        let rows =
            futures_util::stream::unfold((rx, leave_out), move |(mut rx, leave_out)| async move {
                let mut batch = rx.recv().await?;
                leave_out.batch(&mut batch);
                let mut out = CsvWriter::with_capacity(batch.len() * 120);
                for row in &batch {
                    csv_line(&mut out, tz, row);
                }
                Some((Ok(bytes::Bytes::from(out.into_bytes())), (rx, leave_out)))
            });
        use futures_util::StreamExt;
        Ok(CsvResponse::Csv(
            Binary(Body::from_bytes_stream(head.chain(rows))),
            format!("attachment; filename=\"{name}\""),
            "no-store".into(),
        ))
    }

    /// Runs of the report's group behind a view's cell, newest first (or in the order `sort`
    /// asks for), one page at a time
    /// (spec §7 variants): `startDate`, `endDate`, `segmentId`[, `latencyThres`];
    /// `hrSlot`, `perfStatus`, `startDate`, `endDate`; `latencyThres` and `hrSlot`;
    /// `hrSlot`, `startDate`, `endDate`, `minMos`, `maxMos`. Dates default to the report's
    /// range; the run type is the report's.
    #[oai(
        path = "/:id/testruns",
        method = "get",
        operation_id = "reportTestRuns"
    )]
    #[allow(clippy::too_many_arguments)]
    async fn test_runs(
        &self,
        auth: Auth,
        state: Data<&AppState>,
        id: Path<i64>,
        /// `YYYY-MM-DD`, local (default: the report's first date).
        #[oai(name = "startDate")]
        start_date: Query<Option<params::Date>>,
        /// `YYYY-MM-DD`, local (default: the report's last date, or startDate when given);
        /// not before startDate, at most 400 days after it.
        #[oai(name = "endDate")]
        end_date: Query<Option<params::Date>>,
        /// Runs of test cases that have this segment.
        #[oai(name = "segmentId")]
        segment_id: Query<Option<i64>>,
        /// A latency bucket id: runs with a step latency in it (of the segment, when
        /// given); -1 or absent: any.
        #[oai(name = "latencyThres")]
        latency_thres: Query<Option<IntOf<LatencyBucketIds>>>,
        /// Local hour slot 0 to 23.
        #[oai(name = "hrSlot")]
        hr_slot: Query<Option<params::HourSlot>>,
        /// `success`, `warning`, `failure` (failed and stopped) or `total` (default).
        #[oai(name = "perfStatus")]
        perf_status: Query<Option<Text<params::RunStatusRule>>>,
        /// Lowest MOS, 0 to 5.
        #[oai(name = "minMos")]
        min_mos: Query<Option<params::Between<0, 5>>>,
        /// Highest MOS, 0 to 5 (default 5 when minMos is given).
        #[oai(name = "maxMos")]
        max_mos: Query<Option<params::Between<0, 5>>>,
        /// Page number, 0-based (default 0).
        #[oai(name = "pageNo")]
        page_no: Query<Option<params::PageNo>>,
        /// Runs per page, 1 to 1000 (default 100).
        #[oai(name = "pageSize")]
        page_size: Query<Option<params::PageSize>>,
        /// `field,direction`: field `runId`, `testCaseName`, `runTime`, `runDuration`,
        /// `runStatus` or `mosCqIn`, direction `asc` or `desc` (default: newest first).
        sort: Query<Option<Text<params::RunSort>>>,
    ) -> Answer<Json<Envelope<Listing<RunItem>>>, { BAD_REQUEST | FORBIDDEN | NOT_FOUND | INTERNAL }>
    {
        let caller = auth.require(Need::SignedIn)?;
        let mut p = Problems::default();
        let page = params::listing(
            params::value(page_no.0),
            params::value(page_size.0),
            params::RUN_PAGE_SIZE,
            &mut p,
        );
        let latency_thres = latency_thres.0.map(|b| b.0);
        let (min_mos, max_mos) = (params::number(min_mos.0), params::number(max_mos.0));
        let status = params::status_range(perf_status.0.as_deref(), &mut p);
        let sort = params::run_sort(sort.0.as_deref(), &mut p);
        let cell = CellAsk {
            start: opt_date("startDate", start_date.0.as_deref(), &mut p),
            end: opt_date("endDate", end_date.0.as_deref(), &mut p),
            hour: params::value(hr_slot.0),
            latency_bucket: latency_thres,
            min_mos,
            max_mos,
        }
        .check(params::MAX_RANGE_DAYS, &mut p);
        p.check()?;
        let (Some(list), Some(status)) = (page, status) else {
            return Err(ApiError::bad_request("Bad parameters.").into());
        };
        let r = found(&state, caller, id.0).await?;
        let (from, to) = cell.dates(r.range(today(&state)));
        let tz = state.config.tz();
        let (from_ms, to_ms) = buckets::local_range_ms(tz, from, to);
        let q = ReportRunQuery {
            group_id: r.group_id,
            tz,
            from_ms,
            to_ms,
            run_type: r.run_type,
            status,
            segment_id: segment_id.0,
            hour: cell.hour,
            latency: cell.latency,
            mos: cell.mos,
            sort,
        };
        let runs = state.store.report_runs(q, list.page).await?;
        Ok(Listing::ok(list, runs))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::report_csv::hour_start;

    #[test]
    fn the_documented_report_types_are_the_domain_ones() {
        let mut ids: Vec<i64> = ReportType::ALL.iter().map(|t| t.id()).collect();
        ids.sort_unstable();
        assert_eq!(ReportTypeIds::VALUES, ids.as_slice());
    }

    #[test]
    fn csv_quotes_and_percentages() {
        let mut out = CsvWriter::new();
        let tz: chrono_tz::Tz = "America/Toronto".parse().unwrap();
        let row = ExportRow {
            date: NaiveDate::from_ymd_opt(2026, 3, 8).unwrap(),
            hour: 3,
            test_case_id: 7,
            test_case_name: "Billing, \"main\" menu".into(),
            segment: None,
            counts: [3, 1, 0, 0],
            lat_n: 2,
            lat_sum: 3000,
            mos_n: 1,
            mos_sum: 420,
        };
        csv_line(&mut out, tz, &row);
        let row = ExportRow {
            test_case_name: "=HYPERLINK(\"http://x\",\"y\")".into(),
            segment: Some((-3, "-2+3+cmd|' /C calc'!A0".into())),
            test_case_id: -7,
            counts: [0; 4],
            lat_n: 0,
            mos_n: 0,
            ..row
        };
        csv_line(&mut out, tz, &row);
        assert_eq!(
            String::from_utf8(out.into_bytes()).unwrap(),
            "2026-03-08,03,2026-03-08T03:00:00-04:00,7,\"Billing, \"\"main\"\" menu\",,,4,3,1,0,75.00,25.00,0.00,1.50,4.2\r\n\
             2026-03-08,03,2026-03-08T03:00:00-04:00,-7,\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\",-3,'-2+3+cmd|' /C calc'!A0,0,0,0,0,0.00,0.00,0.00,,\r\n"
        );
        assert_eq!(percent(0, 0), "0.00");
        assert_eq!(percent(1, 3), "33.33");
        // Clocks fall back: the 01:00 slot starts at the first 01:00 (-04:00).
        let d = NaiveDate::from_ymd_opt(2026, 11, 1).unwrap();
        assert_eq!(hour_start(tz, d, 1), "2026-11-01T01:00:00-04:00");
        assert_eq!(hour_start(tz, d, 2), "2026-11-01T02:00:00-05:00");
        // Spring forward: 02:00 does not exist on the local clock.
        let d = NaiveDate::from_ymd_opt(2026, 3, 8).unwrap();
        assert_eq!(hour_start(tz, d, 2), "2026-03-08T03:00:00-04:00");
    }
}
