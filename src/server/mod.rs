//! `cxwatch serve`: the console over TLS (or plain HTTP when asked), `/api` embedded or
//! proxied, `/healthz`, the embedded UI, graceful shutdown.

pub mod assets;
pub mod tls;

use std::sync::Arc;

use poem::listener::{Listener, TcpListener};
use poem::{get, handler, EndpointExt, Route, Server};

use crate::api::AppState;
use crate::config::{ApiMode, Config};
use crate::store::Store;

/// What `serve` needs beyond the config.
pub struct ServeOptions {
    /// Embedded mode: the opened store.
    pub store: Option<Store>,
}

#[handler]
fn healthz() -> &'static str {
    "ok"
}

/// Builds the whole application (used by `serve` and by tests).
pub fn app(
    config: Arc<Config>,
    store: Option<Store>,
) -> anyhow::Result<poem::endpoint::BoxEndpoint<'static>> {
    let api = match (config.api.mode, store) {
        (ApiMode::Embedded, Some(store)) => crate::api::boxed(AppState {
            config: config.clone(),
            store,
            throttle: Default::default(),
        }),
        (ApiMode::Embedded, None) => anyhow::bail!("embedded mode needs the store"),
        (ApiMode::Proxy, _) => anyhow::bail!("proxy mode is not built yet"),
    };
    let route = Route::new()
        .at("/healthz", get(healthz))
        .nest("/api", api)
        .nest("/", assets::UiEndpoint);
    Ok(route.boxed())
}

/// Runs until SIGTERM or SIGINT.
pub async fn serve(config: Arc<Config>, opts: ServeOptions) -> anyhow::Result<()> {
    let app = app(config.clone(), opts.store)?;
    let listen = config.server.listen;
    let shutdown = shutdown_signal();
    if config.server.plain_http {
        tracing::warn!(%listen, "serving plain HTTP: put a TLS-terminating proxy in front");
        Server::new(TcpListener::bind(listen))
            .run_with_graceful_shutdown(app, shutdown, Some(std::time::Duration::from_secs(10)))
            .await?;
    } else {
        let tls = tls::load_or_generate(&config)?;
        tracing::info!(%listen, "serving HTTPS");
        Server::new(TcpListener::bind(listen).rustls(tls))
            .run_with_graceful_shutdown(app, shutdown, Some(std::time::Duration::from_secs(10)))
            .await?;
    }
    tracing::info!("stopped");
    Ok(())
}

async fn shutdown_signal() {
    let ctrl_c = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
            .expect("SIGTERM handler");
        tokio::select! {
            _ = ctrl_c => {}
            _ = term.recv() => {}
        }
    }
    #[cfg(not(unix))]
    let _ = ctrl_c.await;
    tracing::info!("shutting down");
}
