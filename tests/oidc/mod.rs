//! A real OpenID Connect provider for the tests: `tests/oidc/provider.mjs` (panva's certified
//! `oidc-provider` on node) on 127.0.0.1, installed with `npm ci` into `tests/oidc` when missing.
//! Include with `mod oidc;`.
#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};

use serde_json::{json, Value};

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/oidc")
}

/// Installs `oidc-provider` once (test processes run in parallel: a file lock orders them).
fn install() {
    use std::os::fd::AsRawFd;
    let marker = dir().join("node_modules/oidc-provider/package.json");
    if marker.exists() {
        return;
    }
    let lock = std::fs::File::create(dir().join(".install.lock")).unwrap();
    // SAFETY: flock on a file descriptor this function owns.
    assert_eq!(unsafe { libc::flock(lock.as_raw_fd(), libc::LOCK_EX) }, 0);
    if !marker.exists() {
        let status = Command::new("npm")
            .args(["ci", "--no-audit", "--no-fund", "--silent"])
            .current_dir(dir())
            .status()
            .expect("npm (node) is needed for the OpenID Connect provider of the tests");
        assert!(status.success(), "npm ci in tests/oidc failed");
    }
}

/// An account at the provider.
pub struct Account {
    pub login: &'static str,
    pub password: &'static str,
    pub claims: Value,
}

/// The provider's client registration for cxwatch.
pub const CLIENT_ID: &str = "cxwatch";
pub const CLIENT_SECRET: &str = "test-client-secret";
/// Host the in-process console is reached at in the tests, and so its return address.
pub const CONSOLE_HOST: &str = "127.0.0.1";
pub const REDIRECT: &str = "https://127.0.0.1/api/auth/sso/callback";

pub struct Provider {
    child: Child,
    pub port: u16,
    pub issuer: String,
}

pub struct Options<'a> {
    pub port: u16,
    pub kid: &'a str,
    /// The issuer the provider names itself (default http://127.0.0.1:<port>).
    pub issuer: Option<String>,
    pub redirect_uris: Vec<String>,
    pub accounts: &'a [Account],
    /// Serve HTTPS with this server certificate and key (PEM files), e.g. from a private CA.
    pub tls: Option<(&'a std::path::Path, &'a std::path::Path)>,
}

impl Default for Options<'_> {
    fn default() -> Self {
        Options {
            port: 0,
            kid: "k1",
            issuer: None,
            redirect_uris: vec![REDIRECT.into()],
            accounts: &[],
            tls: None,
        }
    }
}

impl Provider {
    pub fn start(o: Options<'_>) -> Provider {
        install();
        let accounts: Vec<Value> = o
            .accounts
            .iter()
            .map(|a| json!({"login": a.login, "password": a.password, "claims": a.claims}))
            .collect();
        let mut cfg = json!({
            "port": o.port,
            "kid": o.kid,
            "client": {
                "client_id": CLIENT_ID,
                "client_secret": CLIENT_SECRET,
                "redirect_uris": o.redirect_uris,
                "post_logout_redirect_uris": ["https://127.0.0.1/login"],
            },
            "accounts": accounts,
        });
        if let Some(i) = &o.issuer {
            cfg["issuer"] = json!(i);
        }
        if let Some((cert, key)) = o.tls {
            cfg["tls"] = json!({"cert": cert, "key": key});
        }
        let mut child = Command::new("node")
            .arg(dir().join("provider.mjs"))
            .arg(cfg.to_string())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("node");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let port: u16 = line
            .trim()
            .strip_prefix("listening ")
            .unwrap_or_else(|| panic!("provider did not start: {line:?}"))
            .parse()
            .unwrap();
        Provider {
            child,
            port,
            issuer: o.issuer.unwrap_or(format!(
                "{}://127.0.0.1:{port}",
                if o.tls.is_some() { "https" } else { "http" }
            )),
        }
    }

    /// Stops the provider (the port is free afterwards).
    pub fn stop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Provider {
    fn drop(&mut self) {
        self.stop();
    }
}

/// A browser at the provider: follows its redirects by hand, keeps its cookies.
pub struct Browser {
    http: reqwest::Client,
    cookies: Vec<(String, String)>,
}

impl Default for Browser {
    fn default() -> Self {
        Browser::with(reqwest::Client::builder())
    }
}

impl Browser {
    /// A browser whose HTTP client starts from `builder` (e.g. trusting a private CA).
    pub fn with(builder: reqwest::ClientBuilder) -> Browser {
        Browser {
            http: builder
                .redirect(reqwest::redirect::Policy::none())
                .build()
                .unwrap(),
            cookies: Vec::new(),
        }
    }

    async fn send(&mut self, req: reqwest::RequestBuilder) -> (u16, Option<String>, String) {
        let cookie = self
            .cookies
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join("; ");
        let resp = req.header("cookie", cookie).send().await.unwrap();
        for c in resp.headers().get_all("set-cookie") {
            let pair = c.to_str().unwrap().split(';').next().unwrap();
            if let Some((k, v)) = pair.split_once('=') {
                self.cookies.retain(|(n, _)| n != k);
                self.cookies.push((k.to_string(), v.to_string()));
            }
        }
        let status = resp.status().as_u16();
        let url = resp.url().clone();
        let location = resp
            .headers()
            .get("location")
            .map(|l| url.join(l.to_str().unwrap()).unwrap().to_string());
        (status, location, resp.text().await.unwrap_or_default())
    }

    /// Follows redirects from `url` until one leaves the provider (to cxwatch's return
    /// address): that address, or the last page's status and body.
    pub async fn follow(&mut self, mut url: String) -> Result<String, (u16, String)> {
        for _ in 0..10 {
            let at_provider = [
                "http://127.0.0.1:",
                "http://localhost:",
                "https://127.0.0.1:",
            ]
            .iter()
            .any(|p| url.starts_with(p));
            if !at_provider {
                return Ok(url);
            }
            let req = self.http.get(&url);
            match self.send(req).await {
                (_, Some(next), _) => url = next,
                (status, None, body) => return Err((status, body)),
            }
        }
        panic!("too many redirects")
    }

    /// From cxwatch's redirect to the provider, signs in on its login page: the address the
    /// provider sends the browser back to (cxwatch's callback with code and state).
    pub async fn sign_in(&mut self, authorize: &str, login: &str, password: &str) -> String {
        let page = match self.follow(authorize.to_string()).await {
            Err((200, body)) => body,
            other => panic!("expected the provider's login page, got {other:?}"),
        };
        let action = page
            .split("action=\"")
            .nth(1)
            .and_then(|s| s.split('"').next())
            .expect("a login form");
        let base = reqwest::Url::parse(authorize).unwrap();
        let post = base.join(action).unwrap();
        let req = self
            .http
            .post(post)
            .form(&[("login", login), ("password", password)]);
        match self.send(req).await {
            (_, Some(next), _) => self.follow(next).await.expect("back to cxwatch"),
            (s, None, body) => panic!("login refused: {s} {body}"),
        }
    }
}
