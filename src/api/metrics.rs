//! `api/trs/v1/groups/{id}/metric` and `api/trs/v1/groups/{id}/mos`: a group's pass,
//! warning and failure counts, latency and MOS per site-local hour slot.

use chrono::NaiveDate;
use poem::web::Data;
use poem_openapi::param::{Path, Query};
use poem_openapi::payload::Json;
use poem_openapi::{Object, OpenApi};

use super::envelope::fails::*;
use super::envelope::{Answer, ApiError, Envelope};
use super::guard::Auth;
use super::lenient::OneOf;
use super::params;
use super::AppState;
use crate::domain::buckets::{self, SLOTS};
use crate::domain::caller::Need;
use crate::domain::dist::Summary;
use crate::domain::rules::{Problems, Rule};
use crate::domain::run::Channel;
use crate::domain::run::RunType;
use crate::store::metrics::{EntityMetric, Level, MetricQuery, MosQuery};
use crate::store::rollups::RunFacts;

pub struct MetricsApi;

/// Counts of one local hour slot.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct HourlyStatus {
    /// `YYYY-MM-DDTHH:00:00`, site-local, on the range's first date.
    pub hourly: String,
    pub success_count: u64,
    pub warning_count: u64,
    pub failure_count: u64,
    /// Runs in a maintenance window (cxwatch's addition): left out of the counts
    /// above. Absent when none.
    #[oai(skip_serializing_if_is_none)]
    pub maintenance_count: Option<u64>,
}

/// Group metric of one test case (level `case`) or one segment of a test case (level
/// `segment`) over the date range (spec §3 'Group metric'), plus latency and MOS figures.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct GroupMetric {
    /// The test case id.
    pub entity_id: i64,
    /// The test case name.
    pub entity_name: String,
    /// `case` or `segment` (the level asked for).
    pub entity_type: String,
    pub channel: Channel,
    /// First date of the range, `YYYY-MM-DD`.
    pub period_start: String,
    /// Last date of the range, `YYYY-MM-DD`.
    pub period_end: String,
    pub success_count: u64,
    pub warning_count: u64,
    /// Failed and stopped runs.
    pub failure_count: u64,
    /// Always 24 slots, local hours 0 to 23; over several days each slot sums that hour
    /// of every day.
    pub hourly_status: Vec<HourlyStatus>,
    /// Segment id (null on case level).
    #[oai(nullable)]
    pub segment_id: Option<i64>,
    /// Segment name (null on case level).
    #[oai(nullable)]
    pub segment_name: Option<String>,
    /// Stopped runs (already counted in failureCount).
    pub stopped_count: u64,
    /// Runs stored while a maintenance window covered them (cxwatch's addition):
    /// left out of the success, warning, failure and stopped counts (case level). Absent
    /// when none, so that the answer keeps the spec's shape.
    #[oai(skip_serializing_if_is_none)]
    pub maintenance_count: Option<u64>,
    /// Number of step latencies measured.
    pub latency_count: u64,
    /// Step latency in seconds, 2 decimals; null without measurements.
    #[oai(nullable)]
    pub avg_latency: Option<f64>,
    #[oai(nullable)]
    pub min_latency: Option<f64>,
    #[oai(nullable)]
    pub max_latency: Option<f64>,
    #[oai(nullable)]
    pub median_latency: Option<f64>,
    /// Runs with a MOS (case level; 0 on segment level).
    pub mos_count: u64,
    /// mosCqIn, 1 decimal; null without runs that have one.
    #[oai(nullable)]
    pub avg_mos_cq: Option<f64>,
    #[oai(nullable)]
    pub min_mos_cq: Option<f64>,
    #[oai(nullable)]
    pub max_mos_cq: Option<f64>,
    #[oai(nullable)]
    pub median_mos_cq: Option<f64>,
}

/// MOS of a group's runs in one local hour slot (spec §3 'MOS row').
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct MosRow {
    /// `YYYY-MM-DDTHH:00:00`, site-local, on the range's first date.
    pub hourly: String,
    /// 1 decimal; null when no run in that hour has a MOS.
    #[oai(nullable)]
    pub min_mos_cq: Option<f64>,
    #[oai(nullable)]
    pub max_mos_cq: Option<f64>,
    #[oai(nullable)]
    pub avg_mos_cq: Option<f64>,
    #[oai(nullable)]
    pub median_mos_cq: Option<f64>,
    /// Runs with a MOS in that hour.
    pub run_count: u64,
    /// Runs with a MOS in that hour stored while a maintenance window covered them
    /// (cxwatch's addition): left out of the figures above. Absent when none.
    #[oai(skip_serializing_if_is_none)]
    pub maintenance_count: Option<u64>,
}

fn hour_label(from: NaiveDate, hour: usize) -> String {
    buckets::hour_label(from, hour)
}

/// Count and `[avg, min, max, median]` of a summary, in the unit `f` gives.
fn figures(s: Option<Summary>, f: impl Fn(&Summary) -> [f64; 4]) -> (u64, [Option<f64>; 4]) {
    match s {
        None => (0, [None; 4]),
        Some(s) => (s.n, f(&s).map(Some)),
    }
}

fn latency(s: &Summary) -> [f64; 4] {
    let v = s.latency_secs();
    [v.avg, v.min, v.max, v.median]
}

fn mos(s: &Summary) -> [f64; 4] {
    let v = s.mos();
    [v.avg, v.min, v.max, v.median]
}

impl GroupMetric {
    fn of(e: EntityMetric, q: &MetricQuery) -> GroupMetric {
        let (latency_count, [avg_l, min_l, max_l, med_l]) = figures(e.latency, latency);
        let (mos_count, [avg_m, min_m, max_m, med_m]) = figures(e.mos, mos);
        GroupMetric {
            entity_id: e.test_case_id,
            entity_name: e.test_case_name,
            entity_type: q.level.as_str().into(),
            channel: e.channel,
            period_start: q.from.to_string(),
            period_end: q.to.to_string(),
            success_count: e.counts[0],
            warning_count: e.counts[1],
            failure_count: e.counts[2] + e.counts[3],
            hourly_status: e
                .hourly
                .iter()
                .enumerate()
                .map(|(h, c)| HourlyStatus {
                    hourly: hour_label(q.from, h),
                    success_count: c[0],
                    warning_count: c[1],
                    failure_count: c[2] + c[3],
                    maintenance_count: None,
                })
                .collect(),
            segment_id: e.segment.as_ref().map(|s| s.0),
            segment_name: e.segment.map(|s| s.1),
            stopped_count: e.counts[3],
            maintenance_count: None,
            latency_count,
            avg_latency: avg_l,
            min_latency: min_l,
            max_latency: max_l,
            median_latency: med_l,
            mos_count,
            avg_mos_cq: avg_m,
            min_mos_cq: min_m,
            max_mos_cq: max_m,
            median_mos_cq: med_m,
        }
    }
}

/// Leaves the runs stored in maintenance windows out of the counts: each marked
/// run is taken from its test case's counts and hour slot (level `case`), or from each of its
/// segments' (level `segment`, with the segment's own status), and counted as maintenance
/// instead. The rollups hold them; the marked runs' facts say what they added.
fn leave_out_maintenance(rows: &mut [GroupMetric], marked: &[RunFacts], tz: chrono_tz::Tz) {
    use chrono::Timelike;
    let take = |n: &mut u64| *n = n.saturating_sub(1);
    let leave = |m: &mut GroupMetric, status: u8, hour: usize| {
        match status {
            0 => take(&mut m.success_count),
            1 => take(&mut m.warning_count),
            _ => take(&mut m.failure_count),
        }
        if status == 3 {
            take(&mut m.stopped_count);
        }
        *m.maintenance_count.get_or_insert(0) += 1;
        if let Some(h) = m.hourly_status.get_mut(hour) {
            match status {
                0 => take(&mut h.success_count),
                1 => take(&mut h.warning_count),
                _ => take(&mut h.failure_count),
            }
            *h.maintenance_count.get_or_insert(0) += 1;
        }
    };
    for f in marked {
        let hour = chrono::DateTime::<chrono::Utc>::from_timestamp_millis(f.run_ms)
            .unwrap_or_default()
            .with_timezone(&tz)
            .hour() as usize;
        for m in rows.iter_mut().filter(|m| m.entity_id == f.case_id) {
            match m.segment_id {
                None => leave(m, f.status, hour),
                Some(seg) => {
                    if let Some(s) = f.segments.iter().find(|s| s.segment_id == seg) {
                        leave(m, s.status, hour);
                    }
                }
            }
        }
    }
}

/// The MOS values of the marked runs by local hour, to leave out of `groups/{id}/mos`.
fn marked_mos(marked: &[RunFacts], tz: chrono_tz::Tz) -> Vec<(usize, u32)> {
    use chrono::Timelike;
    marked
        .iter()
        .filter_map(|f| {
            let hour = chrono::DateTime::<chrono::Utc>::from_timestamp_millis(f.run_ms)?
                .with_timezone(&tz)
                .hour() as usize;
            Some((hour, f.mos?))
        })
        .collect()
}

fn mos_rows(from: NaiveDate, hours: Vec<Option<Summary>>) -> Vec<MosRow> {
    (0..SLOTS)
        .zip(hours)
        .map(|(h, s)| {
            let (run_count, [avg, min, max, median]) = figures(s, mos);
            MosRow {
                hourly: hour_label(from, h),
                min_mos_cq: min,
                max_mos_cq: max,
                avg_mos_cq: avg,
                median_mos_cq: median,
                run_count,
                maintenance_count: None,
            }
        })
        .collect()
}

/// `level`: `case` (the default) or `segment`.
/// `level` of `groups/{id}/metric`, as the document lists it (the store's [`Level`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, poem_openapi::Enum)]
#[oai(rename_all = "lowercase")]
pub enum MetricLevel {
    Case,
    Segment,
}

fn level(v: Option<&str>, p: &mut Problems) -> Option<Level> {
    match v.map(str::trim).filter(|s| !s.is_empty()) {
        None => Some(Level::Case),
        Some(s) => {
            let l = Level::parse(s);
            if l.is_none() {
                p.push(
                    "level",
                    Rule::Invalid,
                    format!("level {s:?} is not a level (case or segment)."),
                );
            }
            l
        }
    }
}

/// The checked parameters of both operations: range and run type (default Manual).
fn range_and_type(
    start: Option<&str>,
    end: Option<&str>,
    run_type: Option<&str>,
    p: &mut Problems,
) -> Option<((NaiveDate, NaiveDate), RunType)> {
    let range = params::date_range(start, end, p);
    let run_type = params::run_type(run_type, p);
    Some((range?, run_type?.unwrap_or(RunType::Manual)))
}

#[OpenApi(prefix_path = "/trs/v1", tag = "super::ApiTags::Metrics")]
impl MetricsApi {
    /// The group's pass / warning / failure counts per test case (`level=case`) or per
    /// segment of a test case (`level=segment`, segments with runs in the range) over
    /// site-local dates `startDate`..`endDate` (default: `startDate`), for one run type
    /// (default Manual), with 24 hour slots and latency and MOS figures.
    #[oai(
        path = "/groups/:id/metric",
        method = "get",
        operation_id = "groupMetric"
    )]
    #[allow(clippy::too_many_arguments)]
    async fn metric(
        &self,
        auth: Auth,
        state: Data<&AppState>,
        id: Path<i64>,
        /// `case` (default) or `segment`.
        level: Query<Option<OneOf<MetricLevel>>>,
        /// `YYYY-MM-DD`, site-local.
        #[oai(name = "startDate")]
        start_date: Query<params::Date>,
        /// `YYYY-MM-DD`, site-local; at most 400 days after startDate.
        #[oai(name = "endDate")]
        end_date: Query<Option<params::Date>>,
        /// Default `Manual`.
        #[oai(name = "caseRunType")]
        case_run_type: Query<Option<OneOf<RunType>>>,
    ) -> Answer<Json<Envelope<Vec<GroupMetric>>>, { BAD_REQUEST | FORBIDDEN | NOT_FOUND | INTERNAL }>
    {
        let caller = auth.require(Need::SignedIn)?;
        let mut p = Problems::default();
        let level = self::level(level.0.as_deref(), &mut p);
        let rest = range_and_type(
            Some(start_date.0.as_str()),
            end_date.0.as_deref(),
            case_run_type.0.as_deref(),
            &mut p,
        );
        p.check()?;
        let (Some(level), Some(((from, to), run_type))) = (level, rest) else {
            return Err(ApiError::bad_request("Bad parameters.").into());
        };
        let q = MetricQuery {
            group_id: id.0,
            level,
            from,
            to,
            run_type,
        };
        let found = state.store.group_metric(caller.scope(), q).await?;
        let entities = params::visible(found, format_args!("Group {}", id.0))?;
        let mut out: Vec<GroupMetric> = entities
            .into_iter()
            .map(|e| GroupMetric::of(e, &q))
            .collect();
        let tz = state.config.tz();
        let (from_ms, to_ms) = buckets::local_range_ms(tz, from, to);
        let marked = state
            .store
            .marked_facts_of_group(id.0, from_ms, to_ms, run_type.code())
            .await?;
        leave_out_maintenance(&mut out, &marked, tz);
        Ok(Envelope::ok(out))
    }

    /// MOS (mosCqIn) of the group's runs per site-local hour slot over the range: always
    /// 24 rows; values are null for an hour without runs that have a MOS.
    #[oai(path = "/groups/:id/mos", method = "get", operation_id = "groupMos")]
    async fn mos(
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
        /// Default `Manual`.
        #[oai(name = "caseRunType")]
        case_run_type: Query<Option<OneOf<RunType>>>,
    ) -> Answer<Json<Envelope<Vec<MosRow>>>, { BAD_REQUEST | FORBIDDEN | NOT_FOUND | INTERNAL }>
    {
        let caller = auth.require(Need::SignedIn)?;
        let mut p = Problems::default();
        let rest = range_and_type(
            Some(start_date.0.as_str()),
            end_date.0.as_deref(),
            case_run_type.0.as_deref(),
            &mut p,
        );
        p.check()?;
        let Some(((from, to), run_type)) = rest else {
            return Err(ApiError::bad_request("Bad parameters.").into());
        };
        let q = MosQuery {
            group_id: id.0,
            from,
            to,
            run_type,
        };
        let tz = state.config.tz();
        let (from_ms, to_ms) = buckets::local_range_ms(tz, from, to);
        let marked = state
            .store
            .marked_facts_of_group(id.0, from_ms, to_ms, run_type.code())
            .await?;
        let leave_out = marked_mos(&marked, tz);
        let found = state
            .store
            .group_mos_leaving_out(caller.scope(), q, leave_out.clone())
            .await?;
        let hours = params::visible(found, format_args!("Group {}", id.0))?;
        let mut rows = mos_rows(from, hours);
        for (h, _) in leave_out {
            if let Some(r) = rows.get_mut(h) {
                *r.maintenance_count.get_or_insert(0) += 1;
            }
        }
        Ok(Envelope::ok(rows))
    }
}
