//! The embedded API under `/api`, declared with poem-openapi: one `#[OpenApi]` impl per
//! resource file, named for its URL (`/api/users` → `users.rs`, `/api/trs/v1/groups/{id}/metric`
//! → `metrics.rs`). The OpenAPI document is served at `/api/openapi.json`, readable docs at
//! `/api/docs`. The envelope and errors: [`envelope`]; who may call what: [`guard`]; shared
//! query parameters: [`params`]. See `docs/architecture.md` for adding a resource.

pub mod alert_settings;
pub mod alerts;
pub mod audit;
pub mod auth;
pub mod auto_tickets;
pub mod catalog;
pub mod dependents;
pub mod distributions;
pub mod envelope;
pub mod files;
pub mod groups;
pub mod guard;
pub mod health;
pub mod hourly;
pub mod incidents;
pub mod ingest;
pub mod jira;
pub mod lenient;
pub mod live;
pub mod maintenance;
pub mod metrics;
pub mod notifications;
pub mod params;
pub mod recent;
pub mod report_schedules;
pub mod reports;
pub mod runs;
pub mod site;
pub mod sso;
pub mod users;

use std::sync::Arc;

use poem::http::StatusCode;
use poem::{Endpoint, EndpointExt, IntoEndpoint, Response, Route};
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
    /// Saved reports, their data, CSV export and the runs behind them
    Reports,
    /// Recordings and attachments
    Files,
    /// What test engines post (API key, not a console token)
    Ingest,
    /// Distribution lists (contact groups) and test messages
    Distributions,
    /// Notifications in the outbox and what became of them
    Notifications,
    Live,
    Audit,
    /// The site page: first-run checklist, ingest API keys, outbound channels and their tests
    Site,
    /// Alert settings, the alert statuses and contact groups, and the alert events the engine opens
    Alerts,
    /// Issue-tracker (Jira) tickets of reports
    Tickets,
}

/// What every handler may reach: `Data<&AppState>`.
#[derive(Clone)]
pub struct AppState {
    pub config: Arc<Config>,
    pub store: Store,
    /// Failed sign-ins per username (in memory).
    pub throttle: Arc<crate::auth::Throttle>,
    /// When each ingest API key's use was last written (in memory: once a minute per key).
    pub key_use: Arc<crate::auth::KeyUse>,
    /// Single sign-on: the providers' clients and fetched keys (in memory).
    pub sso: Arc<crate::sso::Sso>,
    /// Wakes the outbox's sender and tells what became of a notification.
    pub notifier: crate::notify::Notifier,
    /// Prometheus metrics (`crate::telemetry`).
    pub telemetry: Arc<crate::telemetry::Telemetry>,
    /// Live updates for open dashboards (`live.rs`).
    pub live: live::Hub,
}

/// The OpenAPI service of every embedded resource.
pub fn service() -> OpenApiService<impl poem_openapi::OpenApi, ()> {
    OpenApiService::new(
        (
            auth::AuthApi,
            sso::SsoApi,
            users::UsersApi,
            groups::GroupsApi,
            catalog::CatalogApi,
            health::HealthApi,
            recent::RecentApi,
            metrics::MetricsApi,
            runs::RunsApi,
            reports::ReportsApi,
            files::FilesApi,
            ingest::IngestApi,
            // poem-openapi implements OpenApi for tuples of up to 16: the later ones nest.
            (
                distributions::DistributionsApi,
                alert_settings::AlertSettingsApi,
                report_schedules::ReportSchedulesApi,
            ),
            notifications::NotificationsApi,
            (
                live::LiveApi,
                audit::AuditApi,
                alerts::AlertsApi,
                alerts::AlertUpdateApi,
                incidents::IncidentsApi,
                maintenance::MaintenanceApi,
                jira::JiraApi,
                auto_tickets::AutoTicketsApi,
                hourly::HourlyApi,
                site::SiteApi,
            ),
        ),
        "cxwatch",
        env!("CARGO_PKG_VERSION"),
    )
    .server("/api")
}

/// The bodies read with serde's `deny_unknown_fields` (an engine's typo is refused, not
/// dropped): the document says so with `additionalProperties: false`, which poem-openapi does
/// not write.
const CLOSED_SCHEMAS: &[&str] = &[
    "RunBatchBody",
    "HealthBatchBody",
    "IngestClientApp",
    "IngestComponentState",
    "IngestComponent",
];

/// The OpenAPI document as JSON (`cxwatch openapi`, `/api/openapi.json`).
pub fn openapi_json() -> String {
    static DOC: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    DOC.get_or_init(|| {
        let mut doc: serde_json::Value =
            serde_json::from_str(&service().spec()).expect("poem-openapi writes JSON");
        if let Some(schemas) = doc["components"]["schemas"].as_object_mut() {
            for name in CLOSED_SCHEMAS {
                if let Some(schema) = schemas.get_mut(*name).and_then(|s| s.as_object_mut()) {
                    schema.insert("additionalProperties".into(), false.into());
                }
            }
            for (name, schema) in schemas.iter_mut() {
                // poem-openapi gives every union `type: object`; a `Listing` is an array or
                // a page (`oneOf`), a list delete's `DeleteIds` an array or an object, and
                // their array forms are no object.
                if name.starts_with("Listing_") || name == "DeleteIds" {
                    if let Some(schema) = schema.as_object_mut() {
                        schema.remove("type");
                    }
                }
            }
        }
        close_forms(&mut doc);
        add_shape_errors(&mut doc);
        serde_json::to_string_pretty(&doc).expect("a JSON value serialises")
    })
    .clone()
}

/// Every operation of the document (each method of each path).
fn operations_mut(doc: &mut serde_json::Value) -> impl Iterator<Item = &mut serde_json::Value> {
    doc["paths"]
        .as_object_mut()
        .into_iter()
        .flat_map(|paths| paths.values_mut())
        .filter_map(|p| p.as_object_mut())
        .flat_map(|p| p.values_mut())
}

/// A multipart form (a ticket's `data` and `file`) is its named parts: the document closes
/// each form's schema (`additionalProperties: false`), since a part of another name is not
/// read, and one whose name the multipart parser cannot read refuses the whole body.
fn close_forms(doc: &mut serde_json::Value) {
    for op in operations_mut(doc) {
        let form = op
            .pointer_mut("/requestBody/content/multipart~1form-data/schema")
            .and_then(|s| s.as_object_mut());
        if let Some(schema) = form.filter(|s| s.contains_key("properties")) {
            schema.insert("additionalProperties".into(), false.into());
        }
    }
}

/// Adds to each operation the error answers its shape gives, whatever its handler does
/// (the handler's own are its return type's, `envelope::fails`): with a guard, 401 (no
/// valid token or key) and 500 (the guard's lookup failed); with parameters or a body, 400
/// (one that does not parse); with a body, 413 (larger than the operation takes,
/// `server::limits`) and 415 (not a content type it takes); with 500, 503 (the database
/// cannot be reached) and 507 (the disk is full).
fn add_shape_errors(doc: &mut serde_json::Value) {
    use poem_openapi::ApiResponse;
    let answers: std::collections::BTreeMap<u16, serde_json::Value> = envelope::ApiError::meta()
        .responses
        .iter()
        .filter_map(|r| Some((r.status?, serde_json::to_value(r).ok()?)))
        .collect();
    for op in operations_mut(doc) {
        let guarded = op["security"].as_array().is_some_and(|s| !s.is_empty());
        let body = op.get("requestBody").is_some();
        let params = op["parameters"].as_array().is_some_and(|p| !p.is_empty());
        let mut add: Vec<u16> = Vec::new();
        if guarded {
            add.extend([401, 500]);
        }
        if params || body {
            add.push(400);
        }
        if body {
            add.extend([413, 415]);
        }
        let Some(responses) = op["responses"].as_object_mut() else {
            continue;
        };
        // A call that may fail in the store may find the database away or the disk full.
        if guarded || responses.contains_key("500") {
            add.extend([503, 507]);
        }
        for status in add {
            if let Some(answer) = answers.get(&status) {
                responses
                    .entry(status.to_string())
                    .or_insert_with(|| answer.clone());
            }
        }
        let mut sorted: Vec<(String, serde_json::Value)> =
            std::mem::take(responses).into_iter().collect();
        sorted.sort_by(|a, b| a.0.cmp(&b.0));
        responses.extend(sorted);
    }
}

/// `/api` in embedded mode: the resources, the OpenAPI document and docs. Every failure
/// that is not a handler's own answer becomes the envelope here.
pub fn routes(state: AppState) -> impl Endpoint<Output = Response> {
    let api = service();
    let docs = api.swagger_ui();
    let fallback = state.clone();
    Route::new()
        .at(
            "/openapi.json",
            poem::get(poem::endpoint::make_sync(|_| {
                poem::Response::builder()
                    .content_type("application/json; charset=utf-8")
                    .body(openapi_json())
            })),
        )
        .nest("/docs", docs)
        .nest("/", api)
        .data(state)
        .around(move |ep, mut req| {
            let state = fallback.clone();
            async move {
                if let Some(uri) = spec_alias(req.uri()) {
                    *req.uri_mut() = uri;
                }
                let token = bearer(&req);
                let ingest = req.uri().path().contains("/ingest/");
                let allow = allowed_methods(req.uri().path());
                let actor = actor_of(&state, &req, token.as_deref(), ingest).await;
                let answer = match crate::store::audit::as_actor(actor, ep.call(req)).await {
                    Ok(r) if is_bare_error(&r) => {
                        // The router's own refusals (a path parameter that is not UTF-8, …)
                        // come as plain text: put them in the envelope too.
                        let status = r.status();
                        let text = r.into_body().into_string().await.unwrap_or_default();
                        let err = poem::Error::from_string(text, status);
                        Ok(error_response(&state, token, err, true, ingest).await)
                    }
                    Ok(r) => Ok(r),
                    Err(err) => {
                        let hide = err.status() == StatusCode::NOT_FOUND;
                        Ok(error_response(&state, token, err, hide, ingest).await)
                    }
                };
                answer.map(|mut r| {
                    // Answers carry tokens and the site's data: no cache (a shared
                    // workstation's browser, a proxy) keeps any of them. A handler that says
                    // otherwise (a recording's immutable bytes, private) keeps its own.
                    r.headers_mut()
                        .entry(poem::http::header::CACHE_CONTROL)
                        .or_insert(poem::http::HeaderValue::from_static("no-store"));
                    // RFC 9110 §15.5.6: a 405 lists the methods the path has.
                    if r.status() == StatusCode::METHOD_NOT_ALLOWED {
                        if let Some(allow) = allow.and_then(|a| a.parse().ok()) {
                            r.headers_mut().insert(poem::http::header::ALLOW, allow);
                        }
                    }
                    r
                })
            }
        })
}

/// Section 7 of the spec names three `trs/v1` calls without the prefix
/// (`testcases/{id}/runs`, `testruns/{id}`, `getContent`): those paths reach the same
/// handlers as `trs/v1/...` (docs/api-data.md). The address under `/trs/v1` for such a
/// path (query kept); `None` for any other.
pub fn spec_alias(uri: &poem::http::Uri) -> Option<poem::http::Uri> {
    let path = uri.path();
    let (base, rest) = match path.strip_prefix("/api") {
        Some(rest) if rest.starts_with('/') => ("/api", rest),
        _ => ("", path),
    };
    let segments: Vec<&str> = rest.split('/').collect();
    let alias = match segments.as_slice() {
        ["", "testcases", id, "runs"] | ["", "testruns", id] => !id.is_empty(),
        ["", "getContent"] => true,
        _ => false,
    };
    if !alias {
        return None;
    }
    let query = uri.query().map(|q| format!("?{q}")).unwrap_or_default();
    format!("{base}/trs/v1{rest}{query}").parse().ok()
}

/// The methods the OpenAPI document has for a request path under `/api` (`GET, PUT`),
/// for the `Allow` header of a 405; `None` for a path it does not have.
/// Where a request comes from: the connection's peer, or, when that peer is one of
/// `server.trusted_proxies`, the client its `X-Forwarded-For` names (`domain::client`).
pub(crate) fn client_ip(
    config: &crate::config::Config,
    req: &poem::Request,
) -> Option<std::net::IpAddr> {
    let peer = req.remote_addr().as_socket_addr()?.ip();
    if config.server.trusted_proxies.is_empty() {
        return Some(peer);
    }
    let forwarded: Vec<&str> = req
        .headers()
        .get_all("x-forwarded-for")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .collect();
    let proxies = config.server.trusted_proxy_nets();
    Some(crate::domain::client::client_ip(peer, &forwarded, &proxies))
}

/// Who a request acts as, for the audit log: the signed-in user of a changing call (its
/// token), else `anonymous`; with the client's address.
async fn actor_of(
    state: &AppState,
    req: &poem::Request,
    token: Option<&str>,
    ingest: bool,
) -> crate::store::audit::Actor {
    let address = client_ip(&state.config, req)
        .map(|ip| ip.to_string())
        .unwrap_or_else(|| "unknown".into());
    let changes = !matches!(
        *req.method(),
        poem::http::Method::GET | poem::http::Method::HEAD | poem::http::Method::OPTIONS
    );
    let caller = match token {
        Some(t) if changes && !ingest => guard::caller_for(state, t).await.ok(),
        _ => None,
    };
    crate::store::audit::Actor {
        user_id: caller.as_ref().map(|c| c.user_id),
        username: caller
            .map(|c| c.username)
            .unwrap_or_else(|| "anonymous".into()),
        address,
    }
}

pub fn allowed_methods(path: &str) -> Option<String> {
    matching_path(path).map(|t| t.methods.clone())
}

/// The OpenAPI path template a request path under `/api` matches (`/api/users/{id}`), for
/// metric labels that never carry raw paths or ids; `None` for a path it does not have.
pub fn route_template(path: &str) -> Option<&'static str> {
    matching_path(path).map(|t| t.label.as_str())
}

/// An OpenAPI path: its segments, its label (`/api` and the template) and its methods.
struct Template {
    segments: Vec<String>,
    label: String,
    methods: String,
}

/// The OpenAPI paths, read once: those without a parameter by their path, the others by
/// their number of segments.
struct Templates {
    literal: rustc_hash::FxHashMap<String, usize>,
    by_len: Vec<Vec<usize>>,
    all: Vec<Template>,
}

impl Templates {
    fn read() -> Templates {
        let doc: serde_json::Value = serde_json::from_str(&openapi_json()).unwrap_or_default();
        let mut t = Templates {
            literal: Default::default(),
            by_len: Vec::new(),
            all: Vec::new(),
        };
        for (template, ops) in doc
            .get("paths")
            .and_then(|p| p.as_object())
            .into_iter()
            .flatten()
        {
            let methods: Vec<String> = ops
                .as_object()
                .map(|o| o.keys().map(|m| m.to_ascii_uppercase()).collect())
                .unwrap_or_default();
            let segments: Vec<String> = template.split('/').map(str::to_string).collect();
            let i = t.all.len();
            if segments.iter().any(|s| is_param(s)) {
                if t.by_len.len() <= segments.len() {
                    t.by_len.resize(segments.len() + 1, Vec::new());
                }
                t.by_len[segments.len()].push(i);
            } else {
                t.literal.insert(template.clone(), i);
            }
            t.all.push(Template {
                segments,
                label: format!("/api{template}"),
                methods: methods.join(", "),
            });
        }
        t
    }
}

fn is_param(segment: &str) -> bool {
    segment.starts_with('{') && segment.ends_with('}')
}

/// The OpenAPI path a request path matches.
fn matching_path(path: &str) -> Option<&'static Template> {
    static PATHS: std::sync::OnceLock<Templates> = std::sync::OnceLock::new();
    let paths = PATHS.get_or_init(Templates::read);
    let path = path
        .strip_prefix("/api")
        .filter(|p| p.starts_with('/'))
        .unwrap_or(path);
    // A literal segment wins over a parameter (`/groups/channels` over `/groups/{id}`), so
    // a template without parameters first.
    if let Some(&i) = paths.literal.get(path) {
        return paths.all.get(i);
    }
    let segments: Vec<&str> = path.split('/').collect();
    paths
        .by_len
        .get(segments.len())?
        .iter()
        .map(|&i| &paths.all[i])
        .filter(|t| {
            t.segments
                .iter()
                .zip(&segments)
                .all(|(t, s)| t == s || is_param(t))
        })
        .min_by_key(|t| t.segments.iter().filter(|s| is_param(s)).count())
}

/// A failure outside a handler's own answer, in the envelope: 401 'Access is denied!' for a
/// missing or bad token, and (`hide`) for an unknown or malformed path without a valid
/// token, so that paths are not told apart before sign-in.
pub async fn error_response(
    state: &AppState,
    token: Option<String>,
    err: poem::Error,
    hide: bool,
    ingest: bool,
) -> Response {
    // An `ApiError` (or other `ApiResponse`) already is the JSON error shape: keep it.
    if err.is_from_response() {
        return err.into_response();
    }
    if let Some(problem) = envelope::param_problem(&err) {
        return poem::IntoResponse::into_response(problem);
    }
    let status = err.status();
    if status == StatusCode::UNAUTHORIZED {
        let msg = match err.to_string() {
            m if m.contains("API key") => m,
            _ if ingest => NO_KEY.to_string(),
            _ => ACCESS_DENIED.to_string(),
        };
        return json_error(status, &msg);
    }
    if hide {
        // Before sign-in, an unknown or malformed path says no more than any other.
        let signed_in = match token {
            Some(t) => guard::caller_for(state, &t).await.is_ok(),
            None => false,
        };
        if !signed_in {
            return json_error(StatusCode::UNAUTHORIZED, ACCESS_DENIED);
        }
        if status == StatusCode::NOT_FOUND {
            return json_error(status, "There is no such API path.");
        }
    }
    json_error(status, &err.to_string())
}

/// Refuses an `/api` path that is not UTF-8 once percent-decoded, before any router sees
/// it: 401 'Access is denied!' without a valid token, else 400 in the envelope.
pub async fn undecodable_path(state: Option<&AppState>, req: &poem::Request) -> Option<Response> {
    if percent_decodes(req.uri().path()) {
        return None;
    }
    let err = poem::Error::from_string(
        "The path is not valid UTF-8 once percent-decoded.",
        StatusCode::BAD_REQUEST,
    );
    Some(match state {
        Some(state) => error_response(state, bearer(req), err, true, false).await,
        None => json_error(StatusCode::BAD_REQUEST, &err.to_string()),
    })
}

fn percent_decodes(path: &str) -> bool {
    let bytes = path.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[i], hex) {
            (b'%', Some(b)) => {
                out.push(b);
                i += 3;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out).is_ok()
}

/// An error status without a JSON body.
fn is_bare_error(r: &Response) -> bool {
    let json = r
        .content_type()
        .is_some_and(|ct| ct.starts_with("application/json"));
    (r.status().is_client_error() || r.status().is_server_error()) && !json
}

/// What an ingest call without a key is told.
pub const NO_KEY: &str = "An API key is required: X-API-Key: <key> or Authorization: Bearer <key>.";

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

#[cfg(test)]
mod tests {
    use super::spec_alias;

    #[test]
    fn spec_paths_without_the_trs_prefix_are_aliases() {
        let alias = |p: &str| spec_alias(&p.parse().unwrap()).map(|u| u.to_string());
        assert_eq!(
            alias("/api/testcases/7/runs?startDate=2026-01-15").as_deref(),
            Some("/api/trs/v1/testcases/7/runs?startDate=2026-01-15")
        );
        assert_eq!(
            alias("/testruns/12").as_deref(),
            Some("/trs/v1/testruns/12")
        );
        assert_eq!(
            alias("/api/getContent?attachmentUrl=recordings/x").as_deref(),
            Some("/api/trs/v1/getContent?attachmentUrl=recordings/x")
        );
        for other in [
            "/api/trs/v1/testruns/12",
            "/api/testruns/",
            "/api/testruns/1/x",
            "/api/testcases/1",
            "/api/users",
            "/api/getContentx",
        ] {
            assert_eq!(alias(other), None, "{other}");
        }
    }
}
