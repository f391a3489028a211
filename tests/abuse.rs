//! What a hostile or careless client can do to the real binary: oversized
//! bodies, with and without Content-Length, anonymous and signed in; 2,000 idle
//! connections of three kinds. The server's memory (VmRSS) stays bounded and `/healthz`
//! keeps answering. Loopback only, bounded in count and time.

use crate::common;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::{client, config_path, run_cli, start, Opts, Server};

const MIB: u64 = 1024 * 1024;

fn rss_kib(server: &Server) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{}/status", server.child.id())).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap()
}

/// Reads what the server wrote to stderr, so a full pipe never blocks it.
fn drain_stderr(server: &mut Server) {
    if let Some(mut e) = server.child.stderr.take() {
        std::thread::spawn(move || std::io::copy(&mut e, &mut std::io::sink()));
    }
    if let Some(mut o) = server.child.stdout.take() {
        std::thread::spawn(move || std::io::copy(&mut o, &mut std::io::sink()));
    }
}

fn healthz_ok(server: &Server, within: Duration) -> bool {
    let c = reqwest::blocking::Client::builder()
        .danger_accept_invalid_certs(true)
        .timeout(within)
        .build()
        .unwrap();
    c.get(server.url("/healthz"))
        .send()
        .is_ok_and(|r| r.status().is_success())
}

/// Sends `head`, then body bytes from another thread (until `body_max` or an error), and
/// returns the status line of the answer.
fn post_raw(port: u16, head: &str, body_max: u64, chunked: bool) -> String {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    s.write_all(head.as_bytes()).unwrap();
    let mut w = s.try_clone().unwrap();
    w.set_write_timeout(Some(Duration::from_secs(20))).unwrap();
    let writer = std::thread::spawn(move || {
        let data = vec![b'x'; 64 * 1024];
        let mut sent = 0u64;
        while sent < body_max {
            let ok = if chunked {
                w.write_all(format!("{:x}\r\n", data.len()).as_bytes())
                    .and_then(|_| w.write_all(&data))
                    .and_then(|_| w.write_all(b"\r\n"))
            } else {
                w.write_all(&data)
            };
            if ok.is_err() {
                break;
            }
            sent += data.len() as u64;
        }
        sent
    });
    let mut answer = Vec::new();
    let mut buf = [0u8; 4096];
    while !answer.windows(4).any(|w| w == b"\r\n\r\n") {
        match s.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => answer.extend_from_slice(&buf[..n]),
        }
    }
    let _ = s.shutdown(std::net::Shutdown::Both);
    let sent = writer.join().unwrap();
    let text = String::from_utf8_lossy(&answer).into_owned();
    let status = text.lines().next().unwrap_or("").to_string();
    eprintln!(
        "{}: sent {} KiB -> {status}",
        head.lines().next().unwrap(),
        sent / 1024
    );
    status
}

fn token(server: &Server) -> String {
    let config = config_path(&server.data_dir);
    let (code, out, err) = run_cli(
        &[
            "--config",
            config.to_str().unwrap(),
            "user",
            "add",
            "--username",
            "abuser@example.com",
            "--role",
            "admin",
            "--access",
            "read-write",
            "--first-name",
            "A",
            "--last-name",
            "B",
        ],
        "amber quarry heron 7\n",
    );
    assert_eq!(code, 0, "{out} {err}");
    let resp: serde_json::Value = client()
        .post(server.url("/api/auth/signin"))
        .json(&serde_json::json!({"username": "abuser@example.com", "password": "amber quarry heron 7"}))
        .send()
        .unwrap()
        .json()
        .unwrap();
    resp["data"]["accessToken"].as_str().unwrap().to_string()
}

#[test]
fn oversized_bodies_are_refused_and_cost_no_memory() {
    let mut server = start(Opts {
        plain_http: true,
        ..Opts::default()
    });
    drain_stderr(&mut server);
    let token = token(&server);
    let port = server.port;
    let before = rss_kib(&server);
    let big = 512 * MIB;
    let cases = [
        (format!("POST /api/auth/signin HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\nContent-Length: {big}\r\n\r\n"), false),
        ("POST /api/auth/signin HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n".to_string(), true),
        (format!("POST /api/trs/v1/groups HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer {token}\r\nContent-Type: application/json\r\nContent-Length: {big}\r\n\r\n"), false),
        (format!("POST /api/trs/v1/groups HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer {token}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"), true),
        (format!("POST /api/ingest/v1/runs HTTP/1.1\r\nHost: a\r\nContent-Length: {big}\r\n\r\n"), false),
    ];
    for (head, chunked) in &cases {
        let status = post_raw(port, head, big, *chunked);
        assert!(status.contains(" 413 "), "{head}: {status}");
    }
    let after = rss_kib(&server);
    println!(
        "server VmRSS before {} KiB, after five 512 MiB bodies {} KiB (+{} KiB)",
        before,
        after,
        after.saturating_sub(before)
    );
    assert!(
        after < before + 10 * 1024,
        "RSS grew from {before} KiB to {after} KiB"
    );
    assert!(healthz_ok(&server, Duration::from_secs(5)));
}

fn raise_own_fd_limit(want: u64) {
    unsafe {
        let mut lim = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        assert_eq!(libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim), 0);
        if lim.rlim_cur < want {
            lim.rlim_cur = want.min(lim.rlim_max);
            assert_eq!(libc::setrlimit(libc::RLIMIT_NOFILE, &lim), 0);
        }
    }
}

/// A TLS client that accepts any certificate, for sessions that then stay quiet.
fn tls_client() -> Arc<rustls::ClientConfig> {
    use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
    #[derive(Debug)]
    struct AnyCert;
    impl ServerCertVerifier for AnyCert {
        fn verify_server_cert(
            &self,
            _: &rustls::pki_types::CertificateDer<'_>,
            _: &[rustls::pki_types::CertificateDer<'_>],
            _: &rustls::pki_types::ServerName<'_>,
            _: &[u8],
            _: rustls::pki_types::UnixTime,
        ) -> Result<ServerCertVerified, rustls::Error> {
            Ok(ServerCertVerified::assertion())
        }
        fn verify_tls12_signature(
            &self,
            _: &[u8],
            _: &rustls::pki_types::CertificateDer<'_>,
            _: &rustls::DigitallySignedStruct,
        ) -> Result<HandshakeSignatureValid, rustls::Error> {
            Ok(HandshakeSignatureValid::assertion())
        }
        fn verify_tls13_signature(
            &self,
            _: &[u8],
            _: &rustls::pki_types::CertificateDer<'_>,
            _: &rustls::DigitallySignedStruct,
        ) -> Result<HandshakeSignatureValid, rustls::Error> {
            Ok(HandshakeSignatureValid::assertion())
        }
        fn supported_verify_schemes(&self) -> Vec<rustls::SignatureScheme> {
            rustls::crypto::aws_lc_rs::default_provider()
                .signature_verification_algorithms
                .supported_schemes()
        }
    }
    let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .dangerous()
        .with_custom_certificate_verifier(Arc::new(AnyCert))
        .with_no_client_auth();
    Arc::new(config)
}

/// A TLS session to the server, handshake done, then `then` written (maybe nothing).
fn tls_session(
    port: u16,
    config: &Arc<rustls::ClientConfig>,
    then: &[u8],
) -> Option<rustls::StreamOwned<rustls::ClientConnection, TcpStream>> {
    let tcp = TcpStream::connect(("127.0.0.1", port)).ok()?;
    tcp.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    let name = rustls::pki_types::ServerName::try_from("localhost").unwrap();
    let conn = rustls::ClientConnection::new(config.clone(), name).ok()?;
    let mut tls = rustls::StreamOwned::new(conn, tcp);
    while tls.conn.is_handshaking() {
        tls.conn.complete_io(&mut tls.sock).ok()?;
    }
    tls.write_all(then).ok()?;
    tls.flush().ok()?;
    Some(tls)
}

#[test]
fn two_thousand_idle_connections_do_not_stop_healthz() {
    raise_own_fd_limit(8192);
    let mut server = start(Opts {
        env: [
            ("MAX_CONNECTIONS", "500"),
            ("TLS_HANDSHAKE_TIMEOUT_SECS", "3"),
            ("HEADER_TIMEOUT_SECS", "3"),
            ("IDLE_TIMEOUT_SECS", "5"),
        ]
        .iter()
        .map(|(k, v)| (format!("CXWATCH_SERVER__{k}"), v.to_string()))
        .collect(),
        ..Opts::default()
    });
    drain_stderr(&mut server);
    let port = server.port;
    let before = rss_kib(&server);
    let tls = tls_client();
    let started = Instant::now();
    let mut held_tcp = Vec::new();
    let mut held_tls = Vec::new();
    for i in 0..2000 {
        match i % 4 {
            // A TCP connection that never says hello.
            0 | 1 => {
                if let Ok(s) = TcpStream::connect(("127.0.0.1", port)) {
                    held_tcp.push(s);
                }
            }
            // A TLS session with no request.
            2 => held_tls.extend(tls_session(port, &tls, b"")),
            // A TLS session with half a request header.
            _ => held_tls.extend(tls_session(
                port,
                &tls,
                b"GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Slow: ",
            )),
        }
        if i % 250 == 249 {
            assert!(
                healthz_ok(&server, Duration::from_secs(5)),
                "/healthz did not answer with {} idle connections",
                i + 1
            );
        }
    }
    let opened = held_tcp.len() + held_tls.len();
    println!(
        "opened {opened} idle connections ({} TCP, {} TLS) in {:?}",
        held_tcp.len(),
        held_tls.len(),
        started.elapsed()
    );
    assert!(opened >= 1900, "only {opened} connections could be opened");
    let t = Instant::now();
    assert!(healthz_ok(&server, Duration::from_secs(5)));
    println!("/healthz answered in {:?}", t.elapsed());
    let during = rss_kib(&server);

    // The time-outs close what the cap did not: a quiet connection gets end-of-file.
    std::thread::sleep(Duration::from_secs(6));
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let t = Instant::now();
    let mut buf = [0u8; 1];
    let closed = matches!(s.read(&mut buf), Ok(0) | Err(_));
    println!("a silent TCP connection was closed after {:?}", t.elapsed());
    assert!(closed && t.elapsed() < Duration::from_secs(8));
    let open_fds = std::fs::read_dir(format!("/proc/{}/fd", server.child.id()))
        .unwrap()
        .count();
    println!(
        "server VmRSS before {before} KiB, with {opened} idle connections {during} KiB; \
         {open_fds} fds open after the time-outs"
    );
    assert!(open_fds < 600, "{open_fds} fds still open");
    assert!(during < before + 64 * 1024, "RSS {before} -> {during} KiB");
    drop(held_tcp);
    drop(held_tls);
    assert!(healthz_ok(&server, Duration::from_secs(5)));
}
