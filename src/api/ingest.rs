//! `api/ingest/v1/...`: what test engines post (format: `crate::domain::ingest`,
//! `docs/ingest.md`).
//!
//! These calls take an ingest API key ([`IngestKey`]: `X-API-Key: <key>` or
//! `Authorization: Bearer <key>`, made with `cxwatch apikey add`), never a console token;
//! the key is checked before the body is read. `runs` and `health` take
//! `application/json` only (415 otherwise); their items are parsed one by one. A batch is
//! committed before it is answered: an acknowledged run survives a crash of cxwatch.
//! Below `store.min_free_mb` of free space they are refused with 507 before the body is
//! read (`store/space.rs`); with the database away, 503 (docs/ingest.md 'When to retry').

use std::marker::PhantomData;

use poem::web::Data;
use poem::{Body, Request, RequestBody};
use poem_openapi::payload::{Binary, Json};
use poem_openapi::registry::{MetaMediaType, MetaRequest, Registry};
use poem_openapi::types::Type;
use poem_openapi::{ApiExtractor, ApiExtractorType, ExtractParamOptions, Object, OpenApi};

use super::envelope::fails::*;
use super::envelope::{Answer, ApiError, ApiResult, Envelope};
use super::guard::IngestKey;
use super::lenient::{DateTimeRule, Text, TextRule};
use super::AppState;
use crate::domain::ingest::{limits, parse_run_str, HealthBatch, IngestRun};
use crate::domain::run::Channel;
use crate::store::health::MAX_TEXT;
use crate::store::recordings;

pub struct IngestApi;

/// Largest body of `POST runs`.
pub const MAX_RUNS_BODY: usize = 64 * 1024 * 1024;
/// Largest body of `POST health`.
pub const MAX_HEALTH_BODY: usize = 4 * 1024 * 1024;

/// A JSON request body documented as `T` but read raw, so that its items are parsed (and
/// refused) one by one. Any Content-Type is let through here; the handler refuses what
/// is not `application/json` with 415 ([`require_json`]).
pub struct JsonBody<T>(pub Body, PhantomData<T>);

impl<'a, T: Type> ApiExtractor<'a> for JsonBody<T> {
    const TYPES: &'static [ApiExtractorType] = &[ApiExtractorType::RequestObject];
    type ParamType = ();
    type ParamRawType = ();

    fn register(registry: &mut Registry) {
        T::register(registry);
    }

    fn request_meta() -> Option<MetaRequest> {
        Some(MetaRequest {
            description: None,
            content: vec![MetaMediaType {
                content_type: "application/json",
                schema: T::schema_ref(),
            }],
            required: true,
        })
    }

    async fn from_request(
        _request: &'a Request,
        body: &mut RequestBody,
        _param_opts: ExtractParamOptions<Self::ParamType>,
    ) -> poem::Result<Self> {
        Ok(JsonBody(body.take()?, PhantomData))
    }
}

/// A recording's request body, read raw and documented with the content types a recording
/// is stored with ([`recordings::CONTENT_TYPES`]); the handler refuses others with 415.
pub struct AudioBody(pub Body);

impl<'a> ApiExtractor<'a> for AudioBody {
    const TYPES: &'static [ApiExtractorType] = &[ApiExtractorType::RequestObject];
    type ParamType = ();
    type ParamRawType = ();

    fn request_meta() -> Option<MetaRequest> {
        Some(MetaRequest {
            description: None,
            content: recordings::CONTENT_TYPES
                .iter()
                .map(|content_type| MetaMediaType {
                    content_type,
                    schema: <Binary<Body> as poem_openapi::payload::Payload>::schema_ref(),
                })
                .collect(),
            required: true,
        })
    }

    async fn from_request(
        _request: &'a Request,
        body: &mut RequestBody,
        _param_opts: ExtractParamOptions<Self::ParamType>,
    ) -> poem::Result<Self> {
        Ok(AudioBody(body.take()?))
    }
}

/// 415 unless the request's Content-Type is `application/json` (parameters allowed).
fn require_json(req: &Request) -> ApiResult<()> {
    let given = req
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    let essence = given.split(';').next().unwrap_or("").trim();
    if essence.eq_ignore_ascii_case("application/json") {
        Ok(())
    } else {
        Err(ApiError::unsupported_media_type(format!(
            "Content-Type {given:?} is not accepted; send application/json."
        )))
    }
}

/// Body of `POST runs` as documented (see docs/ingest.md for a run's fields).
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct RunBatchBody {
    /// At most 10,000 runs in the ingest format; each is checked on its own.
    pub runs: Vec<serde_json::Value>,
}

/// Body of `POST health` as documented (spec §3 'Client application'); read as
/// [`HealthBatch`], which refuses unknown fields (the document closes these objects:
/// `super::CLOSED_SCHEMAS`).
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct HealthBatchBody {
    /// A snapshot per client application.
    pub client_apps: Vec<IngestClientApp>,
}

/// A client application's snapshot as documented ([`crate::domain::ingest::ClientAppHealth`]).
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct IngestClientApp {
    /// 1 to 200 characters, something besides white space, no NUL character.
    pub client_end_point: Text<HealthName>,
    pub channel: Channel,
    /// Time of the application's last run, RFC 3339.
    pub last_run: Text<DateTimeRule>,
    pub app_status: IngestComponentState,
    pub telco_status: IngestComponentState,
    pub agent_status: IngestComponentState,
    /// Default none.
    #[oai(default)]
    pub component_status: Vec<IngestComponent>,
}

/// A part of a client application and its state.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct IngestComponentState {
    pub enabled: bool,
    /// `TRS_PASS` is pass; any other value of an enabled component is a failure. At most 200
    /// characters, no NUL character.
    pub status: Text<HealthStatus>,
}

/// A component of a client application.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct IngestComponent {
    /// 1 to 200 characters, something besides white space, no NUL character.
    pub name: Text<HealthName>,
    pub has_component: bool,
    pub enabled: bool,
    /// This component's own status (`TRS_PASS` is pass), at most 200 characters, no NUL
    /// character; without it the component shares the application's `appStatus`.
    #[oai(nullable)]
    pub status: Option<Text<HealthStatus>>,
}

/// A name in a health snapshot ([`crate::store::health::problem`]): something besides white
/// space, no NUL character (PostgreSQL's text holds none), at most 200 characters.
pub struct HealthName;

impl TextRule for HealthName {
    const NAME: &'static str = "string(health name)";
    const PATTERN: Option<&'static str> = Some(
        r"^[^\x00]*[^\t\n\x0b\x0c\r \x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\x00][^\x00]*$",
    );
    const MAX_LENGTH: Option<usize> = Some(MAX_TEXT);
}

/// A status in a health snapshot: no NUL character, at most 200 characters.
pub struct HealthStatus;

impl TextRule for HealthStatus {
    const NAME: &'static str = "string(health status)";
    const PATTERN: Option<&'static str> = Some(r"^[^\x00]*$");
    const MAX_LENGTH: Option<usize> = Some(MAX_TEXT);
}

fn too_large(what: &str, limit: usize) -> ApiError {
    ApiError::payload_too_large(format!(
        "{what} is larger than {} MiB.",
        limit / (1024 * 1024)
    ))
}

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
    for (i, item) in parse_items(&batch.runs).into_iter().enumerate() {
        match item {
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

/// Fewest items worth a thread of their own (a run takes about 10 µs to parse and check).
const ITEMS_PER_THREAD: usize = 100;

/// Parses and checks the items, a large batch on as many threads as there are cores: with
/// one engine posting, its batches come one after the other and the other cores are idle
/// while one parses.
fn parse_items(items: &[&serde_json::value::RawValue]) -> Vec<Result<IngestRun, String>> {
    let parse = |part: &[&serde_json::value::RawValue]| -> Vec<Result<IngestRun, String>> {
        part.iter().map(|item| parse_run_str(item.get())).collect()
    };
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let threads = cores.min(items.len() / ITEMS_PER_THREAD).max(1);
    if threads == 1 {
        return parse(items);
    }
    let mut parts = items.chunks(items.len().div_ceil(threads));
    let first = parts.next().unwrap_or_default();
    std::thread::scope(|scope| {
        let others: Vec<_> = parts.map(|part| scope.spawn(move || parse(part))).collect();
        let mut all = parse(first);
        for other in others {
            // A panic while parsing is a bug: let it surface as it would on this thread.
            all.extend(
                other
                    .join()
                    .unwrap_or_else(|e| std::panic::resume_unwind(e)),
            );
        }
        all
    })
}

#[OpenApi(prefix_path = "/ingest/v1", tag = "super::ApiTags::Ingest")]
impl IngestApi {
    /// Stores a batch of test runs: body `{"runs": [ ... ]}` (`application/json`, at most
    /// 64 MiB and 10,000 runs; format in docs/ingest.md). Idempotent by `engineRunId`. Each
    /// bad item is rejected with its index and reason while the good items are stored.
    #[oai(path = "/runs", method = "post", operation_id = "ingestRuns")]
    async fn runs(
        &self,
        _key: IngestKey,
        state: Data<&AppState>,
        req: &Request,
        body: JsonBody<RunBatchBody>,
    ) -> Answer<
        Json<Envelope<IngestResult>>,
        {
            BAD_REQUEST
                | PAYLOAD_TOO_LARGE
                | UNSUPPORTED_MEDIA_TYPE
                | INTERNAL
                | INSUFFICIENT_STORAGE
        },
    > {
        require_json(req)?;
        state.store.check_ingest_space()?;
        let Read::Bytes(bytes) = read_limited(body.0, MAX_RUNS_BODY).await? else {
            return Err(too_large("The body", MAX_RUNS_BODY).into());
        };
        // Parsing a large batch is CPU work: keep it off the async threads.
        let parsed = tokio::task::spawn_blocking(move || parse_batch(&bytes))
            .await
            .map_err(ApiError::internal)?;
        let (good, positions, mut rejected) = parsed?;
        let outcome = state.store.ingest_runs(state.config.tz(), good).await?;
        if outcome.alerts.queued > 0 {
            // The alert engine queued notifications in the ingest transaction.
            state.notifier.wake();
        }
        state
            .telemetry
            .ingested(&outcome, rejected.len() + outcome.rejected.len());
        state.live.publish(&outcome);
        rejected.extend(outcome.rejected.into_iter().map(|r| RejectedItem {
            index: positions.get(r.index).copied().unwrap_or(r.index) as u64,
            reason: r.reason,
        }));
        rejected.sort_by_key(|r| r.index);
        Ok(Envelope::ok(IngestResult {
            accepted: outcome.accepted as u64,
            duplicates: outcome.duplicates as u64,
            rejected,
        }))
    }

    /// Stores a recording: the raw audio as the body with `Content-Type` audio/wav,
    /// audio/mpeg or audio/ogg (415 otherwise), at most 50 MiB. Returns its id (SHA-256 of
    /// the bytes; the same bytes give the same id).
    #[oai(
        path = "/recordings",
        method = "post",
        operation_id = "ingestRecording"
    )]
    async fn recording(
        &self,
        _key: IngestKey,
        state: Data<&AppState>,
        req: &Request,
        body: AudioBody,
    ) -> Answer<
        Json<Envelope<RecordingCreated>>,
        {
            BAD_REQUEST
                | PAYLOAD_TOO_LARGE
                | UNSUPPORTED_MEDIA_TYPE
                | INTERNAL
                | INSUFFICIENT_STORAGE
        },
    > {
        let given = req
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("");
        let Some(content_type) = recordings::normalize_content_type(given) else {
            return Err(ApiError::unsupported_media_type(format!(
                "Content-Type {given:?} is not a recording type; use one of {}.",
                recordings::CONTENT_TYPES.join(", ")
            ))
            .into());
        };
        state.store.check_ingest_space()?;
        let Read::Bytes(bytes) = read_limited(body.0, recordings::MAX_BYTES).await? else {
            return Err(too_large("The recording", recordings::MAX_BYTES).into());
        };
        let rec = state.store.put_recording(bytes, content_type).await?;
        Ok(Envelope::ok(RecordingCreated {
            url: super::runs::recording_url(&rec.id),
            id: rec.id,
            content_type: rec.content_type,
            size: rec.size,
        }))
    }

    /// Stores the latest health of client applications: body `{"clientApps": [ ... ]}`
    /// (`application/json`, at most 4 MiB; spec §3 'Client application'). Per application
    /// the snapshot with the latest `lastRun` is kept. A bad snapshot refuses the whole
    /// body.
    #[oai(path = "/health", method = "post", operation_id = "ingestHealth")]
    async fn health(
        &self,
        _key: IngestKey,
        state: Data<&AppState>,
        req: &Request,
        body: JsonBody<HealthBatchBody>,
    ) -> Answer<
        Json<Envelope<HealthResult>>,
        {
            BAD_REQUEST
                | PAYLOAD_TOO_LARGE
                | UNSUPPORTED_MEDIA_TYPE
                | INTERNAL
                | INSUFFICIENT_STORAGE
        },
    > {
        require_json(req)?;
        state.store.check_ingest_space()?;
        let Read::Bytes(bytes) = read_limited(body.0, MAX_HEALTH_BODY).await? else {
            return Err(too_large("The body", MAX_HEALTH_BODY).into());
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
        state.store.put_health(batch.client_apps).await?;
        Ok(Envelope::ok(HealthResult { stored: n }))
    }
}
