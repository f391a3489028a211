//! The API's one error type and the envelope every JSON answer uses (see `docs/api.md`).
//!
//! What the client sees is `{ "code": "...", "messages": ["..."] }`; the detail of an
//! unexpected failure goes to the log only.

use poem_openapi::payload::Json;
use poem_openapi::types::{ParseFromJSON, ToJSON};
use poem_openapi::{ApiResponse, Object};

/// Success envelope: `{ "code": "OK", "data": ... }`. Lists and objects are in `data`;
/// the UI checks `code` on writes.
#[derive(Debug, Object)]
pub struct Envelope<T: ParseFromJSON + ToJSON + Send + Sync> {
    /// `OK` on success.
    pub code: String,
    /// The payload.
    pub data: T,
    /// Informational messages (usually empty).
    pub messages: Vec<String>,
}

impl<T: ParseFromJSON + ToJSON + Send + Sync> Envelope<T> {
    pub fn ok(data: T) -> Json<Envelope<T>> {
        Json(Envelope {
            code: "OK".into(),
            data,
            messages: Vec::new(),
        })
    }
}

/// Error body: a machine-readable code and messages a person can read.
#[derive(Debug, Clone, Object)]
pub struct ErrorBody {
    /// `BAD_REQUEST`, `UNAUTHORIZED`, `FORBIDDEN`, `NOT_FOUND`, `CONFLICT`,
    /// `TOO_MANY_REQUESTS`, `BAD_GATEWAY`, `GATEWAY_TIMEOUT` or `INTERNAL`.
    pub code: String,
    pub messages: Vec<String>,
}

impl ErrorBody {
    pub fn new(code: &str, message: impl Into<String>) -> Json<ErrorBody> {
        Json(ErrorBody {
            code: code.into(),
            messages: vec![message.into()],
        })
    }
}

/// Every expected failure of an `/api` call.
#[derive(Debug, ApiResponse)]
#[oai(bad_request_handler = "bad_request_handler")]
pub enum ApiError {
    /// The request is malformed or fails validation; `messages` names the problem.
    #[oai(status = 400)]
    BadRequest(Json<ErrorBody>),
    /// No valid token (or API key) was given.
    #[oai(status = 401)]
    Unauthorized(Json<ErrorBody>),
    /// The caller may not see or change this.
    #[oai(status = 403)]
    Forbidden(Json<ErrorBody>),
    /// No such item.
    #[oai(status = 404)]
    NotFound(Json<ErrorBody>),
    /// The change conflicts with existing data.
    #[oai(status = 409)]
    Conflict(Json<ErrorBody>),
    /// Too many attempts; try again later.
    #[oai(status = 429)]
    TooManyRequests(Json<ErrorBody>),
    /// Something failed on the server; the detail is in the server log.
    #[oai(status = 500)]
    Internal(Json<ErrorBody>),
}

pub type ApiResult<T> = Result<T, ApiError>;

impl ApiError {
    pub fn bad_request(msg: impl Into<String>) -> Self {
        ApiError::BadRequest(ErrorBody::new("BAD_REQUEST", msg))
    }
    pub fn bad_request_all(messages: Vec<String>) -> Self {
        ApiError::BadRequest(Json(ErrorBody {
            code: "BAD_REQUEST".into(),
            messages,
        }))
    }
    pub fn unauthorized(msg: impl Into<String>) -> Self {
        ApiError::Unauthorized(ErrorBody::new("UNAUTHORIZED", msg))
    }
    pub fn forbidden(msg: impl Into<String>) -> Self {
        ApiError::Forbidden(ErrorBody::new("FORBIDDEN", msg))
    }
    pub fn not_found(msg: impl Into<String>) -> Self {
        ApiError::NotFound(ErrorBody::new("NOT_FOUND", msg))
    }
    pub fn conflict(msg: impl Into<String>) -> Self {
        ApiError::Conflict(ErrorBody::new("CONFLICT", msg))
    }
    pub fn too_many(msg: impl Into<String>) -> Self {
        ApiError::TooManyRequests(ErrorBody::new("TOO_MANY_REQUESTS", msg))
    }
    /// Logs the cause and answers 500 without revealing it.
    pub fn internal(cause: impl std::fmt::Display) -> Self {
        tracing::error!(error = %cause, "internal error");
        ApiError::Internal(ErrorBody::new(
            "INTERNAL",
            "The server could not complete the request; the cause is in its log.",
        ))
    }
}

fn bad_request_handler(err: poem::Error) -> ApiError {
    ApiError::bad_request(err.to_string())
}

impl From<crate::store::StoreError> for ApiError {
    fn from(e: crate::store::StoreError) -> Self {
        match e {
            crate::store::StoreError::NotFound(what) => ApiError::not_found(what),
            crate::store::StoreError::Invalid(what) => ApiError::bad_request(what),
            crate::store::StoreError::Conflict(what) => ApiError::conflict(what),
            other => ApiError::internal(other),
        }
    }
}

/// A JSON error response outside poem-openapi (middleware, proxy, fallbacks).
pub fn json_error(status: poem::http::StatusCode, code: &str, msg: &str) -> poem::Response {
    let body = serde_json::json!({ "code": code, "messages": [msg] });
    poem::Response::builder()
        .status(status)
        .content_type("application/json; charset=utf-8")
        .body(body.to_string())
}
