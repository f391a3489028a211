//! Request body limits for `/api`, in one table, applied at the server edge in both modes
//! (embedded and proxy, before anything is forwarded).
//!
//! - A `Content-Length` above the operation's limit is answered at once, nothing read.
//! - A body without `Content-Length` (chunked, HTTP/2) is read through a counter that stops
//!   at the limit: the handler (or the proxy) sees the body end in an error and the client
//!   gets the same answer.
//!
//! The answer is `413 {"code":"PAYLOAD_TOO_LARGE","messages":[...]}`.

use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};

use bytes::Bytes;
use futures_util::Stream;
use poem::http::{header, Method, StatusCode};
use poem::{Body, Endpoint, IntoResponse, Middleware, Request, Response};

use crate::api::envelope::json_error;

/// Limit of any `/api` body not named in [`LIMITS`]: sign-in, groups and other JSON forms.
pub const DEFAULT_LIMIT: u64 = 64 * 1024;

/// Operations that take more than [`DEFAULT_LIMIT`]: (method, path after `/api`, limit in
/// bytes).
pub const LIMITS: &[(Method, &str, u64)] = &[
    (
        Method::POST,
        "/ingest/v1/runs",
        crate::api::ingest::MAX_RUNS_BODY as u64,
    ),
    (
        Method::POST,
        "/ingest/v1/recordings",
        crate::store::recordings::MAX_BYTES as u64,
    ),
    (
        Method::POST,
        "/ingest/v1/health",
        crate::api::ingest::MAX_HEALTH_BODY as u64,
    ),
    (
        Method::POST,
        "/jira/v1/issue",
        crate::api::jira::MAX_ISSUE_BODY as u64,
    ),
    (
        Method::PUT,
        "/jira/v1/issue",
        crate::api::jira::MAX_ISSUE_BODY as u64,
    ),
];

/// Longest `/api` request target (path and query) answered normally; a longer one gets
/// 414 in the envelope. hyper itself refuses a target of 64 KiB or more, before any of
/// cxwatch runs and so with an empty body.
pub const MAX_URI: usize = 16 * 1024;
/// Most bytes of request headers (names and values) an `/api` request may have; more gets
/// 431 in the envelope. hyper refuses a head above its read buffer (about 400 KiB) itself.
pub const MAX_HEADER_BYTES: usize = 32 * 1024;

/// 414 or 431 in the envelope for an `/api` request whose target or headers are too long.
pub fn head_too_large(req: &Request) -> Option<Response> {
    let target = req.uri().path_and_query().map_or(0, |pq| pq.as_str().len());
    if target > MAX_URI {
        return Some(json_error(
            StatusCode::URI_TOO_LONG,
            &format!("The address is longer than {} KiB.", MAX_URI / 1024),
        ));
    }
    let headers: usize = req
        .headers()
        .iter()
        .map(|(k, v)| k.as_str().len() + v.len())
        .sum();
    if headers > MAX_HEADER_BYTES {
        return Some(json_error(
            StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
            &format!(
                "The request's headers are larger than {} KiB.",
                MAX_HEADER_BYTES / 1024
            ),
        ));
    }
    None
}

/// The body limit of a request to `path` with `method`.
pub fn limit_for(method: &Method, path: &str) -> u64 {
    let path = path
        .strip_suffix('/')
        .filter(|p| !p.is_empty())
        .unwrap_or(path);
    LIMITS
        .iter()
        .find(|(m, p, _)| m == method && *p == path)
        .map_or(DEFAULT_LIMIT, |(_, _, limit)| *limit)
}

fn too_large(limit: u64) -> Response {
    let size = if limit >= 1024 * 1024 {
        format!("{} MiB", limit / (1024 * 1024))
    } else {
        format!("{} KiB", limit / 1024)
    };
    let mut resp = json_error(
        StatusCode::PAYLOAD_TOO_LARGE,
        &format!("The body is larger than this operation takes ({size})."),
    );
    // The rest of the body is not read: the connection cannot be reused.
    resp.headers_mut().insert(
        header::CONNECTION,
        header::HeaderValue::from_static("close"),
    );
    resp
}

/// The middleware: `Route::nest("/api", api.with(BodyLimits))`.
pub struct BodyLimits;

impl<E: Endpoint> Middleware<E> for BodyLimits {
    type Output = BodyLimitsEndpoint<E>;

    fn transform(&self, ep: E) -> Self::Output {
        BodyLimitsEndpoint(ep)
    }
}

pub struct BodyLimitsEndpoint<E>(E);

impl<E: Endpoint> Endpoint for BodyLimitsEndpoint<E> {
    type Output = Response;

    async fn call(&self, mut req: Request) -> poem::Result<Response> {
        // Inside `nest("/api", ..)` the path is the part after `/api`.
        let limit = limit_for(req.method(), req.uri().path());
        let declared = req
            .headers()
            .get(header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<u64>().ok());
        if declared.is_some_and(|len| len > limit) {
            return Ok(too_large(limit));
        }
        let exceeded = Arc::new(AtomicBool::new(false));
        if declared.is_none() {
            let body = req.take_body();
            req.set_body(Body::from_bytes_stream(Limited {
                inner: Box::pin(body.into_bytes_stream()),
                left: limit,
                exceeded: exceeded.clone(),
            }));
        }
        let result = self.0.call(req).await;
        if exceeded.load(Ordering::Relaxed) {
            return Ok(too_large(limit));
        }
        Ok(result?.into_response())
    }
}

type ByteStream = Pin<Box<dyn Stream<Item = std::io::Result<Bytes>> + Send>>;

/// A body that ends in an error once more than `left` bytes came, and reads no further.
struct Limited {
    inner: ByteStream,
    left: u64,
    exceeded: Arc<AtomicBool>,
}

impl Stream for Limited {
    type Item = std::io::Result<Bytes>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        if self.exceeded.load(Ordering::Relaxed) {
            return Poll::Ready(None);
        }
        match self.inner.as_mut().poll_next(cx) {
            Poll::Ready(Some(Ok(chunk))) => {
                let len = chunk.len() as u64;
                if len > self.left {
                    self.exceeded.store(true, Ordering::Relaxed);
                    return Poll::Ready(Some(Err(std::io::Error::other(
                        "the body is larger than this operation takes",
                    ))));
                }
                self.left -= len;
                Poll::Ready(Some(Ok(chunk)))
            }
            other => other,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table() {
        assert_eq!(limit_for(&Method::POST, "/auth/signin"), DEFAULT_LIMIT);
        assert_eq!(
            limit_for(&Method::POST, "/ingest/v1/runs"),
            64 * 1024 * 1024
        );
        assert_eq!(
            limit_for(&Method::POST, "/ingest/v1/recordings/"),
            50 * 1024 * 1024
        );
        assert_eq!(limit_for(&Method::PUT, "/ingest/v1/runs"), DEFAULT_LIMIT);
        assert_eq!(limit_for(&Method::POST, "/groups"), DEFAULT_LIMIT);
    }
}
