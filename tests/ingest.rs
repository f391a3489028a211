//! Ingest for test engines: API keys (both directions), idempotent batches, per-item
//! rejections, bad bodies, recordings and health snapshots in-process; the `apikey` CLI and
//! durability of an acknowledged batch across `kill -9` against the real binary.

use crate::common;
use crate::harness;
use crate::harness_trs;

use common::{client, config_path, run_cli, start, Opts, Server};
use harness::App;
use harness_trs::{get, ingest_ok, post_runs, raw, run};
use poem::http::Method;
use serde_json::{json, Value};

#[tokio::test(flavor = "multi_thread")]
async fn api_keys_and_console_tokens_do_not_mix() {
    let app = App::new();
    let key = app.api_key("engine-1").await;
    let token = harness_trs::admin(&app).await.token;
    let batch = json!({"runs": [run("k1", 1, "2026-07-15T14:05:00Z", "pass")]});
    let post = async |auth: Option<(&str, String)>| {
        app.call_with(Method::POST, "/api/ingest/v1/runs", auth, Some(&batch))
            .await
    };
    // No key, a console token, a wrong key: 401 with a message.
    for auth in [
        None,
        Some(("Authorization", format!("Bearer {token}"))),
        Some(("X-API-Key", token.clone())),
        Some(("X-API-Key", "cxw_0000".to_string())),
    ] {
        let (status, body) = post(auth.clone()).await;
        assert_eq!(status, 401, "{auth:?}: {body}");
        assert_eq!(body["code"], "UNAUTHORIZED");
        assert!(
            body["messages"][0].as_str().unwrap().contains("API key"),
            "{body}"
        );
    }
    // Both header forms of the key work.
    let (status, body) = post(Some(("X-API-Key", key.clone()))).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["data"]["accepted"], 1);
    let (status, body) = post(Some(("Authorization", format!("Bearer {key}")))).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["data"]["duplicates"], 1);
    // The key does not open console calls.
    let (status, body) = get(&app, &key, "/api/trs/v1/groups").await;
    assert_eq!(status, 401, "{body}");
    assert_eq!(body["messages"], json!(["Access is denied!"]));
    // Every ingest call checks the key.
    for path in ["/api/ingest/v1/recordings", "/api/ingest/v1/health"] {
        let r = raw(app
            .client
            .post(path)
            .content_type("audio/wav")
            .header("Authorization", format!("Bearer {token}"))
            .body("RIFF"))
        .await;
        assert_eq!(r.status, 401, "{path}");
    }
}

/// `cxwatch apikey` against the data directory of a running server: the key it adds opens
/// ingest, is listed and stored hashed, a second key of the same name is refused, and a
/// removed key stops working at once.
#[test]
fn apikey_cli_adds_lists_and_removes_keys() {
    let server = start(Opts::default());
    let key = cli_api_key(&server, "engine-1");
    let batch = [run("k1", 1, "2026-07-15T14:05:00Z", "pass")];
    let (status, body) = https_post_runs(&server, &key, &batch);
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["data"]["accepted"], 1);
    let config = config_path(&server.data_dir);
    let cfg = config.to_str().unwrap();
    let (code, out, _) = run_cli(&["--config", cfg, "apikey", "list"], "");
    assert_eq!(code, 0);
    assert!(out.starts_with("engine-1\t"), "{out}");
    let (code, _, err) = run_cli(
        &["--config", cfg, "apikey", "add", "--name", "engine-1"],
        "",
    );
    assert_ne!(code, 0);
    assert!(err.contains("already exists"), "{err}");
    let stored: String = common::query_one(&server.data_dir, "SELECT key_hash FROM api_keys");
    assert_ne!(stored, key);
    assert_eq!(stored, cxwatch::store::auth::hash_secret(&key));
    let (code, _, _) = run_cli(
        &["--config", cfg, "apikey", "remove", "--name", "engine-1"],
        "",
    );
    assert_eq!(code, 0);
    assert_eq!(https_post_runs(&server, &key, &batch).0, 401);
}

#[tokio::test(flavor = "multi_thread")]
async fn retried_batches_are_idempotent() {
    let (app, _dir) = harness_trs::app();
    let key = app.api_key("engine").await;
    let token = harness_trs::admin(&app).await.token;
    let batch: Vec<Value> = (0..20)
        .map(|i| {
            run(
                &format!("run-{i}"),
                1 + i % 3,
                &format!("2026-07-15T14:{:02}:00Z", i * 2),
                ["pass", "warn", "fail", "stopped"][i as usize % 4],
            )
        })
        .collect();
    let first = ingest_ok(&app, &key, &batch).await;
    assert_eq!(
        (first["accepted"].clone(), first["duplicates"].clone()),
        (json!(20), json!(0))
    );
    // The same batch again, and a batch repeating a run twice.
    let again = ingest_ok(&app, &key, &batch).await;
    assert_eq!(
        (again["accepted"].clone(), again["duplicates"].clone()),
        (json!(0), json!(20))
    );
    let twice = vec![
        run("new", 1, "2026-07-15T15:00:00Z", "pass"),
        run("new", 1, "2026-07-15T15:00:00Z", "pass"),
    ];
    let out = ingest_ok(&app, &key, &twice).await;
    assert_eq!(
        (out["accepted"].clone(), out["duplicates"].clone()),
        (json!(1), json!(1))
    );
    let group = harness_trs::group(&app, "G", "voice", &[1, 2, 3]).await;
    let (status, m) = get(
        &app,
        &token,
        &format!("/api/trs/v1/groups/{group}/metric?level=case&startDate=2026-07-15&caseRunType=Schedule"),
    ).await;
    assert_eq!(status, 200, "{m}");
    let total: u64 = m["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            e["successCount"].as_u64().unwrap()
                + e["warningCount"].as_u64().unwrap()
                + e["failureCount"].as_u64().unwrap()
        })
        .sum();
    assert_eq!(total, 21);
    assert_eq!(app.int("SELECT count(*) FROM test_runs").await, 21);
}

#[tokio::test(flavor = "multi_thread")]
async fn bad_items_are_rejected_with_index_and_reason() {
    let (app, _dir) = harness_trs::app();
    let key = app.api_key("engine").await;
    let good = |id: &str| run(id, 1, "2026-07-15T14:05:00Z", "pass");
    let with = |id: &str, f: &dyn Fn(&mut Value)| {
        let mut r = good(id);
        f(&mut r);
        r
    };
    let cases: Vec<(Value, &str)> = vec![
        (with("b0", &|r| r["status"] = json!("broken")), "status"),
        (with("b1", &|r| r["runType"] = json!("Nightly")), "runType"),
        (
            with("b2", &|r| r["testCase"]["channel"] = json!("fax")),
            "testCase.channel",
        ),
        (with("b3", &|r| r["mosCqIn"] = json!(5.01)), "mosCqIn"),
        (with("b4", &|r| r["mosCqIn"] = json!(0.5)), "mosCqIn"),
        (with("b5", &|r| r["runDuration"] = json!(-1)), "runDuration"),
        (with("b6", &|r| r["engineRunId"] = json!("")), "engineRunId"),
        (
            with("b7", &|r| r["engineRunId"] = json!("x".repeat(129))),
            "engineRunId",
        ),
        (
            with("b8", &|r| r["testCase"]["name"] = json!("  ")),
            "testCase.name",
        ),
        (
            with("b9", &|r| r["runTime"] = json!("yesterday")),
            "runTime",
        ),
        (with("b10", &|r| r["runTime"] = json!(12345)), "runTime"),
        (
            with("b11", &|r| r["unknownField"] = json!(1)),
            "unknownField",
        ),
        (
            with("b12", &|r| {
                r["segments"][1]["steps"][0]["testResult"]["status"] = json!("ok")
            }),
            "segments[1].steps[0].testResult.status",
        ),
        (
            with("b13", &|r| {
                r["segments"][0]["steps"][0]["testResult"]["confidence"] = json!(1.5)
            }),
            "confidence",
        ),
        (
            with("b14", &|r| r["recordingId"] = json!("a".repeat(64))),
            "not a stored recording",
        ),
        (
            with("b15", &|r| r["segments"][1]["segmentId"] = json!(1)),
            "appears more than once",
        ),
        (json!("not an object"), "invalid type"),
        (with("b17", &|r| r["mosCqIn"] = json!("4.2")), "mosCqIn"),
        // PostgreSQL's text holds no NUL: refused by name on both databases, not a 500.
        (
            with("b18", &|r| r["testCase"]["name"] = json!("Cards\u{0}Lost")),
            "testCase.name holds a NUL character",
        ),
        (
            with("b19", &|r| {
                r["segments"][1]["segmentName"] = json!("IVR\u{0}")
            }),
            "segments[1].segmentName holds a NUL character",
        ),
    ];
    let mut batch = vec![good("ok-first")];
    batch.extend(cases.iter().map(|(r, _)| r.clone()));
    batch.push(good("ok-last"));
    let (status, body) = post_runs(&app, &key, &batch).await;
    assert_eq!(status, 200, "{body}");
    let data = &body["data"];
    assert_eq!(data["accepted"], 2, "{body}");
    let rejected = data["rejected"].as_array().unwrap();
    assert_eq!(rejected.len(), cases.len(), "{body}");
    for (i, (_, expect)) in cases.iter().enumerate() {
        assert_eq!(rejected[i]["index"], i + 1, "{body}");
        let reason = rejected[i]["reason"].as_str().unwrap();
        assert!(
            reason.contains(expect),
            "item {}: {reason:?} should name {expect:?}",
            i + 1
        );
    }
    assert_eq!(app.int("SELECT count(*) FROM test_runs").await, 2);
}

#[tokio::test(flavor = "multi_thread")]
async fn bad_bodies_are_refused_whole() {
    let app = App::new();
    let key = app.api_key("engine").await;
    let send = async |body: &str| {
        let r = raw(app
            .client
            .post("/api/ingest/v1/runs")
            .header("X-API-Key", &key)
            .content_type("application/json")
            .body(body.to_string()))
        .await;
        (r.status, r.json())
    };
    for (body, expect) in [
        ("{\"runs\": [", "not JSON"),
        ("[]", "{\"runs\": [...]}"),
        ("{\"runs\": {}}", "{\"runs\": [...]}"),
        ("{\"runs\": [], \"more\": 1}", "nothing else"),
        ("", "not JSON"),
    ] {
        let (status, resp) = send(body).await;
        assert_eq!(status, 400, "{body}: {resp}");
        assert_eq!(resp["code"], "BAD_REQUEST");
        assert!(
            resp["messages"][0].as_str().unwrap().contains(expect),
            "{body}: {resp}"
        );
    }
    let too_many: Vec<Value> = (0..10_001).map(|_| json!({})).collect();
    let (status, resp) = send(&json!({ "runs": too_many }).to_string()).await;
    assert_eq!(status, 400);
    assert!(
        resp["messages"][0].as_str().unwrap().contains("10000"),
        "{resp}"
    );
    let (status, resp) = send("{\"runs\": []}").await;
    assert_eq!(status, 200, "{resp}");
    assert_eq!(
        resp["data"],
        json!({"accepted": 0, "duplicates": 0, "rejected": []})
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn recordings_upload_and_download() {
    let (app, dir) = harness_trs::app();
    let key = app.api_key("engine").await;
    let token = harness_trs::admin(&app).await.token;
    let audio: Vec<u8> = (0..10_000u32).map(|i| (i * 7 % 251) as u8).collect();
    let upload = async |ct: &str, bytes: Vec<u8>| harness_trs::upload(&app, &key, ct, bytes).await;
    let (status, body) = upload("audio/wav", audio.clone()).await;
    assert_eq!(status, 200, "{body}");
    let id = body["data"]["id"].as_str().unwrap().to_string();
    assert_eq!(id.len(), 64);
    assert_eq!(body["data"]["url"], format!("recordings/{id}"));
    assert_eq!(body["data"]["size"], 10_000);
    // Same bytes, same id; stored once: on SQLite under the data directory by hash, on
    // PostgreSQL in the database.
    assert_eq!(
        upload("audio/x-wav", audio.clone()).await.1["data"]["id"],
        id.as_str()
    );
    if app.pg_url.is_none() {
        let file = dir.join("recordings").join(&id[..2]).join(&id);
        assert_eq!(std::fs::read(&file).unwrap(), audio);
    } else {
        let sql = format!(
            "SELECT count(*) FROM recordings WHERE sha256 = '{id}' AND length(data) = 10000"
        );
        assert_eq!(app.int(&sql).await, 1);
    }
    assert_eq!(app.int("SELECT count(*) FROM recordings").await, 1);
    // Wrong type, empty body, too large.
    let (status, body) = upload("text/html", b"<html>".to_vec()).await;
    assert_eq!(status, 415, "{body}");
    assert!(body["messages"][0].as_str().unwrap().contains("audio/wav"));
    assert_eq!(upload("audio/ogg", Vec::new()).await.0, 400);
    let (status, body) = upload("audio/mpeg", vec![0u8; 50 * 1024 * 1024 + 1]).await;
    assert_eq!(status, 413, "{body}");
    assert_eq!(body["code"], "PAYLOAD_TOO_LARGE");
    // A run refers to it; the run detail links it; the download serves it.
    let mut r = run("with-audio", 5, "2026-07-15T14:05:00Z", "pass");
    r["recordingId"] = json!(id);
    r["segments"][0]["steps"][0]["recordingId"] = json!(id);
    ingest_ok(&app, &key, &[r]).await;
    let run_id = app.int("SELECT id FROM test_runs").await;
    let (status, detail) = get(&app, &token, &format!("/api/trs/v1/testruns/{run_id}")).await;
    assert_eq!(status, 200, "{detail}");
    let url = detail["data"]["segments"][0]["steps"][0]["testResult"]["attachmentUrl"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(detail["data"]["recordingUrl"], url.as_str());
    let r = raw(app
        .client
        .get(format!("/api/trs/v1/getContent?attachmentUrl={url}"))
        .header("Authorization", format!("Bearer {token}")))
    .await;
    assert_eq!(r.status, 200);
    assert_eq!(r.header("content-type"), "audio/wav");
    assert_eq!(r.body, audio);
}

#[tokio::test(flavor = "multi_thread")]
async fn health_snapshots() {
    let app = App::new();
    let key = app.api_key("engine").await;
    let token = harness_trs::admin(&app).await.token;
    let snapshot = |name: &str, channel: &str, last: &str, status: &str| {
        json!({"clientEndPoint": name, "channel": channel, "lastRun": last,
               "appStatus": {"enabled": true, "status": status},
               "telcoStatus": {"enabled": true, "status": "TRS_PASS"},
               "agentStatus": {"enabled": false, "status": "TRS_FAIL"},
               "componentStatus": [{"name": "CRM DB", "hasComponent": true, "enabled": true}]})
    };
    let post = async |body: Value| {
        app.call_with(
            Method::POST,
            "/api/ingest/v1/health",
            Some(("X-API-Key", key.clone())),
            Some(&body),
        )
        .await
    };
    let (status, body) = post(json!({"clientApps": [
        snapshot("ivr-east", "voice", "2026-11-20T10:00:00Z", "TRS_PASS"),
        snapshot("chat-1", "web", "2026-11-20T10:00:00Z", "TRS_FAIL"),
    ]}))
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["data"]["stored"], 2);
    // A newer snapshot replaces, an older one does not.
    post(
        json!({"clientApps": [snapshot("ivr-east", "voice", "2026-11-20T11:00:00Z", "TRS_FAIL")]}),
    )
    .await;
    post(
        json!({"clientApps": [snapshot("ivr-east", "voice", "2026-11-20T09:00:00Z", "TRS_PASS")]}),
    )
    .await;
    // Bad snapshots refuse the body and name the field.
    let (status, body) =
        post(json!({"clientApps": [snapshot("x", "fax", "2026-11-20T09:00:00Z", "TRS_PASS")]}))
            .await;
    assert_eq!(status, 400);
    assert!(
        body["messages"][0]
            .as_str()
            .unwrap()
            .contains("clientApps[0].channel"),
        "{body}"
    );
    let (status, body) =
        post(json!({"clientApps": [snapshot(" ", "voice", "2026-11-20T09:00:00Z", "TRS_PASS")]}))
            .await;
    assert_eq!(status, 400);
    assert!(
        body["messages"][0]
            .as_str()
            .unwrap()
            .contains("clientEndPoint"),
        "{body}"
    );
    let (status, h) = get(&app, &token, "/api/trs/v1/groups/health").await;
    assert_eq!(status, 200, "{h}");
    assert_eq!(
        h["data"],
        json!([
            {"channel": "voice", "clientApps": [
                {"clientEndPoint": "ivr-east", "channel": "voice", "lastRun": "2026-11-20T11:00:00Z",
                 "appStatus": {"enabled": true, "status": "TRS_FAIL"},
                 "telcoStatus": {"enabled": true, "status": "TRS_PASS"},
                 "agentStatus": {"enabled": false, "status": "TRS_FAIL"},
                 "componentStatus": [{"name": "CRM DB", "hasComponent": true, "enabled": true}]}]},
            {"channel": "web", "clientApps": [
                {"clientEndPoint": "chat-1", "channel": "web", "lastRun": "2026-11-20T10:00:00Z",
                 "appStatus": {"enabled": true, "status": "TRS_FAIL"},
                 "telcoStatus": {"enabled": true, "status": "TRS_PASS"},
                 "agentStatus": {"enabled": false, "status": "TRS_FAIL"},
                 "componentStatus": [{"name": "CRM DB", "hasComponent": true, "enabled": true}]}]}
        ])
    );
}

#[test]
fn acknowledged_runs_survive_kill_9() {
    // SQLite's durability (the binary on its file, an administrator written into it):
    // nothing of PostgreSQL to test here.
    if std::env::var("TEST_POSTGRES_URL").is_ok() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let opts = Opts {
        data_dir: Some(dir.path().to_path_buf()),
        ..Opts::default()
    };
    let mut server = start(opts.clone());
    let key = cli_api_key(&server, "engine");
    let batch: Vec<Value> = (0..500)
        .map(|i| {
            run(
                &format!("durable-{i}"),
                1 + i % 7,
                "2026-07-15T14:05:00Z",
                "pass",
            )
        })
        .collect();
    let (status, body) = https_post_runs(&server, &key, &batch);
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["data"]["accepted"], 500, "{body}");
    // SIGKILL right after the answer: no shutdown, no checkpoint.
    server.kill();
    drop(server);
    let server = start(opts);
    let token = db_admin_token(&server);
    let (status, body) = https_get(
        &server,
        &token,
        "/api/trs/v1/testcases/1/runs?startDate=2026-07-15&pageSize=1000",
    );
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["data"]["totalElements"], 72); // i % 7 == 0 for i in 0..500
    let group = {
        use cxwatch::store::{catalog::GroupDraft, Store};
        let store = Store::open(&server.data_dir, cxwatch::store::StoreOptions::default()).unwrap();
        let draft = GroupDraft {
            name: "All".into(),
            channel: cxwatch::domain::run::Channel::Voice,
            test_case_ids: (1..=7).collect(),
        };
        Store::block_on(store.create_group(&draft))
            .unwrap()
            .group
            .id
    };
    let (_, m) = https_get(
        &server,
        &token,
        &format!("/api/trs/v1/groups/{group}/metric?startDate=2026-07-15&caseRunType=Schedule"),
    );
    let total: u64 = m["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["successCount"].as_u64().unwrap())
        .sum();
    assert_eq!(total, 500);
    // The same batch after the restart is all duplicates.
    let (status, body) = https_post_runs(&server, &key, &batch);
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["data"]["duplicates"], 500, "{body}");
}

// The binary's side, for the tests above that need the process: keys made with the CLI,
// HTTPS calls, and an administrator written straight into the database.

/// An API key made with `cxwatch apikey add`.
fn cli_api_key(server: &Server, name: &str) -> String {
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

/// POST a batch `{"runs": runs}` over HTTPS with an API key (X-API-Key).
fn https_post_runs(server: &Server, key: &str, runs: &[Value]) -> (u16, Value) {
    let r = client()
        .post(server.url("/api/ingest/v1/runs"))
        .header("X-API-Key", key)
        .json(&json!({ "runs": runs }))
        .send()
        .unwrap();
    let status = r.status().as_u16();
    (status, r.json().unwrap_or(Value::Null))
}

/// GET over HTTPS with a console token; status and JSON answer.
fn https_get(server: &Server, token: &str, path: &str) -> (u16, Value) {
    let r = client()
        .get(server.url(path))
        .bearer_auth(token)
        .send()
        .unwrap();
    let status = r.status().as_u16();
    (status, r.json().unwrap_or(Value::Null))
}

/// An administrator with a valid token, written into the running server's database.
fn db_admin_token(server: &Server) -> String {
    let c = harness_trs::db(&server.data_dir);
    c.execute(
        "INSERT INTO users (username, password_hash, roles, access_type, created_at)
         VALUES ('admin@example.com', 'not-a-hash', 'ROLE_ADMIN', 'read-write', 0)",
        [],
    )
    .unwrap();
    let token = format!("test-token-{}", rand::random::<u64>());
    c.execute(
        "INSERT INTO tokens (token_hash, user_id, remember, created_at, expires_at, last_used_at)
         VALUES (?1, ?2, 0, 0, 4102444800, ?3)",
        rusqlite::params![
            cxwatch::store::auth::hash_secret(&token),
            c.last_insert_rowid(),
            common::now_secs()
        ],
    )
    .unwrap();
    token
}
