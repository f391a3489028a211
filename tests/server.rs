//! The server platform, driven over HTTPS against the real binary: client routes versus
//! `/api`, missing files, cache headers, gzip, HEAD, security headers, the self-signed
//! certificate, `/healthz` and `cxwatch healthcheck`, SIGTERM, `/tenant-config`, API docs
//! and systemd readiness.

use crate::common;

use std::io::Read;
use std::time::Duration;

use common::{client, start, Opts};
use reqwest::blocking::Response;

const CSP_STRICT_SCRIPT: &str = "script-src 'self';";

fn header(resp: &Response, name: &str) -> String {
    resp.headers()
        .get(name)
        .map(|v| v.to_str().unwrap().to_string())
        .unwrap_or_default()
}

fn assert_security_headers(resp: &Response, tls: bool, what: &str) {
    let csp = header(resp, "content-security-policy");
    assert!(csp.starts_with("default-src 'self';"), "{what}: {csp}");
    assert!(csp.contains(CSP_STRICT_SCRIPT), "{what}: {csp}");
    assert!(csp.contains("frame-ancestors 'none'"), "{what}: {csp}");
    assert!(!csp.contains("http"), "{what}: {csp}");
    assert_eq!(header(resp, "x-content-type-options"), "nosniff", "{what}");
    assert_eq!(header(resp, "x-frame-options"), "DENY", "{what}");
    assert_eq!(header(resp, "referrer-policy"), "no-referrer", "{what}");
    let hsts = header(resp, "strict-transport-security");
    if tls {
        assert!(hsts.starts_with("max-age="), "{what}: HSTS missing");
    } else {
        assert_eq!(hsts, "", "{what}: HSTS without TLS");
    }
}

/// Creates an administrator and a console token through the store of the server's data
/// directory.
fn token_for(server: &common::Server) -> String {
    use cxwatch::domain::caller::{AccessType, Role};
    use cxwatch::store::Store;
    let store = common::store(&server.data_dir);
    let draft = cxwatch::domain::user::UserDraft {
        username: "platform@x.test".into(),
        first_name: String::new(),
        last_name: String::new(),
        role: Role::Admin,
        access: AccessType::ReadWrite,
        group_ids: vec![],
    };
    let id = Store::block_on(store.create_user(&draft, "x")).unwrap();
    let now = common::now_secs();
    Store::block_on(store.start_session(id, false, now, now + 3600)).unwrap()
}

#[test]
fn client_routes_get_index_and_api_never_does() {
    let server = start(Opts::default());
    let c = client();
    let index = c.get(server.url("/")).send().unwrap();
    assert_eq!(index.status(), 200);
    assert_eq!(header(&index, "cache-control"), "no-cache");
    assert_eq!(header(&index, "content-type"), "text/html; charset=utf-8");
    let index_body = index.text().unwrap();
    assert!(
        index_body.to_ascii_lowercase().contains("<html"),
        "{index_body}"
    );

    for path in [
        "/dashboard",
        "/callback?id=abc",
        "/reports",
        "/report/view/3",
        "/report/view/testcase/3",
        "/report/run/12/2.35",
        "/report/drill/5/success/2024-01-01/2024-01-07",
        "/alerts",
        "/alert/9",
        "/settings/alert-settings/1",
        "/users/0",
        "/setting",
        "/telco",
        "/nope",
        "/index.html",
    ] {
        let resp = c.get(server.url(path)).send().unwrap();
        assert_eq!(resp.status(), 200, "{path}");
        assert_eq!(header(&resp, "cache-control"), "no-cache", "{path}");
        assert_security_headers(&resp, true, path);
        assert_eq!(resp.text().unwrap(), index_body, "{path}");
    }

    for path in [
        "/api/nope",
        "/api",
        "/api/report/view/3",
        "/api/assets/x.js",
    ] {
        let resp = c.get(server.url(path)).send().unwrap();
        assert_eq!(resp.status(), 401, "{path}");
        assert!(
            header(&resp, "content-type").starts_with("application/json"),
            "{path}"
        );
        assert_security_headers(&resp, true, path);
        let body: serde_json::Value = resp.json().unwrap();
        assert_eq!(body["code"], "UNAUTHORIZED", "{path}");
        assert_eq!(body["messages"][0], "Access is denied!", "{path}");
    }

    let token = token_for(&server);
    let resp = c
        .get(server.url("/api/nope"))
        .bearer_auth(&token)
        .send()
        .unwrap();
    assert_eq!(resp.status(), 404);
    assert!(header(&resp, "content-type").starts_with("application/json"));
    assert_security_headers(&resp, true, "/api/nope with token");
    let body: serde_json::Value = resp.json().unwrap();
    assert_eq!(body["code"], "NOT_FOUND");
    assert!(body["messages"].as_array().is_some_and(|m| !m.is_empty()));
}

#[test]
fn missing_files_are_404_with_security_headers() {
    let server = start(Opts::default());
    let c = client();
    for path in [
        "/assets/missing.js",
        "/assets/missing",
        "/missing.css",
        "/deep/path/logo.png",
        "/favicon-nothing.ico",
    ] {
        let resp = c.get(server.url(path)).send().unwrap();
        assert_eq!(resp.status(), 404, "{path}");
        assert_security_headers(&resp, true, path);
        assert!(
            !resp.text().unwrap().contains("<html"),
            "{path} fell back to index.html"
        );
    }
    let resp = c.post(server.url("/dashboard")).send().unwrap();
    assert_eq!(resp.status(), 405);
    assert_security_headers(&resp, true, "POST /dashboard");
}

#[test]
fn hashed_assets_referenced_by_index_are_immutable() {
    // With the real UI, index.html references Vite's /assets/*; the stand-in UI of
    // Rust-only builds has none (the unit tests of server::assets cover that case).
    let server = start(Opts::default());
    let c = client();
    let index = c.get(server.url("/")).send().unwrap().text().unwrap();
    for asset in index
        .split('"')
        .filter(|s| s.starts_with("/assets/"))
        .collect::<Vec<_>>()
    {
        let resp = c.get(server.url(asset)).send().unwrap();
        assert_eq!(resp.status(), 200, "{asset}");
        assert_eq!(
            header(&resp, "cache-control"),
            "public, max-age=31536000, immutable",
            "{asset}"
        );
        assert_security_headers(&resp, true, asset);
    }
}

#[test]
fn gzip_head_and_etag() {
    let server = start(Opts::default());
    let c = client();
    let plain = c.get(server.url("/dashboard")).send().unwrap();
    assert_eq!(header(&plain, "content-encoding"), "");
    assert_eq!(header(&plain, "vary"), "Accept-Encoding");
    let plain = plain.bytes().unwrap();

    let gz = c
        .get(server.url("/dashboard"))
        .header("accept-encoding", "gzip, deflate")
        .send()
        .unwrap();
    assert_eq!(gz.status(), 200);
    assert_eq!(header(&gz, "content-encoding"), "gzip");
    let etag = header(&gz, "etag");
    let gz = gz.bytes().unwrap();
    let mut unzipped = Vec::new();
    flate2::read::GzDecoder::new(&gz[..])
        .read_to_end(&mut unzipped)
        .unwrap();
    assert_eq!(unzipped, plain);

    // Brotli, pre-compressed at build time, to a client that takes it (here only it).
    let br = c
        .get(server.url("/dashboard"))
        .header("accept-encoding", "br")
        .send()
        .unwrap();
    assert_eq!(header(&br, "content-encoding"), "br");
    let br = br.bytes().unwrap();
    assert!(
        br.len() < gz.len(),
        "brotli {} < gzip {}",
        br.len(),
        gz.len()
    );
    let mut unbrotlied = Vec::new();
    brotli::Decompressor::new(&br[..], 4096)
        .read_to_end(&mut unbrotlied)
        .unwrap();
    assert_eq!(unbrotlied, plain);

    let refused = c
        .get(server.url("/"))
        .header("accept-encoding", "gzip;q=0")
        .send()
        .unwrap();
    assert_eq!(header(&refused, "content-encoding"), "");

    let head = c.head(server.url("/report/view/3")).send().unwrap();
    assert_eq!(head.status(), 200);
    assert_eq!(header(&head, "content-length"), plain.len().to_string());
    assert_security_headers(&head, true, "HEAD");
    assert!(head.bytes().unwrap().is_empty());

    let not_modified = c
        .get(server.url("/"))
        .header("accept-encoding", "gzip")
        .header("if-none-match", &etag)
        .send()
        .unwrap();
    assert_eq!(not_modified.status(), 304);

    let health = c.head(server.url("/healthz")).send().unwrap();
    assert_eq!(health.status(), 200);
}

#[test]
fn plain_http_has_no_hsts_but_the_other_headers() {
    let server = start(Opts {
        plain_http: true,
        ..Opts::default()
    });
    let c = client();
    for path in ["/", "/api/nope", "/assets/missing.js", "/healthz"] {
        let resp = c.get(server.url(path)).send().unwrap();
        assert_security_headers(&resp, false, path);
    }
}

fn peer_certificate(base: &str) -> Vec<u8> {
    let c = reqwest::blocking::Client::builder()
        .danger_accept_invalid_certs(true)
        .tls_info(true)
        .build()
        .unwrap();
    let resp = c.get(format!("{base}/healthz")).send().unwrap();
    resp.extensions()
        .get::<reqwest::tls::TlsInfo>()
        .and_then(|i| i.peer_certificate())
        .expect("peer certificate")
        .to_vec()
}

#[test]
fn self_signed_certificate_is_generated_once_and_reused() {
    let dir = tempfile::tempdir().unwrap();
    let cert_file = dir.path().join("tls/self-signed.crt");
    let mut first = start(Opts {
        data_dir: Some(dir.path().to_path_buf()),
        ..Opts::default()
    });
    let served_first = peer_certificate(&first.base);
    let file_first = std::fs::read(&cert_file).unwrap();
    first.kill();

    let second = start(Opts {
        data_dir: Some(dir.path().to_path_buf()),
        ..Opts::default()
    });
    let served_second = peer_certificate(&second.base);
    assert_eq!(served_first, served_second);
    assert_eq!(std::fs::read(&cert_file).unwrap(), file_first);

    // The certificate checks out against the file, for the name 127.0.0.1.
    let ca = reqwest::Certificate::from_pem(&file_first).unwrap();
    let strict = reqwest::blocking::Client::builder()
        .add_root_certificate(ca)
        .build()
        .unwrap();
    let resp = strict.get(second.url("/healthz")).send().unwrap();
    assert_eq!(resp.text().unwrap(), "ok");
}

#[test]
fn healthcheck_subcommand_reads_the_config() {
    let mut server = start(Opts::default());
    let config = common::config_path(&server.data_dir);
    let config = config.to_str().unwrap();
    let (code, out, err) = common::run_cli(&["--config", config, "healthcheck"], "");
    assert_eq!(code, 0, "{out}{err}");
    assert_eq!(out.trim(), "ok");

    let dead = format!("127.0.0.1:{}", common::free_port());
    let (code, _, err) =
        common::run_cli(&["--config", config, "healthcheck", "--listen", &dead], "");
    assert_eq!(code, 1, "{err}");
    assert!(err.contains(&dead), "{err}");

    server.kill();
    let (code, _, err) = common::run_cli(&["--config", config, "healthcheck"], "");
    assert_eq!(code, 1, "{err}");
}

#[test]
fn sigterm_stops_promptly_with_exit_0() {
    let mut server = start(Opts::default());
    // An open keep-alive connection must not hold the shutdown up.
    let c = client();
    assert_eq!(c.get(server.url("/")).send().unwrap().status(), 200);
    let started = std::time::Instant::now();
    let status = server
        .terminate(Duration::from_secs(8))
        .expect("still running 8 s after SIGTERM");
    assert!(status.success(), "{status:?}");
    let err = server.stderr();
    assert!(err.contains("shutting down"), "{err}");
    println!("exited {:?} after SIGTERM", started.elapsed());
}

#[test]
fn systemd_readiness_is_notified() {
    let dir = tempfile::tempdir().unwrap();
    let socket_path = dir.path().join("notify.sock");
    let socket = std::os::unix::net::UnixDatagram::bind(&socket_path).unwrap();
    socket
        .set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let mut server = start(Opts {
        env: vec![(
            "NOTIFY_SOCKET".into(),
            socket_path.to_str().unwrap().to_string(),
        )],
        ..Opts::default()
    });
    let mut buf = [0u8; 256];
    let n = socket.recv(&mut buf).unwrap();
    let msg = String::from_utf8_lossy(&buf[..n]).to_string();
    assert!(msg.lines().any(|l| l == "READY=1"), "{msg}");
    server.terminate(Duration::from_secs(8)).unwrap();
    let n = socket.recv(&mut buf).unwrap();
    assert_eq!(String::from_utf8_lossy(&buf[..n]).trim_end(), "STOPPING=1");
}

#[test]
fn tenant_config_answers_from_the_config() {
    let server = start(Opts::default());
    let c = client();
    let resp = c
        .get(server.url("/tenant-config?ac=console.test:8443"))
        .send()
        .unwrap();
    assert_eq!(resp.status(), 200);
    assert_security_headers(&resp, true, "/tenant-config");
    let body: serde_json::Value = resp.json().unwrap();
    assert_eq!(
        body,
        serde_json::json!({"code": "OK", "data": {"name": "cxwatch", "host": "console.test",
            "apiBaseUrl": "/api", "ssoUrl": null, "version": "0.1.0",
            "timezone": "America/Toronto", "apiFlavor": "cxwatch"}, "messages": []})
    );

    let server = start(Opts {
        toml: "[site]\ntimezone = \"Europe/Paris\"\n\
               [[tenants]]\nname = \"Acme\"\nhosts = [\"acme.test\"]\nsso_url = \"https://sso.acme.test/login\"\n\
               [[tenants]]\nname = \"Beta\"\nhosts = [\"beta.test\"]\n"
            .into(),
        ..Opts::default()
    });
    let body: serde_json::Value = c
        .get(server.url("/tenant-config?ac=ACME.test:443"))
        .send()
        .unwrap()
        .json()
        .unwrap();
    assert_eq!(body["data"]["name"], "Acme");
    assert_eq!(body["data"]["host"], "acme.test");
    assert_eq!(body["data"]["ssoUrl"], "https://sso.acme.test/login");
    assert_eq!(body["data"]["apiBaseUrl"], "/api");
    assert_eq!(body["data"]["timezone"], "Europe/Paris");
    let body: serde_json::Value = c
        .get(server.url("/tenant-config?ac=beta.test"))
        .send()
        .unwrap()
        .json()
        .unwrap();
    assert_eq!(body["data"]["name"], "Beta");
    assert_eq!(body["data"]["ssoUrl"], serde_json::Value::Null);

    let resp = c
        .get(server.url("/tenant-config?ac=nobody.test"))
        .send()
        .unwrap();
    assert_eq!(resp.status(), 404);
    let body: serde_json::Value = resp.json().unwrap();
    assert_eq!(body["code"], "NOT_FOUND");
    assert!(body["messages"][0]
        .as_str()
        .unwrap()
        .contains("nobody.test"));

    let resp = c.get(server.url("/tenant-config")).send().unwrap();
    assert_eq!(resp.status(), 400);
    assert_eq!(
        resp.json::<serde_json::Value>().unwrap()["code"],
        "BAD_REQUEST"
    );
}

/// Every `src=`/`href=` of the markup outside `<script>` and `<style>` bodies, and every CSS
/// `url(...)`/`@import`, must stay on the page's own origin.
fn external_references(html: &str) -> Vec<String> {
    let mut markup = String::new();
    let mut rest = html;
    let mut css = String::new();
    while let Some(start) = rest.find('<') {
        markup.push_str(&rest[..start]);
        rest = &rest[start..];
        let lower = rest.get(..7).unwrap_or("").to_ascii_lowercase();
        let (open, close) = if lower.starts_with("<script") {
            ("<script", "</script>")
        } else if lower.starts_with("<style") {
            ("<style", "</style>")
        } else {
            let end = rest.find('>').map_or(rest.len(), |e| e + 1);
            markup.push_str(&rest[..end]);
            rest = &rest[end..];
            continue;
        };
        let tag_end = rest.find('>').map_or(rest.len(), |e| e + 1);
        markup.push_str(&rest[..tag_end]);
        let body_end = rest.find(close).unwrap_or(rest.len());
        if open == "<style" {
            css.push_str(&rest[tag_end..body_end]);
        }
        rest = &rest[body_end..];
    }
    markup.push_str(rest);
    let mut found = Vec::new();
    for attr in ["src=", "href=", "action=", "srcset="] {
        for part in markup.split(attr).skip(1) {
            let value = part.trim_start_matches(['"', '\'']);
            if value.starts_with("http:") || value.starts_with("https:") || value.starts_with("//")
            {
                found.push(format!("{attr}{}", &value[..value.len().min(60)]));
            }
        }
    }
    for part in css
        .split("url(")
        .skip(1)
        .chain(css.split("@import").skip(1))
    {
        let value = part.trim_start_matches([' ', '"', '\'']);
        if !(value.starts_with("data:") || value.starts_with('#')) {
            found.push(format!("css {}", &value[..value.len().min(60)]));
        }
    }
    found
}

#[test]
fn api_docs_work_offline_with_their_own_policy() {
    let server = start(Opts::default());
    let c = client();
    let resp = c.get(server.url("/api/docs")).send().unwrap();
    assert_eq!(resp.status(), 200);
    let csp = header(&resp, "content-security-policy");
    assert!(csp.contains("script-src 'self' 'unsafe-inline'"), "{csp}");
    assert!(csp.contains("frame-ancestors 'none'"), "{csp}");
    assert!(!csp.contains("http"), "{csp}");
    assert_eq!(header(&resp, "x-content-type-options"), "nosniff");
    let html = resp.text().unwrap();
    assert!(html.contains("SwaggerUIBundle"), "not the Swagger UI page");
    let external = external_references(&html);
    assert!(external.is_empty(), "{external:?}");

    // The relaxed policy stays on the docs.
    let resp = c.get(server.url("/api/openapi.json")).send().unwrap();
    assert_eq!(resp.status(), 200);
    assert!(header(&resp, "content-security-policy").contains(CSP_STRICT_SCRIPT));
}

#[test]
fn external_reference_check_finds_cdn_links() {
    let html = r#"<html><head><script src="https://cdn.example/x.js"></script>
        <style>body{background:url(https://cdn.example/bg.png)}</style>
        <link href='//fonts.example/f.css'></head><body><img src="/ok.png"></body></html>"#;
    let found = external_references(html);
    assert_eq!(found.len(), 3, "{found:?}");
    assert!(
        external_references("<script>let u = 'https://x';</script><img src=\"data:x\">").is_empty()
    );
}

/// `GET /api/users` without a token, with `n` extra headers whose name and value take
/// `bytes` bytes each.
fn with_headers(server: &common::Server, n: usize, bytes: usize) -> (u16, Response) {
    let mut req = client().get(server.url("/api/users"));
    for i in 0..n {
        let name = format!("x-h{i:04}");
        req = req.header(name.as_str(), "v".repeat(bytes - name.len()));
    }
    let resp = req.send().unwrap();
    (resp.status().as_u16(), resp)
}

#[test]
fn headers_are_limited_by_their_size_with_the_envelope_and_hsts_can_cover_subdomains() {
    let server = start(Opts {
        env: vec![(
            "CXWATCH_SERVER__HSTS_INCLUDE_SUBDOMAINS".into(),
            "true".into(),
        )],
        ..Opts::default()
    });
    // 101 headers of 100 bytes (about 10 KB): the usual answer (401 without a token).
    let (status, resp) = with_headers(&server, 101, 100);
    assert_eq!(status, 401);
    assert_eq!(
        header(&resp, "strict-transport-security"),
        "max-age=31536000; includeSubDomains"
    );
    // 1,000 headers of 32 bytes (32,000 bytes): still under 32 KiB.
    assert_eq!(with_headers(&server, 1000, 32).0, 401);
    // Over 32 KiB, in few large headers or in many small ones: 431 in the envelope.
    for (n, bytes) in [(33, 1000), (1000, 40)] {
        let (status, resp) = with_headers(&server, n, bytes);
        assert_eq!(status, 431, "{n} headers of {bytes} bytes");
        let body: serde_json::Value = resp.json().unwrap();
        assert_eq!(body["code"], "REQUEST_HEADER_FIELDS_TOO_LARGE", "{body}");
        assert_eq!(
            body["messages"][0],
            "The request's headers are larger than 32 KiB."
        );
    }
    // More header lines than the HTTP layer parses: its own 431, with an empty body
    // (docs/api.md says so).
    let (status, resp) = with_headers(&server, 1100, 8);
    assert_eq!(status, 431);
    assert_eq!(resp.text().unwrap(), "");
}
