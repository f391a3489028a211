//! `GET /metrics` for Prometheus (OpenMetrics text, `crate::telemetry`): on the main
//! listener behind `metrics.token`, and/or alone on `metrics.listen` (plain HTTP). Also the
//! layer counting every request by route template, status and latency.

use std::sync::Arc;
use std::time::Instant;

use poem::http::{header, StatusCode};
use poem::web::Data;
use poem::{handler, Endpoint, EndpointExt, IntoResponse, Request, Response, Route};

use crate::config::Config;
use crate::store::Store;
use crate::telemetry::{Telemetry, CONTENT_TYPE};

/// What `/metrics` needs.
#[derive(Clone)]
pub struct Scrape {
    pub telemetry: Arc<Telemetry>,
    pub store: Option<Store>,
    /// Empty: not served on the main listener.
    pub token: String,
}

/// The scrape: 404 when no token is configured, 401 without the right bearer token.
#[handler]
pub async fn metrics(req: &Request, scrape: Data<&Scrape>) -> Response {
    if scrape.token.is_empty() {
        return StatusCode::NOT_FOUND.into_response();
    }
    answer(req, &scrape, true).await
}

async fn answer(req: &Request, scrape: &Scrape, token_needed: bool) -> Response {
    if token_needed || !scrape.token.is_empty() {
        let given = req
            .headers()
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "))
            .unwrap_or("")
            .trim();
        if !same(given.as_bytes(), scrape.token.as_bytes()) {
            return Response::builder()
                .status(StatusCode::UNAUTHORIZED)
                .header(header::WWW_AUTHENTICATE, "Bearer realm=\"cxwatch metrics\"")
                .body("metrics: a valid bearer token is needed\n");
        }
    }
    let text = scrape.telemetry.scrape(scrape.store.as_ref()).await;
    Response::builder()
        .header(header::CONTENT_TYPE, CONTENT_TYPE)
        .header(header::CACHE_CONTROL, "no-store")
        .body(text)
}

/// Compares without stopping at the first difference.
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// Serves `/metrics` alone on `metrics.listen` when set; the task runs until aborted.
pub async fn listen(
    config: &Config,
    scrape: Scrape,
) -> anyhow::Result<Option<tokio::task::JoinHandle<()>>> {
    let Some(addr) = config.metrics.listen_addr().map_err(anyhow::Error::msg)? else {
        return Ok(None);
    };
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| anyhow::anyhow!("metrics.listen: cannot listen on {addr}: {e}"))?;
    let acceptor = poem::listener::TcpAcceptor::from_tokio(listener)?;
    tracing::info!(%addr, "serving metrics on http://{addr}/metrics");
    let app = Route::new().at("/metrics", poem::get(separate).data(scrape));
    Ok(Some(tokio::spawn(async move {
        if let Err(e) = poem::Server::new_with_acceptor(acceptor).run(app).await {
            tracing::error!(error = %e, "metrics listener stopped");
        }
    })))
}

#[handler]
async fn separate(req: &Request, scrape: Data<&Scrape>) -> Response {
    answer(req, &scrape, false).await
}

/// The label of a request path: an `/api` route template, a fixed path, or `ui`.
pub fn route_label(path: &str) -> &'static str {
    if path == "/api" || path.starts_with("/api/") {
        return crate::api::route_template(path).unwrap_or("/api/other");
    }
    match path {
        "/healthz" => "/healthz",
        "/metrics" => "/metrics",
        "/tenant-config" => "/tenant-config",
        _ => "ui",
    }
}

/// Counts a request: method, route template, status, time to the answer's head.
pub async fn count<E: Endpoint>(
    telemetry: Arc<Telemetry>,
    ep: Arc<E>,
    req: Request,
) -> poem::Result<Response> {
    let started = Instant::now();
    let method = req.method().clone();
    let route = route_label(req.uri().path());
    let answer = ep.call(req).await.map(IntoResponse::into_response);
    let status = match &answer {
        Ok(r) => r.status(),
        Err(e) => e.status(),
    };
    telemetry.request(
        method.as_str(),
        route,
        status.as_u16(),
        started.elapsed().as_secs_f64(),
    );
    answer
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_are_templates_never_raw_paths() {
        assert_eq!(route_label("/api/users/42"), "/api/users/{id}");
        assert_eq!(route_label("/api/no/such/thing/9"), "/api/other");
        assert_eq!(route_label("/dashboard/anything"), "ui");
        assert_eq!(route_label("/metrics"), "/metrics");
    }
}
