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

/// Declares [`ErrorCode`] from one table: each code's HTTP status and wire name, with its
/// meaning as the variant's doc (the OpenAPI document's description). `docs/api.md` lists the
/// same table (a test compares them) and the console reads the generated enum.
macro_rules! error_codes {
    ($( $(#[doc = $doc:literal])* $name:ident = $status:ident, $wire:literal; )*) => {
        /// The machine-readable `code` of an error answer; the HTTP status says the same.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Enum)]
        pub enum ErrorCode {
            $( $(#[doc = $doc])* #[oai(rename = $wire)] $name, )*
        }

        impl ErrorCode {
            /// Every code, in the order of the table.
            pub const ALL: &'static [ErrorCode] = &[$(ErrorCode::$name),*];

            pub fn status(self) -> StatusCode {
                match self {
                    $(ErrorCode::$name => StatusCode::$status,)*
                }
            }

            pub fn as_str(self) -> &'static str {
                match self {
                    $(ErrorCode::$name => $wire,)*
                }
            }
        }
    };
}

error_codes! {
    /// 400: malformed request or failed validation.
    BadRequest = BAD_REQUEST, "BAD_REQUEST";
    /// 401: no valid token or ingest API key; wrong credentials at sign-in.
    Unauthorized = UNAUTHORIZED, "UNAUTHORIZED";
    /// 403: the caller may not see or change this.
    Forbidden = FORBIDDEN, "FORBIDDEN";
    /// 404: no such item or path.
    NotFound = NOT_FOUND, "NOT_FOUND";
    /// 405: the path exists, the method does not.
    MethodNotAllowed = METHOD_NOT_ALLOWED, "METHOD_NOT_ALLOWED";
    /// 409: the change conflicts with existing data.
    Conflict = CONFLICT, "CONFLICT";
    /// 409: a server the call needs (a mail server, an SMS or voice gateway) is not
    /// configured; nothing failed, nothing was sent.
    NotConfigured = CONFLICT, "NOT_CONFIGURED";
    /// 413: the body is larger than the operation accepts.
    PayloadTooLarge = PAYLOAD_TOO_LARGE, "PAYLOAD_TOO_LARGE";
    /// 414: the address is too long.
    UriTooLong = URI_TOO_LONG, "URI_TOO_LONG";
    /// 415: the body's Content-Type is not one the operation accepts.
    UnsupportedMediaType = UNSUPPORTED_MEDIA_TYPE, "UNSUPPORTED_MEDIA_TYPE";
    /// 416: the Range asked for is outside the file.
    RangeNotSatisfiable = RANGE_NOT_SATISFIABLE, "RANGE_NOT_SATISFIABLE";
    /// 429: too many attempts.
    TooManyRequests = TOO_MANY_REQUESTS, "TOO_MANY_REQUESTS";
    /// 431: the request's headers are too large.
    RequestHeaderFieldsTooLarge = REQUEST_HEADER_FIELDS_TOO_LARGE, "REQUEST_HEADER_FIELDS_TOO_LARGE";
    /// 500: unexpected failure; the detail is in the server log.
    Internal = INTERNAL_SERVER_ERROR, "INTERNAL";
    /// 502: proxy mode: the upstream failed.
    BadGateway = BAD_GATEWAY, "BAD_GATEWAY";
    /// 503: the database cannot be reached (stopped, restarting, unreachable); nothing was
    /// done: send the same call again after the seconds `Retry-After` says.
    Unavailable = SERVICE_UNAVAILABLE, "UNAVAILABLE";
    /// 504: proxy mode: the upstream did not answer in time.
    GatewayTimeout = GATEWAY_TIMEOUT, "GATEWAY_TIMEOUT";
    /// 507: the server's disk is full or below `store.min_free_mb`; nothing was stored:
    /// send the same call again after the seconds `Retry-After` says.
    InsufficientStorage = INSUFFICIENT_STORAGE, "INSUFFICIENT_STORAGE";
}

impl ErrorCode {
    /// The code of an HTTP error status: the first of the table with that status (409 is
    /// `CONFLICT`); any other client error is `BAD_REQUEST`, any other `INTERNAL`.
    pub fn of_status(status: StatusCode) -> ErrorCode {
        ErrorCode::ALL
            .iter()
            .copied()
            .find(|c| c.status() == status)
            .unwrap_or(if status.is_client_error() {
                ErrorCode::BadRequest
            } else {
                ErrorCode::Internal
            })
    }
}

/// A validation problem tied to one field, so that a form can show it beside the field.
#[derive(Debug, Clone, Object)]
pub struct FieldProblem {
    /// The camelCase name of the body field or query parameter.
    pub field: String,
    /// The rule it broke (`weak`: a password too easy to guess).
    pub rule: Rule,
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
    /// Why a message could not be sent (502 of a channel test), as the stable code of
    /// `Notification.reasonCode`: the console words it in the reader's language.
    #[oai(rename = "reasonCode", skip_serializing_if_is_none)]
    pub reason_code: Option<String>,
    /// The HTTP status of an `http_status` reason.
    #[oai(rename = "reasonStatus", skip_serializing_if_is_none)]
    pub reason_status: Option<u16>,
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
    /// The database cannot be reached; nothing was done. Send the same call again after
    /// the seconds `Retry-After` says.
    #[oai(status = 503)]
    ServiceUnavailable(Json<ErrorBody>, #[oai(header = "Retry-After")] Option<u64>),
    /// The server's disk is full or nearly (`store.min_free_mb`); nothing was stored. Send
    /// the same call again after the seconds `Retry-After` says.
    #[oai(status = 507)]
    InsufficientStorage(Json<ErrorBody>, #[oai(header = "Retry-After")] Option<u64>),
}

/// Seconds a client is asked to wait (`Retry-After`) when the database cannot be reached.
pub const RETRY_UNAVAILABLE_SECS: u64 = 5;
/// Seconds a client is asked to wait (`Retry-After`) when the disk is full.
pub const RETRY_NO_SPACE_SECS: u64 = 30;

pub type ApiResult<T> = Result<T, ApiError>;

/// The error answers of one operation, by HTTP status: or them together in its return type,
/// `Answer<Json<…>, { FORBIDDEN | NOT_FOUND | INTERNAL }>`. What the handler itself decides
/// goes here (403 from its `Need`, 404 from a lookup, 409, 429, 502, 400 from its own
/// checks, 500 from the store); what the operation's shape adds is derived from the document
/// in [`super::openapi_json`] (401 and 500 with a guard, 400 with parameters or a body, 413
/// and 415 with a body). `tests/harness` fails any answer whose status its operation does not
/// list.
pub mod fails {
    /// None of its own (the shape's are added).
    pub const NONE: u16 = 0;
    /// 400: the handler's own checks of its input.
    pub const BAD_REQUEST: u16 = 1 << 0;
    /// 401 (sign-in's wrong credentials; the guard's 401 is derived).
    pub const UNAUTHORIZED: u16 = 1 << 1;
    /// 403: a `Need` some signed-in callers lack, or an item outside the caller's scope.
    pub const FORBIDDEN: u16 = 1 << 2;
    /// 404: an item looked up by id (or name) that may not exist.
    pub const NOT_FOUND: u16 = 1 << 3;
    /// 409: a change that conflicts with existing data, or `NOT_CONFIGURED`.
    pub const CONFLICT: u16 = 1 << 4;
    /// 413: a body larger than the handler reads (the edge's limit is derived).
    pub const PAYLOAD_TOO_LARGE: u16 = 1 << 5;
    /// 415: a body the handler reads itself in a type it does not take.
    pub const UNSUPPORTED_MEDIA_TYPE: u16 = 1 << 6;
    /// 429: too many attempts.
    pub const TOO_MANY_REQUESTS: u16 = 1 << 7;
    /// 500: the store or another part of the server failed.
    pub const INTERNAL: u16 = 1 << 8;
    /// 502: a server the call depends on (mail, gateway, Jira, an identity provider) failed.
    pub const BAD_GATEWAY: u16 = 1 << 9;
    /// 503: the database cannot be reached (derived for every operation that lists 500).
    pub const SERVICE_UNAVAILABLE: u16 = 1 << 10;
    /// 507: the disk is full (derived for every operation that lists 500).
    pub const INSUFFICIENT_STORAGE: u16 = 1 << 11;
    /// Every status an [`super::ApiError`] may have.
    pub const ALL: u16 = (1 << 12) - 1;

    /// The bit of an error status (0 for one no `ApiError` has).
    pub const fn of_status(status: u16) -> u16 {
        match status {
            400 => BAD_REQUEST,
            401 => UNAUTHORIZED,
            403 => FORBIDDEN,
            404 => NOT_FOUND,
            409 => CONFLICT,
            413 => PAYLOAD_TOO_LARGE,
            415 => UNSUPPORTED_MEDIA_TYPE,
            429 => TOO_MANY_REQUESTS,
            500 => INTERNAL,
            502 => BAD_GATEWAY,
            503 => SERVICE_UNAVAILABLE,
            507 => INSUFFICIENT_STORAGE,
            _ => 0,
        }
    }
}

/// An [`ApiError`] of an operation that answers only the statuses `S` ([`fails`]): its
/// OpenAPI entry lists those, not every error there is.
#[derive(Debug)]
pub struct Fails<const S: u16>(pub ApiError);

/// What a handler answers: `T`, or one of the errors `S` ([`fails`]).
pub type Answer<T, const S: u16> = Result<T, Fails<S>>;

impl<const S: u16> poem_openapi::ApiResponse for Fails<S> {
    fn meta() -> poem_openapi::registry::MetaResponses {
        let mut meta = ApiError::meta();
        meta.responses
            .retain(|r| r.status.is_some_and(|s| fails::of_status(s) & S != 0));
        meta
    }

    fn register(registry: &mut poem_openapi::registry::Registry) {
        ApiError::register(registry);
    }
}

impl<const S: u16> poem::IntoResponse for Fails<S> {
    fn into_response(self) -> poem::Response {
        self.0.into_response()
    }
}

impl<const S: u16> From<Fails<S>> for poem::Error {
    fn from(f: Fails<S>) -> Self {
        f.0.into()
    }
}

impl<const S: u16> From<ApiError> for Fails<S> {
    fn from(e: ApiError) -> Self {
        Fails(e)
    }
}

impl<const S: u16> From<StoreError> for Fails<S> {
    fn from(e: StoreError) -> Self {
        Fails(e.into())
    }
}

impl<const S: u16> From<Vec<FieldError>> for Fails<S> {
    fn from(e: Vec<FieldError>) -> Self {
        Fails(e.into())
    }
}

impl<const S: u16> From<Denied> for Fails<S> {
    fn from(e: Denied) -> Self {
        Fails(e.into())
    }
}

impl ApiError {
    /// An error answer with these messages; the variant follows the code.
    pub fn new(code: ErrorCode, messages: Vec<String>, fields: Vec<FieldProblem>) -> Self {
        let body = Json(ErrorBody {
            code,
            messages,
            fields,
            reason_code: None,
            reason_status: None,
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
            ErrorCode::Unavailable => {
                ApiError::ServiceUnavailable(body, Some(RETRY_UNAVAILABLE_SECS))
            }
            ErrorCode::InsufficientStorage => {
                ApiError::InsufficientStorage(body, Some(RETRY_NO_SPACE_SECS))
            }
            _ => ApiError::BadRequest(body),
        }
    }

    /// The same with a failure's reason code (`reasonCode`, `reasonStatus`).
    pub fn with_reason(mut self, code: Option<String>, status: Option<u16>) -> Self {
        let body = match &mut self {
            ApiError::BadRequest(b)
            | ApiError::Unauthorized(b)
            | ApiError::Forbidden(b)
            | ApiError::NotFound(b)
            | ApiError::Conflict(b)
            | ApiError::PayloadTooLarge(b)
            | ApiError::UnsupportedMediaType(b)
            | ApiError::TooManyRequests(b, _)
            | ApiError::Internal(b)
            | ApiError::BadGateway(b)
            | ApiError::ServiceUnavailable(b, _)
            | ApiError::InsufficientStorage(b, _) => b,
        };
        body.reason_code = code;
        body.reason_status = status;
        self
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
                rule: p.rule,
                message: p.message,
            })
            .collect();
        ApiError::new(code, messages, fields)
    }
    /// 503 with `Retry-After`: the database cannot be reached. The cause goes to the log;
    /// the client learns only that it should try again.
    pub fn unavailable(cause: impl std::fmt::Display) -> Self {
        tracing::warn!(error = %cause, "database unavailable");
        ApiError::one(
            ErrorCode::Unavailable,
            format!(
                "The database cannot be reached; nothing was done. Try again in {RETRY_UNAVAILABLE_SECS} seconds."
            ),
        )
    }
    /// 507 with `Retry-After`: the disk is full (the reason says how full).
    pub fn no_space(reason: impl std::fmt::Display) -> Self {
        tracing::warn!(%reason, "refused: no disk space");
        ApiError::one(
            ErrorCode::InsufficientStorage,
            format!("{reason} Nothing was stored; try again later."),
        )
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
            other if other.is_unavailable() => ApiError::unavailable(other),
            StoreError::NoSpace(reason) => ApiError::no_space(reason),
            other if other.is_no_space() => {
                ApiError::no_space(format!("The server's disk is full ({other})."))
            }
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
        reason_code: None,
        reason_status: None,
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
