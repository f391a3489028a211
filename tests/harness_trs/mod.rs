//! Test-run data helpers for the in-process harness: groups through the store, batches and
//! recordings through the ingest API, sample runs in the ingest format, and direct SQL on
//! the app's database where a test checks what was stored. Include with `mod harness_trs;`
//! next to `mod harness;`.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use cxwatch::domain::caller::{AccessType, Role};
use cxwatch::domain::run::Channel;
use cxwatch::store::catalog::GroupDraft;
use poem::http::{HeaderMap, Method};
use serde_json::{json, Value};

use crate::harness::{App, Who};

/// An app over a fresh store, and the data directory it keeps its files in.
pub fn app() -> (App, PathBuf) {
    let mut dir = PathBuf::new();
    let app = App::with_config(|c| dir = c.data_dir.clone());
    (app, dir)
}

/// The app's SQLite database, opened beside the store.
pub fn db(dir: &Path) -> rusqlite::Connection {
    let c = rusqlite::Connection::open(dir.join("cxwatch.db")).unwrap();
    c.busy_timeout(std::time::Duration::from_secs(10)).unwrap();
    c
}

/// A read-write administrator.
pub async fn admin(app: &App) -> Who {
    app.user(
        &format!("admin{}@example.com", rand::random::<u32>()),
        Role::Admin,
        AccessType::ReadWrite,
        &[],
    )
    .await
}

/// Creates a group through the store (the console's group editor has its own test).
pub async fn group(app: &App, name: &str, channel: &str, cases: &[i64]) -> i64 {
    let draft = GroupDraft {
        name: name.into(),
        channel: Channel::parse(channel).unwrap(),
        test_case_ids: cases.to_vec(),
    };
    app.store.create_group(&draft).await.unwrap().group.id
}

/// GET with a console token; status and JSON answer.
pub async fn get(app: &App, token: &str, path: &str) -> (u16, Value) {
    app.call(Method::GET, path, Some(token), None).await
}

/// POST a batch `{"runs": runs}` with an API key (X-API-Key).
pub async fn post_runs(app: &App, key: &str, runs: &[Value]) -> (u16, Value) {
    app.call_with(
        Method::POST,
        "/api/ingest/v1/runs",
        Some(("X-API-Key", key.to_string())),
        Some(&json!({ "runs": runs })),
    )
    .await
}

/// Posts and asserts every run was accepted or a duplicate; returns `data`.
pub async fn ingest_ok(app: &App, key: &str, runs: &[Value]) -> Value {
    let (status, body) = post_runs(app, key, runs).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["data"]["rejected"], json!([]), "{body}");
    body["data"].clone()
}

/// A request's status, headers and body bytes, for answers that are not JSON.
pub async fn raw(req: poem::test::TestRequestBuilder<'_, impl poem::Endpoint>) -> Raw {
    let resp = req.send().await.0;
    let status = resp.status().as_u16();
    let headers = resp.headers().clone();
    let body = resp.into_body().into_vec().await.unwrap();
    Raw {
        status,
        headers,
        body,
    }
}

pub struct Raw {
    pub status: u16,
    pub headers: HeaderMap,
    pub body: Vec<u8>,
}

impl Raw {
    pub fn header(&self, name: &str) -> &str {
        self.headers[name].to_str().unwrap()
    }

    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap()
    }
}

/// Uploads a recording with an API key (X-API-Key); status and JSON answer.
pub async fn upload(app: &App, key: &str, content_type: &str, bytes: Vec<u8>) -> (u16, Value) {
    let r = raw(app
        .client
        .post("/api/ingest/v1/recordings")
        .header("X-API-Key", key)
        .content_type(content_type)
        .body(bytes))
    .await;
    (r.status, r.json())
}

/// A voice run of test case `case` (IVR 10) with two segments and three steps.
pub fn run(engine_id: &str, case: i64, time: &str, status: &str) -> Value {
    json!({
        "engineRunId": engine_id,
        "testCase": {"id": case, "name": format!("Case {case:03}"), "channel": "voice",
                     "ivr": {"id": 10 + case % 2, "name": format!("IVR {}", 10 + case % 2)}},
        "runTime": time,
        "runDuration": 61.25,
        "status": status,
        "runType": "Schedule",
        "mosCqIn": 4.2,
        "segments": [
            {"segmentId": 1, "segmentName": "Greeting", "steps": [
                {"stepId": 11, "stepType": "PROMPT", "typeDisplayText": "Prompt",
                 "prompt": "Welcome to Acme", "promptLatencyMin": 200, "promptLatencyMax": 3000,
                 "incompleteTimeout": 1500, "completeTimeout": 800,
                 "testResult": {"status": "pass", "utterance": "Welcome to Acme",
                                "latency": 900, "confidence": 0.93, "recordingDuration": 2.4,
                                "startTime": time, "endTime": time}}]},
            {"segmentId": 2, "segmentName": "Main menu", "steps": [
                {"stepId": 21, "stepType": "PROMPT", "typeDisplayText": "Prompt",
                 "prompt": "For billing press 1",
                 "testResult": {"status": "pass", "utterance": "For billing press 1",
                                "latency": 1200, "confidence": 0.88}},
                {"stepId": 22, "stepType": "DTMF", "typeDisplayText": "Key press",
                 "bargeInTime": 250,
                 "testResult": {"status": status, "latency": 400}}]}
        ]
    })
}
