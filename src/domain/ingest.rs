//! The ingest format test engines post to `POST api/ingest/v1/runs` (see `docs/ingest.md`).
//!
//! Field names follow the console spec (§3 'Test run', 'Run detail') so an engine's payload
//! reads like what the console shows. A run carries its test case (and IVR application or
//! chatbot), which are created or renamed on ingest: the engine is their source of truth.
//! Test case groups are managed in the console.

use serde::{Deserialize, Serialize};

use super::run::{Channel, RunStatus, RunType};

/// Body of `POST api/ingest/v1/runs`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunBatch {
    pub runs: Vec<serde_json::Value>,
}

/// One test run as an engine reports it. Items are parsed one by one so that a bad item
/// is rejected with its index while the good ones are stored.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct IngestRun {
    /// The engine's own id for the run; a run already stored under it is not stored again.
    pub engine_run_id: String,
    pub test_case: IngestTestCase,
    /// Start of the run, RFC 3339 (stored as UTC).
    pub run_time: chrono::DateTime<chrono::Utc>,
    /// Seconds.
    pub run_duration: f64,
    pub status: RunStatus,
    pub run_type: RunType,
    /// Call-quality score 1.0 to 5.0 (voice runs).
    #[serde(default)]
    pub mos_cq_in: Option<f64>,
    /// Recording of the whole call, as returned by `POST api/ingest/v1/recordings`.
    #[serde(default)]
    pub recording_id: Option<String>,
    #[serde(default)]
    pub segments: Vec<IngestSegment>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct IngestTestCase {
    pub id: i64,
    pub name: String,
    pub channel: Channel,
    /// The IVR application (voice) or chatbot (web) the case calls.
    pub ivr: IngestIvr,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct IngestIvr {
    pub id: i64,
    pub name: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct IngestSegment {
    pub segment_id: i64,
    pub segment_name: String,
    #[serde(default)]
    pub steps: Vec<IngestStep>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct IngestStep {
    pub step_id: i64,
    /// Engine step type, e.g. `PROMPT`, `DTMF`, `SPEECH`, `TRANSFER`, `CHAT_MESSAGE`.
    pub step_type: String,
    /// How the console names the step type.
    pub type_display_text: String,
    #[serde(default)]
    pub prompt: Option<String>,
    /// Milliseconds.
    #[serde(default)]
    pub prompt_latency_min: Option<i64>,
    /// Milliseconds.
    #[serde(default)]
    pub prompt_latency_max: Option<i64>,
    /// Milliseconds.
    #[serde(default)]
    pub incomplete_timeout: Option<i64>,
    /// Milliseconds.
    #[serde(default)]
    pub complete_timeout: Option<i64>,
    /// Milliseconds into the prompt at which the caller barged in.
    #[serde(default)]
    pub barge_in_time: Option<i64>,
    /// Audio of this step, from `POST api/ingest/v1/recordings`.
    #[serde(default)]
    pub recording_id: Option<String>,
    pub test_result: IngestTestResult,
    /// Step-type specific fields, kept as given and shown in the run detail.
    #[serde(default)]
    pub extra: Option<serde_json::Map<String, serde_json::Value>>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct IngestTestResult {
    pub status: RunStatus,
    /// What the engine heard (voice) or read (chat); absent when nothing was recognized.
    #[serde(default)]
    pub utterance: Option<String>,
    /// Milliseconds from the end of the caller's input to the system's answer.
    #[serde(default)]
    pub latency: Option<i64>,
    /// Recognition confidence 0 to 1.
    #[serde(default)]
    pub confidence: Option<f64>,
    /// Seconds.
    #[serde(default)]
    pub recording_duration: Option<f64>,
    #[serde(default)]
    pub start_time: Option<chrono::DateTime<chrono::Utc>>,
    #[serde(default)]
    pub end_time: Option<chrono::DateTime<chrono::Utc>>,
}

/// Body of `POST api/ingest/v1/health`: the latest state of each client application.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct HealthBatch {
    pub client_apps: Vec<ClientAppHealth>,
}

/// Spec §3 'Client application (health)'.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ClientAppHealth {
    pub client_end_point: String,
    pub channel: Channel,
    /// Time of the application's last run.
    pub last_run: chrono::DateTime<chrono::Utc>,
    pub app_status: ComponentState,
    pub telco_status: ComponentState,
    pub agent_status: ComponentState,
    #[serde(default)]
    pub component_status: Vec<ComponentPresence>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ComponentState {
    pub enabled: bool,
    /// `TRS_PASS` is pass; any other value of an enabled component is a failure.
    pub status: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ComponentPresence {
    pub name: String,
    pub has_component: bool,
    pub enabled: bool,
    /// cxwatch's, optional: this component's own status (`TRS_PASS` is pass), when the
    /// engine knows it; without it the component shares the application's `appStatus`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<String>,
}

/// Limits an ingested run must respect (see `docs/ingest.md`).
pub mod limits {
    /// Longest `engineRunId`.
    pub const ENGINE_RUN_ID: usize = 128;
    /// Longest name (test case, IVR application, segment, step type, display text).
    pub const NAME: usize = 200;
    /// Longest prompt or utterance.
    pub const TEXT: usize = 10_000;
    /// Most segments in a run, and most steps in a run.
    pub const SEGMENTS: usize = 100;
    pub const STEPS: usize = 500;
    /// Longest run duration and recording duration, seconds (one day).
    pub const DURATION_SECS: f64 = 86_400.0;
    /// Largest latency, limit, timeout or barge-in time, ms (one day).
    pub const MILLIS: i64 = 86_400_000;
    /// Runs per batch.
    pub const BATCH: usize = 10_000;
}

fn check_name(what: &str, s: &str) -> Result<(), String> {
    if s.trim().is_empty() {
        return Err(format!("{what} is empty"));
    }
    if s.chars().count() > limits::NAME {
        return Err(format!("{what} is longer than {} characters", limits::NAME));
    }
    Ok(())
}

fn check_time(what: &str, t: &chrono::DateTime<chrono::Utc>) -> Result<(), String> {
    use chrono::Datelike;
    if !(2000..2100).contains(&t.year()) {
        return Err(format!(
            "{what} {} is not between 2000 and 2099",
            t.to_rfc3339()
        ));
    }
    Ok(())
}

fn check_millis(what: &str, v: Option<i64>) -> Result<(), String> {
    match v {
        Some(v) if !(0..=limits::MILLIS).contains(&v) => {
            Err(format!("{what} {v} is outside 0 to {} ms", limits::MILLIS))
        }
        _ => Ok(()),
    }
}

fn check_text(what: &str, v: &Option<String>) -> Result<(), String> {
    match v {
        Some(s) if s.chars().count() > limits::TEXT => {
            Err(format!("{what} is longer than {} characters", limits::TEXT))
        }
        _ => Ok(()),
    }
}

fn check_recording(what: &str, v: &Option<String>) -> Result<(), String> {
    match v {
        Some(id) if !is_recording_id(id) => Err(format!(
            "{what} {id:?} is not a recording id (64 lowercase hex digits from POST /api/ingest/v1/recordings)"
        )),
        _ => Ok(()),
    }
}

impl IngestRun {
    /// Checks the rules serde cannot: lengths, ranges, unique segment ids. The error names
    /// the field and the problem.
    pub fn validate(&self) -> Result<(), String> {
        let id = &self.engine_run_id;
        if id.trim().is_empty() {
            return Err("engineRunId is empty".into());
        }
        if id.chars().count() > limits::ENGINE_RUN_ID {
            return Err(format!(
                "engineRunId is longer than {} characters",
                limits::ENGINE_RUN_ID
            ));
        }
        check_name("testCase.name", &self.test_case.name)?;
        check_name("testCase.ivr.name", &self.test_case.ivr.name)?;
        check_time("runTime", &self.run_time)?;
        if !self.run_duration.is_finite()
            || !(0.0..=limits::DURATION_SECS).contains(&self.run_duration)
        {
            return Err(format!(
                "runDuration {} is outside 0 to {} seconds",
                self.run_duration,
                limits::DURATION_SECS
            ));
        }
        if let Some(m) = self.mos_cq_in {
            if !m.is_finite() || !(1.0..=5.0).contains(&m) {
                return Err(format!("mosCqIn {m} is outside 1 to 5"));
            }
        }
        check_recording("recordingId", &self.recording_id)?;
        if self.segments.len() > limits::SEGMENTS {
            return Err(format!("more than {} segments", limits::SEGMENTS));
        }
        let steps: usize = self.segments.iter().map(|s| s.steps.len()).sum();
        if steps > limits::STEPS {
            return Err(format!("more than {} steps", limits::STEPS));
        }
        for (i, seg) in self.segments.iter().enumerate() {
            if self.segments[..i]
                .iter()
                .any(|s| s.segment_id == seg.segment_id)
            {
                return Err(format!(
                    "segments[{i}].segmentId {} appears more than once",
                    seg.segment_id
                ));
            }
            check_name("segmentName", &seg.segment_name)
                .map_err(|e| format!("segments[{i}].{e}"))?;
            for (j, step) in seg.steps.iter().enumerate() {
                step.validate()
                    .map_err(|e| format!("segments[{i}].steps[{j}].{e}"))?;
            }
        }
        Ok(())
    }
}

impl IngestStep {
    /// Like [`IngestRun::validate`]; field names relative to the step.
    fn validate(&self) -> Result<(), String> {
        check_name("stepType", &self.step_type)?;
        if self.type_display_text.chars().count() > limits::NAME {
            return Err(format!(
                "typeDisplayText is longer than {} characters",
                limits::NAME
            ));
        }
        check_text("prompt", &self.prompt)?;
        check_millis("promptLatencyMin", self.prompt_latency_min)?;
        check_millis("promptLatencyMax", self.prompt_latency_max)?;
        check_millis("incompleteTimeout", self.incomplete_timeout)?;
        check_millis("completeTimeout", self.complete_timeout)?;
        check_millis("bargeInTime", self.barge_in_time)?;
        check_recording("recordingId", &self.recording_id)?;
        let r = &self.test_result;
        check_text("testResult.utterance", &r.utterance)?;
        check_millis("testResult.latency", r.latency)?;
        if let Some(c) = r.confidence {
            if !c.is_finite() || !(0.0..=1.0).contains(&c) {
                return Err(format!("testResult.confidence {c} is outside 0 to 1"));
            }
        }
        if let Some(d) = r.recording_duration {
            if !d.is_finite() || !(0.0..=limits::DURATION_SECS).contains(&d) {
                return Err(format!(
                    "testResult.recordingDuration {d} is outside 0 to {} seconds",
                    limits::DURATION_SECS
                ));
            }
        }
        if let Some(t) = &r.start_time {
            check_time("testResult.startTime", t)?;
        }
        if let Some(t) = &r.end_time {
            check_time("testResult.endTime", t)?;
        }
        if let (Some(s), Some(e)) = (&r.start_time, &r.end_time) {
            if e < s {
                return Err("testResult.endTime is before its startTime".into());
            }
        }
        Ok(())
    }
}

/// A parse error prefixed with the field it is about, unless it is about the whole item.
fn with_path<E: std::fmt::Display>(e: serde_path_to_error::Error<E>) -> String {
    let path = e.path().to_string();
    if path == "." {
        e.inner().to_string()
    } else {
        format!("{path}: {}", e.inner())
    }
}

/// Parses one item of a batch from its JSON text, like [`parse_run`] (one pass, no
/// intermediate `Value`).
pub fn parse_run_str(item: &str) -> Result<IngestRun, String> {
    // Most items are good: parse without tracking the path (which costs on every field),
    // and parse a bad item again with it to name the field in the reason.
    let run: IngestRun = match serde_json::from_str(item) {
        Ok(run) => run,
        Err(_) => {
            let mut de = serde_json::Deserializer::from_str(item);
            let bad: Result<IngestRun, _> = serde_path_to_error::deserialize(&mut de);
            return Err(match bad {
                Err(e) => with_path(e),
                // Not reached: both parses read the same text with the same rules.
                Ok(_) => "the item is not a run".to_string(),
            });
        }
    };
    // JSON writes a NUL character only as this escape: the item is walked only when the
    // text holds it.
    if item.contains("\\u0000") {
        if let Ok(value) = serde_json::from_str::<serde_json::Value>(item) {
            refuse_nul(&value, &mut String::new())?;
        }
    }
    run.validate()?;
    Ok(run)
}

/// Parses one item of a batch, naming the field of a parse error
/// (e.g. `segments[0].steps[1].testResult.status: unknown variant ...`), then validates it.
pub fn parse_run(item: &serde_json::Value) -> Result<IngestRun, String> {
    let run: IngestRun = serde_path_to_error::deserialize(item).map_err(with_path)?;
    refuse_nul(item, &mut String::new())?;
    run.validate()?;
    Ok(run)
}

/// Refuses a string holding a NUL character, naming its field: no name or text of a run
/// needs one, and PostgreSQL's text cannot store it (the whole batch would fail, and be
/// sent again, on every retry).
fn refuse_nul(v: &serde_json::Value, path: &mut String) -> Result<(), String> {
    use serde_json::Value;
    match v {
        Value::String(s) if s.contains('\0') => {
            let field = if path.is_empty() { "the item" } else { path };
            Err(format!("{field} holds a NUL character"))
        }
        Value::Array(items) => items.iter().enumerate().try_for_each(|(i, item)| {
            let len = path.len();
            path.push_str(&format!("[{i}]"));
            let r = refuse_nul(item, path);
            path.truncate(len);
            r
        }),
        Value::Object(fields) => fields.iter().try_for_each(|(k, item)| {
            let len = path.len();
            if !path.is_empty() {
                path.push('.');
            }
            path.push_str(k);
            let r = refuse_nul(item, path);
            path.truncate(len);
            r
        }),
        _ => Ok(()),
    }
}

/// True for a well-formed recording id: the SHA-256 of its bytes, 64 lowercase hex digits.
pub fn is_recording_id(s: &str) -> bool {
    s.len() == 64
        && s.bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}
