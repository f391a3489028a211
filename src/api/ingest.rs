//! `api/ingest/v1/...`: what test engines post (format: `crate::ingest`, `docs/ingest.md`).
//!
//! These calls take an API key (`X-API-Key: <key>` or `Authorization: Bearer <key>`, made
//! with `cxwatch apikey add`), never a console token; the session middleware lets
//! `/api/ingest/*` through, so every handler here checks the key itself, before reading
//! the body. A batch is committed before it is answered: an acknowledged run survives a
//! crash of cxwatch.

use poem::web::Data;
use poem::{Body, Request};
use poem_openapi::payload::{Binary, Json};
use poem_openapi::{ApiResponse, Object, OpenApi};

use super::AppState;
use crate::error::{ApiError, ApiResult, Envelope, ErrorBody};
use crate::domain::ingest::{limits, parse_run_str, HealthBatch, IngestRun};
use crate::store::{auth, health, recordings, runs};

pub struct IngestApi;

/// Largest body of `POST runs`.
pub const MAX_RUNS_BODY: usize = 64 * 1024 * 1024;
/// Largest body of `POST health`.
pub const MAX_HEALTH_BODY: usize = 4 * 1024 * 1024;

/// A batch item that was not stored.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct RejectedItem {
    /// Position of the item in `runs` (0-based).
    pub index: u64,
    /// What is wrong with it.
    pub reason: String,
}

/// What happened to a batch.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct IngestResult {
    /// Runs stored by this call.
    pub accepted: u64,
    /// Runs whose engineRunId was already stored: not stored again.
    pub duplicates: u64,
    /// Runs refused; the other runs of the batch are stored.
    pub rejected: Vec<RejectedItem>,
}

/// A stored recording.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct RecordingCreated {
    /// Recording id (SHA-256 of the bytes) for `recordingId` fields of runs.
    pub id: String,
    /// Download path relative to `api/trs/v1/`.
    pub url: String,
    pub content_type: String,
    pub size: u64,
}

/// Health snapshots stored.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct HealthResult {
    pub stored: u64,
}

#[derive(ApiResponse)]
enum RunsResponse {
    /// The batch was processed; see `rejected` for items not stored.
    #[oai(status = 200)]
    Ok(Json<Envelope<IngestResult>>),
    /// The body is larger than 64 MiB.
    #[oai(status = 413)]
    TooLarge(Json<ErrorBody>),
}

#[derive(ApiResponse)]
enum RecordingResponse {
    #[oai(status = 200)]
    Ok(Json<Envelope<RecordingCreated>>),
    /// The recording is larger than 50 MiB.
    #[oai(status = 413)]
    TooLarge(Json<ErrorBody>),
    /// Content-Type is not audio/wav, audio/mpeg or audio/ogg.
    #[oai(status = 415)]
    UnsupportedType(Json<ErrorBody>),
}

#[derive(ApiResponse)]
enum HealthResponse {
    #[oai(status = 200)]
    Ok(Json<Envelope<HealthResult>>),
    #[oai(status = 413)]
    TooLarge(Json<ErrorBody>),
}

/// The API key of a request: `X-API-Key`, else `Authorization: Bearer`.
pub fn api_key_of(req: &Request) -> Option<String> {
    if let Some(k) = req
        .headers()
        .get("x-api-key")
        .and_then(|v| v.to_str().ok())
        .map(str::trim)
        .filter(|k| !k.is_empty())
    {
        return Some(k.to_string());
    }
    super::bearer(req)
}

async fn require_key(state: &AppState, req: &Request) -> ApiResult<()> {
    let Some(key) = api_key_of(req) else {
        return Err(ApiError::unauthorized(
            "An API key is required: X-API-Key: <key> or Authorization: Bearer <key>.",
        ));
    };
    let ok = state
        .store
        .read(move |c| auth::api_key_valid(c, &key))
        .await?;
    if ok {
        Ok(())
    } else {
        Err(ApiError::unauthorized("The API key is not valid."))
    }
}

enum Read {
    Bytes(bytes::Bytes),
    TooLarge,
}

async fn read_limited(body: Body, limit: usize) -> ApiResult<Read> {
    match body.into_bytes_limit(limit).await {
        Ok(b) => Ok(Read::Bytes(b)),
        Err(poem::error::ReadBodyError::PayloadTooLarge) => Ok(Read::TooLarge),
        Err(e) => Err(ApiError::bad_request(format!(
            "Reading the body failed: {e}"
        ))),
    }
}

fn too_large(what: &str, limit: usize) -> Json<ErrorBody> {
    ErrorBody::new(
        "PAYLOAD_TOO_LARGE",
        format!("{what} is larger than {} MiB.", limit / (1024 * 1024)),
    )
}

/// The body of `POST runs`: items kept as JSON text, parsed one by one.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct RawBatch<'a> {
    #[serde(borrow)]
    runs: Vec<&'a serde_json::value::RawValue>,
}

/// Parsed runs, their positions in the batch, and the items refused while parsing.
type Parsed = (Vec<IngestRun>, Vec<usize>, Vec<RejectedItem>);

fn parse_batch(bytes: &[u8]) -> ApiResult<Parsed> {
    let batch: RawBatch = serde_json::from_slice(bytes).map_err(|e| {
        use serde_json::error::Category;
        match e.classify() {
            Category::Syntax | Category::Eof | Category::Io => {
                ApiError::bad_request(format!("The body is not JSON: {e}"))
            }
            Category::Data => ApiError::bad_request(format!(
                "The body must be a JSON object {{\"runs\": [...]}} and nothing else: {e}"
            )),
        }
    })?;
    if batch.runs.len() > limits::BATCH {
        return Err(ApiError::bad_request(format!(
            "A batch may have at most {} runs; this one has {}.",
            limits::BATCH,
            batch.runs.len()
        )));
    }
    let mut rejected: Vec<RejectedItem> = Vec::new();
    let mut good = Vec::with_capacity(batch.runs.len());
    let mut positions = Vec::with_capacity(batch.runs.len());
    for (i, item) in batch.runs.iter().enumerate() {
        match parse_run_str(item.get()) {
            Ok(run) => {
                good.push(run);
                positions.push(i);
            }
            Err(reason) => rejected.push(RejectedItem {
                index: i as u64,
                reason,
            }),
        }
    }
    Ok((good, positions, rejected))
}

#[OpenApi(prefix_path = "/ingest/v1", tag = "super::ApiTags::Ingest")]
impl IngestApi {
    /// Stores a batch of test runs: body `{"runs": [ ... ]}` (JSON, at most 10,000 runs;
    /// format in docs/ingest.md). Idempotent by `engineRunId`. Each bad item is rejected
    /// with its index and reason while the good items are stored. Needs an API key.
    #[oai(path = "/runs", method = "post", operation_id = "ingestRuns")]
    async fn runs(
        &self,
        state: Data<&AppState>,
        req: &Request,
        body: Binary<Body>,
    ) -> ApiResult<RunsResponse> {
        require_key(&state, req).await?;
        let bytes = match read_limited(body.0, MAX_RUNS_BODY).await? {
            Read::Bytes(b) => b,
            Read::TooLarge => {
                return Ok(RunsResponse::TooLarge(too_large("The body", MAX_RUNS_BODY)))
            }
        };
        // Parsing a large batch is CPU work: keep it off the async threads.
        let parsed = tokio::task::spawn_blocking(move || parse_batch(&bytes))
            .await
            .map_err(ApiError::internal)?;
        let (good, positions, mut rejected) = parsed?;
        let tz = state.config.tz();
        let outcome = state
            .store
            .write(move |tx| runs::ingest(tx, tz, &good))
            .await?;
        rejected.extend(outcome.rejected.into_iter().map(|r| RejectedItem {
            index: positions.get(r.index).copied().unwrap_or(r.index) as u64,
            reason: r.reason,
        }));
        rejected.sort_by_key(|r| r.index);
        Ok(RunsResponse::Ok(Envelope::ok(IngestResult {
            accepted: outcome.accepted as u64,
            duplicates: outcome.duplicates as u64,
            rejected,
        })))
    }

    /// Stores a recording: the raw audio as the body with `Content-Type` audio/wav,
    /// audio/mpeg or audio/ogg, at most 50 MiB. Returns its id (SHA-256 of the bytes; the
    /// same bytes give the same id). Needs an API key.
    #[oai(
        path = "/recordings",
        method = "post",
        operation_id = "ingestRecording"
    )]
    async fn recording(
        &self,
        state: Data<&AppState>,
        req: &Request,
        body: Binary<Body>,
    ) -> ApiResult<RecordingResponse> {
        require_key(&state, req).await?;
        let given = req
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_string();
        let Some(content_type) = recordings::normalize_content_type(&given) else {
            return Ok(RecordingResponse::UnsupportedType(ErrorBody::new(
                "UNSUPPORTED_MEDIA_TYPE",
                format!(
                    "Content-Type {given:?} is not a recording type; use one of {}.",
                    recordings::CONTENT_TYPES.join(", ")
                ),
            )));
        };
        let bytes = match read_limited(body.0, recordings::MAX_BYTES).await? {
            Read::Bytes(b) => b,
            Read::TooLarge => {
                return Ok(RecordingResponse::TooLarge(too_large(
                    "The recording",
                    recordings::MAX_BYTES,
                )))
            }
        };
        let data_dir = state.config.data_dir.clone();
        let size = bytes.len() as u64;
        let id = state
            .store
            .write(move |tx| recordings::put(&data_dir, tx, &bytes, content_type))
            .await?;
        Ok(RecordingResponse::Ok(Envelope::ok(RecordingCreated {
            url: super::runs::recording_url(&id),
            id,
            content_type: content_type.into(),
            size,
        })))
    }

    /// Stores the latest health of client applications: body `{"clientApps": [ ... ]}`
    /// (spec §3 'Client application'). Per application the snapshot with the latest
    /// `lastRun` is kept. A bad snapshot refuses the whole body. Needs an API key.
    #[oai(path = "/health", method = "post", operation_id = "ingestHealth")]
    async fn health(
        &self,
        state: Data<&AppState>,
        req: &Request,
        body: Binary<Body>,
    ) -> ApiResult<HealthResponse> {
        require_key(&state, req).await?;
        let bytes = match read_limited(body.0, MAX_HEALTH_BODY).await? {
            Read::Bytes(b) => b,
            Read::TooLarge => {
                return Ok(HealthResponse::TooLarge(too_large(
                    "The body",
                    MAX_HEALTH_BODY,
                )))
            }
        };
        let mut de = serde_json::Deserializer::from_slice(&bytes);
        let batch: HealthBatch = serde_path_to_error::deserialize(&mut de).map_err(|e| {
            let path = e.path().to_string();
            ApiError::bad_request(if path == "." {
                format!("The body is not a health batch: {}", e.inner())
            } else {
                format!("{path}: {}", e.inner())
            })
        })?;
        let n = batch.client_apps.len() as u64;
        state
            .store
            .write(move |tx| health::put(tx, &batch.client_apps))
            .await?;
        Ok(HealthResponse::Ok(Envelope::ok(HealthResult { stored: n })))
    }
}
