//! `api/trs/v1/testcases/{id}/runs` (server-paged, newest first unless sorted) and
//! `api/trs/v1/testruns/{id}` (one run with segments, steps and recordings) and
//! `api/trs/v1/testruns/{id}/lastPassing` (the run it is compared with).

use poem::web::Data;
use poem_openapi::param::{Path, Query};
use poem_openapi::payload::Json;
use poem_openapi::{Object, OpenApi};

use super::envelope::fails::*;
use super::envelope::{Answer, ApiError, Envelope, Listing, Page};
use super::guard::Auth;
use super::lenient::{OneOf, Text};
use super::params;
use super::users::GroupRef;
use super::AppState;
use crate::domain::buckets;
use crate::domain::caller::Need;
use crate::domain::rules::{Problems, Rule};
use crate::domain::run::{Channel, RunStatus, RunType};
use crate::store::reports::ReportRunRow;
use crate::store::runs::{GroupRunFilter, RunDetail, RunFilter, RunRow, SegmentDetail, StepDetail};

pub struct RunsApi;

/// A test run as lists show it (spec §3 'Test run').
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct RunItem {
    pub run_id: i64,
    pub test_case_id: i64,
    pub test_case_name: String,
    /// Start of the run, RFC 3339 UTC.
    pub run_time: String,
    /// Seconds.
    pub run_duration: f64,
    /// 3 pass, 4 warning, 7 failure (fail and stopped).
    pub run_status_id: i64,
    /// Text of runStatusId from the alert-status lookup: 'Pass', 'Warning', 'Failure'.
    pub run_status: String,
    /// Call-quality score, 2 decimals; null when the engine gave none.
    #[oai(nullable)]
    pub mos_cq_in: Option<f64>,
    pub run_type: RunType,
    /// The engine's result.
    pub run_result: RunStatus,
    /// Stored while a maintenance window covered it (cxwatch's addition): shown
    /// as 'maintenance', left out of pass rates. Present (true) only for such a run, so that
    /// other runs keep the spec's shape.
    #[oai(skip_serializing_if_is_none)]
    pub maintenance: Option<bool>,
    /// The run's slowest step latency, ms (of the asked segment, within the asked latency
    /// bucket); given by a report's run list only (`reports/{id}/testruns`), absent when
    /// the run has none there.
    #[oai(skip_serializing_if_is_none)]
    pub latency: Option<i64>,
}

/// A run with its detail (spec §3 'Run detail').
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct RunDetailItem {
    #[oai(flatten)]
    pub run: RunItem,
    pub channel: Channel,
    pub ivr_id: i64,
    pub ivr_name: String,
    /// The test case's groups the caller may see, by name.
    pub groups: Vec<GroupRef>,
    /// Id of the call recording (null when none).
    #[oai(nullable)]
    pub recording_id: Option<String>,
    /// Download of the call recording, relative to `api/trs/v1/` (`recordings/{id}`);
    /// also accepted by `getContent?attachmentUrl=`.
    #[oai(nullable)]
    pub recording_url: Option<String>,
    pub segments: Vec<SegmentItem>,
}

#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct SegmentItem {
    pub segment_id: i64,
    pub segment_name: String,
    pub steps: Vec<StepItem>,
}

#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct StepItem {
    pub step_id: i64,
    pub step_type: String,
    pub type_display_text: String,
    #[oai(nullable)]
    pub prompt: Option<String>,
    /// Milliseconds.
    #[oai(nullable)]
    pub prompt_latency_min: Option<i64>,
    /// Milliseconds.
    #[oai(nullable)]
    pub prompt_latency_max: Option<i64>,
    /// Milliseconds.
    #[oai(nullable)]
    pub incomplete_timeout: Option<i64>,
    /// Milliseconds.
    #[oai(nullable)]
    pub complete_timeout: Option<i64>,
    /// Milliseconds.
    #[oai(nullable)]
    pub barge_in_time: Option<i64>,
    /// Id of the step's audio (null when none).
    #[oai(nullable)]
    pub recording_id: Option<String>,
    /// Step-type specific fields, as the engine gave them (null when none).
    #[oai(nullable)]
    pub extra: Option<serde_json::Value>,
    pub test_result: TestResultItem,
}

#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct TestResultItem {
    /// `pass`, `warn`, `fail` or `stopped`.
    pub status: String,
    /// What was heard or read; null when nothing was recognized.
    #[oai(nullable)]
    pub utterance: Option<String>,
    /// Milliseconds.
    #[oai(nullable)]
    pub latency: Option<i64>,
    /// 0 to 1, 4 decimals.
    #[oai(nullable)]
    pub confidence: Option<f64>,
    /// Seconds, 3 decimals.
    #[oai(nullable)]
    pub recording_duration: Option<f64>,
    /// RFC 3339 UTC.
    #[oai(nullable)]
    pub start_time: Option<String>,
    #[oai(nullable)]
    pub end_time: Option<String>,
    /// The step's audio for `getContent?attachmentUrl=` (`recordings/{id}`), null when none.
    #[oai(nullable)]
    pub attachment_url: Option<String>,
}

/// The last passing run of a run's test case before it (cxwatch's addition): what the run
/// detail compares the run with. Both null when the test case has no passing run before.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct LastPassingRun {
    #[oai(nullable)]
    pub run_id: Option<i64>,
    /// Start of that run, RFC 3339 UTC.
    #[oai(nullable)]
    pub run_time: Option<String>,
}

/// The path under `api/trs/v1/` that serves recording `id`.
pub fn recording_url(id: &str) -> String {
    format!("recordings/{id}")
}

impl From<RunRow> for RunItem {
    fn from(r: RunRow) -> Self {
        RunItem {
            run_id: r.id,
            test_case_id: r.test_case_id,
            test_case_name: r.test_case_name,
            run_time: params::time(r.run_time),
            run_duration: r.duration_ms as f64 / 1000.0,
            run_status_id: r.status.status_id(),
            run_status: r.status_text,
            mos_cq_in: r.mos.map(|m| f64::from(m) / 100.0),
            run_type: r.run_type,
            run_result: r.status,
            maintenance: None,
            latency: None,
        }
    }
}

impl From<ReportRunRow> for RunItem {
    fn from(r: ReportRunRow) -> Self {
        RunItem {
            latency: r.latency,
            ..RunItem::from(r.run)
        }
    }
}

/// The runs of a page with their maintenance marks.
async fn marked(
    state: &AppState,
    runs: crate::domain::page::Page<RunRow>,
) -> Result<crate::domain::page::Page<RunItem>, ApiError> {
    let marks = state
        .store
        .maintenance_marks(runs.items.iter().map(|r| r.id).collect())
        .await?;
    Ok(crate::domain::page::Page {
        total: runs.total,
        items: runs
            .items
            .into_iter()
            .map(|r| {
                let maintenance = marks.contains(&r.id).then_some(true);
                RunItem {
                    maintenance,
                    ..RunItem::from(r)
                }
            })
            .collect(),
    })
}

impl From<RunDetail> for RunDetailItem {
    fn from(d: RunDetail) -> Self {
        RunDetailItem {
            run: d.run.into(),
            channel: d.channel,
            ivr_id: d.ivr_id,
            ivr_name: d.ivr_name,
            groups: d
                .groups
                .into_iter()
                .map(|g| GroupRef {
                    id: g.id,
                    name: g.name,
                })
                .collect(),
            recording_url: d.recording_id.as_deref().map(recording_url),
            recording_id: d.recording_id,
            segments: d.segments.into_iter().map(SegmentItem::from).collect(),
        }
    }
}

impl From<SegmentDetail> for SegmentItem {
    fn from(s: SegmentDetail) -> Self {
        SegmentItem {
            segment_id: s.segment_id,
            segment_name: s.segment_name,
            steps: s.steps.into_iter().map(StepItem::from).collect(),
        }
    }
}

impl From<StepDetail> for StepItem {
    fn from(s: StepDetail) -> Self {
        StepItem {
            step_id: s.script.step_id,
            step_type: s.script.step_type,
            type_display_text: s.script.type_display_text,
            prompt: s.script.prompt,
            prompt_latency_min: s.script.prompt_latency_min,
            prompt_latency_max: s.script.prompt_latency_max,
            incomplete_timeout: s.script.incomplete_timeout,
            complete_timeout: s.script.complete_timeout,
            barge_in_time: s.barge_in_time,
            extra: s.script.extra.map(serde_json::Value::Object),
            test_result: TestResultItem {
                status: s.status.as_str().into(),
                utterance: s.utterance,
                latency: s.latency,
                confidence: s.confidence,
                recording_duration: s.recording_duration,
                start_time: s.start_time.map(params::time),
                end_time: s.end_time.map(params::time),
                attachment_url: s.recording_id.as_deref().map(recording_url),
            },
            recording_id: s.recording_id,
        }
    }
}

#[OpenApi(prefix_path = "/trs/v1", tag = "super::ApiTags::Runs")]
impl RunsApi {
    /// Runs of a test case that started on site-local dates `startDate`..`endDate`
    /// (default: `startDate`), newest first, one page at a time.
    #[oai(
        path = "/testcases/:id/runs",
        method = "get",
        operation_id = "testCaseRuns"
    )]
    #[allow(clippy::too_many_arguments)]
    async fn list(
        &self,
        auth: Auth,
        state: Data<&AppState>,
        id: Path<i64>,
        /// `YYYY-MM-DD`, site-local.
        #[oai(name = "startDate")]
        start_date: Query<params::Date>,
        /// `YYYY-MM-DD`, site-local; at most 400 days after startDate.
        #[oai(name = "endDate")]
        end_date: Query<Option<params::Date>>,
        /// Page number, 0-based, 0 to 1000000 (default 0).
        #[oai(name = "pageNo")]
        page_no: Query<Option<params::PageNo>>,
        /// Runs per page, 1 to 1000 (default 100).
        #[oai(name = "pageSize")]
        page_size: Query<Option<params::PageSize>>,
        /// Only runs of this status: `success`, `warning`, `failure` (fail and stopped),
        /// `stopped` or `total` (default: all).
        status: Query<Option<Text<params::RunStatusRule>>>,
        /// Only runs of this type (default: both).
        #[oai(name = "caseRunType")]
        case_run_type: Query<Option<OneOf<RunType>>>,
        /// `field,direction`: field `runId`, `testCaseName`, `runTime`, `runDuration`,
        /// `runStatus` or `mosCqIn`, direction `asc` or `desc` (default: newest first).
        sort: Query<Option<Text<params::RunSort>>>,
    ) -> Answer<Json<Envelope<Listing<RunItem>>>, { BAD_REQUEST | FORBIDDEN | NOT_FOUND | INTERNAL }>
    {
        let caller = auth.require(Need::SignedIn)?;
        let mut p = Problems::default();
        let range = params::date_range(Some(start_date.0.as_str()), end_date.0.as_deref(), &mut p);
        let page = params::listing(
            params::value(page_no.0),
            params::value(page_size.0),
            params::RUN_PAGE_SIZE,
            &mut p,
        );
        let status = params::status_range(status.0.as_deref(), &mut p);
        let run_type = params::run_type(case_run_type.0.as_deref(), &mut p);
        let sort = params::run_sort(sort.0.as_deref(), &mut p);
        p.check()?;
        let (Some((from, to)), Some(list), Some(status), Some(run_type)) =
            (range, page, status, run_type)
        else {
            return Err(ApiError::bad_request("Bad parameters.").into());
        };
        let (from_ms, to_ms) = buckets::local_range_ms(state.config.tz(), from, to);
        let filter = RunFilter {
            test_case_id: id.0,
            from_ms,
            to_ms,
            status,
            run_type: run_type.map_or((0, 1), |t| (t.code(), t.code())),
            sort,
        };
        let found = state
            .store
            .case_runs(caller.scope(), filter, list.page)
            .await?;
        let runs = params::visible(found, format_args!("Test case {}", id.0))?;
        Ok(Listing::ok(list, marked(&state, runs).await?))
    }

    /// Runs of the group's test cases that started on site-local dates
    /// `startDate`..`endDate` (default: `startDate`), or in local hour slot `hrSlot` of
    /// `startDate`, newest first, one page at a time: the runs behind a dashboard bar.
    #[oai(path = "/groups/:id/runs", method = "get", operation_id = "groupRuns")]
    #[allow(clippy::too_many_arguments)]
    async fn group_runs(
        &self,
        auth: Auth,
        state: Data<&AppState>,
        id: Path<i64>,
        /// `YYYY-MM-DD`, site-local.
        #[oai(name = "startDate")]
        start_date: Query<params::Date>,
        /// `YYYY-MM-DD`, site-local; at most 400 days after startDate; not with hrSlot.
        #[oai(name = "endDate")]
        end_date: Query<Option<params::Date>>,
        /// Local hour slot 0 to 23 of startDate (as the dashboard's hourly chart counts).
        #[oai(name = "hrSlot")]
        hr_slot: Query<Option<params::HourSlot>>,
        /// Page number, 0-based, 0 to 1000000 (default 0).
        #[oai(name = "pageNo")]
        page_no: Query<Option<params::PageNo>>,
        /// Runs per page, 1 to 1000 (default 100).
        #[oai(name = "pageSize")]
        page_size: Query<Option<params::PageSize>>,
        /// Only runs of this status: `success`, `warning`, `failure` (fail and stopped),
        /// `stopped` or `total` (default: all).
        status: Query<Option<Text<params::RunStatusRule>>>,
        /// Only runs of this type (default: both).
        #[oai(name = "caseRunType")]
        case_run_type: Query<Option<OneOf<RunType>>>,
        /// `field,direction`: field `runId`, `testCaseName`, `runTime`, `runDuration`,
        /// `runStatus` or `mosCqIn`, direction `asc` or `desc` (default: newest first).
        sort: Query<Option<Text<params::RunSort>>>,
    ) -> Answer<Json<Envelope<Page<RunItem>>>, { BAD_REQUEST | FORBIDDEN | NOT_FOUND | INTERNAL }>
    {
        let caller = auth.require(Need::SignedIn)?;
        let mut p = Problems::default();
        let range = params::date_range(Some(start_date.0.as_str()), end_date.0.as_deref(), &mut p);
        let hour = params::hour_slot(params::value(hr_slot.0), &mut p);
        let page = params::paging(
            params::value(page_no.0),
            params::value(page_size.0),
            params::RUN_PAGE_SIZE,
            &mut p,
        );
        let status = params::status_range(status.0.as_deref(), &mut p);
        let run_type = params::run_type(case_run_type.0.as_deref(), &mut p);
        let sort = params::run_sort(sort.0.as_deref(), &mut p);
        if let (Some(Some(_)), Some((from, to))) = (hour, range) {
            if from != to {
                p.push(
                    "hrSlot",
                    Rule::Invalid,
                    "hrSlot needs a single date (no endDate after startDate).",
                );
            }
        }
        p.check()?;
        let (Some((from, to)), Some(hour), Some(page), Some(status), Some(run_type)) =
            (range, hour, page, status, run_type)
        else {
            return Err(ApiError::bad_request("Bad parameters.").into());
        };
        let tz = state.config.tz();
        let (from_ms, to_ms) = match hour {
            Some(h) => buckets::local_hour_range_ms(tz, from, h),
            None => buckets::local_range_ms(tz, from, to),
        };
        let filter = GroupRunFilter {
            group_id: id.0,
            from_ms,
            to_ms,
            status,
            run_type: run_type.map_or((0, 1), |t| (t.code(), t.code())),
            sort,
        };
        let found = state.store.group_runs(caller.scope(), filter, page).await?;
        let runs = params::visible(found, format_args!("Group {}", id.0))?;
        Ok(Page::ok(marked(&state, runs).await?))
    }

    /// One run with its segments, steps, test results and recordings.
    #[oai(path = "/testruns/:id", method = "get", operation_id = "testRun")]
    async fn get(
        &self,
        auth: Auth,
        state: Data<&AppState>,
        id: Path<i64>,
    ) -> Answer<Json<Envelope<RunDetailItem>>, { FORBIDDEN | NOT_FOUND | INTERNAL }> {
        let caller = auth.require(Need::SignedIn)?;
        let found = state.store.run(caller.scope(), id.0).await?;
        let run = params::visible(found, format_args!("Test run {}", id.0))?;
        let marks = state.store.maintenance_marks(vec![run.run.id]).await?;
        let mut item = RunDetailItem::from(run);
        item.run.maintenance = (!marks.is_empty()).then_some(true);
        Ok(Envelope::ok(item))
    }

    /// The newest passing run of run `id`'s test case that started before it (cxwatch's
    /// addition): what 'compare with the last passing run' opens beside the run.
    #[oai(
        path = "/testruns/:id/lastPassing",
        method = "get",
        operation_id = "lastPassingRun"
    )]
    async fn last_passing(
        &self,
        auth: Auth,
        state: Data<&AppState>,
        id: Path<i64>,
    ) -> Answer<Json<Envelope<LastPassingRun>>, { FORBIDDEN | NOT_FOUND | INTERNAL }> {
        let caller = auth.require(Need::SignedIn)?;
        let found = state.store.last_passing_run(caller.scope(), id.0).await?;
        let last = params::visible(found, format_args!("Test run {}", id.0))?;
        Ok(Envelope::ok(LastPassingRun {
            run_id: last.map(|l| l.run_id),
            run_time: last.map(|l| params::time(l.run_time)),
        }))
    }
}
