//! How a run's detail (spec §3 'Run detail') is stored compactly.
//!
//! The step structure (segments, steps and the fields a test case's script fixes: ids,
//! types, prompts, latency limits, timeouts, step-type specific fields) is the same for
//! most runs of a test case, so it is stored once as a *script* (`run_scripts`, JSON,
//! content-addressed by SHA-256). What each run adds, the step results, is a small binary
//! blob in the run's row, one record per step in script order:
//!
//! ```text
//! blob   := version(=1) step*
//! step   := flags1 flags2 [utterance] [latency] [confidence] [recordingDuration]
//!           [start] [end] [recording] [bargeInTime]
//! flags1 := bits 0-1 status (0 pass, 1 warn, 2 fail, 3 stopped), bit 2 utterance,
//!           bit 3 latency, bit 4 confidence, bit 5 recordingDuration, bit 6 start, bit 7 end
//! flags2 := bit 0 recording, bit 1 bargeInTime
//! ```
//!
//! Fields are varints (`domain::varint`): utterance = id in `texts` (interned); latency in
//! ms; confidence in 1/10000; recordingDuration in ms; start = zigzag ms after the run's
//! start; end = zigzag ms after the step's start (or the run's start); recording = row id
//! in `recordings`; bargeInTime in ms.

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::domain::ingest::IngestRun;
use crate::domain::run::RunStatus;
use crate::domain::varint::{self, Corrupt, Reader};

const VERSION: u8 = 1;

/// One segment of a script.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScriptSegment {
    pub segment_id: i64,
    pub segment_name: String,
    pub steps: Vec<ScriptStep>,
}

/// The fixed part of a step.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScriptStep {
    pub step_id: i64,
    pub step_type: String,
    pub type_display_text: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_latency_min: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_latency_max: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub incomplete_timeout: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub complete_timeout: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extra: Option<serde_json::Map<String, serde_json::Value>>,
}

/// The script of a run and its JSON body.
pub(super) fn script_of(run: &IngestRun) -> (Vec<ScriptSegment>, String) {
    let script: Vec<ScriptSegment> = run
        .segments
        .iter()
        .map(|s| ScriptSegment {
            segment_id: s.segment_id,
            segment_name: s.segment_name.clone(),
            steps: s
                .steps
                .iter()
                .map(|t| ScriptStep {
                    step_id: t.step_id,
                    step_type: t.step_type.clone(),
                    type_display_text: t.type_display_text.clone(),
                    prompt: t.prompt.clone(),
                    prompt_latency_min: t.prompt_latency_min,
                    prompt_latency_max: t.prompt_latency_max,
                    incomplete_timeout: t.incomplete_timeout,
                    complete_timeout: t.complete_timeout,
                    extra: t.extra.clone(),
                })
                .collect(),
        })
        .collect();
    let body = serde_json::to_string(&script).unwrap_or_else(|_| "[]".into());
    (script, body)
}

/// SHA-256 over every field a run's script keeps (length-prefixed, in order), computed
/// without building the script: scripts are found by it.
pub(super) fn script_hash(run: &IngestRun) -> [u8; 32] {
    fn text(h: &mut Sha256, v: &str) {
        h.update((v.len() as u64).to_le_bytes());
        h.update(v.as_bytes());
    }
    fn opt_text(h: &mut Sha256, v: Option<&str>) {
        match v {
            None => h.update([0]),
            Some(v) => {
                h.update([1]);
                text(h, v);
            }
        }
    }
    fn opt_int(h: &mut Sha256, v: Option<i64>) {
        match v {
            None => h.update([0]),
            Some(v) => {
                h.update([1]);
                h.update(v.to_le_bytes());
            }
        }
    }
    let mut h = Sha256::new();
    h.update(b"cxwatch script 1");
    h.update((run.segments.len() as u64).to_le_bytes());
    for seg in &run.segments {
        h.update(seg.segment_id.to_le_bytes());
        text(&mut h, &seg.segment_name);
        h.update((seg.steps.len() as u64).to_le_bytes());
        for t in &seg.steps {
            h.update(t.step_id.to_le_bytes());
            text(&mut h, &t.step_type);
            text(&mut h, &t.type_display_text);
            opt_text(&mut h, t.prompt.as_deref());
            opt_int(&mut h, t.prompt_latency_min);
            opt_int(&mut h, t.prompt_latency_max);
            opt_int(&mut h, t.incomplete_timeout);
            opt_int(&mut h, t.complete_timeout);
            let extra = t
                .extra
                .as_ref()
                .map(|m| serde_json::to_string(m).unwrap_or_default());
            opt_text(&mut h, extra.as_deref());
        }
    }
    h.finalize().into()
}

/// One step's result as stored (ids instead of texts and recording ids).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct StoredResult {
    pub status: u8,
    pub utterance: Option<i64>,
    pub latency: Option<i64>,
    /// 1/10000.
    pub confidence: Option<u32>,
    pub recording_duration_ms: Option<i64>,
    /// ms since the epoch.
    pub start_ms: Option<i64>,
    /// ms since the epoch.
    pub end_ms: Option<i64>,
    pub recording: Option<i64>,
    pub barge_in_time: Option<i64>,
}

/// A run's step results as stored, in order: `text(u)` gives an utterance's text id and
/// `recordings` the row of each recording id the run refers to.
pub fn stored_results(
    run: &IngestRun,
    recordings: &std::collections::HashMap<String, i64>,
    mut text: impl FnMut(&str) -> crate::store::StoreResult<i64>,
) -> crate::store::StoreResult<Vec<StoredResult>> {
    let mut results = Vec::new();
    for step in run.segments.iter().flat_map(|s| &s.steps) {
        let r = &step.test_result;
        results.push(StoredResult {
            status: r.status.code(),
            utterance: r.utterance.as_deref().map(&mut text).transpose()?,
            latency: r.latency,
            confidence: r.confidence.map(confidence_units),
            recording_duration_ms: r.recording_duration.map(secs_to_ms),
            start_ms: r.start_time.map(|t| t.timestamp_millis()),
            end_ms: r.end_time.map(|t| t.timestamp_millis()),
            recording: step
                .recording_id
                .as_ref()
                .and_then(|id| recordings.get(id).copied()),
            barge_in_time: step.barge_in_time,
        });
    }
    Ok(results)
}

impl StoredResult {
    pub fn status(&self) -> RunStatus {
        RunStatus::from_code(self.status).unwrap_or(RunStatus::Fail)
    }
}

/// Confidence 0..1 to 1/10000.
pub(super) fn confidence_units(c: f64) -> u32 {
    (c * 10_000.0).round().clamp(0.0, 10_000.0) as u32
}

/// Seconds to ms.
pub(super) fn secs_to_ms(s: f64) -> i64 {
    (s * 1000.0).round() as i64
}

pub(super) fn encode(run_ms: i64, steps: &[StoredResult]) -> Vec<u8> {
    let mut out = Vec::with_capacity(1 + steps.len() * 16);
    out.push(VERSION);
    for s in steps {
        let mut f1 = s.status & 0b11;
        let bit = |b: bool, n: u8| if b { 1u8 << n } else { 0 };
        f1 |= bit(s.utterance.is_some(), 2)
            | bit(s.latency.is_some(), 3)
            | bit(s.confidence.is_some(), 4)
            | bit(s.recording_duration_ms.is_some(), 5)
            | bit(s.start_ms.is_some(), 6)
            | bit(s.end_ms.is_some(), 7);
        let f2 = bit(s.recording.is_some(), 0) | bit(s.barge_in_time.is_some(), 1);
        out.push(f1);
        out.push(f2);
        if let Some(u) = s.utterance {
            varint::put_u64(&mut out, u as u64);
        }
        if let Some(l) = s.latency {
            varint::put_i64(&mut out, l);
        }
        if let Some(c) = s.confidence {
            varint::put_u64(&mut out, u64::from(c));
        }
        if let Some(d) = s.recording_duration_ms {
            varint::put_i64(&mut out, d);
        }
        if let Some(t) = s.start_ms {
            varint::put_i64(&mut out, t - run_ms);
        }
        if let Some(t) = s.end_ms {
            varint::put_i64(&mut out, t - s.start_ms.unwrap_or(run_ms));
        }
        if let Some(r) = s.recording {
            varint::put_u64(&mut out, r as u64);
        }
        if let Some(b) = s.barge_in_time {
            varint::put_i64(&mut out, b);
        }
    }
    out
}

pub(super) fn decode(blob: &[u8], run_ms: i64) -> Result<Vec<StoredResult>, Corrupt> {
    let mut r = Reader::new(blob);
    if r.u8()? != VERSION {
        return Err(Corrupt(0));
    }
    let mut steps = Vec::new();
    while !r.is_empty() {
        let f1 = r.u8()?;
        let f2 = r.u8()?;
        let has = |f: u8, n: u8| f & (1 << n) != 0;
        let mut s = StoredResult {
            status: f1 & 0b11,
            ..Default::default()
        };
        if has(f1, 2) {
            s.utterance = Some(r.u64()? as i64);
        }
        if has(f1, 3) {
            s.latency = Some(r.i64()?);
        }
        if has(f1, 4) {
            s.confidence = Some(r.u32()?);
        }
        if has(f1, 5) {
            s.recording_duration_ms = Some(r.i64()?);
        }
        if has(f1, 6) {
            s.start_ms = Some(run_ms + r.i64()?);
        }
        if has(f1, 7) {
            s.end_ms = Some(s.start_ms.unwrap_or(run_ms) + r.i64()?);
        }
        if has(f2, 0) {
            s.recording = Some(r.u64()? as i64);
        }
        if has(f2, 1) {
            s.barge_in_time = Some(r.i64()?);
        }
        steps.push(s);
    }
    Ok(steps)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        let run_ms = 1_772_950_000_000;
        let steps = vec![
            StoredResult {
                status: 0,
                utterance: Some(12),
                latency: Some(840),
                confidence: Some(9_150),
                recording_duration_ms: Some(3_250),
                start_ms: Some(run_ms + 1_500),
                end_ms: Some(run_ms + 4_750),
                recording: Some(3),
                barge_in_time: Some(200),
            },
            StoredResult {
                status: 3,
                ..Default::default()
            },
            StoredResult {
                status: 2,
                end_ms: Some(run_ms - 10),
                latency: Some(0),
                ..Default::default()
            },
        ];
        let blob = encode(run_ms, &steps);
        assert_eq!(decode(&blob, run_ms).unwrap(), steps);
        // The full first step takes well under 30 bytes.
        assert!(blob.len() < 40, "{}", blob.len());
        assert!(decode(&blob[..blob.len() - 1], run_ms).is_err());
        assert!(decode(&[9], run_ms).is_err());
    }

    #[test]
    fn conversions() {
        assert_eq!(confidence_units(0.87), 8_700);
        assert_eq!(confidence_units(1.0), 10_000);
        assert_eq!(secs_to_ms(3.2505), 3_251);
    }
}
