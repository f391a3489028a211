//! The connection loop: accepts TCP connections, does the TLS handshake and serves HTTP/1.1
//! and HTTP/2 with hyper, with the limits a careless or hostile client needs:
//!
//! - `server.tls_handshake_timeout_secs`: a connection that does not finish its TLS
//!   handshake in time is closed;
//! - `server.header_timeout_secs`: the first request's headers must arrive in time after the
//!   handshake (HTTP/1.1: every request's headers, and the wait for the next one);
//! - `server.idle_timeout_secs`: a connection with no request in progress for this long is
//!   closed (keep-alive and HTTP/2);
//! - `server.max_connections`: at the cap, the oldest connection without a request in
//!   progress is closed to make room for a new one (an idle socket is cheap to drop; a
//!   health check or a person must still get in); when every connection is busy the new
//!   one is refused.
//!
//! Closing a connection for inactivity is graceful: a response being sent is finished.
//! On shutdown, no connection is accepted and open requests get `grace` to finish.

use std::collections::BTreeMap;
use std::convert::Infallible;
use std::future::Future;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use hyper::body::Incoming;
use hyper_util::rt::{TokioExecutor, TokioIo, TokioTimer};
use hyper_util::server::conn::auto;
use poem::endpoint::BoxEndpoint;
use poem::http::uri::Scheme;
use poem::web::{LocalAddr, RemoteAddr};
use poem::Endpoint;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{watch, Notify};

use super::h1::{H1Proxy, Served};
use crate::config::ServerConfig;

/// Most header lines hyper parses in an HTTP/1.1 request (its default is 100, which
/// refused 101 small headers, about 10 KB, with an empty 431). 32 bytes a line on average
/// still fit `limits::MAX_HEADER_BYTES`, which is what refuses a large head, in the
/// envelope. Above this count hyper answers 431 with an empty body itself.
pub const MAX_HEADER_LINES: usize = 1024;

/// Most bytes of an HTTP/2 request's header list as HTTP/2 counts them (names, values and
/// 32 bytes a field; hyper's default is 16 KiB): room for `limits::MAX_HEADER_BYTES` of
/// names and values in up to [`MAX_HEADER_LINES`] fields, so that the envelope's 431
/// decides there too. Above this the HTTP/2 layer answers 431 with an empty body (far
/// above, it refuses the stream). HTTP/2 has no limit on the number of fields.
pub const MAX_H2_HEADER_LIST: u32 =
    (super::limits::MAX_HEADER_BYTES + 32 * MAX_HEADER_LINES) as u32;

/// The limits of [`run`], from `[server]`.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub max_connections: usize,
    pub tls_handshake_timeout: Duration,
    pub header_timeout: Duration,
    pub idle_timeout: Duration,
}

impl Limits {
    pub fn from_config(c: &ServerConfig) -> Limits {
        Limits {
            max_connections: c.max_connections.max(1),
            tls_handshake_timeout: Duration::from_secs(c.tls_handshake_timeout_secs),
            header_timeout: Duration::from_secs(c.header_timeout_secs),
            idle_timeout: Duration::from_secs(c.idle_timeout_secs),
        }
    }
}

/// One open connection, as the accept loop sees it.
struct Entry {
    /// Requests in progress.
    busy: Arc<Activity>,
    /// Wakes the connection's task to close it at once.
    evict: Arc<Notify>,
}

/// What a connection is doing: requests in progress, requests seen, and since when it has
/// been without a request (ms since `epoch`).
pub(super) struct Activity {
    epoch: Instant,
    busy: AtomicUsize,
    requests: AtomicU64,
    idle_since_ms: AtomicU64,
}

impl Activity {
    fn new() -> Activity {
        Activity {
            epoch: Instant::now(),
            busy: AtomicUsize::new(0),
            requests: AtomicU64::new(0),
            idle_since_ms: AtomicU64::new(0),
        }
    }
    fn now_ms(&self) -> u64 {
        self.epoch.elapsed().as_millis() as u64
    }
    pub(super) fn begin(self: &Arc<Self>) -> Busy {
        self.busy.fetch_add(1, Ordering::AcqRel);
        self.requests.fetch_add(1, Ordering::AcqRel);
        Busy(self.clone())
    }
    fn is_idle(&self) -> bool {
        self.busy.load(Ordering::Acquire) == 0
    }
    /// How long the connection has been without a request in progress (zero when busy).
    fn idle_for(&self) -> Duration {
        if !self.is_idle() {
            return Duration::ZERO;
        }
        let since = self.idle_since_ms.load(Ordering::Acquire);
        Duration::from_millis(self.now_ms().saturating_sub(since))
    }
}

/// A request in progress; dropped when its handler returns or the client goes away.
pub(super) struct Busy(Arc<Activity>);

impl Drop for Busy {
    fn drop(&mut self) {
        self.0
            .idle_since_ms
            .store(self.0.now_ms(), Ordering::Release);
        self.0.busy.fetch_sub(1, Ordering::AcqRel);
    }
}

#[derive(Default)]
struct Conns {
    next: u64,
    open: BTreeMap<u64, Entry>,
}

impl Conns {
    /// Makes room for one more connection; false when every connection is busy.
    fn make_room(&mut self, max: usize) -> bool {
        while self.open.len() >= max {
            let oldest_idle = self
                .open
                .iter()
                .find(|(_, e)| e.busy.is_idle())
                .map(|(id, _)| *id);
            match oldest_idle {
                Some(id) => {
                    if let Some(e) = self.open.remove(&id) {
                        e.evict.notify_one();
                    }
                }
                None => return false,
            }
        }
        true
    }
}

/// Removes the connection from the table when its task ends.
struct Registration {
    id: u64,
    conns: Arc<Mutex<Conns>>,
}

impl Drop for Registration {
    fn drop(&mut self) {
        lock(&self.conns).open.remove(&self.id);
    }
}

fn lock(conns: &Mutex<Conns>) -> std::sync::MutexGuard<'_, Conns> {
    conns.lock().unwrap_or_else(|e| e.into_inner())
}

/// Serves `app` on `listener` until `shutdown` resolves, then gives open requests `grace`.
/// `h1`: proxy mode's HTTP/1.1 path, which sees each HTTP/1.1 connection first.
pub async fn run(
    listener: TcpListener,
    tls: Option<Arc<rustls::ServerConfig>>,
    app: BoxEndpoint<'static>,
    h1: Option<Arc<H1Proxy>>,
    limits: Limits,
    shutdown: impl Future<Output = ()>,
    grace: Duration,
) -> std::io::Result<()> {
    let app = Arc::new(app);
    let tls = tls.map(tokio_rustls::TlsAcceptor::from);
    let local = listener.local_addr()?;
    let conns = Arc::new(Mutex::new(Conns::default()));
    let (stop_tx, stop_rx) = watch::channel(false);
    tokio::pin!(shutdown);
    loop {
        let (tcp, remote) = tokio::select! {
            _ = &mut shutdown => break,
            accepted = listener.accept() => match accepted {
                Ok(a) => a,
                Err(e) => {
                    // Out of file descriptors and the like: wait instead of spinning.
                    tracing::warn!(error = %e, "cannot accept a connection");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
        };
        let activity = Arc::new(Activity::new());
        let evict = Arc::new(Notify::new());
        let id = {
            let mut c = lock(&conns);
            if !c.make_room(limits.max_connections) {
                tracing::warn!(%remote, max = limits.max_connections,
                    "server.max_connections reached and every connection is busy: refused");
                continue;
            }
            let id = c.next;
            c.next += 1;
            c.open.insert(
                id,
                Entry {
                    busy: activity.clone(),
                    evict: evict.clone(),
                },
            );
            id
        };
        let registration = Registration {
            id,
            conns: conns.clone(),
        };
        let conn = Connection {
            app: app.clone(),
            h1: h1.clone(),
            tls: tls.clone(),
            local,
            remote,
            limits,
            activity,
            stop: stop_rx.clone(),
        };
        tokio::spawn(async move {
            let _registration = registration;
            tokio::select! {
                _ = conn.serve(tcp) => {}
                _ = evict.notified() => {
                    tracing::debug!(%remote, "closed an idle connection to make room");
                }
            }
        });
    }
    drop(listener);
    let _ = stop_tx.send(true);
    let deadline = Instant::now() + grace;
    while !lock(&conns).open.is_empty() && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    Ok(())
}

struct Connection {
    app: Arc<BoxEndpoint<'static>>,
    h1: Option<Arc<H1Proxy>>,
    tls: Option<tokio_rustls::TlsAcceptor>,
    local: SocketAddr,
    remote: SocketAddr,
    limits: Limits,
    activity: Arc<Activity>,
    stop: watch::Receiver<bool>,
}

impl Connection {
    async fn serve(self, tcp: TcpStream) {
        if let Err(e) = tcp.set_nodelay(true) {
            tracing::debug!(error = %e, "cannot set TCP_NODELAY");
        }
        let Some(tls) = self.tls.clone() else {
            return self.serve_h1_first(tcp, Scheme::HTTP, None).await;
        };
        let handshake = tokio::time::timeout(self.limits.tls_handshake_timeout, tls.accept(tcp));
        match handshake.await {
            Ok(Ok(stream)) => {
                let h2 = stream.get_ref().1.alpn_protocol() == Some(b"h2");
                if h2 {
                    self.serve_http(stream, Scheme::HTTPS, Some(true)).await
                } else {
                    self.serve_h1_first(stream, Scheme::HTTPS, Some(false))
                        .await
                }
            }
            Ok(Err(e)) => {
                tracing::debug!(remote = %self.remote, error = %e, "TLS handshake failed")
            }
            Err(_) => {
                tracing::debug!(remote = %self.remote, "TLS handshake timed out: connection closed")
            }
        }
    }

    /// A connection that may be HTTP/1.1: proxy mode's HTTP/1.1 path first, then hyper for
    /// what that path hands over.
    async fn serve_h1_first<Io>(mut self, io: Io, scheme: Scheme, h2: Option<bool>)
    where
        Io: AsyncRead + AsyncWrite + Send + Unpin + 'static,
    {
        let Some(h1) = self.h1.clone() else {
            return self.serve_http(io, scheme, h2).await;
        };
        let served = h1
            .serve(io, self.remote, self.limits, &self.activity, &mut self.stop)
            .await;
        if let Served::Elsewhere(io) = served {
            self.serve_http(io, scheme, h2).await
        }
    }

    /// `h2`: what ALPN chose (`None` without TLS: either, told by the first bytes).
    async fn serve_http<Io>(self, io: Io, scheme: Scheme, h2: Option<bool>)
    where
        Io: AsyncRead + AsyncWrite + Send + Unpin + 'static,
    {
        let Connection {
            app,
            local,
            remote,
            limits,
            activity,
            mut stop,
            ..
        } = self;
        activity
            .idle_since_ms
            .store(activity.now_ms(), Ordering::Release);
        let service = hyper::service::service_fn({
            let activity = activity.clone();
            move |req: hyper::Request<Incoming>| {
                let app = app.clone();
                let scheme = scheme.clone();
                let busy = activity.begin();
                async move {
                    let req = poem::Request::from((
                        req,
                        LocalAddr(local.into()),
                        RemoteAddr(remote.into()),
                        scheme,
                    ));
                    let resp = app.get_response(req).await;
                    drop(busy);
                    Ok::<hyper::Response<_>, Infallible>(resp.into())
                }
            }
        });
        let mut builder = auto::Builder::new(TokioExecutor::new());
        builder
            .http1()
            .timer(TokioTimer::new())
            .header_read_timeout(limits.header_timeout)
            .max_headers(MAX_HEADER_LINES);
        builder
            .http2()
            .timer(TokioTimer::new())
            .max_header_list_size(MAX_H2_HEADER_LIST);
        let builder = match h2 {
            Some(true) => builder.http2_only(),
            Some(false) => builder.http1_only(),
            None => builder,
        };
        let conn = builder.serve_connection_with_upgrades(TokioIo::new(io), service);
        tokio::pin!(conn);
        // Before the first request the header time-out applies, then the idle time-out.
        let quiet_too_long = async {
            loop {
                tokio::time::sleep(Duration::from_millis(250)).await;
                let limit = if activity.requests.load(Ordering::Acquire) == 0 {
                    limits.header_timeout
                } else {
                    limits.idle_timeout
                };
                if activity.idle_for() >= limit {
                    return;
                }
            }
        };
        tokio::select! {
            _ = conn.as_mut() => return,
            _ = quiet_too_long => {
                tracing::debug!(%remote, "connection idle: closed");
            }
            _ = stop.changed() => {}
        }
        conn.as_mut().graceful_shutdown();
        // What is in progress may finish; a peer that never reads does not hold the task.
        let _ = tokio::time::timeout(limits.idle_timeout.max(limits.header_timeout), conn).await;
    }
}

/// Raises this process's soft limit of open files to its hard limit; returns the limit.
pub fn raise_open_files_limit() -> Option<u64> {
    #[cfg(unix)]
    unsafe {
        let mut lim = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) != 0 {
            return None;
        }
        if lim.rlim_cur < lim.rlim_max {
            let raised = libc::rlimit {
                rlim_cur: lim.rlim_max,
                rlim_max: lim.rlim_max,
            };
            if libc::setrlimit(libc::RLIMIT_NOFILE, &raised) == 0 {
                lim.rlim_cur = lim.rlim_max;
            }
        }
        #[allow(clippy::unnecessary_cast)] // rlim_t is not u64 everywhere
        Some(lim.rlim_cur as u64)
    }
    #[cfg(not(unix))]
    None
}
