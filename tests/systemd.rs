//! The real binary as systemd runs it (packaging/cxwatch.service): `ExecReload=` sends
//! SIGHUP, which reloads the TLS certificate without dropping the listener (a broken new one
//! keeps the old, and the log says why); `Type=notify` with `WatchdogSec=`: `READY=1` once
//! it listens, then `WATCHDOG=1` only while the server answers its own probe, on a real
//! unix datagram socket as `NOTIFY_SOCKET`.

use crate::common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::os::unix::net::UnixDatagram;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName};

type Tls = rustls::StreamOwned<rustls::ClientConnection, TcpStream>;

/// A TLS connection to 127.0.0.1:`port`, handshake done.
fn connect(port: u16) -> Tls {
    try_connect(port).unwrap()
}

fn try_connect(port: u16) -> std::io::Result<Tls> {
    // Any certificate is taken, to see which one the server sends.
    let config = cxwatch::trust::any_certificate_config();
    let name = ServerName::try_from("localhost").unwrap();
    let conn = rustls::ClientConnection::new(Arc::new(config), name).unwrap();
    let tcp = TcpStream::connect(("127.0.0.1", port))?;
    tcp.set_read_timeout(Some(Duration::from_secs(10)))?;
    let mut tls = rustls::StreamOwned::new(conn, tcp);
    while tls.conn.is_handshaking() {
        tls.conn.complete_io(&mut tls.sock)?;
    }
    Ok(tls)
}

/// The certificate (DER) a new connection to `port` gets.
fn served(port: u16) -> Vec<u8> {
    let tls = connect(port);
    tls.conn.peer_certificates().unwrap()[0].to_vec()
}

/// `GET /healthz` on an open connection (keep-alive); the status line.
fn healthz(tls: &mut Tls) -> String {
    tls.write_all(b"GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n")
        .unwrap();
    let mut buf = [0u8; 1024];
    let n = tls.read(&mut buf).unwrap();
    String::from_utf8_lossy(&buf[..n])
        .lines()
        .next()
        .unwrap_or("")
        .to_string()
}

fn der(pem: &str) -> Vec<u8> {
    CertificateDer::pem_slice_iter(pem.as_bytes())
        .next()
        .unwrap()
        .unwrap()
        .to_vec()
}

/// A self-signed certificate and key (PEM) for localhost, named `cn`, valid 90 days.
fn certificate(cn: &str) -> (String, String) {
    let mut params = rcgen::CertificateParams::new(vec!["localhost".to_string()]).unwrap();
    params
        .distinguished_name
        .push(rcgen::DnType::CommonName, cn);
    let now = cxwatch::server::tls::unix_now();
    params.not_before = time::OffsetDateTime::from_unix_timestamp(now - 3600).unwrap();
    params.not_after = time::OffsetDateTime::from_unix_timestamp(not_after_of_now(now)).unwrap();
    let key = rcgen::KeyPair::generate().unwrap();
    let cert = params.self_signed(&key).unwrap();
    (cert.pem(), key.serialize_pem())
}

/// The end of a certificate [`certificate`] makes at `now` (Unix seconds).
fn not_after_of_now(now: i64) -> i64 {
    now + 90 * 86_400
}

/// What the process writes to standard error, read as it comes (a full pipe would stall
/// the server).
fn collect_stderr(child: &mut Child) -> Arc<Mutex<String>> {
    let log = Arc::new(Mutex::new(String::new()));
    let stderr = child.stderr.take().unwrap();
    let sink = log.clone();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines() {
            let Ok(line) = line else { break };
            let mut log = sink.lock().unwrap();
            log.push_str(&line);
            log.push('\n');
        }
    });
    log
}

fn signal(child: &Child, sig: libc::c_int) {
    // SAFETY: kill(2) on the pid of a child this test started and has not reaped.
    assert_eq!(unsafe { libc::kill(child.id() as libc::pid_t, sig) }, 0);
}

fn wait_until(what: &str, secs: u64, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(secs);
    while !done() {
        assert!(Instant::now() < deadline, "timed out waiting until {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn sighup_serves_a_new_certificate_and_keeps_the_old_when_the_new_is_broken() {
    let dir = tempfile::tempdir().unwrap();
    let (cert_path, key_path) = (dir.path().join("cert.pem"), dir.path().join("key.pem"));
    let (first, first_key) = certificate("first");
    std::fs::write(&cert_path, &first).unwrap();
    std::fs::write(&key_path, &first_key).unwrap();
    let mut server = common::start(common::Opts {
        toml: format!(
            "[tls]\ncert = {:?}\nkey = {:?}\n[metrics]\ntoken = \"scrape\"\n",
            cert_path.to_str().unwrap(),
            key_path.to_str().unwrap()
        ),
        ..Default::default()
    });
    let log = collect_stderr(&mut server.child);
    assert_eq!(served(server.port), der(&first));
    // A connection made before the reload, kept open across it.
    let mut before = connect(server.port);
    assert_eq!(healthz(&mut before), "HTTP/1.1 200 OK");

    let made = cxwatch::server::tls::unix_now();
    let (second, second_key) = certificate("second");
    std::fs::write(&cert_path, &second).unwrap();
    std::fs::write(&key_path, &second_key).unwrap();
    signal(&server.child, libc::SIGHUP);
    wait_until("new connections get the new certificate", 20, || {
        served(server.port) == der(&second)
    });
    assert_eq!(
        healthz(&mut before),
        "HTTP/1.1 200 OK",
        "the connection made before the reload still answers"
    );
    assert_eq!(
        before.conn.peer_certificates().unwrap()[0].to_vec(),
        der(&first)
    );
    let metrics = || {
        common::client()
            .get(server.url("/metrics"))
            .bearer_auth("scrape")
            .send()
            .unwrap()
            .text()
            .unwrap()
    };
    let text = metrics();
    assert!(
        text.contains("cxwatch_tls_reloads_total{outcome=\"ok\"} 1"),
        "{text}"
    );
    // Made within a second or two of `made`.
    let ends: Vec<String> = (0..3)
        .map(|d| {
            format!(
                "cxwatch_tls_certificate_expiry_timestamp_seconds{{source=\"configured\"}} {}",
                not_after_of_now(made + d)
            )
        })
        .collect();
    assert!(ends.iter().any(|e| text.contains(e.as_str())), "{text}");

    // A broken pair: a key that is not the certificate's. The second stays served.
    let (_, other_key) = certificate("third");
    std::fs::write(&key_path, &other_key).unwrap();
    signal(&server.child, libc::SIGHUP);
    wait_until("the failed reload is counted", 20, || {
        metrics().contains("cxwatch_tls_reloads_total{outcome=\"failed\"} 1")
    });
    assert_eq!(served(server.port), der(&second), "the old one stays");
    assert!(server.child.try_wait().unwrap().is_none(), "still running");

    let status = server.terminate(Duration::from_secs(20));
    assert_eq!(status.and_then(|s| s.code()), Some(0));
    let log = log.lock().unwrap().clone();
    assert!(log.contains("TLS certificate reloaded"), "{log}");
    assert!(
        log.contains("TLS certificate not reloaded")
            && log.contains("tls.cert and tls.key do not fit together"),
        "the log says why: {log}"
    );
}

/// The binary started as systemd starts a `Type=notify` service with `WatchdogSec=`:
/// `NOTIFY_SOCKET`, and `WATCHDOG_USEC` with `WATCHDOG_PID` naming the service's process
/// (the shell `exec`s the binary, keeping its pid).
struct Service {
    child: Child,
    port: u16,
    log: Arc<Mutex<String>>,
}

impl Service {
    fn start(data_dir: &Path, notify: &Path, watchdog_usec: u64, toml: &str) -> Service {
        let port = common::free_port();
        let store = common::store_url(data_dir)
            .map(|url| format!("[store]\nurl = {url:?}\n"))
            .unwrap_or_default();
        let config = data_dir.join("config.toml");
        std::fs::write(
            &config,
            format!(
                "data_dir = {:?}\n[server]\nlisten = \"127.0.0.1:{port}\"\n{toml}\n[log]\nformat = \"text\"\n{store}{}",
                data_dir.to_str().unwrap(),
                common::clock_toml()
            ),
        )
        .unwrap();
        let mut child = Command::new("sh")
            .args(["-c", "WATCHDOG_PID=$$ exec \"$0\" --config \"$1\" serve"])
            .arg(common::BIN)
            .arg(&config)
            .env("NOTIFY_SOCKET", notify)
            .env("WATCHDOG_USEC", watchdog_usec.to_string())
            .env("CXWATCH_LOG", "info")
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let log = collect_stderr(&mut child);
        Service { child, port, log }
    }

    fn log(&self) -> String {
        self.log.lock().unwrap().clone()
    }
}

impl Drop for Service {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The next notification (its lines), or `None` when none comes within `wait`.
fn next_notification(socket: &UnixDatagram, wait: Duration) -> Option<Vec<String>> {
    socket.set_read_timeout(Some(wait)).unwrap();
    let mut buf = [0u8; 4096];
    match socket.recv(&mut buf) {
        Ok(n) => Some(
            String::from_utf8_lossy(&buf[..n])
                .lines()
                .filter(|l| !l.is_empty())
                .map(str::to_string)
                .collect(),
        ),
        Err(e)
            if matches!(
                e.kind(),
                std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
            ) =>
        {
            None
        }
        Err(e) => panic!("notify socket: {e}"),
    }
}

/// Every notification waiting on the socket now.
fn drain(socket: &UnixDatagram) -> Vec<Vec<String>> {
    socket.set_nonblocking(true).unwrap();
    let mut out = Vec::new();
    let mut buf = [0u8; 4096];
    while let Ok(n) = socket.recv(&mut buf) {
        out.push(
            String::from_utf8_lossy(&buf[..n])
                .lines()
                .map(str::to_string)
                .collect(),
        );
    }
    socket.set_nonblocking(false).unwrap();
    out
}

fn pings(messages: &[Vec<String>]) -> usize {
    messages
        .iter()
        .filter(|m| m.iter().any(|l| l == "WATCHDOG=1"))
        .count()
}

/// A request the server is busy with until the client sends the rest of its body.
fn hold_busy(port: u16, key: &str) -> Tls {
    // The watchdog's probe may hold the other connection for a moment: try again.
    let mut tries = 0;
    let mut tls = loop {
        match try_connect(port) {
            Ok(tls) => break tls,
            Err(e) => {
                tries += 1;
                assert!(tries < 50, "cannot connect: {e}");
                std::thread::sleep(Duration::from_millis(50));
            }
        }
    };
    write!(
        tls,
        "POST /api/ingest/v1/runs HTTP/1.1\r\nHost: localhost\r\nX-API-Key: {key}\r\n\
         Content-Type: application/json\r\nContent-Length: 100000\r\n\r\n{{\"runs\": ["
    )
    .unwrap();
    tls.flush().unwrap();
    tls
}

#[test]
fn systemd_hears_ready_then_watchdog_pings_only_while_the_server_answers() {
    let dir = tempfile::tempdir().unwrap();
    let notify_path = dir.path().join("notify.sock");
    let socket = UnixDatagram::bind(&notify_path).unwrap();
    let store = common::store(dir.path());
    let key = cxwatch::store::Store::block_on(store.add_api_key("engine")).unwrap();
    drop(store);
    // 3 s: a probe every second. Two connections at most, so that two requests in
    // progress leave no room for the probe: the server no longer answers anyone.
    let service = Service::start(
        dir.path(),
        &notify_path,
        3_000_000,
        "max_connections = 2\nidle_timeout_secs = 60",
    );

    let first = next_notification(&socket, Duration::from_secs(30))
        .unwrap_or_else(|| panic!("no READY=1: {}", service.log()));
    assert!(first.contains(&"READY=1".to_string()), "{first:?}");
    assert!(
        served(service.port).len() > 100,
        "serving TLS once READY=1 is sent"
    );
    let mut seen = 0;
    while seen < 2 {
        let m = next_notification(&socket, Duration::from_secs(10))
            .unwrap_or_else(|| panic!("no WATCHDOG=1 while serving: {}", service.log()));
        assert_eq!(m, vec!["WATCHDOG=1".to_string()]);
        seen += 1;
    }

    // The server stops answering: every connection it takes is busy.
    let busy = [hold_busy(service.port, &key), hold_busy(service.port, &key)];
    // "... did not answer its own probe; no ping" or "... in time; no ping".
    let failures = || service.log().matches("; no ping").count();
    wait_until("a probe fails", 20, || failures() >= 1);
    drain(&socket);
    let after = failures();
    wait_until("three more probes fail", 20, || failures() >= after + 3);
    let during = drain(&socket);
    assert_eq!(
        pings(&during),
        0,
        "pinged while not answering: {during:?}\n{}",
        service.log()
    );

    // It answers again: the pings come back.
    drop(busy);
    let m = next_notification(&socket, Duration::from_secs(10))
        .unwrap_or_else(|| panic!("no WATCHDOG=1 once answering again: {}", service.log()));
    assert_eq!(m, vec!["WATCHDOG=1".to_string()]);
    // The log reaches the test through a reader thread, after the ping.
    wait_until("the log says it answers again", 10, || {
        service.log().contains("the server answers again")
    });

    // SIGHUP: RELOADING=1 then READY=1 around the reload; SIGTERM: STOPPING=1.
    signal(&service.child, libc::SIGHUP);
    let mut reload = Vec::new();
    while !reload
        .iter()
        .any(|m: &Vec<String>| m.contains(&"READY=1".to_string()))
    {
        let m = next_notification(&socket, Duration::from_secs(10))
            .unwrap_or_else(|| panic!("no READY=1 after the reload: {reload:?}"));
        reload.push(m);
    }
    let reloading = reload
        .iter()
        .position(|m| m.contains(&"RELOADING=1".to_string()))
        .expect("RELOADING=1");
    assert!(reload[reloading]
        .iter()
        .any(|l| l.starts_with("MONOTONIC_USEC=")));
    signal(&service.child, libc::SIGTERM);
    let mut stopping = false;
    while let Some(m) = next_notification(&socket, Duration::from_secs(10)) {
        if m.contains(&"STOPPING=1".to_string()) {
            stopping = true;
            break;
        }
    }
    assert!(stopping, "no STOPPING=1");
}
