//! The Jira stand-in, `ui/e2e/jira-standin.mjs` (Jira Cloud REST v3 or Server/DC REST v2 on
//! 127.0.0.1), started by the test and read back over its `/_standin` calls.
#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};

use cxwatch::config::{JiraConfig, JiraFlavour};
use serde_json::Value;

pub struct StandIn {
    child: Child,
    /// The test's own client (trusting the stand-in's CA when it serves HTTPS).
    http: reqwest::Client,
    pub url: String,
    pub flavour: JiraFlavour,
    pub email: String,
    pub token: String,
}

impl StandIn {
    pub fn start(flavour: JiraFlavour) -> StandIn {
        Self::start_with(flavour, None, &[])
    }

    /// With `extra` options, e.g. `--people 250`.
    pub fn start_args(flavour: JiraFlavour, extra: &[&str]) -> StandIn {
        Self::start_with(flavour, None, extra)
    }

    /// Over HTTPS with the server certificate and key of `ca` (a site's own CA).
    pub fn start_https(flavour: JiraFlavour, ca: &crate::private_ca::PrivateCa) -> StandIn {
        Self::start_with(flavour, Some(ca), &[])
    }

    fn start_with(
        flavour: JiraFlavour,
        ca: Option<&crate::private_ca::PrivateCa>,
        extra: &[&str],
    ) -> StandIn {
        let ui = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("ui");
        let mut cmd = Command::new("node");
        cmd.arg("e2e/jira-standin.mjs")
            .args(["--flavour", flavour.as_str()])
            .args(extra);
        if let Some(ca) = ca {
            cmd.arg("--cert").arg(&ca.cert).arg("--key").arg(&ca.key);
        }
        let mut child = cmd
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
        StandIn {
            child,
            http: ca
                .map_or_else(reqwest::Client::builder, |ca| ca.client_builder())
                .build()
                .unwrap(),
            url: v["url"].as_str().unwrap().into(),
            flavour,
            email: v["email"].as_str().unwrap().into(),
            token: v["token"].as_str().unwrap().into(),
        }
    }

    /// A `[jira]` section pointing at this stand-in.
    pub fn config(&self) -> JiraConfig {
        JiraConfig {
            url: self.url.clone(),
            flavour: self.flavour,
            email: self.email.clone(),
            token: self.token.clone(),
            token_file: None,
            timeout_secs: 5,
            ..JiraConfig::default()
        }
    }

    /// Every issue as the stand-in holds it: Jira's JSON plus `rawFields` (what the console
    /// sent), `status` and `attachments` (with their `content`).
    pub async fn issues(&self) -> Vec<Value> {
        let v: Value = self
            .http
            .get(format!("{}/_standin/issues", self.url))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        v.as_array().unwrap().clone()
    }

    pub async fn issue(&self, key: &str) -> Value {
        self.issues()
            .await
            .into_iter()
            .find(|i| i["key"] == key)
            .unwrap_or_else(|| panic!("no issue {key} in the stand-in"))
    }

    /// A Jira outage (503 to every call) or its end.
    pub async fn down(&self, on: bool) {
        self.http
            .post(format!("{}/_standin/down?on={}", self.url, u8::from(on)))
            .send()
            .await
            .unwrap();
    }
}

impl Drop for StandIn {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
