//! `cxwatch serve`: the console over TLS (or plain HTTP when asked), `/api` embedded or
//! proxied, `/healthz`, `/tenant-config`, the embedded UI, security headers on every
//! response, graceful shutdown on SIGTERM/SIGINT, the TLS certificate reloaded on SIGHUP
//! ([`tls::Tls`]), and systemd's readiness and watchdog ([`systemd`]).
//!
//! | path | answered by |
//! |---|---|
//! | `/healthz` | [`healthz`] |
//! | `/metrics` | [`metrics::metrics`] (Prometheus; also on `metrics.listen`) |
//! | `/tenant-config` | [`tenant::tenant_config`] |
//! | `/api`, `/api/*` | `crate::api` (embedded) or `crate::proxy` (proxy), behind [`limits::BodyLimits`]; never the UI |
//! | anything else | [`assets::UiEndpoint`] |

pub mod assets;
pub mod compress;
pub mod conn;
pub mod h1;
pub mod headers;
pub mod limits;
pub mod metrics;
pub mod systemd;
pub mod tenant;
pub mod tls;

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use poem::{get, handler, Endpoint, EndpointExt, IntoResponse, Route};

use crate::api::AppState;
use crate::config::{ApiMode, Config};
use crate::store::Store;
use crate::telemetry::Telemetry;

/// How long open requests may take to finish after SIGTERM.
const SHUTDOWN_GRACE: Duration = Duration::from_secs(10);

/// What `serve` needs beyond the config.
pub struct ServeOptions {
    /// Embedded mode: the opened store.
    pub store: Option<Store>,
    /// The bound listener ([`bind`]); bound here when `None`.
    pub listener: Option<tokio::net::TcpListener>,
}

/// Health: the server answers, and in embedded mode its database does too (PostgreSQL may
/// be down or unreachable while the console runs) and the data directory's disk has room
/// for ingest (`store.min_free_mb`): 200 `ok`, else 503 with the reason, so a load balancer
/// sends no requests to an instance that cannot serve them and an operator reads why.
#[handler]
async fn healthz(store: poem::web::Data<&Option<Store>>) -> poem::Response {
    let Some(store) = store.0 else {
        return "ok".into_response();
    };
    let answered = tokio::time::timeout(std::time::Duration::from_secs(5), store.ping()).await;
    match answered {
        Ok(Ok(())) => match store.space_shortage() {
            None => "ok".into_response(),
            Some(reason) => unavailable(format!("disk space low: {reason}")),
        },
        Ok(Err(e)) => unavailable(format!("database unavailable: {e}")),
        Err(_) => unavailable("database unavailable: no answer within 5 seconds".into()),
    }
}

fn unavailable(reason: String) -> poem::Response {
    tracing::warn!(%reason, "healthz");
    poem::Response::builder()
        .status(poem::http::StatusCode::SERVICE_UNAVAILABLE)
        .content_type("text/plain; charset=utf-8")
        .body(reason)
}

/// Builds the whole application (used by `serve` and by tests).
pub fn app(
    config: Arc<Config>,
    store: Option<Store>,
) -> anyhow::Result<poem::endpoint::BoxEndpoint<'static>> {
    app_with(config, store, Arc::new(Telemetry::new()))
}

/// [`app`] counting into the given metrics (`serve` shares them with the metrics listener).
pub fn app_with(
    config: Arc<Config>,
    store: Option<Store>,
    telemetry: Arc<Telemetry>,
) -> anyhow::Result<poem::endpoint::BoxEndpoint<'static>> {
    Ok(app_parts(config, store, telemetry)?.0)
}

/// [`app_with`], and in proxy mode the proxy it forwards with (for [`h1`]).
fn app_parts(
    config: Arc<Config>,
    store: Option<Store>,
    telemetry: Arc<Telemetry>,
) -> anyhow::Result<(
    poem::endpoint::BoxEndpoint<'static>,
    Option<Arc<crate::proxy::Proxy>>,
)> {
    // The in-process tests build the app without the command line: the clock is set here too.
    if let Some(start) = config.clock_start() {
        crate::clock::pin(Some(start));
    }
    let scrape = metrics::Scrape {
        telemetry: telemetry.clone(),
        store: store.clone(),
        token: config.metrics.token.trim().to_string(),
    };
    let state = match (config.api.mode, store) {
        (ApiMode::Embedded, Some(store)) => Some(AppState {
            config: {
                store.configure_alerts(crate::store::alerts::AlertOptions {
                    enabled: true,
                    public_url: config.notify.public_url.clone(),
                    attach_max_bytes: config.notify.attach_recording_max_bytes,
                });
                config.clone()
            },
            // The outbox's sender runs beside the server (not in `cxwatch openapi`).
            notifier: match tokio::runtime::Handle::try_current() {
                Ok(_) => {
                    crate::notify::tickets::start(store.clone(), &config)?;
                    let notifier = crate::notify::Notifier::start(store.clone(), &config)?;
                    crate::notify::reports::start(store.clone(), config.clone(), notifier.clone());
                    crate::notify::escalations::start(store.clone(), &config, notifier.clone());
                    notifier
                }
                Err(_) => crate::notify::Notifier::new(&config.notify),
            },
            store,
            throttle: Default::default(),
            key_use: Default::default(),
            sso: Default::default(),
            telemetry: telemetry.clone(),
            live: Default::default(),
        }),
        (ApiMode::Embedded, None) => anyhow::bail!("embedded mode needs the store"),
        (ApiMode::Proxy, _) => None,
    };
    let proxy = match &state {
        Some(_) => None,
        None => Some(Arc::new(crate::proxy::Proxy::new(config.clone())?)),
    };
    let api = match (&state, &proxy) {
        (Some(state), _) => crate::api::boxed(state.clone()),
        (None, Some(proxy)) => proxy.clone().boxed(),
        (None, None) => unreachable!("proxy mode has its proxy"),
    };
    let route = Route::new()
        .at(
            "/healthz",
            get(healthz).data(state.as_ref().map(|s| s.store.clone())),
        )
        .at("/metrics", get(metrics::metrics).data(scrape))
        .at(
            "/tenant-config",
            get(tenant::tenant_config).data(config.clone()),
        )
        .nest("/api", with_cors(&config.server.cors_origins, api))
        .nest("/", assets::UiEndpoint::embedded())
        .around(move |ep, req| {
            let state = state.clone();
            async move {
                if req.uri().path().starts_with("/api/") {
                    if let Some(refusal) = limits::head_too_large(&req) {
                        return Ok(refusal);
                    }
                    if let Some(refusal) = crate::api::undecodable_path(state.as_ref(), &req).await
                    {
                        return Ok(refusal);
                    }
                }
                ep.call(req).await.map(IntoResponse::into_response)
            }
        })
        .with(headers::SecurityHeaders {
            tls: !config.server.plain_http,
            include_subdomains: config.server.hsts_include_subdomains,
        })
        .around(move |ep, req| metrics::count(telemetry.clone(), ep, req));
    Ok((route.boxed(), proxy))
}

/// `/api` with its body limits and compression, and (`server.cors_origins` set) CORS for
/// those origins: bearer tokens in `Authorization`, no cookies. A request from another
/// origin (the console's own pages send `Origin` too) is answered as without CORS.
fn with_cors(
    origins: &[String],
    api: poem::endpoint::BoxEndpoint<'static>,
) -> poem::endpoint::BoxEndpoint<'static> {
    use poem::http::Method;
    use poem::Middleware;
    let api = Arc::new(api.with(limits::BodyLimits).around(compress::json_answers));
    if origins.is_empty() {
        return api.boxed();
    }
    let cors = poem::middleware::Cors::new()
        .allow_origins(origins.iter().map(String::as_str))
        .allow_methods([
            Method::GET,
            Method::POST,
            Method::PUT,
            Method::PATCH,
            Method::DELETE,
        ])
        .allow_headers(["authorization", "content-type", "x-api-key"])
        .expose_headers(["content-disposition"])
        .allow_credentials(false)
        .max_age(600)
        .transform(api.clone());
    CorsFor {
        plain: api,
        cors,
        allowed: origins.to_vec(),
    }
    .boxed()
}

/// `/api` through poem's CORS middleware for a request whose `Origin` is listed, as is for
/// any other; `Vary: Origin` on both.
struct CorsFor<E: Endpoint, C: Endpoint> {
    plain: Arc<E>,
    cors: C,
    allowed: Vec<String>,
}

impl<E: Endpoint, C: Endpoint> Endpoint for CorsFor<E, C> {
    type Output = poem::Response;

    async fn call(&self, req: poem::Request) -> poem::Result<poem::Response> {
        use poem::http::{header, HeaderValue};
        let listed = req
            .headers()
            .get(header::ORIGIN)
            .and_then(|o| o.to_str().ok())
            .is_some_and(|o| self.allowed.iter().any(|a| a == o));
        let mut resp = if listed {
            self.cors.call(req).await?.into_response()
        } else {
            self.plain.call(req).await?.into_response()
        };
        // The answer depends on the Origin: caches must not mix them.
        resp.headers_mut()
            .append(header::VARY, HeaderValue::from_static("Origin"));
        Ok(resp)
    }
}

/// Binds `server.listen`; done first, so a busy port fails before anything else starts.
pub async fn bind(config: &Config) -> anyhow::Result<tokio::net::TcpListener> {
    let listen = config.server.listen;
    tokio::net::TcpListener::bind(listen)
        .await
        .map_err(|e| anyhow::anyhow!("server.listen: cannot listen on {listen}: {e}"))
}

/// Runs until SIGTERM or SIGINT, then lets open requests finish. SIGHUP reloads the TLS
/// certificate.
pub async fn serve(config: Arc<Config>, opts: ServeOptions) -> anyhow::Result<()> {
    let listener = match opts.listener {
        Some(l) => l,
        None => bind(&config).await?,
    };
    let telemetry = Arc::new(Telemetry::new());
    let scrape = metrics::Scrape {
        telemetry: telemetry.clone(),
        store: opts.store.clone(),
        token: config.metrics.token.trim().to_string(),
    };
    let metrics_listener = metrics::listen(&config, scrape).await?;
    let retention = opts
        .store
        .clone()
        .map(|store| tokio::spawn(audit_retention(store, config.audit.retention_days)));
    let release = opts.store.clone();
    let (app, proxy) = app_parts(config.clone(), opts.store, telemetry.clone())?;
    let security = headers::SecurityHeaders {
        tls: !config.server.plain_http,
        include_subdomains: config.server.hsts_include_subdomains,
    };
    let h1 = proxy.map(|proxy| {
        Arc::new(h1::H1Proxy::new(
            proxy,
            telemetry.clone(),
            security.hsts(),
            config.server.cors_origins.clone(),
        ))
    });
    let shutdown = shutdown_signal()?;
    let reload = reload_signal()?;
    let mut limits = conn::Limits::from_config(&config.server);
    if let Some(open_files) = conn::raise_open_files_limit() {
        // Room for the database, recordings, upstream connections and the listener.
        let room = (open_files.saturating_sub(128) as usize).max(16);
        if limits.max_connections > room {
            tracing::warn!(
                max_connections = limits.max_connections,
                open_files,
                lowered_to = room,
                "server.max_connections is above what the limit of open files allows"
            );
            limits.max_connections = room;
        }
    }
    let (tls, scheme) = if config.server.plain_http {
        tracing::warn!(listen = %config.server.listen,
            "serving plain HTTP: put a TLS-terminating proxy in front");
        (None, "http")
    } else {
        let tls = tls::Tls::load(config.clone(), telemetry)?;
        (Some(Arc::new(tls)), "https")
    };
    let addr = listener.local_addr()?;
    tracing::info!(%addr, "serving {scheme}://{addr}/");
    systemd::notify(&[
        systemd::NotifyState::Ready,
        systemd::NotifyState::Status("serving"),
    ]);
    let mut tasks = vec![tokio::spawn(reloads(reload, tls.clone()))];
    if let Some(tls) = tls.clone() {
        tasks.push(tokio::spawn(expiry_checks(tls)));
    }
    if let Some(interval) = systemd::watchdog_interval() {
        tasks.push(tokio::spawn(systemd::watchdog(
            addr,
            tls.is_some(),
            interval,
        )));
    }
    if let Some(store) = release {
        tasks.push(tokio::spawn(async move {
            let mut every = tokio::time::interval(RELEASE_EVERY);
            loop {
                every.tick().await;
                store.release_memory();
            }
        }));
    }
    let server_tls = tls.as_ref().map(|t| t.server_config());
    conn::run(
        listener,
        server_tls,
        app,
        h1,
        limits,
        shutdown,
        SHUTDOWN_GRACE,
    )
    .await?;
    for task in tasks {
        task.abort();
    }
    if let Some(r) = retention {
        r.abort();
    }
    if let Some(l) = metrics_listener {
        l.abort();
    }
    tracing::info!("stopped");
    Ok(())
}

/// Deletes audit records older than `audit.retention_days` (0: never), at start and daily.
async fn audit_retention(store: Store, days: u32) {
    if days == 0 {
        return;
    }
    let mut every = tokio::time::interval(Duration::from_secs(24 * 60 * 60));
    loop {
        every.tick().await;
        let before = crate::store::now_secs() - i64::from(days) * 24 * 60 * 60;
        match store.purge_audit(before).await {
            Ok(0) => {}
            Ok(n) => tracing::info!(deleted = n, days, "old audit records deleted"),
            Err(e) => tracing::warn!(error = %e, "audit retention failed"),
        }
    }
}

/// How often the store's idle caches are handed back ([`crate::store::OpsStore::release_memory`]).
const RELEASE_EVERY: std::time::Duration = std::time::Duration::from_secs(30);

/// Resolves on SIGTERM or SIGINT. The handlers are installed at once, so a signal that
/// arrives while the server starts is not lost.
fn shutdown_signal() -> anyhow::Result<impl Future<Output = ()>> {
    #[cfg(unix)]
    let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        .map_err(|e| anyhow::anyhow!("cannot install the SIGTERM handler: {e}"))?;
    #[cfg(unix)]
    let mut int = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::interrupt())
        .map_err(|e| anyhow::anyhow!("cannot install the SIGINT handler: {e}"))?;
    Ok(async move {
        #[cfg(unix)]
        tokio::select! {
            _ = term.recv() => {}
            _ = int.recv() => {}
        }
        #[cfg(not(unix))]
        let _ = tokio::signal::ctrl_c().await;
        tracing::info!("shutting down");
        systemd::notify(&[systemd::NotifyState::Stopping]);
    })
}

/// The SIGHUP handler, installed at start-up: from then on SIGHUP (`systemctl reload`)
/// reloads the certificate instead of ending the process, as is its default.
#[cfg(unix)]
fn reload_signal() -> anyhow::Result<tokio::signal::unix::Signal> {
    tokio::signal::unix::signal(tokio::signal::unix::SignalKind::hangup())
        .map_err(|e| anyhow::anyhow!("cannot install the SIGHUP handler: {e}"))
}

#[cfg(not(unix))]
fn reload_signal() -> anyhow::Result<()> {
    Ok(())
}

/// Reloads the TLS certificate on each SIGHUP, telling systemd (`RELOADING=1`, then
/// `READY=1`): the listener and open connections stay, new handshakes get the new
/// certificate. What else the config says is read at start-up only.
#[cfg(unix)]
async fn reloads(mut hup: tokio::signal::unix::Signal, tls: Option<Arc<tls::Tls>>) {
    while hup.recv().await.is_some() {
        let Some(tls) = &tls else {
            tracing::info!("SIGHUP: plain HTTP, no certificate to reload");
            continue;
        };
        let mut reloading = vec![systemd::NotifyState::Reloading];
        // systemd 253+ wants the time of the reload with RELOADING=1.
        if let Ok(now) = systemd::NotifyState::monotonic_usec_now() {
            reloading.push(now);
        }
        systemd::notify(&reloading);
        let status = match tls.reload() {
            Ok(()) => "serving",
            Err(_) => "serving; the last reload of the TLS certificate failed (see the log)",
        };
        systemd::notify(&[
            systemd::NotifyState::Ready,
            systemd::NotifyState::Status(status),
        ]);
    }
}

#[cfg(not(unix))]
async fn reloads(_hup: (), _tls: Option<Arc<tls::Tls>>) {}

/// The served certificate's daily check (`Tls::check_expiry`), the first at start-up.
async fn expiry_checks(tls: Arc<tls::Tls>) {
    let mut every = tokio::time::interval(Duration::from_secs(24 * 60 * 60));
    loop {
        every.tick().await;
        tls.check_expiry(tls::unix_now());
    }
}
