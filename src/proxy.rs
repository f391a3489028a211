//! Proxy mode (`api.mode = "proxy"`): `/api/*` is forwarded to the upstream of the tenant
//! the request's host belongs to.
//!
//! - The tenant is chosen by the request's host (port ignored) among the configured
//!   `[[tenants]]`; an unknown host gets a 404 JSON answer and nothing is forwarded.
//! - Only the request's path and query are appended to the configured upstream address;
//!   an absolute URL or authority in the request is never followed, nor are redirects.
//! - The path must mean the same to every upstream, whatever it decodes or folds: one that an
//!   upstream could resolve outside `/api` is refused (400, the reason in `messages`) and
//!   nothing is forwarded. [`check_path`] is the rule; the path forwarded is the one checked.
//!   The address built must still start with the upstream's base path followed by `/api/`.
//! - Bodies stream both ways. Hop-by-hop headers are dropped; `Forwarded`, `X-Forwarded-For`,
//!   `-Proto` and `-Host` are replaced with what the proxy saw (the client's own values are
//!   dropped: anyone can send them). A request with two `Host` headers or a port that is not a
//!   number is refused (400). The upstream's `Set-Cookie` and `Access-Control-*` headers are
//!   dropped: the console is same-origin and signs in with bearer tokens.
//! - Logs name the path only, never the query (it may hold one-time ids).
//! - Upstream unreachable, or answering a status outside 100–599: 502 `BAD_GATEWAY`; no
//!   answer within `proxy.timeout_secs`: 504 `GATEWAY_TIMEOUT`. The detail goes to the log.
//!   An answer body that stops coming for as long is cut there (its status is already sent).
//!
//! Proxy mode's HTTP/1.1 connections are served first by `server::h1`, below hyper and poem,
//! which calls the same rules ([`Proxy::target`], [`Proxy::forward_headers`],
//! [`answer_headers`] and the errors) over a connection of its own ([`Upstream::connect`]);
//! this module's endpoint answers whatever that path hands to poem.

use std::fmt::Write;
use std::future::Future;
use std::net::IpAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Empty};
use hyper::body::{Frame, Incoming, SizeHint};
use hyper_rustls::HttpsConnector;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::{TokioExecutor, TokioTimer};
use poem::http::header::{self, HeaderMap, HeaderName, HeaderValue};
use poem::http::{Method, StatusCode, Uri, Version};
use poem::{Body, Endpoint, Request, Response};
use rustls::pki_types::ServerName;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpStream;
use url::Url;

use crate::api::envelope::json_error;
use crate::config::{Config, TenantConfig};
use crate::trust::Roots;

/// Forwards `/api/*` to the tenants' upstreams.
pub struct Proxy {
    config: Arc<Config>,
    upstreams: Vec<Upstream>,
    timeout: Duration,
    /// Scheme the console is reached with, for `X-Forwarded-Proto`.
    proto: &'static str,
}

pub struct Upstream {
    name: String,
    base: Url,
    client: Client,
    dial: Dial,
}

/// How to open a connection of one's own to the upstream (the HTTP/1.1 path below hyper,
/// `server::h1`): the same address, certificate checks and time-out as hyper's client.
struct Dial {
    host: String,
    port: u16,
    /// `Host` as hyper's client sends it: the port only when not the scheme's own.
    authority: String,
    tls: Option<(tokio_rustls::TlsConnector, ServerName<'static>)>,
    timeout: Duration,
}

/// A connection to an upstream, plain or over rustls.
pub trait UpstreamIo: AsyncRead + AsyncWrite + Send + Unpin {}
impl<T: AsyncRead + AsyncWrite + Send + Unpin> UpstreamIo for T {}

/// What travels through the proxy both ways, as poem's bodies are.
type ProxyBody = BoxBody<Bytes, std::io::Error>;
/// hyper's pooling HTTP/1.1 client, plain or over rustls: the upstream hop with nothing
/// between the two connections but the rules above.
type Client = hyper_util::client::legacy::Client<HttpsConnector<HttpConnector>, ProxyBody>;

impl Proxy {
    /// One HTTP client per tenant, with the tenant's certificate settings.
    pub fn new(config: Arc<Config>) -> anyhow::Result<Proxy> {
        let timeout = Duration::from_secs(config.proxy.timeout_secs);
        let mut upstreams = Vec::new();
        for (i, tenant) in config.tenants.iter().enumerate() {
            upstreams.push(Upstream::new(i, tenant, timeout)?);
        }
        Ok(Proxy {
            proto: if config.server.plain_http {
                "http"
            } else {
                "https"
            },
            config,
            upstreams,
            timeout,
        })
    }

    fn upstream_for(&self, host: &str) -> Option<&Upstream> {
        let tenant = self.config.tenant_for_host(host)?;
        let i = self
            .config
            .tenants
            .iter()
            .position(|t| std::ptr::eq(t, tenant))?;
        self.upstreams.get(i)
    }
}

impl Upstream {
    fn new(i: usize, tenant: &TenantConfig, timeout: Duration) -> anyhow::Result<Upstream> {
        let key = |k: &str| format!("tenants[{i}].{k}");
        let base = tenant
            .upstream
            .as_deref()
            .ok_or_else(|| anyhow::anyhow!("{}: proxy mode needs an upstream", key("upstream")))?;
        let base = Url::parse(base).map_err(|e| anyhow::anyhow!("{}: {e}", key("upstream")))?;
        let section = format!("tenants[{i}]");
        let tls = if tenant.upstream_insecure {
            tracing::warn!(
                tenant = %tenant.name,
                "tenants[{i}].upstream_insecure = true: the upstream's certificate is not checked"
            );
            crate::trust::any_certificate_config()
        } else {
            crate::trust::client_config(Roots {
                section: &section,
                trust_key: "upstream_trust",
                trust: tenant.upstream_trust,
                ca_key: "upstream_ca",
                ca: tenant.upstream_ca.as_deref(),
            })
            .map_err(anyhow::Error::msg)?
        };
        let dial = Dial::new(&base, &tls, timeout)
            .map_err(|e| anyhow::anyhow!("{}: {e}", key("upstream")))?;
        let mut tcp = HttpConnector::new();
        tcp.enforce_http(false);
        tcp.set_nodelay(true);
        tcp.set_connect_timeout(Some(timeout));
        let connector = hyper_rustls::HttpsConnectorBuilder::new()
            .with_tls_config(tls)
            .https_or_http()
            .enable_http1()
            .wrap_connector(tcp);
        // No redirect is followed and no proxy of the environment used: hyper's client does
        // neither.
        let client = hyper_util::client::legacy::Client::builder(TokioExecutor::new())
            .pool_idle_timeout(Duration::from_secs(60))
            .pool_timer(TokioTimer::new())
            .build(connector);
        Ok(Upstream {
            name: tenant.name.clone(),
            base,
            client,
            dial,
        })
    }

    /// The tenant's name, for logs.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// `Host` for requests to this upstream.
    pub fn authority(&self) -> &str {
        &self.dial.authority
    }

    /// A new connection to the upstream (TCP, then TLS for `https`), within the proxy's
    /// time-out.
    pub async fn connect(&self) -> std::io::Result<Box<dyn UpstreamIo>> {
        let d = &self.dial;
        let timed_out =
            || std::io::Error::new(std::io::ErrorKind::TimedOut, "connection timed out");
        let tcp = tokio::time::timeout(d.timeout, TcpStream::connect((d.host.as_str(), d.port)))
            .await
            .map_err(|_| timed_out())??;
        tcp.set_nodelay(true)?;
        let Some((tls, name)) = &d.tls else {
            return Ok(Box::new(tcp));
        };
        let tls = tokio::time::timeout(d.timeout, tls.connect(name.clone(), tcp))
            .await
            .map_err(|_| timed_out())??;
        Ok(Box::new(tls))
    }
}

impl Dial {
    fn new(base: &Url, tls: &rustls::ClientConfig, timeout: Duration) -> Result<Dial, String> {
        let host = match base.host() {
            Some(url::Host::Domain(d)) => d.to_string(),
            Some(url::Host::Ipv4(ip)) => ip.to_string(),
            Some(url::Host::Ipv6(ip)) => ip.to_string(),
            None => return Err("the address names no host".into()),
        };
        let port = base
            .port_or_known_default()
            .ok_or("the address names no port")?;
        let authority = match (base.host_str(), base.port()) {
            (Some(h), Some(p)) => format!("{h}:{p}"),
            (Some(h), None) => h.to_string(),
            (None, _) => unreachable!("a host was found above"),
        };
        let tls = match base.scheme() {
            "https" => {
                let mut config = tls.clone();
                config.alpn_protocols = vec![b"http/1.1".to_vec()];
                let name = ServerName::try_from(host.clone()).map_err(|e| e.to_string())?;
                Some((tokio_rustls::TlsConnector::from(Arc::new(config)), name))
            }
            "http" => None,
            other => return Err(format!("the scheme '{other}' is neither http nor https")),
        };
        Ok(Dial {
            host,
            port,
            authority,
            tls,
            timeout,
        })
    }
}

/// Where a proxied request goes, once its host and path are accepted.
pub struct Target<'a> {
    pub upstream: &'a Upstream,
    pub url: Url,
    /// `url` as hyper's client takes it.
    pub uri: Uri,
    /// The host the client named (for the forwarding headers).
    pub host: String,
}

/// Why a request is not forwarded: its answer, in the envelope.
pub struct Refusal {
    status: StatusCode,
    message: std::borrow::Cow<'static, str>,
}

impl Refusal {
    fn new(status: StatusCode, message: impl Into<std::borrow::Cow<'static, str>>) -> Refusal {
        Refusal {
            status,
            message: message.into(),
        }
    }

    pub fn into_response(self) -> Response {
        json_error(self.status, &self.message)
    }
}

impl Proxy {
    /// The upstream and address of a request (`authority`: that of an absolute-form or
    /// HTTP/2 request), or the answer that refuses it: nothing is forwarded then. `log`:
    /// say why in the log (the HTTP/1.1 path below hyper hands a refused request to this
    /// module's endpoint, which says it).
    pub fn target(
        &self,
        headers: &HeaderMap,
        authority: Option<&str>,
        path_and_query: &str,
        log: bool,
    ) -> Result<Target<'_>, Refusal> {
        if let Err(msg) = check_host_header(headers) {
            return Err(Refusal::new(StatusCode::BAD_REQUEST, msg));
        }
        let path = path_and_query.split('?').next().unwrap_or_default();
        let Some(host) = request_host(authority, headers) else {
            return Err(Refusal::new(
                StatusCode::NOT_FOUND,
                "The request names no host, so no tenant can be chosen.",
            ));
        };
        let Some(upstream) = self.upstream_for(&host) else {
            if log {
                tracing::info!(%host, path, "proxy: no tenant for host");
            }
            return Err(Refusal::new(
                StatusCode::NOT_FOUND,
                format!("No tenant is configured for host '{}'.", strip_host(&host)),
            ));
        };
        let refused = |reason| {
            if log {
                tracing::info!(tenant = %upstream.name, path, reason, "proxy: path refused");
            }
            Refusal::new(StatusCode::BAD_REQUEST, reason)
        };
        let url = upstream_url(&upstream.base, path_and_query).map_err(refused)?;
        let Ok(uri) = url.as_str().parse::<Uri>() else {
            return Err(refused(
                "The request path is not forwarded: it makes no valid upstream address.",
            ));
        };
        Ok(Target {
            upstream,
            url,
            uri,
            host,
        })
    }

    /// The headers sent upstream for a request from `client_ip` to `target`.
    pub fn forward_headers(
        &self,
        incoming: HeaderMap,
        client_ip: Option<IpAddr>,
        target: &Target<'_>,
    ) -> HeaderMap {
        forward_request_headers(incoming, client_ip, &target.host, self.proto)
    }

    /// The answer when the upstream cannot be reached (`error` goes to the log).
    pub fn unreachable(&self, target: &Target<'_>, error: &dyn std::error::Error) -> Response {
        // The chain names the cause, never the address (its query may hold ids).
        tracing::warn!(tenant = %target.upstream.name, path = %target.url.path(),
            error = %error_chain(error), "proxy: upstream unreachable");
        json_error(
            StatusCode::BAD_GATEWAY,
            "The upstream service could not be reached; the cause is in the console's log.",
        )
    }

    /// The answer when the upstream's status is not an HTTP status (outside 100–599).
    pub fn not_a_status(&self, target: &Target<'_>, status: u16) -> Response {
        tracing::warn!(tenant = %target.upstream.name, path = %target.url.path(), status,
            "proxy: the upstream answered a status that is not an HTTP status");
        json_error(
            StatusCode::BAD_GATEWAY,
            &format!(
                "The upstream service answered with status {status}, which is not an HTTP status."
            ),
        )
    }

    /// The answer when the upstream sends no answer within `proxy.timeout_secs`.
    pub fn timed_out(&self, target: &Target<'_>) -> Response {
        tracing::warn!(tenant = %target.upstream.name, path = %target.url.path(),
            timeout_secs = self.timeout.as_secs(), "proxy: upstream timed out");
        json_error(
            StatusCode::GATEWAY_TIMEOUT,
            &format!(
                "The upstream service did not answer within {} s.",
                self.timeout.as_secs()
            ),
        )
    }

    /// `proxy.timeout_secs`: for the answer's head, and for each wait within its body.
    pub fn timeout(&self) -> Duration {
        self.timeout
    }
}

/// The headers of the upstream's answer as the client gets them: without the hop-by-hop
/// ones, cookies and CORS grants, and kept by no cache unless the upstream says how (as in
/// embedded mode: the answers hold the site's data and tokens).
pub fn answer_headers(upstream: HeaderMap) -> HeaderMap {
    let mut out = filter_response_headers(upstream);
    out.entry(header::CACHE_CONTROL)
        .or_insert(HeaderValue::from_static("no-store"));
    out
}

impl Endpoint for Proxy {
    type Output = Response;

    async fn call(&self, mut req: Request) -> poem::Result<Response> {
        let uri = req.original_uri();
        let pq = uri.path_and_query().map_or("/", |pq| pq.as_str());
        let target = match self.target(req.headers(), uri.authority().map(|a| a.as_str()), pq, true)
        {
            Ok(target) => target,
            Err(refusal) => return Ok(refusal.into_response()),
        };
        let client_ip = req.remote_addr().as_socket_addr().map(|a| a.ip());
        let body_follows = has_body(&req);
        let headers = self.forward_headers(std::mem::take(req.headers_mut()), client_ip, &target);
        let method = req.method().clone();
        let body: ProxyBody = if body_follows {
            req.take_body().into()
        } else {
            Empty::new().map_err(|never| match never {}).boxed()
        };
        let mut outgoing = hyper::Request::new(body);
        *outgoing.method_mut() = method.clone();
        *outgoing.uri_mut() = target.uri.clone();
        *outgoing.headers_mut() = headers;
        let started = std::time::Instant::now();
        let result =
            tokio::time::timeout(self.timeout, target.upstream.client.request(outgoing)).await;
        let resp = match result {
            Ok(Ok(resp)) => resp,
            Ok(Err(e)) if timed_out_error(&e) => return Ok(self.timed_out(&target)),
            Ok(Err(e)) => return Ok(self.unreachable(&target, &e)),
            Err(_) => return Ok(self.timed_out(&target)),
        };
        let status = resp.status().as_u16();
        tracing::debug!(tenant = %target.upstream.name, %method, path = %target.url.path(),
            status, ms = started.elapsed().as_millis() as u64, "proxied");
        if !(100..=599).contains(&status) {
            return Ok(self.not_a_status(&target, status));
        }
        let (parts, body) = resp.into_parts();
        let mut out = Response::builder().status(parts.status).finish();
        *out.headers_mut() = answer_headers(parts.headers);
        if method == Method::HEAD {
            return Ok(out);
        }
        out.set_body(Body::from(
            ReadTimeout {
                inner: body,
                limit: self.timeout,
                sleep: None,
            }
            .boxed(),
        ));
        Ok(out)
    }
}

/// The upstream's answer body, ended in an error when nothing comes for `limit`: a stalled
/// upstream does not hold the client's connection for ever.
struct ReadTimeout {
    inner: Incoming,
    limit: Duration,
    /// Armed only while a read waits.
    sleep: Option<Pin<Box<tokio::time::Sleep>>>,
}

impl hyper::body::Body for ReadTimeout {
    type Data = Bytes;
    type Error = std::io::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, std::io::Error>>> {
        let this = &mut *self;
        match Pin::new(&mut this.inner).poll_frame(cx) {
            Poll::Ready(frame) => {
                if let Some(sleep) = &mut this.sleep {
                    sleep
                        .as_mut()
                        .reset(tokio::time::Instant::now() + this.limit);
                }
                Poll::Ready(frame.map(|f| f.map_err(std::io::Error::other)))
            }
            Poll::Pending => {
                let limit = this.limit;
                let sleep = this
                    .sleep
                    .get_or_insert_with(|| Box::pin(tokio::time::sleep(limit)));
                match sleep.as_mut().poll(cx) {
                    Poll::Ready(()) => Poll::Ready(Some(Err(std::io::Error::new(
                        std::io::ErrorKind::TimedOut,
                        "the upstream stopped sending its answer",
                    )))),
                    Poll::Pending => Poll::Pending,
                }
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

/// Whether the client's error is a time-out (of the connection, here).
fn timed_out_error(e: &(dyn std::error::Error + 'static)) -> bool {
    let mut next = Some(e);
    while let Some(e) = next {
        if let Some(io) = e.downcast_ref::<std::io::Error>() {
            if io.kind() == std::io::ErrorKind::TimedOut {
                return true;
            }
        }
        next = e.source();
    }
    false
}

fn error_chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut source = e.source();
    while let Some(inner) = source {
        s.push_str(": ");
        s.push_str(&inner.to_string());
        source = inner.source();
    }
    s
}

/// The host the request was made to: the authority of an absolute-form or HTTP/2 request,
/// else the `Host` header. Only used to pick a configured tenant, never to connect.
pub fn request_host(authority: Option<&str>, headers: &HeaderMap) -> Option<String> {
    if let Some(authority) = authority {
        return Some(authority.to_string());
    }
    let host = headers.get(header::HOST)?.to_str().ok()?.trim();
    (!host.is_empty()).then(|| host.to_string())
}

/// One `Host` header at most, and its port (if any) a number.
pub fn check_host_header(headers: &HeaderMap) -> Result<(), &'static str> {
    let mut hosts = headers.get_all(header::HOST).iter();
    let (Some(host), None) = (hosts.next(), hosts.next()) else {
        return match headers.contains_key(header::HOST) {
            true => Err("The request has more than one Host header."),
            false => Ok(()),
        };
    };
    let host = host
        .to_str()
        .map_err(|_| "The Host header is not text.")?
        .trim();
    let port = if let Some(rest) = host.strip_prefix('[') {
        match rest.split_once(']') {
            Some((_, "")) => None,
            Some((_, p)) => Some(p.strip_prefix(':').unwrap_or("x")),
            None => return Err("The Host header is not a host name."),
        }
    } else {
        match host.split_once(':') {
            Some((_, p)) if !p.contains(':') => Some(p),
            _ => None,
        }
    };
    match port {
        Some(p) if p.is_empty() || p.len() > 5 || !p.bytes().all(|b| b.is_ascii_digit()) => {
            Err("The port of the Host header is not a number.")
        }
        _ => Ok(()),
    }
}

fn strip_host(host: &str) -> &str {
    crate::config::strip_port(host)
}

/// Whether the request carries a body to stream on.
fn has_body(req: &Request) -> bool {
    let h = req.headers();
    if h.contains_key(header::TRANSFER_ENCODING) {
        return true;
    }
    if let Some(len) = h.get(header::CONTENT_LENGTH) {
        return len.to_str().ok().and_then(|l| l.parse::<u64>().ok()) != Some(0);
    }
    // HTTP/2 has no framing headers; a body may follow any method that takes one.
    req.version() == Version::HTTP_2
        && !matches!(
            *req.method(),
            Method::GET | Method::HEAD | Method::OPTIONS | Method::DELETE
        )
}

/// Whether a request path may be forwarded as it is, and if not, why (the whole message).
///
/// Upstreams read a path in different ways: nginx decodes `%XX` once, then resolves `.` and
/// `..` and merges `//` (refusing a `..` above the root); Tomcat and Spring strip
/// `;parameters` from each segment, so `..;` is `..`; some servers decode `%2F` into a
/// separator, decode twice (`%252e` -> `%2e` -> `.`), or fold Unicode look-alikes (U+FF0E
/// fullwidth full stop, U+2024 one dot leader, U+FF0F fullwidth solidus) to ASCII. A proxy
/// whose upstream owns the whole host (warpgate) can pass the path on verbatim; this one
/// confines clients to `/api`, so it accepts only a path that every such reading resolves to
/// itself: printable ASCII, RFC 3986 path characters, `%XX` escapes of printable ASCII other
/// than `/`, `\`, `%` and `;`, no segment made of dots (also encoded), no empty segment
/// before the last. An `/api` path of the spec (ids, names, kinds) never needs more.
pub fn check_path(path: &str) -> Result<(), &'static str> {
    if !(path.starts_with("/api/") || path == "/api") {
        return Err("The request path is not forwarded: only /api paths are.");
    }
    // Each segment decoded once, as nginx and servlet containers do: its length and whether
    // it is all dots, checked when it ends. A character's refusal comes before a segment's.
    let (mut len, mut dots) = (0usize, true);
    let mut segment_refused = None;
    let bytes = path.as_bytes();
    // Past the leading '/': the first segment is the one after it.
    let mut i = 1;
    while i < bytes.len() {
        let b = bytes[i];
        let decoded = if b == b'%' {
            let hex = bytes
                .get(i + 1..i + 3)
                .and_then(|h| std::str::from_utf8(h).ok());
            let Some(d) = hex.and_then(|h| u8::from_str_radix(h, 16).ok()) else {
                return Err(
                    "The request path is not forwarded: it holds a '%' that is not a %XX escape.",
                );
            };
            i += 3;
            match d {
                b'/' => return Err("The request path is not forwarded: it holds an encoded '/' (%2F), which some servers read as a separator."),
                b'%' => return Err("The request path is not forwarded: it holds an encoded '%' (%25), a double encoding that some servers decode twice."),
                0x80..=0xff => return Err("The request path is not forwarded: it holds an encoded character outside ASCII; some servers fold look-alikes of '.' and '/' into them."),
                _ => d,
            }
        } else {
            i += 1;
            if b == b'/' {
                segment_refused = segment_refused.or(segment_refusal(len, dots, false));
                (len, dots) = (0, true);
                continue;
            }
            if !b.is_ascii() {
                return Err("The request path is not forwarded: it holds a character outside ASCII; some servers fold look-alikes of '.' and '/' into them.");
            }
            if !is_path_char(b) && !matches!(b, b'\\' | 0..=0x20 | 0x7f) {
                return Err("The request path is not forwarded: it holds a character that RFC 3986 does not allow in a path.");
            }
            b
        };
        match decoded {
            b'\\' => return Err("The request path is not forwarded: it holds a backslash (\\ or %5C), which some servers read as '/'."),
            b';' => return Err("The request path is not forwarded: it holds a ';' (or %3B); Tomcat and Spring drop what follows it in a segment, so '..;' reads as '..'."),
            0..=0x20 | 0x7f => return Err("The request path is not forwarded: it holds a space or a control character."),
            _ => {}
        }
        len += 1;
        dots &= decoded == b'.';
    }
    match segment_refused.or(segment_refusal(len, dots, true)) {
        Some(why) => Err(why),
        None => Ok(()),
    }
}

/// Why a decoded segment of `len` bytes (`dots`: all of them dots) is not forwarded; only the
/// last may be empty.
fn segment_refusal(len: usize, dots: bool, last: bool) -> Option<&'static str> {
    match (len, dots) {
        (0, _) if !last => Some("The request path is not forwarded: it holds an empty segment ('//'), which servers merge or read as a host."),
        (1.., true) => Some("The request path is not forwarded: it holds a dot segment ('.' or '..', also encoded as %2E)."),
        _ => None,
    }
}

/// RFC 3986 `pchar` outside escapes: unreserved, sub-delims, `:` and `@`.
fn is_path_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"-._~!$&'()*+,;=:@".contains(&b)
}

/// The upstream address for a request's path and query: the configured base with the path
/// appended, or why not. Refused: a path [`check_path`] refuses, a fragment, or an address
/// that would leave the base's origin or its path followed by `/api/`.
pub fn upstream_url(base: &Url, path_and_query: &str) -> Result<Url, &'static str> {
    let (path, query) = match path_and_query.split_once('?') {
        Some((p, q)) => (p, Some(q)),
        None => (path_and_query, None),
    };
    check_path(path)?;
    if query.is_some_and(|q| q.contains('#')) {
        return Err("The request is not forwarded: it holds a fragment ('#').");
    }
    let mut url = base.clone();
    let prefix = base.path().trim_end_matches('/');
    let full = [prefix, path].concat();
    url.set_path(&full);
    url.set_query(query);
    url.set_fragment(None);
    let same_origin = url.scheme() == base.scheme()
        && url.host_str() == base.host_str()
        && url.port_or_known_default() == base.port_or_known_default()
        && url.username() == base.username()
        && url.password() == base.password();
    // After the URL library's normalising, still under the base and /api, and what
    // check_path saw.
    let under_base = url
        .path()
        .strip_prefix(prefix)
        .is_some_and(|p| p == "/api" || p.starts_with("/api/"));
    let unchanged = url.path() == full;
    if same_origin && under_base && unchanged {
        Ok(url)
    } else {
        Err("The request path is not forwarded: the upstream address built from it leaves the upstream's /api.")
    }
}

/// Headers that belong to one connection, never forwarded.
const HOP_BY_HOP: &[&str] = &[
    "connection",
    "keep-alive",
    "proxy-authenticate",
    "proxy-authorization",
    "proxy-connection",
    "te",
    "trailer",
    "trailers",
    "transfer-encoding",
    "upgrade",
];

/// Whether `name` is hop-by-hop: the fixed list, any `Proxy-*`, or one named in `Connection`.
pub fn is_hop_by_hop(name: &HeaderName, connection_named: &[String]) -> bool {
    let n = name.as_str();
    HOP_BY_HOP.contains(&n) || n.starts_with("proxy-") || connection_named.iter().any(|c| c == n)
}

/// Header names listed in `Connection` (lower case).
fn connection_tokens(headers: &HeaderMap) -> Vec<String> {
    headers
        .get_all(header::CONNECTION)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|t| t.trim().to_ascii_lowercase())
        .filter(|t| !t.is_empty())
        .collect()
}

/// The headers sent upstream: the client's end-to-end headers, without `Host` (the
/// upstream's is used), with `Forwarded` and `X-Forwarded-For/-Proto/-Host` set to what the
/// proxy saw: the client's own values (and `X-Real-IP`) are dropped, since any client can
/// send them.
pub fn forward_request_headers(
    mut out: HeaderMap,
    client_ip: Option<IpAddr>,
    host: &str,
    proto: &str,
) -> HeaderMap {
    let xff = HeaderName::from_static("x-forwarded-for");
    let xfp = HeaderName::from_static("x-forwarded-proto");
    let xfh = HeaderName::from_static("x-forwarded-host");
    for name in [&header::HOST, &header::FORWARDED, &xff, &xfp, &xfh] {
        out.remove(name);
    }
    out.remove("x-real-ip");
    drop_hop_by_hop(&mut out, |_| false);
    let proto = if proto == "http" { "http" } else { "https" };
    // RFC 7239: an IPv6 address in brackets and quoted; a host with a port quoted.
    let mut forwarded = String::with_capacity(64 + host.len());
    if let Some(ip) = client_ip {
        forwarded.push_str(if ip.is_ipv6() { "for=\"[" } else { "for=" });
        let at = forwarded.len();
        let _ = write!(forwarded, "{ip}");
        if let Ok(v) = HeaderValue::from_str(&forwarded[at..]) {
            out.insert(xff, v);
        }
        forwarded.push_str(if ip.is_ipv6() { "]\";" } else { ";" });
    }
    out.insert(xfp, HeaderValue::from_static(proto));
    if let Ok(v) = HeaderValue::from_str(host) {
        out.insert(xfh, v);
        if !host.contains(['"', '\\']) {
            let _ = write!(forwarded, "host=\"{host}\";");
        }
    }
    forwarded.push_str("proto=");
    forwarded.push_str(proto);
    if let Ok(v) = HeaderValue::from_str(&forwarded) {
        out.insert(header::FORWARDED, v);
    }
    out
}

/// The upstream's answer headers without the hop-by-hop ones.
pub fn filter_response_headers(mut upstream: HeaderMap) -> HeaderMap {
    // The console is same-origin and uses bearer tokens: an upstream's cookies and CORS
    // grants have no business in it.
    drop_hop_by_hop(&mut upstream, |name| {
        name == header::SET_COOKIE
            || name.as_str() == "set-cookie2"
            || name.as_str().starts_with("access-control-")
    });
    upstream
}

/// Removes the hop-by-hop headers of `h`, and those `also` names. The map is changed in
/// place: most heads have nothing to remove.
fn drop_hop_by_hop(h: &mut HeaderMap, also: impl Fn(&HeaderName) -> bool) {
    let named = connection_tokens(h);
    let dropped: Vec<HeaderName> = h
        .keys()
        .filter(|name| is_hop_by_hop(name, &named) || also(name))
        .cloned()
        .collect();
    for name in dropped {
        h.remove(name);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_header_must_be_single_with_a_numeric_port() {
        let check = |hosts: &[&str]| {
            let mut b = Request::builder();
            for h in hosts {
                b = b.header(header::HOST, *h);
            }
            check_host_header(b.finish().headers())
        };
        assert!(check(&["a.test"]).is_ok());
        assert!(check(&["a.test:8443"]).is_ok());
        assert!(check(&["[::1]:8443"]).is_ok());
        assert!(check(&["[::1]"]).is_ok());
        assert!(check(&[]).is_ok());
        assert!(check(&["a.test", "b.test"]).is_err());
        assert!(check(&["a.test:abc"]).is_err());
        assert!(check(&["a.test:"]).is_err());
        assert!(check(&["[::1]x"]).is_err());
        assert!(check(&["a.test:123456"]).is_err());
    }

    #[test]
    fn upstream_cookies_and_cors_grants_are_dropped() {
        let out = filter_response_headers(map(&[
            ("set-cookie", "sid=1"),
            ("access-control-allow-origin", "*"),
            ("access-control-allow-credentials", "true"),
            ("content-type", "application/json"),
        ]));
        assert_eq!(out.len(), 1);
        assert!(out.contains_key("content-type"));
    }

    fn map(pairs: &[(&str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.append(
                HeaderName::from_bytes(k.as_bytes()).unwrap(),
                HeaderValue::from_str(v).unwrap(),
            );
        }
        h
    }

    #[test]
    fn hop_by_hop_headers_are_dropped_both_ways() {
        let incoming = map(&[
            ("host", "console.test:8443"),
            ("connection", "keep-alive, X-Secret-Hop"),
            ("keep-alive", "timeout=5"),
            ("proxy-authorization", "Basic eA=="),
            ("proxy-foo", "1"),
            ("te", "trailers"),
            ("trailer", "x"),
            ("transfer-encoding", "chunked"),
            ("upgrade", "h2c"),
            ("x-secret-hop", "1"),
            ("authorization", "Bearer t"),
            ("accept", "application/json"),
            ("cookie", "a=1"),
            ("content-type", "application/json"),
            ("content-length", "12"),
        ]);
        let out = forward_request_headers(incoming.clone(), None, "console.test:8443", "https");
        for gone in [
            "host",
            "connection",
            "keep-alive",
            "proxy-authorization",
            "proxy-foo",
            "te",
            "trailer",
            "transfer-encoding",
            "upgrade",
            "x-secret-hop",
        ] {
            assert!(!out.contains_key(gone), "{gone} was forwarded");
        }
        for kept in [
            "authorization",
            "accept",
            "cookie",
            "content-type",
            "content-length",
        ] {
            assert_eq!(out.get(kept), incoming.get(kept), "{kept}");
        }

        let upstream = map(&[
            ("connection", "close, x-up-hop"),
            ("x-up-hop", "1"),
            ("transfer-encoding", "chunked"),
            ("proxy-authenticate", "Basic"),
            ("content-type", "application/json"),
            ("set-cookie", "a=1"),
            ("set-cookie", "b=2"),
        ]);
        let out = filter_response_headers(upstream.clone());
        // Set-Cookie is dropped too (see `upstream_cookies_and_cors_grants_are_dropped`).
        assert_eq!(out.len(), 1, "{out:?}");
        assert_eq!(out.get_all("set-cookie").iter().count(), 0);
    }

    #[test]
    fn forwarded_headers_are_set_and_extended() {
        let ip: IpAddr = "192.0.2.7".parse().unwrap();
        let out = forward_request_headers(
            map(&[
                ("x-forwarded-proto", "gopher"),
                ("x-forwarded-host", "evil.test"),
            ]),
            Some(ip),
            "console.test",
            "https",
        );
        assert_eq!(out.get("x-forwarded-for").unwrap(), "192.0.2.7");
        assert_eq!(out.get("x-forwarded-proto").unwrap(), "https");
        assert_eq!(out.get("x-forwarded-host").unwrap(), "console.test");

        assert_eq!(
            out.get("forwarded").unwrap(),
            "for=192.0.2.7;host=\"console.test\";proto=https"
        );

        // What the client says about earlier hops is replaced, not extended.
        let out = forward_request_headers(
            map(&[
                ("x-forwarded-for", "203.0.113.1"),
                ("x-forwarded-for", "10.0.0.2"),
                ("forwarded", "for=203.0.113.1;host=evil.test"),
                ("x-real-ip", "203.0.113.1"),
            ]),
            Some(ip),
            "console.test:8443",
            "http",
        );
        assert_eq!(out.get("x-forwarded-for").unwrap(), "192.0.2.7");
        assert_eq!(out.get_all("x-forwarded-for").iter().count(), 1);
        assert_eq!(out.get_all("forwarded").iter().count(), 1);
        assert_eq!(
            out.get("forwarded").unwrap(),
            "for=192.0.2.7;host=\"console.test:8443\";proto=http"
        );
        assert!(!out.contains_key("x-real-ip"));
        let v6 = forward_request_headers(
            HeaderMap::new(),
            Some("2001:db8::1".parse().unwrap()),
            "c.test",
            "https",
        );
        assert_eq!(
            v6.get("forwarded").unwrap(),
            "for=\"[2001:db8::1]\";host=\"c.test\";proto=https"
        );
        let none = forward_request_headers(
            map(&[("x-forwarded-for", "203.0.113.1")]),
            None,
            "c.test",
            "https",
        );
        assert!(!none.contains_key("x-forwarded-for"));
        assert_eq!(out.get("x-forwarded-proto").unwrap(), "http");
        assert_eq!(out.get("x-forwarded-host").unwrap(), "console.test:8443");
    }

    #[test]
    fn only_path_and_query_are_appended_to_the_upstream() {
        let base = Url::parse("https://up.test:9443").unwrap();
        let url = |pq: &str| upstream_url(&base, pq).ok().map(|u| u.to_string());
        assert_eq!(
            url("/api/trs/v1/groups?a=1&b=%20").as_deref(),
            Some("https://up.test:9443/api/trs/v1/groups?a=1&b=%20")
        );
        assert_eq!(url("//evil.test/api/x"), None);
        assert_eq!(url("/admin/secret"), None);
        assert_eq!(url("/api"), Some("https://up.test:9443/api".into()));
        assert_eq!(url("/apix/y"), None);
        assert_eq!(url(r"/api/..\..\admin/secret"), None);
        assert_eq!(url(r"/api/x\..\..\..\actuator/env"), None);
        assert_eq!(url("/api/..%5c..%5Cadmin"), None);
        assert_eq!(
            url("/api/users?q=%5c").as_deref(),
            Some("https://up.test:9443/api/users?q=%5c")
        );
        assert_eq!(
            url("/api/@evil.test:1/x").as_deref(),
            Some("https://up.test:9443/api/@evil.test:1/x")
        );
        assert_eq!(url("http://evil.test/api/x"), None);
        assert_eq!(url("evil.test/api"), None);
        assert_eq!(url("/api/x#frag"), None);
        assert_eq!(url("/api/../x"), None);
        assert_eq!(url("/api/%2E%2e/x"), None);
        assert_eq!(url("/api/./x"), None);

        let prefixed = Url::parse("https://up.test/console/").unwrap();
        assert_eq!(
            upstream_url(&prefixed, "/api/auth/signin")
                .ok()
                .map(|u| u.to_string())
                .as_deref(),
            Some("https://up.test/console/api/auth/signin")
        );
        let tenant = Url::parse("http://127.0.0.1:1/tenant-a").unwrap();
        for escape in [
            r"/api/..\..\admin/secret",
            r"/api/x\..\..\..\actuator/env",
            "/api/%2e%2e/%2E%2E/admin",
        ] {
            assert!(upstream_url(&tenant, escape).is_err(), "{escape}");
        }
    }

    #[test]
    fn each_refused_path_says_why() {
        let why = |p: &str| check_path(p).err().unwrap_or("forwarded");
        let has = |p: &str, word: &str| {
            let reason = why(p);
            assert!(reason.contains(word), "{p}: {reason}");
        };
        has("/api/..;/admin", "';'");
        has("/api/x;jsessionid=1", "';'");
        has("/api/..%3b/admin", "';'");
        has("/api/..%2fadmin", "encoded '/'");
        has("/api/%252e%252e/admin", "double encoding");
        has("/api/%ef%bc%8e%ef%bc%8e/admin", "outside ASCII");
        has("/api/%e2%80%a4%e2%80%a4/admin", "outside ASCII");
        has("/api/x\u{ff0f}..", "outside ASCII");
        has("/api/%c0%ae%c0%ae/admin", "outside ASCII");
        has("/api/%u002e%u002e/admin", "%XX");
        has("/api/x%2", "%XX");
        has("/api/..%00/admin", "control");
        has("/api/..%20/admin", "space");
        has("/api/x\\y", "backslash");
        has("/api/x%5Cy", "backslash");
        has("/api/.%2E/admin", "dot segment");
        has("/api/...", "dot segment");
        has("/api/x/.", "dot segment");
        has("/api//evil.test/x", "empty segment");
        has("/api/x<y", "RFC 3986");
        has("/apix", "only /api");
        has("/admin", "only /api");
        for ok in [
            "/api",
            "/api/",
            "/api/trs/v1/groups/",
            "/api/x..y/a.b",
            "/api/files/rec-1.wav",
            "/api/x%41",
            "/api/@evil.test:1/x",
            "/api/a~b_c-d!$&'()*+,=",
        ] {
            assert_eq!(why(ok), "forwarded", "{ok}");
        }
    }

    #[test]
    fn hop_by_hop_names() {
        let named = vec!["x-a".to_string()];
        for n in [
            "connection",
            "te",
            "proxy-anything",
            "x-a",
            "upgrade",
            "trailer",
        ] {
            assert!(is_hop_by_hop(&HeaderName::from_static(n), &named), "{n}");
        }
        for n in ["authorization", "content-length", "x-b", "x-forwarded-for"] {
            assert!(!is_hop_by_hop(&HeaderName::from_static(n), &named), "{n}");
        }
    }
}
