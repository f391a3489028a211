//! Proxy mode's HTTP/1.1 requests to `/api`, served below poem and hyper.
//!
//! What a proxied request costs is the HTTP stack, not the proxy's rules: hyper's server and
//! client connections (their header maps, body channels and the client's pool and tasks),
//! poem's request and response and its middleware chain. Here one task owns the client's
//! connection and a connection of its own to the tenant's upstream, as an nginx worker does:
//! it parses a request's head with httparse (hyper's own parser), applies the same rules as
//! the poem path ([`crate::proxy`]: the tenant, the path, the forwarding headers, the
//! answer's headers and errors; the console's security headers, compression, `Vary` and
//! metrics), writes the upstream request in one write and copies the answer's body as it
//! comes.
//!
//! It serves only what it serves as the poem path would: an HTTP/1.1 request for `/api/…`
//! with GET, HEAD, POST, PUT, PATCH or DELETE, a body of at most
//! [`limits::DEFAULT_LIMIT`] framed by `Content-Length`, no `Transfer-Encoding`, `Upgrade`
//! or `Expect`, a `Connection` naming only `keep-alive` or `close`, a head within
//! [`limits::MAX_URI`] and [`limits::MAX_HEADER_BYTES`], no CORS request from a listed
//! origin, and a host and path the proxy forwards. Anything else (the UI, a refusal, a large
//! or chunked upload, HTTP/1.0 or HTTP/2, a head httparse does not take) hands the
//! connection with the bytes read so far to hyper and poem for the rest of its life
//! ([`Served::Elsewhere`]), which answer it as they answer every request.
//!
//! The answer: a body framed by `Content-Length` is copied as it is (gzip, when the client
//! takes it and the answer is JSON not encoded yet, up to [`GZIP_MAX`]); a chunked or
//! close-delimited one is decoded and sent chunked, its trailers dropped. An upstream that
//! sends nothing for `proxy.timeout_secs` while the client waits ends the client's
//! connection, as on the poem path.

use std::future::Future;
use std::io::{self, Write};
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};
use std::time::{Duration, SystemTime};

use bytes::{Buf, Bytes};
use poem::http::header::{self, HeaderMap, HeaderName, HeaderValue};
use poem::http::{Method, StatusCode};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, ReadBuf};
use tokio::sync::watch;
use tokio::time::{Instant, Sleep};

use super::compress::{self, Coding};
use super::conn::{Activity, Limits};
use super::{headers, limits, metrics};
use crate::proxy::{Proxy, Target, Upstream, UpstreamIo};
use crate::telemetry::Telemetry;

/// Header lines parsed here in a head; a request with more goes to hyper.
const MAX_LINES: usize = 100;
/// Most bytes of a head read here: a request's beyond goes to hyper, an answer's is a 502.
const MAX_HEAD: usize = 64 * 1024;
/// Largest answer compressed here; a larger one goes as it is.
pub const GZIP_MAX: u64 = 16 * 1024 * 1024;

/// The HTTP/1.1 path of proxy mode's `/api`.
pub struct H1Proxy {
    proxy: Arc<Proxy>,
    telemetry: Arc<Telemetry>,
    /// `Strict-Transport-Security`, under TLS only.
    hsts: Option<&'static str>,
    /// `server.cors_origins`.
    cors_origins: Vec<String>,
}

/// How a connection's time here ended.
pub enum Served<Io> {
    /// Closed, or the client went away.
    Done,
    /// A request this path does not serve: the connection, its bytes read so far first.
    Elsewhere(Rewound<Io>),
}

/// A request to forward.
struct Forward<'a> {
    method: Method,
    /// The request's path (without the query): for the metrics' label, the security
    /// headers and the log.
    path: String,
    target: Target<'a>,
    /// The upstream request, head and body.
    bytes: Vec<u8>,
    /// Length of the body still to read from the client.
    body_len: usize,
    /// The client asked to close after this answer.
    close: bool,
    /// The client takes gzip.
    gzip: bool,
}

/// The open connection to an upstream, and what was read from it beyond an answer.
struct Open<'a> {
    upstream: &'a Upstream,
    io: Box<dyn UpstreamIo>,
    buf: Vec<u8>,
}

impl Open<'_> {
    /// Reads what comes into `buf` within `limit`: how much (0 at the end), `None` on an
    /// error or when nothing came.
    async fn read(&mut self, timer: &mut Timer, limit: Duration) -> Option<usize> {
        timer
            .within(limit, read_more(&mut *self.io, &mut self.buf))
            .await?
            .ok()
    }
}

/// An answer's head.
struct Answer {
    status: u16,
    headers: HeaderMap,
    framing: Framing,
    /// The upstream keeps the connection open after this answer.
    keep: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Framing {
    /// No body (HEAD, 204, 304).
    Empty,
    Length(u64),
    Chunked,
    /// Until the upstream closes.
    Close,
}

enum Failure {
    TimedOut,
    NotAStatus(u16),
    Unreachable(io::Error),
}

impl From<io::Error> for Failure {
    fn from(e: io::Error) -> Failure {
        if e.kind() == io::ErrorKind::TimedOut {
            Failure::TimedOut
        } else {
            Failure::Unreachable(e)
        }
    }
}

fn bad_answer(why: &str) -> Failure {
    Failure::Unreachable(io::Error::new(io::ErrorKind::InvalidData, why.to_string()))
}

impl H1Proxy {
    pub fn new(
        proxy: Arc<Proxy>,
        telemetry: Arc<Telemetry>,
        hsts: Option<&'static str>,
        cors_origins: Vec<String>,
    ) -> H1Proxy {
        H1Proxy {
            proxy,
            telemetry,
            hsts,
            cors_origins,
        }
    }

    /// Serves the connection's requests while this path serves them.
    pub(super) async fn serve<Io>(
        &self,
        mut io: Io,
        remote: SocketAddr,
        limits: Limits,
        activity: &Arc<Activity>,
        stop: &mut watch::Receiver<bool>,
    ) -> Served<Io>
    where
        Io: AsyncRead + AsyncWrite + Send + Unpin,
    {
        let mut buf: Vec<u8> = Vec::with_capacity(4096);
        let mut open: Option<Open<'_>> = None;
        let (mut client_timer, mut upstream_timer) = (Timer::new(), Timer::new());
        let mut first = true;
        loop {
            // The next request: before the first, the header time-out; between requests,
            // the idle time-out; once its first byte came, its head within the header
            // time-out.
            let wait = if first {
                limits.header_timeout
            } else {
                limits.idle_timeout
            };
            let mut deadline = Instant::now() + wait;
            let (mut req, head_len) = loop {
                if !buf.is_empty() {
                    match self.parse(&buf, remote) {
                        Ok(None) if buf.len() <= MAX_HEAD => {}
                        Ok(Some(forward)) => break forward,
                        _ => return Served::Elsewhere(Rewound::new(buf, io)),
                    }
                }
                let had = buf.len();
                let read = tokio::select! {
                    r = client_timer.until(deadline, read_more(&mut io, &mut buf)) => r,
                    _ = stop.changed(), if had == 0 => return Served::Done,
                };
                match read {
                    Some(Ok(n)) if n > 0 => {}
                    _ => return Served::Done,
                }
                if had == 0 {
                    deadline = deadline.min(Instant::now() + limits.header_timeout);
                }
            };
            first = false;
            let _busy = activity.begin();
            let end = head_len + req.body_len;
            while buf.len() < end {
                let read = client_timer.within(limits.idle_timeout, read_more(&mut io, &mut buf));
                match read.await {
                    Some(Ok(n)) if n > 0 => {}
                    _ => return Served::Done,
                }
            }
            req.bytes.extend_from_slice(&buf[head_len..end]);
            buf.drain(..end);
            if !self
                .forward(&mut io, &req, &mut open, &mut upstream_timer)
                .await
            {
                let _ = io.shutdown().await;
                return Served::Done;
            }
            if *stop.borrow() {
                let _ = io.shutdown().await;
                return Served::Done;
            }
        }
    }

    /// A request's head in `buf`: complete and forwarded here (with the head's length),
    /// incomplete (`None`), or not for here (`Err`).
    fn parse(&self, buf: &[u8], remote: SocketAddr) -> Result<Option<(Forward<'_>, usize)>, ()> {
        let mut lines = [httparse::EMPTY_HEADER; MAX_LINES];
        let mut req = httparse::Request::new(&mut lines);
        match req.parse(buf) {
            Ok(httparse::Status::Complete(n)) => match self.plan(&req, &buf[..n], remote) {
                Some(forward) => Ok(Some((forward, n))),
                None => Err(()),
            },
            Ok(httparse::Status::Partial) => Ok(None),
            Err(_) => Err(()),
        }
    }

    /// The request to forward, if this path serves it (see the module's comment).
    fn plan(
        &self,
        req: &httparse::Request<'_, '_>,
        head: &[u8],
        remote: SocketAddr,
    ) -> Option<Forward<'_>> {
        if req.version != Some(1) {
            return None;
        }
        let method = match req.method? {
            "GET" => Method::GET,
            "HEAD" => Method::HEAD,
            "POST" => Method::POST,
            "PUT" => Method::PUT,
            "PATCH" => Method::PATCH,
            "DELETE" => Method::DELETE,
            _ => return None,
        };
        let request_target = req.path?;
        if !request_target.starts_with("/api/") || request_target.len() > limits::MAX_URI {
            return None;
        }
        let size: usize = req
            .headers
            .iter()
            .map(|h| h.name.len() + h.value.len())
            .sum();
        let headers = header_map(head, req.headers)?;
        if size > limits::MAX_HEADER_BYTES
            || [header::TRANSFER_ENCODING, header::UPGRADE, header::EXPECT]
                .iter()
                .any(|h| headers.contains_key(h))
        {
            return None;
        }
        let mut close = false;
        for value in headers.get_all(header::CONNECTION) {
            for token in value.to_str().ok()?.split(',') {
                match token.trim() {
                    t if t.eq_ignore_ascii_case("close") => close = true,
                    t if t.is_empty() || t.eq_ignore_ascii_case("keep-alive") => {}
                    _ => return None,
                }
            }
        }
        let mut lengths = headers.get_all(header::CONTENT_LENGTH).iter();
        let body_len = match (lengths.next(), lengths.next()) {
            (None, _) => 0,
            (Some(v), None) => decimal(v.as_bytes())?,
            _ => return None,
        };
        if body_len > limits::DEFAULT_LIMIT {
            return None;
        }
        if !self.cors_origins.is_empty() {
            let origin = headers.get(header::ORIGIN).and_then(|o| o.to_str().ok());
            if origin.is_some_and(|o| self.cors_origins.iter().any(|a| a == o)) {
                return None;
            }
        }
        let target = self
            .proxy
            .target(&headers, None, request_target, false)
            .ok()?;
        let gzip = compress::negotiate(&headers, &[Coding::Gzip]).is_some();
        let forwarded = self
            .proxy
            .forward_headers(headers, Some(remote.ip()), &target);
        let mut bytes = Vec::with_capacity(512 + body_len as usize);
        bytes.extend_from_slice(method.as_str().as_bytes());
        bytes.push(b' ');
        bytes.extend_from_slice(target.url[url::Position::BeforePath..].as_bytes());
        bytes.extend_from_slice(b" HTTP/1.1\r\nhost: ");
        bytes.extend_from_slice(target.upstream.authority().as_bytes());
        bytes.extend_from_slice(b"\r\n");
        write_headers(&mut bytes, &forwarded);
        bytes.extend_from_slice(b"\r\n");
        Some(Forward {
            path: request_target[..path_len(request_target)].to_string(),
            gzip,
            method,
            target,
            bytes,
            body_len: body_len as usize,
            close,
        })
    }

    /// Forwards a request and copies its answer; whether the client's connection stays.
    async fn forward<'a, Io>(
        &'a self,
        io: &mut Io,
        req: &Forward<'a>,
        open: &mut Option<Open<'a>>,
        timer: &mut Timer,
    ) -> bool
    where
        Io: AsyncWrite + Unpin,
    {
        let started = Instant::now();
        let limit = self.proxy.timeout();
        let exchanged = timer.within(limit, self.exchange(req, open)).await;
        let mut answer = match exchanged {
            Some(Ok(answer)) => answer,
            failed => {
                *open = None;
                let resp = match failed {
                    Some(Err(Failure::NotAStatus(status))) => {
                        self.proxy.not_a_status(&req.target, status)
                    }
                    Some(Err(Failure::Unreachable(e))) => self.proxy.unreachable(&req.target, &e),
                    _ => self.proxy.timed_out(&req.target),
                };
                return self.reply(io, req, started, resp).await;
            }
        };
        tracing::debug!(tenant = %req.target.upstream.name(), method = %req.method,
            path = %req.target.url.path(), status = answer.status,
            ms = started.elapsed().as_millis() as u64, "proxied");
        let up = open
            .as_mut()
            .expect("the exchange leaves the connection open");
        let mut h = crate::proxy::answer_headers(std::mem::take(&mut answer.headers));
        let framing = answer.framing;
        if framing == Framing::Chunked {
            // The chunked framing wins over a length (RFC 9112, 6.3).
            h.remove(header::CONTENT_LENGTH);
        }
        let compressible = self.finish_headers(&mut h, answer.status, req);
        let mut out = Vec::with_capacity(1024);
        let sent = match framing {
            Framing::Length(n) if compressible && req.gzip && n <= GZIP_MAX => {
                while up.buf.len() < n as usize {
                    if !matches!(up.read(timer, limit).await, Some(1..)) {
                        *open = None;
                        return false;
                    }
                }
                let rest = up.buf.split_off(n as usize);
                let body = std::mem::replace(&mut up.buf, rest);
                let Ok(gz) = compress::gzip(&body) else {
                    *open = None;
                    return false;
                };
                h.insert(
                    header::CONTENT_ENCODING,
                    HeaderValue::from_static(Coding::Gzip.name()),
                );
                h.insert(header::CONTENT_LENGTH, HeaderValue::from(gz.len()));
                head(&mut out, answer.status, &h, false, req.close);
                self.count(req, answer.status, started);
                out.extend_from_slice(&gz);
                io.write_all(&out).await.is_ok()
            }
            Framing::Empty | Framing::Length(_) => {
                head(&mut out, answer.status, &h, false, req.close);
                self.count(req, answer.status, started);
                let n = match framing {
                    Framing::Length(n) => n,
                    _ => 0,
                };
                copy_length(up, io, out, n, timer, limit).await
            }
            Framing::Chunked | Framing::Close => {
                head(&mut out, answer.status, &h, true, req.close);
                self.count(req, answer.status, started);
                let chunked = framing == Framing::Chunked;
                copy_chunks(up, io, out, chunked, timer, limit).await
            }
        };
        if !sent || !answer.keep || framing == Framing::Close || !up.buf.is_empty() {
            *open = None;
        }
        sent && !req.close
    }

    /// Sends the request on a connection to its upstream (the open one if it is to the same
    /// upstream and still open) and reads the answer's head.
    async fn exchange<'a>(
        &'a self,
        req: &Forward<'a>,
        open: &mut Option<Open<'a>>,
    ) -> Result<Answer, Failure> {
        let reusable = open.as_mut().is_some_and(|o| {
            std::ptr::eq(o.upstream, req.target.upstream) && still_open(&mut *o.io)
        });
        if !reusable {
            *open = Some(Open {
                upstream: req.target.upstream,
                io: req.target.upstream.connect().await?,
                buf: Vec::with_capacity(16 * 1024),
            });
        }
        let up = open.as_mut().expect("opened above");
        up.io.write_all(&req.bytes).await?;
        loop {
            let parsed = {
                let mut lines = [httparse::EMPTY_HEADER; MAX_LINES];
                let mut resp = httparse::Response::new(&mut lines);
                match resp.parse(&up.buf) {
                    Ok(httparse::Status::Complete(n)) => {
                        Some((n, answer(&resp, &up.buf[..n], &req.method)?))
                    }
                    Ok(httparse::Status::Partial) if up.buf.len() <= MAX_HEAD => None,
                    Ok(httparse::Status::Partial) => {
                        return Err(bad_answer("answer head too large"))
                    }
                    Err(e) => return Err(bad_answer(&format!("invalid answer head: {e}"))),
                }
            };
            match parsed {
                // An interim answer (100 Continue, 103 Early Hints): the final one follows.
                Some((n, a)) if a.status < 200 => {
                    if a.status == 101 {
                        return Err(bad_answer("the upstream switched protocols unasked"));
                    }
                    up.buf.drain(..n);
                }
                Some((n, a)) => {
                    up.buf.drain(..n);
                    return Ok(a);
                }
                None => {
                    if read_more(&mut *up.io, &mut up.buf).await? == 0 {
                        return Err(bad_answer(
                            "the upstream closed the connection before answering",
                        ));
                    }
                }
            }
        }
    }

    /// The console's headers on an answer to `req`: security headers, `Vary`, `Date`.
    /// Whether the answer is JSON to compress.
    fn finish_headers(&self, h: &mut HeaderMap, status: u16, req: &Forward<'_>) -> bool {
        let compressible = compress::compressible_head(status, h);
        if compressible {
            h.append(header::VARY, HeaderValue::from_static("accept-encoding"));
        }
        if !self.cors_origins.is_empty() {
            h.append(header::VARY, HeaderValue::from_static("Origin"));
        }
        headers::secure(h, headers::is_docs_path(&req.path), self.hsts);
        if !h.contains_key(header::DATE) {
            if let Ok(date) = HeaderValue::from_str(&httpdate::fmt_http_date(SystemTime::now())) {
                h.insert(header::DATE, date);
            }
        }
        compressible
    }

    /// Answers the proxy's own error (`resp`, from [`Proxy`]) to the client.
    async fn reply<Io: AsyncWrite + Unpin>(
        &self,
        io: &mut Io,
        req: &Forward<'_>,
        started: Instant,
        resp: poem::Response,
    ) -> bool {
        let (parts, body) = resp.into_parts();
        let status = parts.status.as_u16();
        let mut h = parts.headers;
        let mut body = body.into_vec().await.unwrap_or_default();
        if self.finish_headers(&mut h, status, req) && req.gzip {
            if let Ok(gz) = compress::gzip(&body) {
                body = gz;
                h.insert(
                    header::CONTENT_ENCODING,
                    HeaderValue::from_static(Coding::Gzip.name()),
                );
            }
        }
        h.insert(header::CONTENT_LENGTH, HeaderValue::from(body.len()));
        let mut out = Vec::with_capacity(1024 + body.len());
        head(&mut out, status, &h, false, req.close);
        if req.method != Method::HEAD {
            out.extend_from_slice(&body);
        }
        self.count(req, status, started);
        io.write_all(&out).await.is_ok() && !req.close
    }

    fn count(&self, req: &Forward<'_>, status: u16, started: Instant) {
        self.telemetry.request(
            req.method.as_str(),
            metrics::route_label(&req.path),
            status,
            started.elapsed().as_secs_f64(),
        );
    }
}

/// The length of a request target's path (without its query).
fn path_len(target: &str) -> usize {
    target.find('?').unwrap_or(target.len())
}

/// A `Content-Length` value: digits only.
fn decimal(v: &[u8]) -> Option<u64> {
    if v.is_empty() || v.len() > 15 || !v.iter().all(u8::is_ascii_digit) {
        return None;
    }
    std::str::from_utf8(v).ok()?.parse().ok()
}

/// An answer's head as this path takes it, or why not.
fn answer(
    resp: &httparse::Response<'_, '_>,
    head: &[u8],
    method: &Method,
) -> Result<Answer, Failure> {
    let status = resp.code.unwrap_or(0);
    if !(100..=599).contains(&status) {
        return Err(Failure::NotAStatus(status));
    }
    let headers =
        header_map(head, resp.headers).ok_or_else(|| bad_answer("invalid answer header"))?;
    let tokens = |name: HeaderName| {
        headers
            .get_all(name)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(','))
            .map(|t| t.trim().to_ascii_lowercase())
            .filter(|t| !t.is_empty())
            .collect::<Vec<_>>()
    };
    let connection = tokens(header::CONNECTION);
    let keep = match resp.version {
        Some(1) => !connection.iter().any(|t| t == "close"),
        _ => connection.iter().any(|t| t == "keep-alive"),
    };
    let framing = if *method == Method::HEAD || status < 200 || status == 204 || status == 304 {
        Framing::Empty
    } else if headers.contains_key(header::TRANSFER_ENCODING) {
        match tokens(header::TRANSFER_ENCODING).last().map(String::as_str) {
            Some("chunked") => Framing::Chunked,
            _ => Framing::Close,
        }
    } else if headers.contains_key(header::CONTENT_LENGTH) {
        let mut lengths = headers
            .get_all(header::CONTENT_LENGTH)
            .iter()
            .flat_map(|v| v.as_bytes().split(|&b| b == b','))
            .map(|v| decimal(v.trim_ascii()));
        let first = lengths.next().flatten();
        match first {
            Some(n) if lengths.all(|l| l == Some(n)) => Framing::Length(n),
            _ => return Err(bad_answer("invalid content-length")),
        }
    } else {
        Framing::Close
    };
    Ok(Answer {
        status,
        headers,
        framing,
        keep,
    })
}

/// The header lines httparse read from `head` as a map whose values share one copy of the
/// head: one allocation a head rather than one a line. `None` if a name or value is not one.
fn header_map(head: &[u8], lines: &[httparse::Header<'_>]) -> Option<HeaderMap> {
    let shared = Bytes::copy_from_slice(head);
    let mut map = HeaderMap::with_capacity(lines.len());
    for h in lines {
        // httparse's values are slices of the head it parsed.
        let at = (h.value.as_ptr() as usize).checked_sub(head.as_ptr() as usize)?;
        let end = at + h.value.len();
        if end > shared.len() {
            return None;
        }
        let value = shared.slice(at..end);
        let name = HeaderName::from_bytes(h.name.as_bytes()).ok()?;
        map.append(name, HeaderValue::from_maybe_shared(value).ok()?);
    }
    Some(map)
}

/// A status line and headers (`chunked`: the body is sent chunked; `close`: the connection
/// closes after it).
fn head(out: &mut Vec<u8>, status: u16, h: &HeaderMap, chunked: bool, close: bool) {
    let reason = StatusCode::from_u16(status)
        .ok()
        .and_then(|s| s.canonical_reason())
        .unwrap_or("");
    out.extend_from_slice(b"HTTP/1.1 ");
    // A status is three digits: checked on the upstream's, and a `StatusCode`'s.
    out.extend_from_slice(&[
        b'0' + (status / 100 % 10) as u8,
        b'0' + (status / 10 % 10) as u8,
        b'0' + (status % 10) as u8,
    ]);
    out.push(b' ');
    out.extend_from_slice(reason.as_bytes());
    out.extend_from_slice(b"\r\n");
    write_headers(out, h);
    if chunked {
        out.extend_from_slice(b"transfer-encoding: chunked\r\n");
    }
    if close {
        out.extend_from_slice(b"connection: close\r\n");
    }
    out.extend_from_slice(b"\r\n");
}

fn write_headers(out: &mut Vec<u8>, h: &HeaderMap) {
    for (name, value) in h {
        out.extend_from_slice(name.as_str().as_bytes());
        out.extend_from_slice(b": ");
        out.extend_from_slice(value.as_bytes());
        out.extend_from_slice(b"\r\n");
    }
}

/// Reads what comes into `buf`'s spare room (grown when full); 0 at the end.
async fn read_more<R: AsyncRead + Unpin + ?Sized>(
    r: &mut R,
    buf: &mut Vec<u8>,
) -> io::Result<usize> {
    if buf.capacity() - buf.len() < 4096 {
        buf.reserve(buf.capacity().max(8192));
    }
    r.read_buf(buf).await
}

/// Sends `out` (the head) and a body of `n` bytes from the upstream as they come; whether
/// all of it was sent.
async fn copy_length<Io: AsyncWrite + Unpin>(
    up: &mut Open<'_>,
    io: &mut Io,
    mut out: Vec<u8>,
    n: u64,
    timer: &mut Timer,
    limit: Duration,
) -> bool {
    let mut left = n;
    loop {
        let take = (left as usize).min(up.buf.len());
        // The head and the body as they are, in one vectored write.
        let mut both = Buf::chain(out.as_slice(), &up.buf[..take]);
        if io.write_all_buf(&mut both).await.is_err() {
            return false;
        }
        up.buf.drain(..take);
        left -= take as u64;
        if left == 0 {
            return true;
        }
        out.clear();
        if !matches!(up.read(timer, limit).await, Some(1..)) {
            return false;
        }
    }
}

/// Sends `out` (the head) and the upstream's body, chunked (`chunked`) or until it closes,
/// as chunks as it comes; whether all of it was sent.
async fn copy_chunks<Io: AsyncWrite + Unpin>(
    up: &mut Open<'_>,
    io: &mut Io,
    mut out: Vec<u8>,
    chunked: bool,
    timer: &mut Timer,
    limit: Duration,
) -> bool {
    let mut decoder = Chunked::default();
    let mut data = Vec::new();
    loop {
        let done = if chunked {
            match decoder.decode(&up.buf, &mut data) {
                Ok((used, done)) => {
                    up.buf.drain(..used);
                    done
                }
                Err(()) => return false,
            }
        } else {
            data.append(&mut up.buf);
            false
        };
        if !data.is_empty() {
            let _ = write!(out, "{:x}\r\n", data.len());
            out.append(&mut data);
            out.extend_from_slice(b"\r\n");
        }
        if done {
            out.extend_from_slice(b"0\r\n\r\n");
        }
        if !out.is_empty() && io.write_all(&out).await.is_err() {
            return false;
        }
        if done {
            return true;
        }
        out.clear();
        match up.read(timer, limit).await {
            Some(1..) => {}
            // A close-delimited body ends when the upstream closes.
            Some(0) if !chunked => return io.write_all(b"0\r\n\r\n").await.is_ok(),
            _ => return false,
        }
    }
}

/// A chunked body's decoder (RFC 9112, 7.1), strict: CRLF line ends, at most 15 hex
/// digits a size, extensions and trailers bounded and dropped.
#[derive(Default)]
struct Chunked {
    state: ChunkState,
    /// Bytes of the current size line's extension, or of the trailers.
    skipped: usize,
}

#[derive(Default, Clone, Copy, Debug, PartialEq)]
enum ChunkState {
    #[default]
    Size,
    SizeDigits(u64, u8),
    Extension(u64),
    SizeLf(u64),
    Data(u64),
    DataCr,
    DataLf,
    /// In the trailers: at a line's start, or in a line; `true` once its CR came.
    Trailer {
        start: bool,
        cr: bool,
    },
    Done,
}

const MAX_SKIPPED: usize = 16 * 1024;

impl Chunked {
    /// Decodes from `input` into `out`: (bytes used, whether the body ended).
    fn decode(&mut self, input: &[u8], out: &mut Vec<u8>) -> Result<(usize, bool), ()> {
        use ChunkState::*;
        let mut i = 0;
        while i < input.len() && self.state != Done {
            if let Data(left) = self.state {
                let take = (left as usize).min(input.len() - i);
                out.extend_from_slice(&input[i..i + take]);
                i += take;
                self.state = if left == take as u64 {
                    DataCr
                } else {
                    Data(left - take as u64)
                };
                continue;
            }
            let b = input[i];
            i += 1;
            self.state = match (self.state, b) {
                (Size, b) => SizeDigits(hex(b).ok_or(())?, 1),
                (SizeDigits(n, d), b) if hex(b).is_some() && d < 15 => {
                    SizeDigits(n * 16 + hex(b).ok_or(())?, d + 1)
                }
                (SizeDigits(n, _), b';') => {
                    self.skipped = 0;
                    Extension(n)
                }
                (SizeDigits(n, _) | Extension(n), b'\r') => SizeLf(n),
                (Extension(n), b) if b != b'\n' => {
                    self.skipped += 1;
                    if self.skipped > MAX_SKIPPED {
                        return Err(());
                    }
                    Extension(n)
                }
                (SizeLf(0), b'\n') => {
                    self.skipped = 0;
                    Trailer {
                        start: true,
                        cr: false,
                    }
                }
                (SizeLf(n), b'\n') => Data(n),
                (DataCr, b'\r') => DataLf,
                (DataLf, b'\n') => Size,
                (Trailer { start, .. }, b'\r') => Trailer { start, cr: true },
                (
                    Trailer {
                        start: true,
                        cr: true,
                    },
                    b'\n',
                ) => Done,
                (Trailer { cr: true, .. }, b'\n') => Trailer {
                    start: true,
                    cr: false,
                },
                (Trailer { cr: false, .. }, b) if b != b'\n' => {
                    self.skipped += 1;
                    if self.skipped > MAX_SKIPPED {
                        return Err(());
                    }
                    Trailer {
                        start: false,
                        cr: false,
                    }
                }
                _ => return Err(()),
            };
        }
        Ok((i, self.state == Done))
    }
}

fn hex(b: u8) -> Option<u64> {
    (b as char).to_digit(16).map(u64::from)
}

/// A connection's timer, moved for each wait rather than made anew: registering a new
/// timer makes the runtime re-arm its wait for events (a system call more a request),
/// moving one's deadline later does not.
struct Timer(Pin<Box<Sleep>>);

impl Timer {
    fn new() -> Timer {
        Timer(Box::pin(tokio::time::sleep(Duration::from_secs(3600))))
    }

    /// `fut`'s output, or `None` when `deadline` passes first.
    async fn until<F: Future>(&mut self, deadline: Instant, fut: F) -> Option<F::Output> {
        if self.0.deadline() != deadline {
            self.0.as_mut().reset(deadline);
        }
        tokio::select! {
            biased;
            out = fut => Some(out),
            () = self.0.as_mut() => None,
        }
    }

    /// `fut`'s output, or `None` when nothing comes of it within `limit`.
    async fn within<F: Future>(&mut self, limit: Duration, fut: F) -> Option<F::Output> {
        self.until(Instant::now() + limit, fut).await
    }
}

/// Whether an idle upstream connection is still open: nothing to read and no end seen.
fn still_open(io: &mut dyn UpstreamIo) -> bool {
    let mut cx = Context::from_waker(Waker::noop());
    let mut byte = [0u8; 1];
    let mut buf = ReadBuf::new(&mut byte);
    matches!(Pin::new(io).poll_read(&mut cx, &mut buf), Poll::Pending)
}

/// A connection whose first bytes were read already: they are read again first.
pub struct Rewound<Io> {
    read: Vec<u8>,
    at: usize,
    io: Io,
}

impl<Io> Rewound<Io> {
    fn new(read: Vec<u8>, io: Io) -> Rewound<Io> {
        Rewound { read, at: 0, io }
    }
}

impl<Io: AsyncRead + Unpin> AsyncRead for Rewound<Io> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = &mut *self;
        if this.at < this.read.len() {
            let n = buf.remaining().min(this.read.len() - this.at);
            buf.put_slice(&this.read[this.at..this.at + n]);
            this.at += n;
            if this.at == this.read.len() {
                this.read = Vec::new();
                this.at = 0;
            }
            return Poll::Ready(Ok(()));
        }
        Pin::new(&mut this.io).poll_read(cx, buf)
    }
}

impl<Io: AsyncWrite + Unpin> AsyncWrite for Rewound<Io> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.io).poll_write(cx, buf)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.io).poll_write_vectored(cx, bufs)
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode_all(parts: &[&[u8]]) -> Result<(Vec<u8>, bool, usize), ()> {
        let mut d = Chunked::default();
        let (mut out, mut left) = (Vec::new(), 0);
        let mut done = false;
        for p in parts {
            let (used, end) = d.decode(p, &mut out)?;
            left += p.len() - used;
            done = end;
        }
        Ok((out, done, left))
    }

    #[test]
    fn chunked_bodies_decode_across_any_split() {
        let body = b"5;name=value\r\nhello\r\n7\r\n, world\r\n0\r\nx-trailer: dropped\r\n\r\n";
        for cut in 0..=body.len() {
            let (a, b) = body.split_at(cut);
            let (out, done, left) = decode_all(&[a, b]).unwrap();
            assert_eq!(out, b"hello, world", "cut at {cut}");
            assert!(done);
            assert_eq!(left, 0);
        }
        // What follows the body is left for the next answer.
        let (_, done, left) = decode_all(&[b"0\r\n\r\nHTTP/1.1"]).unwrap();
        assert!(done);
        assert_eq!(left, 8);
    }

    #[test]
    fn malformed_chunked_bodies_are_refused() {
        for bad in [
            &b"x\r\n"[..],
            b"5\nhello\r\n",
            b"5\r\nhelloX\r\n",
            b"1234567890abcdef0\r\n",
            b"-1\r\n",
            b"5 \r\nhello\r\n",
        ] {
            assert!(
                decode_all(&[bad]).is_err(),
                "{:?}",
                String::from_utf8_lossy(bad)
            );
        }
        let long = [&b"1;"[..], &vec![b'a'; MAX_SKIPPED + 1]].concat();
        assert!(decode_all(&[&long]).is_err());
    }

    fn answer_of(head: &str, method: Method) -> Result<Answer, Failure> {
        let mut lines = [httparse::EMPTY_HEADER; MAX_LINES];
        let mut resp = httparse::Response::new(&mut lines);
        let httparse::Status::Complete(n) = resp.parse(head.as_bytes()).unwrap() else {
            panic!("a partial head: {head:?}");
        };
        answer(&resp, &head.as_bytes()[..n], &method)
    }

    #[test]
    fn an_answer_s_framing() {
        let framing = |head: &str, m: Method| answer_of(head, m).ok().map(|a| a.framing);
        let get = Method::GET;
        assert_eq!(
            framing("HTTP/1.1 200 OK\r\ncontent-length: 12\r\n\r\n", get.clone()),
            Some(Framing::Length(12))
        );
        assert_eq!(
            framing(
                "HTTP/1.1 200 OK\r\ncontent-length: 12, 12\r\n\r\n",
                get.clone()
            ),
            Some(Framing::Length(12))
        );
        assert_eq!(
            framing(
                "HTTP/1.1 200 OK\r\ncontent-length: 12\r\ncontent-length: 13\r\n\r\n",
                get.clone()
            ),
            None
        );
        assert_eq!(
            framing(
                "HTTP/1.1 200 OK\r\ncontent-length: +12\r\n\r\n",
                get.clone()
            ),
            None
        );
        assert_eq!(
            framing(
                "HTTP/1.1 200 OK\r\ntransfer-encoding: gzip, chunked\r\ncontent-length: 3\r\n\r\n",
                get.clone()
            ),
            Some(Framing::Chunked)
        );
        assert_eq!(
            framing(
                "HTTP/1.1 200 OK\r\ntransfer-encoding: gzip\r\n\r\n",
                get.clone()
            ),
            Some(Framing::Close)
        );
        assert_eq!(
            framing("HTTP/1.1 200 OK\r\n\r\n", get.clone()),
            Some(Framing::Close)
        );
        assert_eq!(
            framing("HTTP/1.1 204 No Content\r\n\r\n", get.clone()),
            Some(Framing::Empty)
        );
        assert_eq!(
            framing(
                "HTTP/1.1 200 OK\r\ncontent-length: 12\r\n\r\n",
                Method::HEAD
            ),
            Some(Framing::Empty)
        );
        let keep = |head: &str| answer_of(head, Method::GET).ok().map(|a| a.keep);
        assert_eq!(
            keep("HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n"),
            Some(true)
        );
        assert_eq!(
            keep("HTTP/1.1 200 OK\r\nconnection: close\r\ncontent-length: 0\r\n\r\n"),
            Some(false)
        );
        assert_eq!(
            keep("HTTP/1.0 200 OK\r\ncontent-length: 0\r\n\r\n"),
            Some(false)
        );
        assert!(matches!(
            answer_of("HTTP/1.1 600 Nope\r\n\r\n", Method::GET),
            Err(Failure::NotAStatus(600))
        ));
    }

    #[test]
    fn bytes_read_already_are_read_again_first() {
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        rt.block_on(async {
            let (client, mut server) = tokio::io::duplex(64);
            let mut rewound = Rewound::new(b"GET / HTTP/1.1\r\n".to_vec(), client);
            server.write_all(b"host: a\r\n\r\n").await.unwrap();
            drop(server);
            let mut all = String::new();
            rewound.read_to_string(&mut all).await.unwrap();
            assert_eq!(all, "GET / HTTP/1.1\r\nhost: a\r\n\r\n");
        });
    }
}
