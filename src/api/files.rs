//! Recording downloads: `api/trs/v1/recordings/{id}` and
//! `api/trs/v1/getContent?attachmentUrl=recordings/{id}`, with the stored content type and
//! HTTP range requests (206, `Content-Range`, `Accept-Ranges`) so an audio player can seek.
//! Only recordings in the store are served: `getContent` never follows an outside URL.

use poem::web::Data;
use poem::{Body, IntoResponse, Request, Response};
use poem_openapi::param::{Path, Query};
use poem_openapi::payload::{Binary, Json};
use poem_openapi::registry::{MetaMediaType, MetaResponses, Registry};
use poem_openapi::{ApiResponse, OpenApi};
use tokio::io::{AsyncReadExt, AsyncSeekExt};

use super::envelope::fails::*;
use super::envelope::{Answer, ApiError, ApiResult, ErrorBody, ErrorCode};
use super::guard::Auth;
use super::lenient::{Text, TextRule};
use super::params;
use super::AppState;
use crate::domain::caller::{Need, Scope};
use crate::domain::ingest::is_recording_id;
use crate::store::recordings::CONTENT_TYPES;

pub struct FilesApi;

#[derive(ApiResponse)]
enum FileResponse {
    /// The whole file.
    #[oai(status = 200)]
    Full(
        Binary<Body>,
        #[oai(header = "Content-Type")] String,
        #[oai(header = "Content-Length")] u64,
        #[oai(header = "Accept-Ranges")] String,
        #[oai(header = "Cache-Control")] String,
        #[oai(header = "ETag")] String,
    ),
    /// The requested byte range.
    #[oai(status = 206)]
    Partial(
        Binary<Body>,
        #[oai(header = "Content-Type")] String,
        #[oai(header = "Content-Length")] u64,
        #[oai(header = "Content-Range")] String,
        #[oai(header = "Accept-Ranges")] String,
        #[oai(header = "Cache-Control")] String,
        #[oai(header = "ETag")] String,
    ),
    /// The range starts beyond the end of the file.
    #[oai(status = 416)]
    NotSatisfiable(Json<ErrorBody>, #[oai(header = "Content-Range")] String),
}

/// A recording's answer: [`FileResponse`], whose document names the content types a
/// recording is stored with ([`CONTENT_TYPES`]) rather than `application/octet-stream`.
pub struct Recording(FileResponse);

impl IntoResponse for Recording {
    fn into_response(self) -> Response {
        self.0.into_response()
    }
}

impl ApiResponse for Recording {
    fn meta() -> MetaResponses {
        let mut meta = FileResponse::meta();
        for answer in &mut meta.responses {
            if let (Some(200 | 206), Some(binary)) = (answer.status, answer.content.first()) {
                let schema = binary.schema.clone();
                answer.content = CONTENT_TYPES
                    .iter()
                    .map(|content_type| MetaMediaType {
                        content_type,
                        schema: schema.clone(),
                    })
                    .collect();
            }
        }
        meta
    }

    fn register(registry: &mut Registry) {
        FileResponse::register(registry);
    }
}

/// What a `Range` header asks of a file of `size` bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RangeAsk {
    /// No usable single range: send everything (RFC 9110 lets a server ignore Range).
    Full,
    /// Bytes `start..=end`.
    Part(u64, u64),
    Unsatisfiable,
}

/// Parses a single `bytes=` range; several ranges or a malformed header give [`RangeAsk::Full`].
pub fn parse_range(header: Option<&str>, size: u64) -> RangeAsk {
    let Some(spec) = header.and_then(|h| h.trim().strip_prefix("bytes=")) else {
        return RangeAsk::Full;
    };
    if spec.contains(',') {
        return RangeAsk::Full;
    }
    let Some((a, b)) = spec.trim().split_once('-') else {
        return RangeAsk::Full;
    };
    let (a, b) = (a.trim(), b.trim());
    if a.is_empty() {
        let Ok(n) = b.parse::<u64>() else {
            return RangeAsk::Full;
        };
        if n == 0 || size == 0 {
            return RangeAsk::Unsatisfiable;
        }
        return RangeAsk::Part(size - n.min(size), size - 1);
    }
    let Ok(start) = a.parse::<u64>() else {
        return RangeAsk::Full;
    };
    let end = if b.is_empty() {
        size.saturating_sub(1)
    } else {
        match b.parse::<u64>() {
            Ok(e) if e >= start => e.min(size.saturating_sub(1)),
            _ => return RangeAsk::Full,
        }
    };
    if start >= size {
        return RangeAsk::Unsatisfiable;
    }
    RangeAsk::Part(start, end)
}

/// The recording id an `attachmentUrl` names: `recordings/{id}`, `/api/trs/v1/recordings/{id}`
/// or the bare id. Anything else (another host, another path) is refused.
/// `attachmentUrl` of `getContent`: what [`attachment_id`] reads.
pub struct AttachmentUrl;

impl TextRule for AttachmentUrl {
    const NAME: &'static str = "string(attachment url)";
    const PATTERN: Option<&'static str> = Some("^(/?api/trs/v1/)?(recordings/)?[0-9a-f]{64}$");
}

pub fn attachment_id(url: &str) -> Option<&str> {
    let u = url.trim();
    let u = u
        .strip_prefix("/api/trs/v1/")
        .or_else(|| u.strip_prefix("api/trs/v1/"))
        .unwrap_or(u);
    let id = u.strip_prefix("recordings/").unwrap_or(u);
    is_recording_id(id).then_some(id)
}

async fn serve(state: &AppState, scope: Scope, req: &Request, id: &str) -> ApiResult<Recording> {
    file(state, scope, req, id).await.map(Recording)
}

async fn file(state: &AppState, scope: Scope, req: &Request, id: &str) -> ApiResult<FileResponse> {
    let found = state.store.recording(scope, id).await?;
    let rec = params::visible(found, format_args!("Recording {id}"))?;
    let path = rec.path;
    let mut file = match tokio::fs::File::open(&path).await {
        Ok(f) => f,
        Err(e) => {
            tracing::error!(path = %path.display(), error = %e, "recording file missing");
            return Err(ApiError::not_found(format!(
                "The file of recording {id} is missing."
            )));
        }
    };
    let size = match file.metadata().await {
        Ok(m) => m.len(),
        Err(e) => return Err(ApiError::internal(e)),
    };
    let ranges = "bytes".to_string();
    let cache = "private, max-age=31536000, immutable".to_string();
    let etag = format!("\"{}\"", rec.id);
    let range = req.headers().get("range").and_then(|v| v.to_str().ok());
    match parse_range(range, size) {
        RangeAsk::Full => Ok(FileResponse::Full(
            Binary(Body::from_async_read(file)),
            rec.content_type,
            size,
            ranges,
            cache,
            etag,
        )),
        RangeAsk::Part(start, end) => {
            file.seek(std::io::SeekFrom::Start(start))
                .await
                .map_err(ApiError::internal)?;
            let len = end - start + 1;
            Ok(FileResponse::Partial(
                Binary(Body::from_async_read(file.take(len))),
                rec.content_type,
                len,
                format!("bytes {start}-{end}/{size}"),
                ranges,
                cache,
                etag,
            ))
        }
        RangeAsk::Unsatisfiable => Ok(FileResponse::NotSatisfiable(
            Json(ErrorBody {
                code: ErrorCode::RangeNotSatisfiable,
                messages: vec![format!(
                    "The range {} is outside the {size} bytes of the file.",
                    range.unwrap_or("")
                )],
                fields: Vec::new(),
                reason_code: None,
                reason_status: None,
            }),
            format!("bytes */{size}"),
        )),
    }
}

#[OpenApi(prefix_path = "/trs/v1", tag = "super::ApiTags::Files")]
impl FilesApi {
    /// A recording (call or step audio) with its content type; supports `Range`.
    #[oai(
        path = "/recordings/:id",
        method = "get",
        operation_id = "getRecording"
    )]
    async fn recording(
        &self,
        auth: Auth,
        state: Data<&AppState>,
        req: &Request,
        id: Path<String>,
    ) -> Answer<Recording, { FORBIDDEN | NOT_FOUND | INTERNAL }> {
        let caller = auth.require(Need::SignedIn)?;
        if !is_recording_id(&id.0) {
            return Err(
                ApiError::not_found(format!("Recording {:?} does not exist.", id.0)).into(),
            );
        }
        Ok(serve(&state, caller.scope(), req, &id.0).await?)
    }

    /// The content an `attachmentUrl` of a run detail names (`recordings/{id}`); supports
    /// `Range`. Outside URLs are refused.
    #[oai(path = "/getContent", method = "get", operation_id = "getContent")]
    async fn get_content(
        &self,
        auth: Auth,
        state: Data<&AppState>,
        req: &Request,
        /// `recordings/{id}` as a run detail gives it.
        #[oai(name = "attachmentUrl")]
        attachment_url: Query<Text<AttachmentUrl>>,
    ) -> Answer<Recording, { BAD_REQUEST | FORBIDDEN | NOT_FOUND | INTERNAL }> {
        let caller = auth.require(Need::SignedIn)?;
        let url = attachment_url.0.into_string();
        if url.trim().is_empty() {
            return Err(ApiError::bad_request("attachmentUrl is required.").into());
        }
        let Some(id) = attachment_id(&url) else {
            return Err(ApiError::bad_request(format!(
                "attachmentUrl {url:?} is not content of this console (expected recordings/{{id}})."
            ))
            .into());
        };
        Ok(serve(&state, caller.scope(), req, id).await?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges() {
        use RangeAsk::*;
        assert_eq!(parse_range(None, 100), Full);
        assert_eq!(parse_range(Some("bytes=0-9"), 100), Part(0, 9));
        assert_eq!(parse_range(Some("bytes=90-"), 100), Part(90, 99));
        assert_eq!(parse_range(Some("bytes=90-200"), 100), Part(90, 99));
        assert_eq!(parse_range(Some("bytes=-10"), 100), Part(90, 99));
        assert_eq!(parse_range(Some("bytes=-500"), 100), Part(0, 99));
        assert_eq!(parse_range(Some("bytes=100-"), 100), Unsatisfiable);
        assert_eq!(parse_range(Some("bytes=-0"), 100), Unsatisfiable);
        assert_eq!(parse_range(Some("bytes=5-1"), 100), Full);
        assert_eq!(parse_range(Some("bytes=0-1,5-6"), 100), Full);
        assert_eq!(parse_range(Some("items=0-1"), 100), Full);
        assert_eq!(parse_range(Some("bytes=x-"), 100), Full);
    }

    #[test]
    fn attachment_urls() {
        let id = "a".repeat(64);
        assert_eq!(
            attachment_id(&format!("recordings/{id}")),
            Some(id.as_str())
        );
        assert_eq!(
            attachment_id(&format!("/api/trs/v1/recordings/{id}")),
            Some(id.as_str())
        );
        assert_eq!(attachment_id(&id), Some(id.as_str()));
        assert_eq!(
            attachment_id(&format!("https://evil.example/recordings/{id}")),
            None
        );
        assert_eq!(attachment_id("recordings/../../etc/passwd"), None);
        assert_eq!(attachment_id("file:///etc/passwd"), None);
    }
}
