//! Metric queries of a test case group over site-local dates: per test case or per
//! segment, counts per status, 24 hour slots, latency and MOS distributions; and the MOS of
//! a group per hour slot. They read only the rollup table (`store::rollups`). The trait, its
//! types and the sums both backends build from rollup rows; the SQL is in
//! `sqlite/metrics.rs` and `pg/metrics.rs`.

use std::collections::{BTreeMap, HashMap};

use async_trait::async_trait;
use chrono::NaiveDate;

use super::rollups::{self, corrupt};
use super::StoreResult;
use crate::domain::buckets::SLOTS;
use crate::domain::caller::{Scope, Visibility};
use crate::domain::dist::{self, Summary};
use crate::domain::run::{Channel, RunType};

#[async_trait]
pub trait MetricStore {
    /// The group's metric (see [`MetricQuery`]), when the group exists and the scope may
    /// see it: one entity per test case (ordered by name) or per segment of a test case
    /// that has runs in the range (ordered by test case name, then segment id).
    async fn group_metric(
        &self,
        scope: Scope,
        q: MetricQuery,
    ) -> StoreResult<Visibility<Vec<EntityMetric>>>;
    /// MOS of the group's runs per local hour slot over the range: 24 entries, `None` for
    /// an hour without runs that have a MOS.
    async fn group_mos(
        &self,
        scope: Scope,
        q: MosQuery,
    ) -> StoreResult<Visibility<Vec<Option<Summary>>>> {
        self.group_mos_leaving_out(scope, q, Vec::new()).await
    }
    /// [`group_mos`](Self::group_mos) without the MOS values `leave_out`, `(local hour, MOS
    /// in hundredths)` of runs the rollups hold (the runs marked in maintenance windows):
    /// the minimum, median and maximum are those of the others.
    async fn group_mos_leaving_out(
        &self,
        scope: Scope,
        q: MosQuery,
        leave_out: Vec<(usize, u32)>,
    ) -> StoreResult<Visibility<Vec<Option<Summary>>>>;
}

/// Each hour's MOS summary, without the values `leave_out` (`(hour, value)`).
pub(super) fn mos_summaries(
    mut hours: Vec<dist::Acc>,
    leave_out: &[(usize, u32)],
) -> Vec<Option<Summary>> {
    for &(h, v) in leave_out {
        if let Some(acc) = hours.get_mut(h) {
            acc.remove_value(v);
        }
    }
    hours.iter_mut().map(dist::Acc::summary).collect()
}

/// The MOS of a group over local dates `from..=to`, for one run type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MosQuery {
    pub group_id: i64,
    pub from: NaiveDate,
    pub to: NaiveDate,
    pub run_type: RunType,
}

/// One entity per test case or per (test case, segment).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Level {
    Case,
    Segment,
}

impl Level {
    pub fn parse(s: &str) -> Option<Level> {
        match s {
            "case" => Some(Level::Case),
            "segment" => Some(Level::Segment),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Level::Case => "case",
            Level::Segment => "segment",
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MetricQuery {
    pub group_id: i64,
    pub level: Level,
    /// Local dates, inclusive.
    pub from: NaiveDate,
    pub to: NaiveDate,
    pub run_type: RunType,
}

/// Counts per stored status code: pass, warn, fail, stopped.
pub type Counts = [u64; 4];

#[derive(Debug, Clone, PartialEq)]
pub struct EntityMetric {
    pub test_case_id: i64,
    pub test_case_name: String,
    pub channel: Channel,
    /// Segment id and name on segment level.
    pub segment: Option<(i64, String)>,
    pub counts: Counts,
    /// Per local hour 0..23, summed over the days of the range.
    pub hourly: [Counts; SLOTS],
    /// Step latencies, ms.
    pub latency: Option<Summary>,
    /// mosCqIn in hundredths (case level only).
    pub mos: Option<Summary>,
}

/// One entity's figures, summed over rollup rows.
#[derive(Default)]
pub(super) struct Acc {
    counts: Counts,
    hourly: [Counts; SLOTS],
    pub(super) lat: dist::Acc,
    pub(super) mos: dist::Acc,
}

impl Acc {
    pub(super) fn add_counts(&mut self, hour: usize, c: Counts) {
        for (i, v) in c.iter().enumerate() {
            self.counts[i] += v;
            if let Some(slot) = self.hourly.get_mut(hour) {
                slot[i] += v;
            }
        }
    }

    /// The metric of a test case (`id`, name, channel), or of one of its segments (id, name).
    fn metric(
        mut self,
        (id, name, channel): &(i64, String, Channel),
        segment: Option<(i64, String)>,
    ) -> EntityMetric {
        EntityMetric {
            test_case_id: *id,
            test_case_name: name.clone(),
            channel: *channel,
            mos: if segment.is_some() {
                None
            } else {
                self.mos.summary()
            },
            segment,
            counts: self.counts,
            hourly: self.hourly,
            latency: self.lat.summary(),
        }
    }
}

/// Adds a rollup row's segments (of test case `case`, in local hour `hour`) to their
/// accumulators.
pub(super) fn add_segments(
    accs: &mut BTreeMap<(i64, i64), Acc>,
    case: i64,
    hour: usize,
    segments: &[u8],
) -> StoreResult<()> {
    rollups::for_each_segment(segments, |s| {
        let acc = accs.entry((case, s.segment_id)).or_default();
        acc.add_counts(hour, s.counts);
        let hist = (!s.lat_hist.is_empty()).then_some(s.lat_hist);
        acc.lat.add(s.lat_n, s.lat_sum, hist)
    })
    .map_err(corrupt)
}

/// One entity per test case, in the order of `cases`, from each one's accumulator.
pub(super) fn case_metrics(
    cases: &[(i64, String, Channel)],
    mut accs: HashMap<i64, Acc>,
) -> Vec<EntityMetric> {
    cases
        .iter()
        .map(|case| accs.remove(&case.0).unwrap_or_default().metric(case, None))
        .collect()
}

/// One entity per segment of a test case that has figures, in the order of `cases`, then by
/// segment id; `name(case, segment)` gives a segment's name.
pub(super) fn segment_metrics(
    cases: &[(i64, String, Channel)],
    mut accs: BTreeMap<(i64, i64), Acc>,
    mut name: impl FnMut(i64, i64) -> StoreResult<String>,
) -> StoreResult<Vec<EntityMetric>> {
    let mut out = Vec::with_capacity(accs.len());
    for case in cases {
        let keys: Vec<(i64, i64)> = accs
            .range((case.0, i64::MIN)..=(case.0, i64::MAX))
            .map(|(k, _)| *k)
            .collect();
        for (id, seg) in keys {
            let acc = accs.remove(&(id, seg)).unwrap_or_default();
            out.push(acc.metric(case, Some((seg, name(id, seg)?))));
        }
    }
    Ok(out)
}
