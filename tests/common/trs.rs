//! Test-run data helpers for integration tests: console users and tokens written straight
//! into the database, API keys through `cxwatch apikey add`, groups through the store,
//! sample runs in the ingest format. Include with
//! `#[path = "common/trs.rs"] mod trs;` next to `mod common;`.
#![allow(dead_code)]

use std::path::Path;

use serde_json::{json, Value};

use crate::common::{client, config_path, run_cli, Server};

pub fn db(dir: &Path) -> rusqlite::Connection {
    let c = rusqlite::Connection::open(dir.join("cxwatch.db")).unwrap();
    c.busy_timeout(std::time::Duration::from_secs(10)).unwrap();
    c
}

/// A console user with `roles` (comma-separated) and a valid token for them.
pub fn add_user(server: &Server, username: &str, roles: &str) -> (i64, String) {
    add_user_with_access(server, username, roles, "read-write")
}

/// Like [`add_user`] with an access type (`read-write` or `read-only`).
pub fn add_user_with_access(
    server: &Server,
    username: &str,
    roles: &str,
    access: &str,
) -> (i64, String) {
    let c = db(&server.data_dir);
    c.execute(
        "INSERT INTO users (username, password_hash, roles, access_type, created_at)
         VALUES (?1, 'not-a-hash', ?2, ?3, 0)",
        rusqlite::params![username, roles, access],
    )
    .unwrap();
    let id = c.last_insert_rowid();
    let token = format!("test-token-{username}-{}", rand::random::<u64>());
    c.execute(
        "INSERT INTO tokens (token_hash, user_id, remember, created_at, expires_at)
         VALUES (?1, ?2, 0, 0, 4102444800)",
        rusqlite::params![cxwatch::store::auth::hash_secret(&token), id],
    )
    .unwrap();
    (id, token)
}

pub fn admin_token(server: &Server) -> String {
    add_user(
        server,
        &format!("admin{}@example.com", rand::random::<u32>()),
        "ROLE_ADMIN",
    )
    .1
}

/// An API key made with `cxwatch apikey add`.
pub fn api_key(server: &Server, name: &str) -> String {
    let config = config_path(&server.data_dir);
    let (code, out, err) = run_cli(
        &[
            "--config",
            config.to_str().unwrap(),
            "apikey",
            "add",
            "--name",
            name,
        ],
        "",
    );
    assert_eq!(code, 0, "apikey add failed: {err}");
    let key = out.trim().to_string();
    assert!(key.starts_with("cxw_"), "{out}");
    key
}

/// Creates a group through the store API (the console's group editor is elsewhere).
pub fn create_group(server: &Server, name: &str, channel: &str, cases: &[i64]) -> i64 {
    use cxwatch::store::{catalog::GroupDraft, Store};
    let store = Store::open(&server.data_dir).unwrap();
    let draft = GroupDraft {
        name: name.into(),
        channel: cxwatch::domain::run::Channel::parse(channel).unwrap(),
        test_case_ids: cases.to_vec(),
    };
    Store::block_on(store.create_group(&draft))
        .unwrap()
        .group
        .id
}

pub fn assign(server: &Server, user: i64, groups: &[i64]) {
    use cxwatch::store::Store;
    let store = Store::open(&server.data_dir).unwrap();
    let u = Store::block_on(store.user(user)).unwrap().unwrap();
    let draft = cxwatch::domain::user::UserDraft {
        role: u.role(),
        username: u.username,
        first_name: u.first_name,
        last_name: u.last_name,
        access: u.access,
        group_ids: groups.to_vec(),
    };
    Store::block_on(store.update_user(user, &draft)).unwrap();
}

/// GET with a console token; returns status and JSON body.
pub fn get(server: &Server, token: &str, path: &str) -> (u16, Value) {
    let r = client()
        .get(server.url(path))
        .bearer_auth(token)
        .send()
        .unwrap();
    let status = r.status().as_u16();
    let text = r.text().unwrap();
    (
        status,
        serde_json::from_str(&text).unwrap_or(Value::String(text)),
    )
}

/// A JSON call with a console token; returns status and JSON body.
pub fn send(
    server: &Server,
    token: &str,
    method: reqwest::Method,
    path: &str,
    body: Option<Value>,
) -> (u16, Value) {
    let mut r = client()
        .request(method, server.url(path))
        .bearer_auth(token);
    if let Some(b) = body {
        r = r.json(&b);
    }
    let r = r.send().unwrap();
    let status = r.status().as_u16();
    (status, r.json().unwrap_or(Value::Null))
}

/// POST a batch `{"runs": runs}` with an API key (X-API-Key).
pub fn post_runs(server: &Server, key: &str, runs: &[Value]) -> (u16, Value) {
    let r = client()
        .post(server.url("/api/ingest/v1/runs"))
        .header("X-API-Key", key)
        .json(&json!({ "runs": runs }))
        .send()
        .unwrap();
    let status = r.status().as_u16();
    (status, r.json().unwrap_or(Value::Null))
}

/// Posts and asserts every run was accepted or a duplicate; returns `data`.
pub fn ingest_ok(server: &Server, key: &str, runs: &[Value]) -> Value {
    let (status, body) = post_runs(server, key, runs);
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["data"]["rejected"], json!([]), "{body}");
    body["data"].clone()
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
