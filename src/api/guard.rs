//! Who is calling, extracted once per operation and declared on it, so that the OpenAPI
//! document says which operations need what:
//! - [`Auth`]: a console token (`Authorization: Bearer`), giving the [`Caller`];
//! - [`IngestKey`]: an ingest API key (`X-API-Key`, or `Authorization: Bearer` with the key).
//!
//! An operation without either parameter is public. A handler then states what it needs:
//! `auth.require(Need::AdminWrite)?`.

use poem::{Request, RequestBody};
use poem_openapi::auth::{ApiKey, Bearer};
use poem_openapi::registry::Registry;
use poem_openapi::{ApiExtractor, ApiExtractorType, ExtractParamOptions, SecurityScheme};

use super::envelope::ApiError;
use super::AppState;
use crate::domain::caller::{Caller, Need};
use crate::store::now_secs;

/// A console token: `Authorization: Bearer <accessToken>` from sign-in.
#[derive(SecurityScheme)]
#[oai(rename = "console_token", ty = "bearer", checker = "caller_of_token")]
pub struct Auth(pub Caller);

impl Auth {
    /// The caller, when they have what `need` says; 403 naming what is missing otherwise.
    pub fn require(&self, need: Need) -> Result<&Caller, ApiError> {
        Ok(self.0.require(need)?)
    }
}

async fn caller_of_token(req: &Request, bearer: Bearer) -> poem::Result<Caller> {
    let state = req
        .data::<AppState>()
        .ok_or_else(|| poem::Error::from_status(poem::http::StatusCode::INTERNAL_SERVER_ERROR))?;
    caller_for(state, &bearer.token).await
}

/// The caller behind a token; 401 when there is none, or when the session was idle for
/// `auth.idle_timeout_secs` (the catch-all gives the envelope).
pub async fn caller_for(state: &AppState, token: &str) -> poem::Result<Caller> {
    let idle = i64::try_from(state.config.auth.idle_timeout_secs).unwrap_or(i64::MAX);
    match state.store.use_token(token.trim(), now_secs(), idle).await {
        Ok(Some(caller)) => Ok(caller),
        Ok(None) => Err(poem::Error::from_status(
            poem::http::StatusCode::UNAUTHORIZED,
        )),
        // The database away: 503, never 401 (the token may well be good).
        Err(e) if e.is_unavailable() => Err(ApiError::unavailable(e).into()),
        Err(e) => {
            tracing::error!(error = %e, "session lookup failed");
            Err(poem::Error::from_status(
                poem::http::StatusCode::INTERNAL_SERVER_ERROR,
            ))
        }
    }
}

/// An ingest API key in `X-API-Key`.
#[derive(SecurityScheme)]
#[oai(
    rename = "ingest_key",
    ty = "api_key",
    key_name = "X-API-Key",
    key_in = "header",
    checker = "valid_key"
)]
pub struct KeyHeader(());

/// An ingest API key as `Authorization: Bearer <key>`.
#[derive(SecurityScheme)]
#[oai(
    rename = "ingest_key_bearer",
    ty = "bearer",
    checker = "valid_bearer_key"
)]
pub struct KeyBearer(());

/// What test engines send: an ingest API key, in either header.
///
/// Not poem-openapi's derived enum: that one tries each header in turn and answers the
/// last one's failure, so a key in `X-API-Key` that could not be checked (the database
/// away: 503) was answered as the missing `Authorization` header's 401, and an engine that
/// takes 401 as final dropped its runs. Here the header the request carries decides:
/// `X-API-Key` when present, else `Authorization`.
pub struct IngestKey;

impl<'a> ApiExtractor<'a> for IngestKey {
    const TYPES: &'static [ApiExtractorType] = &[ApiExtractorType::SecurityScheme];
    type ParamType = ();
    type ParamRawType = ();

    fn register(registry: &mut Registry) {
        KeyHeader::register(registry);
        KeyBearer::register(registry);
    }

    fn security_schemes() -> Vec<&'static str> {
        let mut all = KeyHeader::security_schemes();
        all.extend(KeyBearer::security_schemes());
        all
    }

    async fn from_request(
        req: &'a Request,
        body: &mut RequestBody,
        _: ExtractParamOptions<Self::ParamType>,
    ) -> poem::Result<Self> {
        if req.headers().contains_key("x-api-key") {
            KeyHeader::from_request(req, body, ExtractParamOptions::default()).await?;
        } else {
            KeyBearer::from_request(req, body, ExtractParamOptions::default()).await?;
        }
        Ok(IngestKey)
    }
}

async fn valid_key(req: &Request, key: ApiKey) -> poem::Result<()> {
    check_key(req, &key.key).await
}

async fn valid_bearer_key(req: &Request, bearer: Bearer) -> poem::Result<()> {
    check_key(req, &bearer.token).await
}

async fn check_key(req: &Request, key: &str) -> poem::Result<()> {
    let state = req
        .data::<AppState>()
        .ok_or_else(|| poem::Error::from_status(poem::http::StatusCode::INTERNAL_SERVER_ERROR))?;
    match state.store.api_key_id(key.trim()).await {
        Ok(Some(id)) => {
            note_use(state, id).await;
            Ok(())
        }
        Ok(None) => Err(poem::Error::from_string(
            "The API key is not valid.",
            poem::http::StatusCode::UNAUTHORIZED,
        )),
        // The database away: 503, never 401 (the key may well be good).
        Err(e) if e.is_unavailable() => Err(ApiError::unavailable(e).into()),
        Err(e) => {
            tracing::error!(error = %e, "API key lookup failed");
            Err(poem::Error::from_status(
                poem::http::StatusCode::INTERNAL_SERVER_ERROR,
            ))
        }
    }
}

/// Records that key `id` is in use, at most once a minute per key (`auth::KeyUse`): ingest
/// does not pay a write per call. A failed write does not refuse the engine.
async fn note_use(state: &AppState, id: i64) {
    let now = crate::clock::now_ms();
    if !state.key_use.due(id, now) {
        return;
    }
    if let Err(e) = state.store.touch_api_key(id, now).await {
        state.key_use.forget(id);
        tracing::warn!(error = %e, "an API key's last use could not be recorded");
    }
}
