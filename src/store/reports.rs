//! Saved reports (spec §3 'Report') and what their views read: the list the server pages,
//! one report, its changes, the latency heat map of a type-6 report and the CSV export rows
//! (both from the hourly rollups, `store::rollups`), and the runs behind a report's cell or
//! segment (the only query here that reads runs; paged). The trait and what both backends
//! share (the heat map built from rollup rows, the latency filter of a run list, the checks
//! of a draft); the SQL is in `sqlite/reports.rs` and `pg/reports.rs`.
//!
//! A report belongs to one test case group: a caller whose scope does not hold that group
//! neither sees nor changes it.

use std::collections::BTreeMap;

use async_trait::async_trait;
use chrono::NaiveDate;
use chrono_tz::Tz;
use tokio::sync::mpsc;

use super::rollups::{self, corrupt};
use super::run_detail::ScriptSegment;
use super::runs::RunRow;
use super::{invalid, StoreError, StoreResult};
use crate::domain::buckets::SLOTS;
use crate::domain::caller::{Scope, Visibility};
use crate::domain::dist;
use crate::domain::page::{Page, PageRequest};
use crate::domain::report::{bucket_of, Report, ReportDraft, ReportFilter, LATENCY_BUCKETS};
use crate::domain::run::{Channel, RunType};

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
    segs: BTreeMap<(i64, i64), Vec<LatencyHour>>,
    pairs: dist::Pairs,
}

/// One hourly rollup row as the heat map reads it.
pub(super) struct LatencyRow<'a> {
    pub case: i64,
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
            segments,
        })
    }
}

/// Segment ids and step counts of a script, to split a run's step results.
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
    /// Does the run have a step latency (of segment `seg`, when given) in `[lo, hi)`?
    /// `script` is the shape of the run's script.
    pub(super) fn has_latency(
        &self,
        script: &[ScriptShape],
        seg: Option<i64>,
        (lo, hi): (u32, Option<u32>),
    ) -> StoreResult<bool> {
        let steps = super::run_detail::decode(&self.results, self.run_ms)
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
