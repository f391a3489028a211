//! Rollups: per test case and per segment, per site-local day and hour, per run type,
//! counts per run status plus MOS and latency distributions (`domain::dist`). Ingest adds
//! each batch's runs in the same transaction that stores them, so rollups always equal a
//! recount of the stored runs. Metric queries (`store::metrics`) read only this table,
//! `rollup_hour`: one row per test case, run type, local day and hour, with the segments'
//! figures inside the row (one row to update per test case and batch, not one per segment).
//!
//! The site time zone the rollups were built with is kept in `meta` (`rollup_tz`); when the
//! configured zone changes, the next ingest rebuilds them from the stored runs.
//!
//! What a run adds, the deltas of a batch and the encoding of a row's segments are shared by
//! both backends; SQLite's SQL is in `sqlite/rollups.rs`, PostgreSQL's in `pg/runs.rs`.

use std::collections::BTreeMap;

use chrono_tz::Tz;

use super::run_detail::{self, ScriptSegment};
use super::{StoreError, StoreResult};
use crate::domain::ingest::IngestRun;
use crate::domain::{buckets, dist, varint};

/// What a run contributes to the rollups.
#[derive(Debug, Clone, PartialEq)]
pub struct RunFacts {
    pub case_id: i64,
    pub run_type: u8,
    pub run_ms: i64,
    /// 0 pass, 1 warn, 2 fail, 3 stopped.
    pub status: u8,
    /// mosCqIn in hundredths.
    pub mos: Option<u32>,
    pub segments: Vec<SegmentFacts>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct SegmentFacts {
    pub segment_id: i64,
    /// The worst status of the segment's steps (the run's status when it has none).
    pub status: u8,
    /// Step latencies, ms.
    pub latencies: Vec<u32>,
}

/// MOS 1.0..5.0 to hundredths.
pub(super) fn mos_units(m: f64) -> u32 {
    (m * 100.0).round().clamp(0.0, 1000.0) as u32
}

impl RunFacts {
    pub fn of_ingest(run: &IngestRun) -> RunFacts {
        let status = run.status.code();
        RunFacts {
            case_id: run.test_case.id,
            run_type: run.run_type.code(),
            run_ms: run.run_time.timestamp_millis(),
            status,
            mos: run.mos_cq_in.map(mos_units),
            segments: run
                .segments
                .iter()
                .map(|s| SegmentFacts {
                    segment_id: s.segment_id,
                    status: s
                        .steps
                        .iter()
                        .map(|t| t.test_result.status.code())
                        .max()
                        .unwrap_or(status),
                    latencies: s
                        .steps
                        .iter()
                        .filter_map(|t| t.test_result.latency)
                        .map(|l| l.clamp(0, i64::from(u32::MAX)) as u32)
                        .collect(),
                })
                .collect(),
        }
    }
}

#[derive(Default)]
pub(super) struct SegmentDelta {
    pub(super) counts: [i64; 4],
    pub(super) lat: Vec<u32>,
}

#[derive(Default)]
pub(super) struct CaseDelta {
    pub(super) counts: [i64; 4],
    pub(super) mos: Vec<u32>,
    pub(super) lat: Vec<u32>,
    pub(super) segments: BTreeMap<i64, SegmentDelta>,
}

/// Rollup changes of a set of runs, applied at once.
#[derive(Default)]
pub struct Deltas {
    pub(super) hours: BTreeMap<(i64, u8, i32, u8), CaseDelta>,
    runs: usize,
}

impl Deltas {
    pub fn add(&mut self, tz: Tz, f: &RunFacts) {
        let (day, hour) = buckets::local_slot(tz, f.run_ms);
        let c = self
            .hours
            .entry((f.case_id, f.run_type, day, hour))
            .or_default();
        c.counts[usize::from(f.status & 3)] += 1;
        if let Some(m) = f.mos {
            c.mos.push(m);
        }
        for s in &f.segments {
            c.lat.extend_from_slice(&s.latencies);
            let d = c.segments.entry(s.segment_id).or_default();
            d.counts[usize::from(s.status & 3)] += 1;
            d.lat.extend_from_slice(&s.latencies);
        }
        self.runs += 1;
    }

    /// Runs added so far.
    pub fn runs(&self) -> usize {
        self.runs
    }
}

/// One segment's part of an hourly rollup row.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SegmentRollup {
    pub segment_id: i64,
    /// pass, warn, fail, stopped.
    pub counts: [u64; 4],
    pub lat_n: u64,
    pub lat_sum: u64,
    /// Encoded latency histogram (empty when no latency).
    pub lat_hist: Vec<u8>,
}

/// Encodes segment rollups sorted by id: `varint(count)`, then per segment
/// `zigzag(id) pass warn fail stopped lat_n lat_sum varint(len) histogram`.
pub(super) fn encode_segments(segs: &[SegmentRollup]) -> Vec<u8> {
    let mut out = Vec::with_capacity(1 + segs.len() * 16);
    varint::put_u64(&mut out, segs.len() as u64);
    for s in segs {
        varint::put_i64(&mut out, s.segment_id);
        for c in s.counts {
            varint::put_u64(&mut out, c);
        }
        varint::put_u64(&mut out, s.lat_n);
        varint::put_u64(&mut out, s.lat_sum);
        varint::put_u64(&mut out, s.lat_hist.len() as u64);
        out.extend_from_slice(&s.lat_hist);
    }
    out
}

/// The encoded segments of an hour's deltas (see [`encode_segments`]), `None` when there
/// are none.
pub(super) fn segment_blob(segments: BTreeMap<i64, SegmentDelta>) -> Option<Vec<u8>> {
    let mut segs = Vec::with_capacity(segments.len());
    for (id, mut s) in segments {
        let (n, sum, hist) = hist_parts(&mut s.lat);
        segs.push(SegmentRollup {
            segment_id: id,
            counts: s.counts.map(|c| c as u64),
            lat_n: n as u64,
            lat_sum: sum as u64,
            lat_hist: hist.unwrap_or_default(),
        });
    }
    (!segs.is_empty()).then(|| encode_segments(&segs))
}

/// A segment's part of a rollup row, borrowing its histogram from the blob.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SegmentView<'a> {
    pub segment_id: i64,
    pub counts: [u64; 4],
    pub lat_n: u64,
    pub lat_sum: u64,
    pub lat_hist: &'a [u8],
}

/// Calls `f` for each segment of an encoded blob.
pub(super) fn for_each_segment<'a>(
    blob: &'a [u8],
    mut f: impl FnMut(SegmentView<'a>) -> Result<(), varint::Corrupt>,
) -> Result<(), varint::Corrupt> {
    let mut r = varint::Reader::new(blob);
    let n = r.u64()?;
    for _ in 0..n {
        let segment_id = r.i64()?;
        let counts = [r.u64()?, r.u64()?, r.u64()?, r.u64()?];
        let lat_n = r.u64()?;
        let lat_sum = r.u64()?;
        let len = r.u64()? as usize;
        let lat_hist = r.take(len)?;
        f(SegmentView {
            segment_id,
            counts,
            lat_n,
            lat_sum,
            lat_hist,
        })?;
    }
    Ok(())
}

/// Merges two encoded segment blobs (either may be absent).
pub(super) fn merge_segments(
    a: Option<&[u8]>,
    b: Option<&[u8]>,
) -> Result<Option<Vec<u8>>, varint::Corrupt> {
    let (a, b) = match (a, b) {
        (None, None) => return Ok(None),
        (Some(x), None) | (None, Some(x)) => return Ok(Some(x.to_vec())),
        (Some(a), Some(b)) => (a, b),
    };
    let mut merged: BTreeMap<i64, SegmentRollup> = BTreeMap::new();
    for blob in [a, b] {
        for_each_segment(blob, |v| {
            let e = merged.entry(v.segment_id).or_insert_with(|| SegmentRollup {
                segment_id: v.segment_id,
                ..Default::default()
            });
            for i in 0..4 {
                e.counts[i] += v.counts[i];
            }
            e.lat_n += v.lat_n;
            e.lat_sum += v.lat_sum;
            let hist = dist::merge(
                (!e.lat_hist.is_empty()).then_some(&e.lat_hist[..]),
                (!v.lat_hist.is_empty()).then_some(v.lat_hist),
            )?;
            e.lat_hist = hist.unwrap_or_default();
            Ok(())
        })?;
    }
    let segs: Vec<SegmentRollup> = merged.into_values().collect();
    Ok(Some(encode_segments(&segs)))
}

pub(super) fn hist_parts(values: &mut [u32]) -> (i64, i64, Option<Vec<u8>>) {
    if values.is_empty() {
        return (0, 0, None);
    }
    let n = values.len() as i64;
    let sum: i64 = values.iter().map(|&v| i64::from(v)).sum();
    (n, sum, Some(dist::encode(&dist::from_values(values))))
}

/// A stored rollup (a histogram or a segment blob) that does not decode.
pub(super) fn corrupt(e: varint::Corrupt) -> StoreError {
    StoreError::Invalid(format!("stored rollup: {e}"))
}

/// The facts of a stored run, from its script and results blob.
pub(super) fn facts_of_stored(
    case_id: i64,
    run_type: u8,
    run_ms: i64,
    status: u8,
    mos: Option<u32>,
    script: &[ScriptSegment],
    results: &[u8],
) -> StoreResult<RunFacts> {
    let steps = run_detail::decode(results, run_ms)
        .map_err(|e| StoreError::Invalid(format!("stored run detail: {e}")))?;
    let mut segments = Vec::with_capacity(script.len());
    let mut at = 0usize;
    for seg in script {
        let mine = steps.get(at..at + seg.steps.len()).unwrap_or(&[]);
        at += seg.steps.len();
        segments.push(SegmentFacts {
            segment_id: seg.segment_id,
            status: mine.iter().map(|s| s.status).max().unwrap_or(status),
            latencies: mine
                .iter()
                .filter_map(|s| s.latency)
                .map(|l| l.clamp(0, i64::from(u32::MAX)) as u32)
                .collect(),
        });
    }
    Ok(RunFacts {
        case_id,
        run_type,
        run_ms,
        status,
        mos,
        segments,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seg(id: i64, counts: [u64; 4], lat: &[u32]) -> SegmentRollup {
        let mut v = lat.to_vec();
        SegmentRollup {
            segment_id: id,
            counts,
            lat_n: v.len() as u64,
            lat_sum: v.iter().map(|&x| u64::from(x)).sum(),
            lat_hist: if v.is_empty() {
                Vec::new()
            } else {
                dist::encode(&dist::from_values(&mut v))
            },
        }
    }

    fn decode(blob: &[u8]) -> Vec<SegmentRollup> {
        let mut out = Vec::new();
        for_each_segment(blob, |v| {
            out.push(SegmentRollup {
                segment_id: v.segment_id,
                counts: v.counts,
                lat_n: v.lat_n,
                lat_sum: v.lat_sum,
                lat_hist: v.lat_hist.to_vec(),
            });
            Ok(())
        })
        .unwrap();
        out
    }

    #[test]
    fn segments_round_trip_and_merge_canonically() {
        let a = vec![
            seg(-3, [1, 0, 0, 0], &[100, 200]),
            seg(2, [0, 1, 0, 0], &[]),
        ];
        let b = vec![seg(2, [0, 0, 1, 1], &[50]), seg(9, [1, 0, 0, 0], &[200])];
        let (ea, eb) = (encode_segments(&a), encode_segments(&b));
        assert_eq!(decode(&ea), a);
        let merged = merge_segments(Some(&ea), Some(&eb)).unwrap().unwrap();
        // The same as encoding the union directly.
        let union = vec![
            seg(-3, [1, 0, 0, 0], &[100, 200]),
            seg(2, [0, 1, 1, 1], &[50]),
            seg(9, [1, 0, 0, 0], &[200]),
        ];
        assert_eq!(merged, encode_segments(&union));
        assert_eq!(merge_segments(None, Some(&eb)).unwrap().unwrap(), eb);
        assert_eq!(merge_segments(None, None).unwrap(), None);
        assert!(for_each_segment(&ea[..ea.len() - 1], |_| Ok(())).is_err());
    }
}
