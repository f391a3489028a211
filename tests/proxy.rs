//! Proxy mode against real upstreams: a second cxwatch in embedded mode (over TLS, its
//! self-signed certificate trusted through `upstream_ca`), a small HTTP server in the test
//! that echoes what it received, a port nobody listens on, and one that never answers.

use crate::common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::Duration;

use common::{start, Opts, Server};
use sha2::Digest;

// ---------------------------------------------------------------------------------------
// A tiny HTTP/1.1 upstream that answers every request with what it received, as JSON.

#[derive(Clone, Debug)]
struct Seen {
    method: String,
    target: String,
    headers: Vec<(String, String)>,
    body_len: usize,
    body_sha256: String,
}

impl Seen {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

struct Echo {
    port: u16,
    seen: Arc<Mutex<Vec<Seen>>>,
    /// Signalled when the first bytes of a request body have arrived.
    upload_started: mpsc::Receiver<()>,
    /// The test signals here once it has read the first part of `/stream-down`.
    download_go: mpsc::Sender<()>,
    /// Whether `/stream-down` got that signal before sending the rest.
    download_signalled: Arc<AtomicBool>,
}

impl Echo {
    fn start() -> Echo {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let (started_tx, started_rx) = mpsc::channel();
        let (go_tx, go_rx) = mpsc::channel::<()>();
        let go_rx = Arc::new(Mutex::new(go_rx));
        let signalled = Arc::new(AtomicBool::new(false));
        let (seen2, signalled2) = (seen.clone(), signalled.clone());
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let (seen, started, go, signalled) = (
                    seen2.clone(),
                    started_tx.clone(),
                    go_rx.clone(),
                    signalled2.clone(),
                );
                std::thread::spawn(move || {
                    let _ = handle(stream, &seen, &started, &go, &signalled);
                });
            }
        });
        Echo {
            port,
            seen,
            upload_started: started_rx,
            download_go: go_tx,
            download_signalled: signalled,
        }
    }

    fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }
}

fn handle(
    stream: TcpStream,
    seen: &Mutex<Vec<Seen>>,
    started: &mpsc::Sender<()>,
    go: &Mutex<mpsc::Receiver<()>>,
    signalled: &AtomicBool,
) -> std::io::Result<()> {
    let mut out = stream.try_clone()?;
    let mut reader = BufReader::new(stream);
    let mut line = String::new();
    reader.read_line(&mut line)?;
    let mut parts = line.split_whitespace();
    let method = parts.next().unwrap_or("").to_string();
    let target = parts.next().unwrap_or("").to_string();
    let mut headers = Vec::new();
    loop {
        let mut h = String::new();
        reader.read_line(&mut h)?;
        let h = h.trim_end();
        if h.is_empty() {
            break;
        }
        if let Some((k, v)) = h.split_once(':') {
            headers.push((k.trim().to_ascii_lowercase(), v.trim().to_string()));
        }
    }
    let get = |name: &str| {
        headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
    };
    let mut hasher = sha2::Sha256::new();
    let mut body_len = 0usize;
    let mut on_data = |data: &[u8]| {
        if body_len == 0 && !data.is_empty() {
            let _ = started.send(());
        }
        body_len += data.len();
        hasher.update(data);
    };
    if get("transfer-encoding").is_some_and(|v| v.eq_ignore_ascii_case("chunked")) {
        loop {
            let mut size = String::new();
            reader.read_line(&mut size)?;
            let size = usize::from_str_radix(size.trim().split(';').next().unwrap_or(""), 16)
                .map_err(std::io::Error::other)?;
            if size == 0 {
                let mut end = String::new();
                while reader.read_line(&mut end)? > 2 {
                    end.clear();
                }
                break;
            }
            let mut chunk = vec![0u8; size];
            reader.read_exact(&mut chunk)?;
            on_data(&chunk);
            let mut crlf = [0u8; 2];
            reader.read_exact(&mut crlf)?;
        }
    } else if let Some(len) = get("content-length").and_then(|l| l.parse::<usize>().ok()) {
        let mut left = len;
        let mut buf = vec![0u8; 64 * 1024];
        while left > 0 {
            let want = left.min(buf.len());
            let n = reader.read(&mut buf[..want])?;
            if n == 0 {
                break;
            }
            on_data(&buf[..n]);
            left -= n;
        }
    }
    let record = Seen {
        method,
        target: target.clone(),
        headers,
        body_len,
        body_sha256: hex::encode(hasher.finalize()),
    };
    seen.lock().unwrap().push(record.clone());

    if target.ends_with("/status-999") {
        out.write_all(
            b"HTTP/1.1 999 Odd\r\nContent-Type: text/plain\r\nContent-Length: 3\r\nConnection: close\r\n\r\nodd",
        )?;
        return out.flush();
    }
    if target.ends_with("/stream-down") {
        out.write_all(
            b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n6\r\nfirst\n\r\n",
        )?;
        out.flush()?;
        let ok = go
            .lock()
            .unwrap()
            .recv_timeout(Duration::from_secs(10))
            .is_ok();
        signalled.store(ok, Ordering::SeqCst);
        out.write_all(b"7\r\nsecond\n\r\n0\r\n\r\n")?;
        return out.flush();
    }
    let body = serde_json::json!({
        "method": record.method,
        "target": record.target,
        "headers": record.headers,
        "bodyLen": record.body_len,
        "bodySha256": record.body_sha256,
    })
    .to_string();
    write!(
        out,
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\
         Connection: close, X-Upstream-Hop\r\nX-Upstream-Hop: 1\r\nKeep-Alive: timeout=5\r\n\
         Proxy-Authenticate: Basic realm=\"x\"\r\nX-End-To-End: kept\r\n\r\n{body}",
        body.len()
    )?;
    out.flush()
}

/// A server that accepts connections and never answers.
fn silent_server() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in listener.incoming().flatten() {
            held.push(stream);
        }
    });
    port
}

// ---------------------------------------------------------------------------------------
// The proxy under test and a client that reaches it under any host name.

struct Setup {
    upstream: Server,
    proxy: Server,
    echo: Echo,
}

/// An embedded cxwatch upstream, an echo upstream and a proxy with tenants:
/// `up.test` (TLS, trusted by `upstream_ca`), `echo.test` (plain HTTP, path prefix
/// `/prefix`), `down.test` (nothing listens), `untrusted.test` (TLS, certificate not
/// trusted) and `insecure.test` (TLS, `upstream_insecure`).
fn setup() -> Setup {
    let upstream = start(Opts::default());
    let echo = Echo::start();
    let ca = upstream.data_dir.join("tls/self-signed.crt");
    let toml = format!(
        "[api]\nmode = \"proxy\"\n\
         [[tenants]]\nname = \"up\"\nhosts = [\"up.test\"]\nupstream = \"https://127.0.0.1:{up}\"\nupstream_ca = {ca:?}\n\
         [[tenants]]\nname = \"echo\"\nhosts = [\"echo.test\"]\nupstream = \"http://127.0.0.1:{echo}/prefix\"\n\
         [[tenants]]\nname = \"down\"\nhosts = [\"down.test\"]\nupstream = \"http://127.0.0.1:{down}\"\n\
         [[tenants]]\nname = \"untrusted\"\nhosts = [\"untrusted.test\"]\nupstream = \"https://127.0.0.1:{up}\"\n\
         [[tenants]]\nname = \"insecure\"\nhosts = [\"insecure.test\"]\nupstream = \"https://127.0.0.1:{up}\"\nupstream_insecure = true\n",
        up = upstream.port,
        ca = ca.to_str().unwrap(),
        echo = echo.port,
        down = common::free_port(),
    );
    let proxy = start(Opts {
        toml,
        ..Opts::default()
    });
    Setup {
        upstream,
        proxy,
        echo,
    }
}

fn resolving_client() -> reqwest::blocking::Client {
    let local: SocketAddr = "127.0.0.1:0".parse().unwrap();
    let mut b = reqwest::blocking::Client::builder()
        .danger_accept_invalid_certs(true)
        .timeout(Duration::from_secs(60));
    for host in [
        "up.test",
        "echo.test",
        "down.test",
        "untrusted.test",
        "insecure.test",
        "nobody.test",
        "slow.test",
        "stall.test",
    ] {
        b = b.resolve(host, local);
    }
    b.build().unwrap()
}

fn at(server: &Server, host: &str, path: &str) -> String {
    format!("https://{host}:{}{path}", server.port)
}

fn header(resp: &reqwest::blocking::Response, name: &str) -> String {
    resp.headers()
        .get(name)
        .map(|v| v.to_str().unwrap().to_string())
        .unwrap_or_default()
}

fn assert_json_error(resp: reqwest::blocking::Response, status: u16, code: &str) -> String {
    assert_eq!(resp.status(), status);
    assert!(header(&resp, "content-type").starts_with("application/json"));
    assert!(header(&resp, "content-security-policy").contains("default-src 'self'"));
    assert_eq!(header(&resp, "x-content-type-options"), "nosniff");
    assert!(header(&resp, "strict-transport-security").starts_with("max-age="));
    let body: serde_json::Value = resp.json().unwrap();
    assert_eq!(body["code"], code, "{body}");
    let messages = body["messages"].as_array().expect("messages");
    assert!(!messages.is_empty(), "{body}");
    messages[0].as_str().unwrap().to_string()
}

// ---------------------------------------------------------------------------------------

#[test]
fn api_answers_of_the_upstream_pass_through() {
    let s = setup();
    let c = resolving_client();
    let direct = common::client()
        .get(s.upstream.url("/api/openapi.json"))
        .send()
        .unwrap();
    assert_eq!(direct.status(), 200);
    let direct_type = header(&direct, "content-type");
    let direct = direct.bytes().unwrap();
    let proxied = c
        .get(at(&s.proxy, "up.test", "/api/openapi.json"))
        .send()
        .unwrap();
    assert_eq!(proxied.status(), 200);
    assert_eq!(header(&proxied, "content-type"), direct_type);
    assert!(header(&proxied, "content-security-policy").contains("script-src 'self';"));
    assert_eq!(proxied.bytes().unwrap(), direct);

    let direct = common::client()
        .post(s.upstream.url("/api/auth/signout"))
        .send()
        .unwrap();
    assert_eq!(direct.status(), 401);
    let direct = direct.text().unwrap();
    let proxied = c
        .post(at(&s.proxy, "up.test", "/api/auth/signout"))
        .send()
        .unwrap();
    assert_eq!(proxied.status(), 401);
    assert!(header(&proxied, "content-type").starts_with("application/json"));
    assert!(header(&proxied, "strict-transport-security").starts_with("max-age="));
    let proxied = proxied.text().unwrap();
    assert_eq!(proxied, direct);
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&proxied).unwrap(),
        serde_json::json!({"code": "UNAUTHORIZED", "messages": ["Access is denied!"]})
    );

    // Accepting any certificate works too; without `upstream_ca` the self-signed upstream
    // is refused.
    let resp = c
        .get(at(&s.proxy, "insecure.test", "/api/openapi.json"))
        .send()
        .unwrap();
    assert_eq!(resp.status(), 200);
    let resp = c
        .get(at(&s.proxy, "untrusted.test", "/api/openapi.json"))
        .send()
        .unwrap();
    assert_json_error(resp, 502, "BAD_GATEWAY");
}

#[test]
fn healthz_ui_and_tenant_config_work_in_proxy_mode() {
    let s = setup();
    let c = resolving_client();
    let resp = c.get(at(&s.proxy, "up.test", "/healthz")).send().unwrap();
    assert_eq!(resp.text().unwrap(), "ok");
    // Any host gets the UI; only /api is tied to a tenant.
    for host in ["up.test", "nobody.test"] {
        let resp = c.get(at(&s.proxy, host, "/dashboard")).send().unwrap();
        assert_eq!(resp.status(), 200);
        assert_eq!(header(&resp, "content-type"), "text/html; charset=utf-8");
        assert!(resp.text().unwrap().to_ascii_lowercase().contains("<html"));
    }
    let body: serde_json::Value = c
        .get(at(&s.proxy, "up.test", "/tenant-config?ac=echo.test"))
        .send()
        .unwrap()
        .json()
        .unwrap();
    assert_eq!(body["data"]["name"], "echo");
    assert_eq!(body["data"]["apiBaseUrl"], "/api");
    assert!(s.echo.seen().is_empty());
}

#[test]
fn unknown_host_gets_404_and_is_never_forwarded() {
    let s = setup();
    let c = resolving_client();
    for url in [
        at(&s.proxy, "nobody.test", "/api/echo"),
        s.proxy.url("/api/echo"),
        format!("https://localhost:{}/api/echo", s.proxy.port),
    ] {
        let resp = c.post(&url).body("x").send().unwrap();
        let message = assert_json_error(resp, 404, "NOT_FOUND");
        assert!(
            message.contains("No tenant is configured for host"),
            "{message}"
        );
    }
    let resp = c
        .get(at(&s.proxy, "echo.test", "/api/echo"))
        .header("host", "nobody.test")
        .send()
        .unwrap();
    assert_json_error(resp, 404, "NOT_FOUND");
    assert!(s.echo.seen().is_empty(), "{:?}", s.echo.seen());

    // The same request to a known host is forwarded.
    let resp = c
        .get(at(&s.proxy, "echo.test", "/api/echo"))
        .send()
        .unwrap();
    assert_eq!(resp.status(), 200);
    assert_eq!(s.echo.seen().len(), 1);
}

#[test]
fn forwarded_headers_are_set_and_hop_by_hop_headers_dropped() {
    let s = setup();
    let c = resolving_client();
    let resp = c
        .get(at(&s.proxy, "echo.test", "/api/echo/x?y=1&z=%20a"))
        .header("connection", "keep-alive, X-Client-Hop")
        .header("x-client-hop", "1")
        .header("keep-alive", "timeout=5")
        .header("proxy-authorization", "Basic eDp5")
        .header("te", "trailers")
        .header("x-forwarded-for", "203.0.113.9")
        .header("x-forwarded-host", "evil.test")
        .header("x-forwarded-proto", "gopher")
        .header("forwarded", "for=198.51.100.1;host=evil.test;proto=http")
        .header("x-real-ip", "198.51.100.2")
        .header("authorization", "Bearer abc")
        .header("cookie", "a=1")
        .send()
        .unwrap();
    assert_eq!(resp.status(), 200);
    // The upstream's hop-by-hop headers do not come back; its others do.
    assert_eq!(header(&resp, "x-upstream-hop"), "");
    assert_eq!(header(&resp, "keep-alive"), "");
    assert_eq!(header(&resp, "proxy-authenticate"), "");
    assert_eq!(header(&resp, "x-end-to-end"), "kept");
    assert!(header(&resp, "content-security-policy").contains("default-src 'self'"));
    assert_eq!(header(&resp, "x-frame-options"), "DENY");

    let seen = s.echo.seen();
    assert_eq!(seen.len(), 1);
    let seen = &seen[0];
    assert_eq!(seen.method, "GET");
    assert_eq!(seen.target, "/prefix/api/echo/x?y=1&z=%20a");
    assert_eq!(
        seen.header("host"),
        Some(format!("127.0.0.1:{}", s.echo.port).as_str())
    );
    for gone in ["x-client-hop", "keep-alive", "proxy-authorization", "te"] {
        assert_eq!(seen.header(gone), None, "{gone} was forwarded: {seen:?}");
    }
    if let Some(connection) = seen.header("connection") {
        assert!(!connection.to_ascii_lowercase().contains("x-client-hop"));
    }
    // What the client claims about earlier hops is replaced by what the proxy saw.
    assert_eq!(seen.header("x-forwarded-for"), Some("127.0.0.1"));
    assert_eq!(seen.header("x-real-ip"), None);
    assert_eq!(
        seen.header("forwarded"),
        Some(
            format!(
                "for=127.0.0.1;host=\"echo.test:{}\";proto=https",
                s.proxy.port
            )
            .as_str()
        )
    );
    assert_eq!(
        seen.headers
            .iter()
            .filter(|(k, _)| k == "forwarded" || k == "x-forwarded-for")
            .count(),
        2,
        "{seen:?}"
    );
    assert_eq!(seen.header("x-forwarded-proto"), Some("https"));
    assert_eq!(
        seen.header("x-forwarded-host"),
        Some(format!("echo.test:{}", s.proxy.port).as_str())
    );
    assert_eq!(seen.header("authorization"), Some("Bearer abc"));
    assert_eq!(seen.header("cookie"), Some("a=1"));
}

#[test]
fn large_request_body_arrives_whole() {
    let s = setup();
    let c = resolving_client();
    let body: Vec<u8> = (0..8 * 1024 * 1024u32).map(|i| (i % 251) as u8).collect();
    let sha = hex::encode(sha2::Sha256::digest(&body));
    let resp = c
        .post(at(&s.proxy, "echo.test", "/api/ingest/v1/runs"))
        .header("content-type", "application/octet-stream")
        .body(body.clone())
        .send()
        .unwrap();
    assert_eq!(resp.status(), 200);
    let answer: serde_json::Value = resp.json().unwrap();
    assert_eq!(answer["bodyLen"], body.len());
    assert_eq!(answer["bodySha256"], sha);
    let seen = &s.echo.seen()[0];
    assert_eq!(seen.method, "POST");
    assert_eq!(seen.header("content-length"), Some("8388608"));
    assert_eq!(seen.body_len, body.len());
}

/// A request body whose second part is only produced once the upstream has received the
/// first: it only completes if the proxy streams instead of buffering.
struct PacedBody {
    first: Option<Vec<u8>>,
    rest: Option<Vec<u8>>,
    pos: usize,
    started: mpsc::Receiver<()>,
    streamed: Arc<AtomicBool>,
}

impl Read for PacedBody {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let current = match (&self.first, &self.rest) {
            (Some(_), _) => self.first.as_ref().unwrap(),
            (None, Some(_)) => {
                if self.pos == 0 && !self.streamed.load(Ordering::SeqCst) {
                    let ok = self.started.recv_timeout(Duration::from_secs(10)).is_ok();
                    self.streamed.store(ok, Ordering::SeqCst);
                }
                self.rest.as_ref().unwrap()
            }
            (None, None) => return Ok(0),
        };
        let n = buf.len().min(current.len() - self.pos);
        buf[..n].copy_from_slice(&current[self.pos..self.pos + n]);
        self.pos += n;
        if self.pos == current.len() {
            self.pos = 0;
            if self.first.is_some() {
                self.first = None;
            } else {
                self.rest = None;
            }
        }
        Ok(n)
    }
}

#[test]
fn bodies_stream_both_ways() {
    let s = setup();
    let c = resolving_client();
    let first = vec![1u8; 64 * 1024];
    let rest = vec![2u8; 1024 * 1024];
    let mut all = first.clone();
    all.extend_from_slice(&rest);
    let streamed = Arc::new(AtomicBool::new(false));
    let Setup { echo, proxy, .. } = s;
    let Echo {
        port: echo_port,
        seen,
        upload_started,
        download_go,
        download_signalled,
    } = echo;
    let body = PacedBody {
        first: Some(first),
        rest: Some(rest),
        pos: 0,
        started: upload_started,
        streamed: streamed.clone(),
    };
    let resp = c
        .post(at(&proxy, "echo.test", "/api/ingest/v1/runs"))
        .body(reqwest::blocking::Body::new(body))
        .send()
        .unwrap();
    assert_eq!(resp.status(), 200);
    let answer: serde_json::Value = resp.json().unwrap();
    assert_eq!(answer["bodyLen"], all.len());
    assert_eq!(
        answer["bodySha256"],
        hex::encode(sha2::Sha256::digest(&all))
    );
    assert!(
        streamed.load(Ordering::SeqCst),
        "the upstream got nothing before the whole body was sent: the proxy buffered it"
    );
    let upload = seen.lock().unwrap()[0].clone();
    assert_eq!(upload.header("transfer-encoding"), Some("chunked"));

    // Download: the upstream sends "first", waits for the client to have read it, then
    // sends the rest.
    let mut resp = c
        .get(at(&proxy, "echo.test", "/api/stream-down"))
        .send()
        .unwrap();
    assert_eq!(resp.status(), 200);
    let mut got = Vec::new();
    let mut buf = [0u8; 64];
    while !got.starts_with(b"first\n") {
        let n = resp.read(&mut buf).unwrap();
        assert!(n > 0, "body ended early: {got:?}");
        got.extend_from_slice(&buf[..n]);
    }
    download_go.send(()).unwrap();
    resp.read_to_end(&mut got).unwrap();
    assert_eq!(got, b"first\nsecond\n");
    assert!(
        download_signalled.load(Ordering::SeqCst),
        "the client got nothing before the upstream finished: the proxy buffered the answer"
    );
    let _ = echo_port;
}

#[test]
fn unreachable_upstream_gives_502_with_messages() {
    let s = setup();
    let c = resolving_client();
    let resp = c
        .get(at(&s.proxy, "down.test", "/api/trs/v1/groups"))
        .send()
        .unwrap();
    let message = assert_json_error(resp, 502, "BAD_GATEWAY");
    assert!(message.contains("could not be reached"), "{message}");
}

#[test]
fn the_log_of_a_failed_forward_names_the_path_not_the_query() {
    let mut s = setup();
    let c = resolving_client();
    let resp = c
        .get(at(
            &s.proxy,
            "down.test",
            "/api/auth/getToken?id=unused-one-time-id-4711",
        ))
        .send()
        .unwrap();
    assert_json_error(resp, 502, "BAD_GATEWAY");
    let _ = s.proxy.child.kill();
    let _ = s.proxy.child.wait();
    let log = s.proxy.stderr();
    assert!(log.contains("upstream unreachable"), "{log}");
    assert!(log.contains("/api/auth/getToken"), "{log}");
    assert!(
        !log.contains("unused-one-time-id-4711"),
        "the one-time id reached the log: {log}"
    );
}

/// A proxy with `proxy.timeout_secs = 1` and one tenant, `NAME.test`, whose upstream is
/// plain HTTP on 127.0.0.1:`port`.
fn proxy_of_one_second(name: &str, port: u16) -> Server {
    start(Opts {
        toml: format!(
            "[api]\nmode = \"proxy\"\n[proxy]\ntimeout_secs = 1\n\
             [[tenants]]\nname = \"{name}\"\nhosts = [\"{name}.test\"]\nupstream = \"http://127.0.0.1:{port}\"\n"
        ),
        ..Opts::default()
    })
}

#[test]
fn slow_upstream_gives_504_after_the_timeout() {
    let proxy = proxy_of_one_second("slow", silent_server());
    let c = resolving_client();
    let started = std::time::Instant::now();
    let resp = c
        .post(at(&proxy, "slow.test", "/api/auth/signin"))
        .body("{}")
        .send()
        .unwrap();
    let message = assert_json_error(resp, 504, "GATEWAY_TIMEOUT");
    assert!(message.contains("within 1 s"), "{message}");
    // Not answered before the timeout (a time-out can only be proven by waiting).
    assert!(started.elapsed() >= Duration::from_millis(900));
}

#[test]
fn an_answer_that_stalls_ends_after_the_timeout() {
    // An upstream that sends the head and part of the body, then nothing, keeping the
    // connection open.
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for mut stream in listener.incoming().flatten() {
            let mut head = Vec::new();
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            while !head.ends_with(b"\r\n\r\n") {
                let mut line = Vec::new();
                if reader.read_until(b'\n', &mut line).unwrap_or(0) == 0 {
                    break;
                }
                head.extend_from_slice(&line);
            }
            let _ = stream.write_all(
                b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 100\r\n\r\nthe first part",
            );
            held.push(stream);
        }
    });
    let proxy = proxy_of_one_second("stall", port);
    let c = resolving_client();
    let started = std::time::Instant::now();
    let mut resp = c
        .get(at(&proxy, "stall.test", "/api/trs/v1/groups"))
        .send()
        .unwrap();
    assert_eq!(resp.status(), 200);
    let mut got = Vec::new();
    let read = resp.read_to_end(&mut got);
    assert!(read.is_err(), "the body ended as if whole: {got:?}");
    assert!(got.len() < 100, "{got:?}");
    // Ended by the proxy's time-out, not the client's.
    assert!(started.elapsed() < Duration::from_secs(20));
}

#[test]
fn absolute_request_urls_are_never_followed() {
    // Plain HTTP makes a hand-written absolute-form request easy to send.
    let tenant_upstream = Echo::start();
    let elsewhere = Echo::start();
    let proxy = start(Opts {
        plain_http: true,
        toml: format!(
            "[api]\nmode = \"proxy\"\n[[tenants]]\nname = \"local\"\nhosts = [\"127.0.0.1\"]\n\
             upstream = \"http://127.0.0.1:{}\"\n",
            tenant_upstream.port
        ),
        ..Opts::default()
    });
    let raw = |request: String| -> String {
        let mut s = TcpStream::connect(("127.0.0.1", proxy.port)).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
        s.write_all(request.as_bytes()).unwrap();
        let mut answer = String::new();
        let _ = s.read_to_string(&mut answer);
        answer
    };
    let answer = raw(format!(
        "GET http://127.0.0.1:{}/api/steal?x=1 HTTP/1.1\r\nHost: 127.0.0.1:{0}\r\nConnection: close\r\n\r\n",
        elsewhere.port
    ));
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    assert!(elsewhere.seen().is_empty(), "followed the request's URL");
    let seen = tenant_upstream.seen();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].target, "/api/steal?x=1");

    let answer = raw(
        "GET http://evil.test/api/steal HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
            .to_string(),
    );
    assert!(answer.starts_with("HTTP/1.1 404"), "{answer}");
    assert_eq!(tenant_upstream.seen().len(), 1);

    // Dot segments that would climb out of the upstream's base are refused.
    let answer = raw(
        "GET /api/../../etc HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".to_string(),
    );
    assert!(answer.starts_with("HTTP/1.1 400"), "{answer}");
    assert_eq!(tenant_upstream.seen().len(), 1);
}

/// Sends `request` as is over plain TCP and returns the whole answer.
fn raw_request(port: u16, request: &str) -> String {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    s.write_all(request.as_bytes()).unwrap();
    let mut answer = String::new();
    let _ = s.read_to_string(&mut answer);
    answer
}

#[test]
fn backslashes_and_encoded_backslashes_never_leave_the_upstream_base() {
    // The URL library reads `\` as `/` in http(s) addresses, so `..\` would climb out of
    // the tenant's base path and out of /api.
    let upstream = Echo::start();
    let proxy = start(Opts {
        plain_http: true,
        toml: format!(
            "[api]\nmode = \"proxy\"\n[[tenants]]\nname = \"a\"\nhosts = [\"127.0.0.1\"]\n\
             upstream = \"http://127.0.0.1:{}/tenant-a\"\n",
            upstream.port
        ),
        ..Opts::default()
    });
    for path in [
        r"/api/..\..\admin/secret",
        r"/api/x\..\..\..\actuator/env",
        r"/api/x\y",
        "/api/..%5c..%5cadmin/secret",
        "/api/..%5C..%5Cadmin/secret",
        "/api/x%5cy",
        "/api/%2e%2e/%2e%2e/admin",
    ] {
        let answer = raw_request(
            proxy.port,
            &format!("GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"),
        );
        assert!(answer.starts_with("HTTP/1.1 400"), "{path}: {answer}");
        assert!(
            answer.contains("\"code\":\"BAD_REQUEST\""),
            "{path}: {answer}"
        );
    }
    assert!(
        upstream.seen().is_empty(),
        "reached the upstream: {:?}",
        upstream.seen()
    );
    // An ordinary path still arrives under the base.
    let answer = raw_request(
        proxy.port,
        "GET /api/users?x=%5c HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
    );
    assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
    let seen = upstream.seen();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].target, "/tenant-a/api/users?x=%5c");
}

#[test]
fn an_upstream_status_outside_100_to_599_gives_502() {
    let s = setup();
    let c = resolving_client();
    let resp = c
        .get(at(&s.proxy, "echo.test", "/api/status-999"))
        .send()
        .unwrap();
    let message = assert_json_error(resp, 502, "BAD_GATEWAY");
    assert!(message.contains("999"), "{message}");
    assert_eq!(s.echo.seen().len(), 1);
}

#[test]
fn signing_in_while_the_upstream_is_down_says_it_cannot_be_reached() {
    let s = setup();
    let c = resolving_client();
    let resp = c
        .post(at(&s.proxy, "down.test", "/api/auth/signin"))
        .header("content-type", "application/json")
        .body(r#"{"username":"admin","password":"x","rememberMe":false}"#)
        .send()
        .unwrap();
    let message = assert_json_error(resp, 502, "BAD_GATEWAY");
    assert!(message.contains("could not be reached"), "{message}");
}

/// The path a lax upstream could end up serving for `target`: every reading the upstreams
/// behind a proxy are known for, all at once. Percent-decoded until nothing changes (double
/// encodings), overlong UTF-8 and Unicode look-alikes folded to `.`, `/` and `\`, `\` read as
/// `/`, cut at a NUL, `;parameters` dropped from each segment (Tomcat, Spring), trailing
/// spaces trimmed, `//` merged, then `.` and `..` resolved.
fn laxest_reading(target: &str) -> String {
    let path = target.split('?').next().unwrap_or("");
    let mut bytes = path.as_bytes().to_vec();
    for _ in 0..5 {
        let mut out = Vec::with_capacity(bytes.len());
        let mut i = 0;
        while i < bytes.len() {
            let hex = bytes
                .get(i + 1..i + 3)
                .and_then(|h| std::str::from_utf8(h).ok())
                .and_then(|h| u8::from_str_radix(h, 16).ok());
            match (bytes[i], hex) {
                (b'%', Some(d)) => {
                    out.push(d);
                    i += 3;
                }
                (b, _) => {
                    out.push(b);
                    i += 1;
                }
            }
        }
        if out == bytes {
            break;
        }
        bytes = out;
    }
    // Overlong UTF-8 of '.', '/' and '\\', as old decoders read them.
    let mut folded = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let fold = match (bytes[i], bytes.get(i + 1)) {
            (0xc0, Some(0xae)) => Some(b'.'),
            (0xc0, Some(0xaf)) => Some(b'/'),
            (0xc1, Some(0x9c)) => Some(b'\\'),
            _ => None,
        };
        match fold {
            Some(b) => {
                folded.push(b);
                i += 2;
            }
            None => {
                folded.push(bytes[i]);
                i += 1;
            }
        }
    }
    let text: String = String::from_utf8_lossy(&folded)
        .chars()
        .map(|c| match c {
            '\u{FF0E}' | '\u{2024}' | '\u{FE52}' | '\u{3002}' => '.',
            '\u{FF0F}' | '\u{2215}' | '\u{2044}' => '/',
            '\u{FF3C}' | '\u{2216}' | '\\' => '/',
            c => c,
        })
        .collect();
    let text = text.split('\0').next().unwrap_or("");
    let mut resolved: Vec<&str> = Vec::new();
    for seg in text.split('/') {
        let seg = seg
            .split(';')
            .next()
            .unwrap_or("")
            .trim_end_matches([' ', '\t']);
        match seg {
            "" | "." => {}
            ".." => {
                resolved.pop();
            }
            s => resolved.push(s),
        }
    }
    format!("/{}", resolved.join("/"))
}

#[test]
fn the_laxest_reading_resolves_what_upstreams_resolve() {
    for (target, read) in [
        ("/t/api/x?a=../..", "/t/api/x"),
        ("/t/api/..;/admin", "/t/admin"),
        ("/t/api/..%2fadmin", "/t/admin"),
        ("/t/api/%252e%252e/admin", "/t/admin"),
        ("/t/api/%ef%bc%8e%ef%bc%8e/admin", "/t/admin"),
        ("/t/api/x%ef%bc%8f..%ef%bc%8f..", "/t"),
        ("/t/api/%c0%ae%c0%ae/admin", "/t/admin"),
        ("/t/api/..%00/x", "/t"),
        ("/t/api/.. /admin", "/t/admin"),
        ("/t/api//x\\..\\y", "/t/api/y"),
    ] {
        assert_eq!(laxest_reading(target), read, "{target}");
    }
}

/// One request path against the proxy, and whether it must be forwarded.
struct Probe {
    path: &'static str,
    forwarded: bool,
}

const fn refused(path: &'static str) -> Probe {
    Probe {
        path,
        forwarded: false,
    }
}

const fn forwarded(path: &'static str) -> Probe {
    Probe {
        path,
        forwarded: true,
    }
}

/// Paths a client could use to reach the upstream outside `/api`: path parameters,
/// encoded slashes and dots, double encodings, overlong UTF-8, Unicode look-alikes,
/// backslashes, NULs, spaces, empty segments, malformed escapes; and ordinary paths
/// (dots inside names, escapes of letters, a query full of dots) that must still pass.
const PROBES: &[Probe] = &[
    refused("/api/..;/admin"),
    refused("/api/x/..;/..;/admin"),
    refused("/api/%2e%2e;/admin"),
    refused("/api/..%3b/admin"),
    refused("/api/x;jsessionid=1/../../admin"),
    refused("/api/..%2fadmin"),
    refused("/api/..%2Fadmin"),
    refused("/api/x/..%2f..%2fadmin"),
    refused("/api/%2e%2e%2fadmin"),
    refused("/api/x%2f%2e%2e%2f%2e%2e%2fadmin"),
    refused("/api/%2e%2e/admin"),
    refused("/api/.%2e/admin"),
    refused("/api/%2E./admin"),
    refused("/api/%252e%252e/admin"),
    refused("/api/..%252fadmin"),
    refused("/api/%252e%252e%252fadmin"),
    refused("/api/%25%32%65%25%32%65/admin"),
    refused("/api/%c0%ae%c0%ae/admin"),
    refused("/api/x%c0%af..%c0%af..%c0%afadmin"),
    refused("/api/%e2%80%a4%e2%80%a4/admin"),
    refused("/api/%ef%bc%8e%ef%bc%8e/admin"),
    refused("/api/x%ef%bc%8f..%ef%bc%8f..%ef%bc%8fadmin"),
    refused("/api/%ef%bc%8e%ef%bc%8e%ef%bc%8fadmin"),
    refused("/api/%u002e%u002e/admin"),
    refused("/api/..%00/admin"),
    refused("/api/..%20/admin"),
    refused("/api/..%09/admin"),
    refused("/api/..\\admin"),
    refused("/api/..%5cadmin"),
    refused("/api/x%c1%9c..%c1%9c..%c1%9cadmin"),
    refused("/api/../admin"),
    refused("/api/x/../../admin"),
    refused("/api/.."),
    refused("/api/./x"),
    refused("/api/..."),
    refused("/api//admin"),
    refused("/api/x//..//..//admin"),
    refused("/api/x%"),
    refused("/api/x%2"),
    refused("/api/x%zz"),
    forwarded("/api/trs/v1/groups"),
    forwarded("/api/trs/v1/groups/"),
    forwarded("/api/trs/v1/groups/12/metric?level=case&startDate=2026-01-01"),
    forwarded("/api/reports/5/export"),
    forwarded("/api/users?q=..%2f..%2f..%2fadmin&r=/../"),
    forwarded("/api/x..y/a.b/.hidden"),
    forwarded("/api/recordings/rec-1.wav"),
    forwarded("/api/x%41%2D"),
    forwarded("/api/@evil.test:1/x"),
];

#[test]
fn no_probe_path_reaches_the_upstream_outside_api() {
    let upstream = Echo::start();
    let proxy = start(Opts {
        plain_http: true,
        toml: format!(
            "[api]\nmode = \"proxy\"\n[[tenants]]\nname = \"a\"\nhosts = [\"127.0.0.1\"]\n\
             upstream = \"http://127.0.0.1:{}/tenant-a\"\n",
            upstream.port
        ),
        ..Opts::default()
    });
    let mut wrong = Vec::new();
    for probe in PROBES {
        let before = upstream.seen().len();
        let answer = raw_request(
            proxy.port,
            &format!(
                "GET {} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
                probe.path
            ),
        );
        let seen = upstream.seen();
        let arrived = seen.get(before).map(|s| s.target.clone());
        let status = answer.get(9..12).unwrap_or("");
        let ok = if probe.forwarded {
            status == "200" && arrived == Some(format!("/tenant-a{}", probe.path))
        } else {
            // Refused with a reason: by the proxy's path rule, or before it (a path that is
            // not UTF-8 once decoded is refused for every route).
            status == "400" && answer.contains("\"code\":\"BAD_REQUEST\"") && arrived.is_none()
        };
        if !ok {
            wrong.push(format!(
                "{} (forwarded: {}): {status} {arrived:?} {}",
                probe.path,
                probe.forwarded,
                answer.lines().last().unwrap_or("")
            ));
        }
    }
    // Whatever arrived, a lax upstream still reads it under its /api.
    for seen in upstream.seen() {
        let read = laxest_reading(&seen.target);
        assert!(
            read == "/tenant-a/api" || read.starts_with("/tenant-a/api/"),
            "{} arrived and reads as {read}",
            seen.target
        );
    }
    assert!(
        wrong.is_empty(),
        "{} of {} probes went wrong:\n{}",
        wrong.len(),
        PROBES.len(),
        wrong.join("\n")
    );
    assert_eq!(
        upstream.seen().len(),
        PROBES.iter().filter(|p| p.forwarded).count()
    );
}

// ---------------------------------------------------------------------------------------
// The HTTP/1.1 path below hyper (`server::h1`): keep-alive on both sides, the answers'
// framings, gzip, and the hand-over to hyper of what it does not serve.

/// An upstream that reads HTTP/1.1 requests (heads and `Content-Length` bodies) on each
/// connection and answers each with `answer(target)`: the bytes to send, and whether to
/// close the connection after them. Records (connection number, request head).
struct Scripted {
    port: u16,
    seen: Arc<Mutex<Vec<(usize, String)>>>,
}

impl Scripted {
    fn start(answer: fn(&str) -> (Vec<u8>, bool)) -> Scripted {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let seen2 = seen.clone();
        std::thread::spawn(move || {
            for (n, stream) in listener.incoming().flatten().enumerate() {
                let seen = seen2.clone();
                std::thread::spawn(move || {
                    let mut out = stream.try_clone().unwrap();
                    let mut reader = BufReader::new(stream);
                    loop {
                        let mut head = String::new();
                        while !head.ends_with("\r\n\r\n") {
                            if reader.read_line(&mut head).unwrap_or(0) == 0 {
                                return;
                            }
                        }
                        let len = head
                            .lines()
                            .find_map(|l| {
                                let (k, v) = l.split_once(':')?;
                                k.eq_ignore_ascii_case("content-length")
                                    .then(|| v.trim().parse::<usize>().ok())?
                            })
                            .unwrap_or(0);
                        let mut body = vec![0u8; len];
                        reader.read_exact(&mut body).unwrap();
                        let target = head.split(' ').nth(1).unwrap_or("").to_string();
                        seen.lock().unwrap().push((n, head));
                        let (bytes, close) = answer(&target);
                        out.write_all(&bytes).unwrap();
                        if close {
                            return;
                        }
                    }
                });
            }
        });
        Scripted { port, seen }
    }

    fn seen(&self) -> Vec<(usize, String)> {
        self.seen.lock().unwrap().clone()
    }
}

/// A plain-HTTP proxy whose tenant `127.0.0.1` is the upstream on `port`.
fn plain_proxy_to(port: u16) -> Server {
    start(Opts {
        plain_http: true,
        toml: format!(
            "[api]\nmode = \"proxy\"\n[[tenants]]\nname = \"local\"\nhosts = [\"127.0.0.1\"]\n\
             upstream = \"http://127.0.0.1:{port}\"\n"
        ),
        ..Opts::default()
    })
}

fn text_answer(body: &str) -> Vec<u8> {
    format!(
        "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

#[test]
fn keep_alive_requests_share_an_upstream_connection_and_the_rest_goes_to_hyper() {
    let upstream = Scripted::start(|target| (text_answer(&format!("answer to {target}")), false));
    let proxy = plain_proxy_to(upstream.port);
    // Two requests sent at once (pipelined), then one the path does not serve: the UI's
    // health check, answered by hyper and poem on the same connection.
    let answer = raw_request(
        proxy.port,
        "GET /api/a HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Forwarded-For: 6.6.6.6\r\n\r\n\
         POST /api/b?x=1 HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 5\r\n\r\nhello\
         GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
    );
    let a = answer.find("answer to /api/a").expect(&answer);
    let b = answer.find("answer to /api/b?x=1").expect(&answer);
    let ok = answer.rfind("\r\n\r\nok").expect(&answer);
    assert!(a < b && b < ok, "{answer}");
    assert_eq!(answer.matches("HTTP/1.1 200 OK\r\n").count(), 3, "{answer}");
    assert_eq!(
        answer.matches("content-security-policy: ").count(),
        3,
        "{answer}"
    );
    assert_eq!(
        answer.matches("cache-control: no-store").count(),
        2,
        "{answer}"
    );
    let seen = upstream.seen();
    assert_eq!(seen.len(), 2, "{seen:?}");
    assert_eq!(
        seen[0].0, seen[1].0,
        "a second upstream connection: {seen:?}"
    );
    assert!(seen[0].1.starts_with("GET /api/a HTTP/1.1\r\n"), "{seen:?}");
    assert!(
        seen[0].1.contains("x-forwarded-for: 127.0.0.1\r\n"),
        "{seen:?}"
    );
    assert!(!seen[0].1.contains("6.6.6.6"), "{seen:?}");
    assert!(
        seen[1].1.starts_with("POST /api/b?x=1 HTTP/1.1\r\n"),
        "{seen:?}"
    );
    assert!(seen[1].1.contains("content-length: 5\r\n"), "{seen:?}");
}

#[test]
fn chunked_and_close_delimited_answers_arrive_whole_and_json_in_gzip() {
    let upstream = Scripted::start(|target| match target {
        "/api/chunked" => (
            b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n\
              5;ext=1\r\nhello\r\n7\r\n, world\r\n0\r\nX-Trailer: dropped\r\n\r\n"
                .to_vec(),
            false,
        ),
        "/api/until-closed" => (
            b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nuntil the end".to_vec(),
            true,
        ),
        _ => {
            let json = format!("{{\"items\":[{}]}}", vec!["\"a row\""; 200].join(","));
            let head = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
                json.len()
            );
            ([head.into_bytes(), json.into_bytes()].concat(), false)
        }
    });
    let proxy = plain_proxy_to(upstream.port);
    let c = reqwest::blocking::Client::new();
    let url = |p: &str| format!("http://127.0.0.1:{}{p}", proxy.port);
    for _ in 0..2 {
        let resp = c.get(url("/api/chunked")).send().unwrap();
        assert_eq!(resp.status(), 200);
        assert_eq!(header(&resp, "x-trailer"), "");
        assert_eq!(resp.text().unwrap(), "hello, world");
        let resp = c.get(url("/api/until-closed")).send().unwrap();
        assert_eq!(resp.status(), 200);
        assert_eq!(header(&resp, "transfer-encoding"), "chunked");
        assert_eq!(resp.text().unwrap(), "until the end");
    }
    let plain = c.get(url("/api/json")).send().unwrap();
    assert_eq!(header(&plain, "vary"), "accept-encoding");
    assert_eq!(header(&plain, "content-encoding"), "");
    let plain = plain.bytes().unwrap();
    let zipped = c
        .get(url("/api/json"))
        .header("accept-encoding", "gzip")
        .send()
        .unwrap();
    assert_eq!(header(&zipped, "content-encoding"), "gzip");
    let zipped = zipped.bytes().unwrap();
    assert!(zipped.len() < plain.len() / 4, "{} bytes", zipped.len());
    let mut unzipped = Vec::new();
    flate2::read::GzDecoder::new(&zipped[..])
        .read_to_end(&mut unzipped)
        .unwrap();
    assert_eq!(unzipped, plain);
    let head = c.head(url("/api/json")).send().unwrap();
    assert_eq!(head.status(), 200);
    assert_eq!(head.bytes().unwrap().len(), 0);
}

#[test]
fn an_upstream_connection_closed_while_idle_is_opened_again() {
    // Closes after each answer without saying so, as an upstream's idle time-out does.
    let upstream = Scripted::start(|target| (text_answer(target), true));
    let proxy = plain_proxy_to(upstream.port);
    let mut s = TcpStream::connect(("127.0.0.1", proxy.port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let mut reader = BufReader::new(s.try_clone().unwrap());
    for n in 0..3 {
        s.write_all(format!("GET /api/n{n} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").as_bytes())
            .unwrap();
        let mut head = String::new();
        while !head.ends_with("\r\n\r\n") {
            assert!(reader.read_line(&mut head).unwrap() > 0, "closed: {head}");
        }
        assert!(head.starts_with("HTTP/1.1 200 OK\r\n"), "{head}");
        let mut body = vec![0u8; format!("/api/n{n}").len()];
        reader.read_exact(&mut body).unwrap();
        assert_eq!(body, format!("/api/n{n}").as_bytes());
        // The upstream's close reaches the proxy before the next request.
        std::thread::sleep(Duration::from_millis(100));
    }
    let conns: std::collections::BTreeSet<_> = upstream.seen().iter().map(|s| s.0).collect();
    assert_eq!(conns.len(), 3);
}
