//! The embedded API under `/api`, declared with poem-openapi: one `#[OpenApi]` impl per
//! resource file. The OpenAPI document is served at `/api/openapi.json`, readable docs at
//! `/api/docs`. Envelope and errors: `crate::error`, documented in `docs/api.md`.

pub mod auth;
pub mod files;
pub mod groups;
pub mod ingest;
pub mod params;
pub mod runs;

use std::sync::Arc;

use poem::http::StatusCode;
use poem::{
    Endpoint, EndpointExt, IntoEndpoint, IntoResponse, Middleware, Request, Response, Route,
};
use poem_openapi::OpenApiService;

use crate::config::Config;
use crate::error::json_error;
use crate::store::auth::{session_for_token, Session};
use crate::store::Store;

/// Groups of operations in the OpenAPI document.
#[derive(poem_openapi::Tags)]
pub enum ApiTags {
    /// Sign-in and sessions
    Auth,
    /// Test case groups, channels, IVR applications, health and group metrics
    Groups,
    /// Test runs of a test case and run detail
    Runs,
    /// Recordings and attachments
    Files,
    /// What test engines post (API key, not a console token)
    Ingest,
}

/// What every handler may reach: `Data<&AppState>`.
#[derive(Clone)]
pub struct AppState {
    pub config: Arc<Config>,
    pub store: Store,
    /// Failed sign-ins per username (in memory).
    pub throttle: Arc<crate::auth::Throttle>,
}

/// The OpenAPI service of every embedded resource.
pub fn service() -> OpenApiService<impl poem_openapi::OpenApi, ()> {
    OpenApiService::new(
        (
            auth::AuthApi,
            groups::GroupsApi,
            runs::RunsApi,
            files::FilesApi,
            ingest::IngestApi,
        ),
        "cxwatch",
        env!("CARGO_PKG_VERSION"),
    )
    .server("/api")
}

/// `/api` in embedded mode: the resources, the OpenAPI document and docs.
pub fn routes(state: AppState) -> impl Endpoint {
    let api = service();
    let spec = api.spec_endpoint();
    let docs = api.swagger_ui();
    Route::new()
        .at("/openapi.json", spec)
        .nest("/docs", docs)
        .nest(
            "/",
            api.with(RequireSession {
                state: state.clone(),
            }),
        )
        .data(state)
        .catch_all_error(|err: poem::Error| async move {
            // An `ApiError` (or other `ApiResponse`) already is the JSON error shape: keep
            // its body, which names the problem.
            if err.is_from_response() {
                return err.into_response();
            }
            let status = err.status();
            let code = match status {
                StatusCode::NOT_FOUND => "NOT_FOUND",
                StatusCode::METHOD_NOT_ALLOWED => "METHOD_NOT_ALLOWED",
                StatusCode::UNAUTHORIZED => "UNAUTHORIZED",
                s if s.is_client_error() => "BAD_REQUEST",
                _ => "INTERNAL",
            };
            json_error(status, code, &err.to_string())
        })
}

/// Paths under `/api` answered without a console token.
fn is_public(path: &str) -> bool {
    matches!(path, "/api/auth/signin" | "/api/auth/getToken") || path.starts_with("/api/ingest/")
}

/// Every `/api` call but sign-in and ingest needs `Authorization: Bearer <token>`;
/// the caller's [`Session`] is put in the request for handlers (`Data<&Session>`).
struct RequireSession {
    state: AppState,
}

impl<E: Endpoint> Middleware<E> for RequireSession
where
    E::Output: poem::IntoResponse,
{
    type Output = RequireSessionEndpoint<E>;
    fn transform(&self, ep: E) -> Self::Output {
        RequireSessionEndpoint {
            inner: ep,
            state: self.state.clone(),
        }
    }
}

struct RequireSessionEndpoint<E> {
    inner: E,
    state: AppState,
}

impl<E: Endpoint> Endpoint for RequireSessionEndpoint<E>
where
    E::Output: poem::IntoResponse,
{
    type Output = Response;

    async fn call(&self, mut req: Request) -> poem::Result<Response> {
        if !is_public(req.original_uri().path()) {
            let token = bearer(&req);
            let session = match token {
                Some(token) => {
                    let now = crate::store::now_secs();
                    self.state
                        .store
                        .read(move |c| session_for_token(c, &token, now))
                        .await
                        .map_err(|e| {
                            tracing::error!(error = %e, "session lookup failed");
                            poem::Error::from_status(StatusCode::INTERNAL_SERVER_ERROR)
                        })?
                }
                None => None,
            };
            match session {
                Some(s) => {
                    req.extensions_mut().insert::<Session>(s);
                }
                None => {
                    return Ok(json_error(
                        StatusCode::UNAUTHORIZED,
                        "UNAUTHORIZED",
                        "Access is denied!",
                    ))
                }
            }
        }
        Ok(self.inner.call(req).await?.into_response())
    }
}

/// The token of an `Authorization: Bearer` header.
pub fn bearer(req: &Request) -> Option<String> {
    let value = req.headers().get("authorization")?.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    (scheme.eq_ignore_ascii_case("bearer") && !token.trim().is_empty())
        .then(|| token.trim().to_string())
}

/// Makes the routes an endpoint with a boxed type, for the server to mount.
pub fn boxed(state: AppState) -> poem::endpoint::BoxEndpoint<'static, Response> {
    routes(state).map_to_response().into_endpoint().boxed()
}
