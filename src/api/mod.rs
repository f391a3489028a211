//! The embedded API under `/api`, declared with poem-openapi: one `#[OpenApi]` impl per
//! resource file, named for its URL (`/api/users` → `users.rs`, `/api/trs/v1/groups/{id}/metric`
//! → `metrics.rs`). The OpenAPI document is served at `/api/openapi.json`, readable docs at
//! `/api/docs`. The envelope and errors: [`envelope`]; who may call what: [`guard`]; shared
//! query parameters: [`params`]. See `docs/architecture.md` for adding a resource.

pub mod auth;
pub mod catalog;
pub mod envelope;
pub mod files;
pub mod groups;
pub mod guard;
pub mod health;
pub mod ingest;
pub mod metrics;
pub mod params;
pub mod runs;
pub mod users;

use std::sync::Arc;

use poem::http::StatusCode;
use poem::{Endpoint, EndpointExt, IntoEndpoint, IntoResponse, Response, Route};
use poem_openapi::OpenApiService;

use crate::config::Config;
use crate::store::Store;
use envelope::json_error;

/// Groups of operations in the OpenAPI document.
#[derive(poem_openapi::Tags)]
pub enum ApiTags {
    /// Sign-in and sessions
    Auth,
    /// Console users and profiles
    Users,
    /// Test case groups, channels, IVR applications and client-application health
    Groups,
    /// Pass, warning and failure counts, latency and MOS of a group per hour
    Metrics,
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
            users::UsersApi,
            groups::GroupsApi,
            catalog::CatalogApi,
            health::HealthApi,
            metrics::MetricsApi,
            runs::RunsApi,
            files::FilesApi,
            ingest::IngestApi,
        ),
        "cxwatch",
        env!("CARGO_PKG_VERSION"),
    )
    .server("/api")
}

/// The OpenAPI document as JSON (`cxwatch openapi`, `/api/openapi.json`).
pub fn openapi_json() -> String {
    service().spec()
}

/// `/api` in embedded mode: the resources, the OpenAPI document and docs. Every failure
/// that is not a handler's own answer becomes the envelope here.
pub fn routes(state: AppState) -> impl Endpoint<Output = Response> {
    let api = service();
    let spec = api.spec_endpoint();
    let docs = api.swagger_ui();
    let fallback = state.clone();
    Route::new()
        .at("/openapi.json", poem::get(spec))
        .nest("/docs", docs)
        .nest("/", api)
        .data(state)
        .around(move |ep, req| {
            let state = fallback.clone();
            async move {
                let token = bearer(&req);
                match ep.call(req).await {
                    Ok(r) => Ok(r.into_response()),
                    Err(err) => Ok(error_response(&state, token, err).await),
                }
            }
        })
}

/// A failure outside a handler's own answer, in the envelope: 401 'Access is denied!' for a
/// missing or bad token, and for any unknown path without a valid token, so that paths are
/// not told apart before sign-in.
async fn error_response(state: &AppState, token: Option<String>, err: poem::Error) -> Response {
    // An `ApiError` (or other `ApiResponse`) already is the JSON error shape: keep it.
    if err.is_from_response() {
        return err.into_response();
    }
    let status = err.status();
    if status == StatusCode::UNAUTHORIZED {
        let msg = err.to_string();
        let msg = if msg.contains("API key") {
            msg
        } else {
            ACCESS_DENIED.to_string()
        };
        return json_error(status, &msg);
    }
    if status == StatusCode::NOT_FOUND {
        let signed_in = match token {
            Some(t) => guard::caller_for(state, &t).await.is_ok(),
            None => false,
        };
        return if signed_in {
            json_error(status, "There is no such API path.")
        } else {
            json_error(StatusCode::UNAUTHORIZED, ACCESS_DENIED)
        };
    }
    json_error(status, &err.to_string())
}

/// What every 401 says (spec §8).
pub const ACCESS_DENIED: &str = "Access is denied!";

/// The token of an `Authorization: Bearer` header.
pub fn bearer(req: &poem::Request) -> Option<String> {
    let value = req.headers().get("authorization")?.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    (scheme.eq_ignore_ascii_case("bearer") && !token.trim().is_empty())
        .then(|| token.trim().to_string())
}

/// Makes the routes an endpoint with a boxed type, for the server to mount.
pub fn boxed(state: AppState) -> poem::endpoint::BoxEndpoint<'static, Response> {
    routes(state).into_endpoint().boxed()
}
