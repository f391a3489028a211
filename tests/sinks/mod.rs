//! A real SMTP server (STARTTLS and AUTH required) and an HTTP sink standing in for the
//! SMS/voice gateway: `ui/e2e/notify-sinks.mjs` (nodemailer's smtp-server and mailparser,
//! from `ui/node_modules`), started by the test and read over HTTP.
#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

/// The `[notify.webhook] secret` the sink checks generic webhooks' signatures with.
pub const WEBHOOK_SECRET: &str = "hook-s3cret";

pub struct Sinks {
    child: Child,
    pub smtp: u16,
    pub http: u16,
    /// The same HTTP sink over TLS (a certificate of the private CA `ca`).
    pub https: u16,
    pub ca: PathBuf,
    pub user: String,
    pub pass: String,
}

impl Sinks {
    /// Starts the sinks; `extra` are options such as `--delay-ms 50`.
    pub fn start(extra: &[&str]) -> Sinks {
        let ui = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("ui");
        assert!(
            ui.join("node_modules/smtp-server").exists(),
            "ui/node_modules lacks smtp-server: run `cd ui && npm ci` (scripts/test.sh does)"
        );
        let mut child = Command::new("node")
            .arg("e2e/notify-sinks.mjs")
            .args(["--webhook-secret", WEBHOOK_SECRET])
            .args(extra)
            .current_dir(&ui)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("node runs");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let v: Value = serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line:?}"));
        Sinks {
            child,
            smtp: v["smtp"].as_u64().unwrap() as u16,
            http: v["http"].as_u64().unwrap() as u16,
            https: v["https"].as_u64().unwrap() as u16,
            ca: PathBuf::from(v["ca"].as_str().unwrap()),
            user: v["user"].as_str().unwrap().into(),
            pass: v["pass"].as_str().unwrap().into(),
        }
    }

    /// Points `[notify]` of a config at these sinks (fast retries for tests).
    pub fn configure(&self, c: &mut cxwatch::config::Config) {
        let n = &mut c.notify;
        n.retry_first_secs = 1;
        n.retry_max_secs = 1;
        n.poll_ms = 100;
        n.public_url = "https://console.cxwatch.test".into();
        n.smtp.host = "127.0.0.1".into();
        n.smtp.port = self.smtp;
        n.smtp.security = cxwatch::config::SmtpSecurity::Starttls;
        n.smtp.username = self.user.clone();
        n.smtp.password = self.pass.clone();
        n.smtp.ca = Some(self.ca.clone());
        n.smtp.from = "cxwatch <alerts@cxwatch.test>".into();
        n.smtp.helo = "console.cxwatch.test".into();
        n.smtp.timeout_secs = 5;
        n.sms.url = format!("http://127.0.0.1:{}/sms?to={{number}}", self.http);
        n.sms.body = r#"{"to":"{number}","text":"{text}","key":"{key}","token":"{secret}"}"#.into();
        n.sms.content_type = "application/json".into();
        n.sms.secret = "gw-token".into();
        n.sms
            .headers
            .insert("X-Auth".into(), "Bearer {secret}".into());
        n.sms.timeout_secs = 5;
        n.voice.url = format!("http://127.0.0.1:{}/voice", self.http);
        n.voice.body = "to={number}&say={text}".into();
        n.voice.timeout_secs = 5;
        n.webhook.enabled = true;
        n.webhook.secret = WEBHOOK_SECRET.into();
        n.webhook.ca = Some(self.ca.clone());
        n.webhook
            .headers
            .insert("X-Team".into(), "contact-centre".into());
        n.webhook.timeout_secs = 5;
        // The sinks listen on this machine: loopback, refused unless allowed.
        n.webhook.allowed_hosts = vec!["localhost".into(), "127.0.0.1".into()];
    }

    /// A webhook URL of `vendor` (`teams`, `slack`, `mattermost`, `webhook`) on the TLS sink.
    pub fn hook(&self, vendor: &str, name: &str) -> String {
        format!("https://localhost:{}/{vendor}/{name}", self.https)
    }

    pub async fn messages(&self) -> Value {
        reqwest::get(format!("http://127.0.0.1:{}/_sink/messages", self.http))
            .await
            .unwrap()
            .json()
            .await
            .unwrap()
    }

    pub fn messages_blocking(&self) -> Value {
        reqwest::blocking::get(format!("http://127.0.0.1:{}/_sink/messages", self.http))
            .unwrap()
            .json()
            .unwrap()
    }

    /// `ok`, `tempfail` (451 to MAIL FROM) or `down` (not listening).
    pub async fn smtp_mode(&self, mode: &str) {
        let r = reqwest::Client::new()
            .post(format!(
                "http://127.0.0.1:{}/_sink/smtp?mode={mode}",
                self.http
            ))
            .send()
            .await
            .unwrap();
        assert!(r.status().is_success());
    }

    /// The status the gateway answers with.
    pub async fn http_status(&self, status: u16) {
        let r = reqwest::Client::new()
            .post(format!(
                "http://127.0.0.1:{}/_sink/http?status={status}",
                self.http
            ))
            .send()
            .await
            .unwrap();
        assert!(r.status().is_success());
    }

    /// The status the gateway and webhooks answer with, and a `Retry-After` of the refusal.
    pub async fn http_status_retry_after(&self, status: u16, retry_after: &str) {
        let r = reqwest::Client::new()
            .post(format!(
                "http://127.0.0.1:{}/_sink/http?status={status}&retryAfter={retry_after}",
                self.http
            ))
            .send()
            .await
            .unwrap();
        assert!(r.status().is_success());
    }

    /// Waits until `pred` holds for the messages (up to `secs`), returning them.
    pub async fn wait_for(&self, secs: u64, pred: impl Fn(&Value) -> bool) -> Value {
        let deadline = Instant::now() + Duration::from_secs(secs);
        loop {
            let m = self.messages().await;
            if pred(&m) {
                return m;
            }
            assert!(Instant::now() < deadline, "sinks never got there: {m:#}");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// `[notify]` TOML for these sinks.
    pub fn toml(&self) -> String {
        format!(
            r#"[notify]
retry_first_secs = 1
retry_max_secs = 1
poll_ms = 100
[notify.smtp]
host = "127.0.0.1"
port = {smtp}
security = "starttls"
username = "{user}"
password = "{pass}"
ca = "{ca}"
from = "cxwatch <alerts@cxwatch.test>"
helo = "console.cxwatch.test"
timeout_secs = 5
[notify.sms]
url = "http://127.0.0.1:{http}/sms?to={{number}}"
body = "text={{text}}&key={{key}}"
"#,
            smtp = self.smtp,
            user = self.user,
            pass = self.pass,
            ca = self.ca.display(),
            http = self.http
        )
    }
}

impl Drop for Sinks {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        // The sink's certificates live in its own temporary directory (a killed node cannot
        // remove it).
        if let Some(dir) = self.ca.parent() {
            if dir
                .file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("cxwatch-sinks-"))
            {
                let _ = std::fs::remove_dir_all(dir);
            }
        }
    }
}
