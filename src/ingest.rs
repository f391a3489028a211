//! The ingest format test engines post to `POST api/ingest/v1/runs` (see `docs/ingest.md`).
//!
//! Field names follow the console spec (§3 'Test run', 'Run detail') so an engine's payload
//! reads like what the console shows. A run carries its test case (and IVR application or
//! chatbot), which are created or renamed on ingest: the engine is their source of truth.
//! Test case groups are managed in the console.

use serde::{Deserialize, Serialize};

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

#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, Hash)]
#[serde(rename_all = "lowercase")]
pub enum RunStatus {
    Pass,
    Warn,
    Fail,
    Stopped,
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, Hash)]
pub enum RunType {
    Manual,
    Schedule,
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, Hash)]
#[serde(rename_all = "lowercase")]
pub enum Channel {
    /// Shown 'Voice'.
    Voice,
    /// Shown 'Digital'.
    Web,
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
}
