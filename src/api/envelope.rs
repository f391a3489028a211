//! The envelope every `/api` answer uses, in one place (see `docs/api.md` 'The envelope'):
//! `{code: "OK", data, messages}` on success, a generic page of a list, and the one error
//! type whose body is `{code, messages, fields}` with its codes as an enum.
//!
//! What the client sees is the spec's JSON shape with a `messages` array; the detail of an
//! unexpected failure goes to the log only.

use poem::http::StatusCode;
use poem_openapi::payload::Json;
use poem_openapi::types::{ParseFromJSON, ToJSON};
use poem_openapi::{ApiResponse, Enum, Object, Union};

use crate::domain::caller::Denied;
use crate::domain::rules::{FieldError, Rule};
use crate::store::StoreError;

/// Success envelope: `{ "code": "OK", "data": ..., "messages": [] }`. The UI checks `code`
/// on writes.
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

/// One page of a list the server pages: `content` is the page asked for with `pageNo` and
/// `pageSize`, `totalElements` counts every item.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct Page<T: ParseFromJSON + ToJSON + Send + Sync> {
    pub content: Vec<T>,
    pub total_elements: u64,
}

impl<T: ParseFromJSON + ToJSON + Send + Sync> Page<T> {
    /// The envelope of a store page, each item shaped by `From`.
    pub fn ok<D>(page: crate::domain::page::Page<D>) -> Json<Envelope<Page<T>>>
    where
        T: From<D>,
    {
        Envelope::ok(Page {
            total_elements: page.total,
            content: page.items.into_iter().map(T::from).collect(),
        })
    }
}

/// A list as it was asked for (see `docs/api.md` 'Lists: array or page'): without `pageNo`
/// and `pageSize`, the spec's plain array of every item (at most
/// [`super::params::MAX_UNPAGED`], with a message in `messages` when there are more); with
/// either, one page with `content` and `totalElements`.
#[derive(Debug, Union)]
#[oai(one_of)]
pub enum Listing<T: ParseFromJSON + ToJSON + Send + Sync> {
    /// Asked for without `pageNo` and `pageSize`: every item, as an array.
    All(Vec<T>),
    /// Asked for with `pageNo` or `pageSize`: one page.
    Page(Page<T>),
}

impl<T: ParseFromJSON + ToJSON + Send + Sync> Listing<T> {
    /// The envelope of a store page in the shape `req` asked for, each item shaped by `From`.
    pub fn ok<D>(
        req: super::params::ListRequest,
        page: crate::domain::page::Page<D>,
    ) -> Json<Envelope<Listing<T>>>
    where
        T: From<D>,
    {
        let total = page.total;
        let items: Vec<T> = page.items.into_iter().map(T::from).collect();
        if req.paged {
            return Envelope::ok(Listing::Page(Page {
                content: items,
                total_elements: total,
            }));
        }
        let mut messages = Vec::new();
        if total > items.len() as u64 {
            messages.push(format!(
                "The list holds {total} items; the first {} are given. Ask with pageNo and pageSize for the others.",
                items.len()
            ));
        }
        Json(Envelope {
            code: "OK".into(),
            data: Listing::All(items),
            messages,
        })
    }
}

/// The machine-readable `code` of an error answer; the HTTP status says the same.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Enum)]
#[oai(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ErrorCode {
    /// 400: malformed request or failed validation.
    BadRequest,
    /// 401: no valid token or ingest API key; wrong credentials at sign-in.
    Unauthorized,
    /// 403: the caller may not see or change this.
    Forbidden,
    /// 404: no such item or path.
    NotFound,
    /// 405: the path exists, the method does not.
    MethodNotAllowed,
    /// 409: the change conflicts with existing data.
    Conflict,
    /// 409: a server the call needs (a mail server, an SMS or voice gateway) is not
    /// configured; nothing failed, nothing was sent.
    NotConfigured,
    /// 413: the body is larger than the operation accepts.
    PayloadTooLarge,
    /// 414: the address is too long.
    UriTooLong,
    /// 415: the body's Content-Type is not one the operation accepts.
    UnsupportedMediaType,
    /// 416: the Range asked for is outside the file.
    RangeNotSatisfiable,
    /// 429: too many attempts.
    TooManyRequests,
    /// 431: the request's headers are too large.
    RequestHeaderFieldsTooLarge,
    /// 500: unexpected failure; the detail is in the server log.
    Internal,
    /// 502: proxy mode: the upstream failed.
    BadGateway,
    /// 504: proxy mode: the upstream did not answer in time.
    GatewayTimeout,
}

impl ErrorCode {
    pub fn status(self) -> StatusCode {
        match self {
            ErrorCode::BadRequest => StatusCode::BAD_REQUEST,
            ErrorCode::Unauthorized => StatusCode::UNAUTHORIZED,
            ErrorCode::Forbidden => StatusCode::FORBIDDEN,
            ErrorCode::NotFound => StatusCode::NOT_FOUND,
            ErrorCode::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            ErrorCode::Conflict | ErrorCode::NotConfigured => StatusCode::CONFLICT,
            ErrorCode::PayloadTooLarge => StatusCode::PAYLOAD_TOO_LARGE,
            ErrorCode::UriTooLong => StatusCode::URI_TOO_LONG,
            ErrorCode::UnsupportedMediaType => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            ErrorCode::RangeNotSatisfiable => StatusCode::RANGE_NOT_SATISFIABLE,
            ErrorCode::TooManyRequests => StatusCode::TOO_MANY_REQUESTS,
            ErrorCode::RequestHeaderFieldsTooLarge => StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE,
            ErrorCode::Internal => StatusCode::INTERNAL_SERVER_ERROR,
            ErrorCode::BadGateway => StatusCode::BAD_GATEWAY,
            ErrorCode::GatewayTimeout => StatusCode::GATEWAY_TIMEOUT,
        }
    }

    /// The code of an HTTP error status (any other client error is `BAD_REQUEST`).
    pub fn of_status(status: StatusCode) -> ErrorCode {
        const ALL: [ErrorCode; 15] = [
            ErrorCode::BadRequest,
            ErrorCode::Unauthorized,
            ErrorCode::Forbidden,
            ErrorCode::NotFound,
            ErrorCode::MethodNotAllowed,
            ErrorCode::Conflict,
            ErrorCode::PayloadTooLarge,
            ErrorCode::UriTooLong,
            ErrorCode::UnsupportedMediaType,
            ErrorCode::RangeNotSatisfiable,
            ErrorCode::TooManyRequests,
            ErrorCode::RequestHeaderFieldsTooLarge,
            ErrorCode::Internal,
            ErrorCode::BadGateway,
            ErrorCode::GatewayTimeout,
        ];
        ALL.into_iter()
            .find(|c| c.status() == status)
            .unwrap_or(if status.is_client_error() {
                ErrorCode::BadRequest
            } else {
                ErrorCode::Internal
            })
    }

    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::BadRequest => "BAD_REQUEST",
            ErrorCode::Unauthorized => "UNAUTHORIZED",
            ErrorCode::Forbidden => "FORBIDDEN",
            ErrorCode::NotFound => "NOT_FOUND",
            ErrorCode::MethodNotAllowed => "METHOD_NOT_ALLOWED",
            ErrorCode::Conflict => "CONFLICT",
            ErrorCode::NotConfigured => "NOT_CONFIGURED",
            ErrorCode::PayloadTooLarge => "PAYLOAD_TOO_LARGE",
            ErrorCode::UriTooLong => "URI_TOO_LONG",
            ErrorCode::UnsupportedMediaType => "UNSUPPORTED_MEDIA_TYPE",
            ErrorCode::RangeNotSatisfiable => "RANGE_NOT_SATISFIABLE",
            ErrorCode::TooManyRequests => "TOO_MANY_REQUESTS",
            ErrorCode::RequestHeaderFieldsTooLarge => "REQUEST_HEADER_FIELDS_TOO_LARGE",
            ErrorCode::Internal => "INTERNAL",
            ErrorCode::BadGateway => "BAD_GATEWAY",
            ErrorCode::GatewayTimeout => "GATEWAY_TIMEOUT",
        }
    }
}

/// A validation problem tied to one field, so that a form can show it beside the field.
#[derive(Debug, Clone, Object)]
pub struct FieldProblem {
    /// The camelCase name of the body field or query parameter.
    pub field: String,
    /// `required`, `invalid`, `tooShort`, `tooLong`, `taken`, `mismatch`, `forbidden` or
    /// `weak` (a password too easy to guess).
    pub rule: String,
    /// The same problem in a sentence (also in `messages`).
    pub message: String,
}

/// Error body: a machine-readable code, messages a person can read, and for validation
/// errors the field each message belongs to.
#[derive(Debug, Clone, Object)]
pub struct ErrorBody {
    pub code: ErrorCode,
    pub messages: Vec<String>,
    /// One entry per problem of a named field (validation errors only).
    #[oai(skip_serializing_if_is_empty, default)]
    pub fields: Vec<FieldProblem>,
}

/// Every expected failure of an `/api` call.
#[derive(Debug, ApiResponse)]
#[oai(bad_request_handler = "bad_request_handler")]
pub enum ApiError {
    /// The request is malformed or fails validation; `messages` names each problem and
    /// `fields` ties them to fields.
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
    /// The change conflicts with existing data; or, with code `NOT_CONFIGURED`, a server
    /// the call needs (a mail server, an SMS or voice gateway) is not configured.
    #[oai(status = 409)]
    Conflict(Json<ErrorBody>),
    /// The body is larger than this operation accepts.
    #[oai(status = 413)]
    PayloadTooLarge(Json<ErrorBody>),
    /// The body's Content-Type is not one this operation accepts.
    #[oai(status = 415)]
    UnsupportedMediaType(Json<ErrorBody>),
    /// Too many attempts; try again after the seconds `Retry-After` says.
    #[oai(status = 429)]
    TooManyRequests(Json<ErrorBody>, #[oai(header = "Retry-After")] Option<u64>),
    /// Something failed on the server; the detail is in the server log.
    #[oai(status = 500)]
    Internal(Json<ErrorBody>),
    /// A server this call depends on (a mail server, an SMS gateway) failed; `messages`
    /// says how.
    #[oai(status = 502)]
    BadGateway(Json<ErrorBody>),
}

pub type ApiResult<T> = Result<T, ApiError>;

impl ApiError {
    /// An error answer with these messages; the variant follows the code.
    pub fn new(code: ErrorCode, messages: Vec<String>, fields: Vec<FieldProblem>) -> Self {
        let body = Json(ErrorBody {
            code,
            messages,
            fields,
        });
        match code {
            ErrorCode::Unauthorized => ApiError::Unauthorized(body),
            ErrorCode::Forbidden => ApiError::Forbidden(body),
            ErrorCode::NotFound => ApiError::NotFound(body),
            ErrorCode::Conflict | ErrorCode::NotConfigured => ApiError::Conflict(body),
            ErrorCode::PayloadTooLarge => ApiError::PayloadTooLarge(body),
            ErrorCode::UnsupportedMediaType => ApiError::UnsupportedMediaType(body),
            ErrorCode::TooManyRequests => ApiError::TooManyRequests(body, None),
            ErrorCode::Internal => ApiError::Internal(body),
            ErrorCode::BadGateway => ApiError::BadGateway(body),
            _ => ApiError::BadRequest(body),
        }
    }

    fn one(code: ErrorCode, msg: impl Into<String>) -> Self {
        ApiError::new(code, vec![msg.into()], Vec::new())
    }
    pub fn bad_request(msg: impl Into<String>) -> Self {
        ApiError::one(ErrorCode::BadRequest, msg)
    }
    pub fn unauthorized(msg: impl Into<String>) -> Self {
        ApiError::one(ErrorCode::Unauthorized, msg)
    }
    pub fn forbidden(msg: impl Into<String>) -> Self {
        ApiError::one(ErrorCode::Forbidden, msg)
    }
    pub fn not_found(msg: impl Into<String>) -> Self {
        ApiError::one(ErrorCode::NotFound, msg)
    }
    pub fn conflict(msg: impl Into<String>) -> Self {
        ApiError::one(ErrorCode::Conflict, msg)
    }
    /// 429 with `Retry-After: secs`.
    pub fn too_many(msg: impl Into<String>, retry_after_secs: u64) -> Self {
        match ApiError::one(ErrorCode::TooManyRequests, msg) {
            ApiError::TooManyRequests(body, _) => {
                ApiError::TooManyRequests(body, Some(retry_after_secs))
            }
            other => other,
        }
    }
    pub fn unsupported_media_type(msg: impl Into<String>) -> Self {
        ApiError::one(ErrorCode::UnsupportedMediaType, msg)
    }
    pub fn payload_too_large(msg: impl Into<String>) -> Self {
        ApiError::one(ErrorCode::PayloadTooLarge, msg)
    }
    /// 400 (or `code`) naming every problem, each tied to its field.
    pub fn fields(code: ErrorCode, problems: Vec<FieldError>) -> Self {
        let messages = problems.iter().map(|p| p.message.clone()).collect();
        let fields = problems
            .into_iter()
            .map(|p| FieldProblem {
                field: p.field,
                rule: p.rule.as_str().to_string(),
                message: p.message,
            })
            .collect();
        ApiError::new(code, messages, fields)
    }
    /// Logs the cause and answers 500 without revealing it.
    pub fn internal(cause: impl std::fmt::Display) -> Self {
        tracing::error!(error = %cause, "internal error");
        ApiError::one(
            ErrorCode::Internal,
            "The server could not complete the request; the cause is in its log.",
        )
    }
}

fn bad_request_handler(err: poem::Error) -> ApiError {
    param_problem(&err).unwrap_or_else(|| ApiError::bad_request(err.to_string()))
}

/// What poem-openapi refuses before a handler runs, in the envelope: a missing or malformed
/// parameter is tied to its name like the handlers' own problems.
pub fn param_problem(err: &poem::Error) -> Option<ApiError> {
    let p = err.downcast_ref::<poem_openapi::error::ParseParamError>()?;
    let (rule, message) = if p.reason.contains("expects an input") {
        (Rule::Required, format!("{} is required", p.name))
    } else {
        (Rule::Invalid, format!("{}: {}", p.name, p.reason))
    };
    Some(ApiError::from(vec![FieldError {
        field: p.name.to_string(),
        rule,
        message,
    }]))
}

impl From<Vec<FieldError>> for ApiError {
    fn from(problems: Vec<FieldError>) -> Self {
        ApiError::fields(ErrorCode::BadRequest, problems)
    }
}

impl From<Denied> for ApiError {
    fn from(d: Denied) -> Self {
        ApiError::forbidden(d.0)
    }
}

impl From<StoreError> for ApiError {
    fn from(e: StoreError) -> Self {
        match e {
            StoreError::NotFound(what) => ApiError::not_found(what),
            StoreError::Invalid(what) => ApiError::bad_request(what),
            StoreError::Conflict(what) => ApiError::conflict(what),
            StoreError::Field(code, problem) => ApiError::fields(
                match code {
                    crate::store::FieldConflict::Conflict => ErrorCode::Conflict,
                    crate::store::FieldConflict::Invalid => ErrorCode::BadRequest,
                },
                vec![problem],
            ),
            other => ApiError::internal(other),
        }
    }
}

/// A JSON error answer outside poem-openapi (middleware, proxy, fallbacks).
pub fn json_error(status: StatusCode, msg: &str) -> poem::Response {
    let body = ErrorBody {
        code: ErrorCode::of_status(status),
        messages: vec![msg.to_string()],
        fields: Vec::new(),
    };
    poem::Response::builder()
        .status(status)
        .content_type("application/json; charset=utf-8")
        .body(ToJSON::to_json_string(&body))
}

/// A success answer outside poem-openapi (the tenant configuration): the same envelope.
pub fn json_ok<T: serde::Serialize>(data: &T) -> poem::Response {
    #[derive(serde::Serialize)]
    struct Ok<'a, T> {
        code: &'static str,
        data: &'a T,
        messages: [(); 0],
    }
    let body = serde_json::to_string(&Ok {
        code: "OK",
        data,
        messages: [],
    })
    .unwrap_or_default();
    poem::Response::builder()
        .content_type("application/json; charset=utf-8")
        .body(body)
}
