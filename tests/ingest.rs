//! Ingest for test engines over HTTP against the real binary: API keys (both directions),
//! idempotent batches, per-item rejections, bad bodies, recordings, health snapshots, and
//! durability of an acknowledged batch across `kill -9`.

mod common;
#[path = "common/trs.rs"]
mod trs;

use common::{client, config_path, run_cli, start, Opts};
use serde_json::{json, Value};
use trs::{admin_token, api_key, get, ingest_ok, post_runs, run};

#[test]
fn api_keys_and_console_tokens_do_not_mix() {
    let server = start(Opts::default());
    let key = api_key(&server, "engine-1");
    let token = admin_token(&server);
    let batch = json!({"runs": [run("k1", 1, "2026-07-15T14:05:00Z", "pass")]});
    let post = |auth: Option<(&str, String)>| {
        let mut r = client()
            .post(server.url("/api/ingest/v1/runs"))
            .json(&batch);
        if let Some((h, v)) = auth {
            r = r.header(h, v);
        }
        let r = r.send().unwrap();
        (r.status().as_u16(), r.json::<Value>().unwrap())
    };
    // No key, a console token, a wrong key: 401 with a message.
    for auth in [
        None,
        Some(("Authorization", format!("Bearer {token}"))),
        Some(("X-API-Key", token.clone())),
        Some(("X-API-Key", "cxw_0000".to_string())),
    ] {
        let (status, body) = post(auth.clone());
        assert_eq!(status, 401, "{auth:?}: {body}");
        assert_eq!(body["code"], "UNAUTHORIZED");
        assert!(
            body["messages"][0].as_str().unwrap().contains("API key"),
            "{body}"
        );
    }
    // Both header forms of the key work.
    let (status, body) = post(Some(("X-API-Key", key.clone())));
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["data"]["accepted"], 1);
    let (status, body) = post(Some(("Authorization", format!("Bearer {key}"))));
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["data"]["duplicates"], 1);
    // The key does not open console calls.
    let (status, body) = get(&server, &key, "/api/trs/v1/groups");
    assert_eq!(status, 401, "{body}");
    assert_eq!(body["messages"], json!(["Access is denied!"]));
    // Every ingest call checks the key.
    for path in ["/api/ingest/v1/recordings", "/api/ingest/v1/health"] {
        let r = client()
            .post(server.url(path))
            .header("Content-Type", "audio/wav")
            .bearer_auth(&token)
            .body("RIFF")
            .send()
            .unwrap();
        assert_eq!(r.status().as_u16(), 401, "{path}");
    }
    // A removed key stops working; the key is stored hashed.
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
    let stored: String = trs::db(&server.data_dir)
        .query_row("SELECT key_hash FROM api_keys", [], |r| r.get(0))
        .unwrap();
    assert_ne!(stored, key);
    assert_eq!(stored, cxwatch::store::auth::hash_secret(&key));
    let (code, _, _) = run_cli(
        &["--config", cfg, "apikey", "remove", "--name", "engine-1"],
        "",
    );
    assert_eq!(code, 0);
    assert_eq!(post(Some(("X-API-Key", key))).0, 401);
}

#[test]
fn retried_batches_are_idempotent() {
    let server = start(Opts::default());
    let key = api_key(&server, "engine");
    let token = admin_token(&server);
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
    let first = ingest_ok(&server, &key, &batch);
    assert_eq!(
        (first["accepted"].clone(), first["duplicates"].clone()),
        (json!(20), json!(0))
    );
    // The same batch again, and a batch repeating a run twice.
    let again = ingest_ok(&server, &key, &batch);
    assert_eq!(
        (again["accepted"].clone(), again["duplicates"].clone()),
        (json!(0), json!(20))
    );
    let twice = vec![
        run("new", 1, "2026-07-15T15:00:00Z", "pass"),
        run("new", 1, "2026-07-15T15:00:00Z", "pass"),
    ];
    let out = ingest_ok(&server, &key, &twice);
    assert_eq!(
        (out["accepted"].clone(), out["duplicates"].clone()),
        (json!(1), json!(1))
    );
    let group = trs::create_group(&server, "G", "voice", &[1, 2, 3]);
    let (status, m) = get(
        &server,
        &token,
        &format!("/api/trs/v1/groups/{group}/metric?level=case&startDate=2026-07-15&caseRunType=Schedule"),
    );
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
    let runs: i64 = trs::db(&server.data_dir)
        .query_row("SELECT count(*) FROM test_runs", [], |r| r.get(0))
        .unwrap();
    assert_eq!(runs, 21);
}

#[test]
fn bad_items_are_rejected_with_index_and_reason() {
    let server = start(Opts::default());
    let key = api_key(&server, "engine");
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
    ];
    let mut batch = vec![good("ok-first")];
    batch.extend(cases.iter().map(|(r, _)| r.clone()));
    batch.push(good("ok-last"));
    let (status, body) = post_runs(&server, &key, &batch);
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
    let stored: i64 = trs::db(&server.data_dir)
        .query_row("SELECT count(*) FROM test_runs", [], |r| r.get(0))
        .unwrap();
    assert_eq!(stored, 2);
}

#[test]
fn bad_bodies_are_refused_whole() {
    let server = start(Opts::default());
    let key = api_key(&server, "engine");
    let send = |body: &str| {
        let r = client()
            .post(server.url("/api/ingest/v1/runs"))
            .header("X-API-Key", &key)
            .header("Content-Type", "application/json")
            .body(body.to_string())
            .send()
            .unwrap();
        (r.status().as_u16(), r.json::<Value>().unwrap())
    };
    for (body, expect) in [
        ("{\"runs\": [", "not JSON"),
        ("[]", "{\"runs\": [...]}"),
        ("{\"runs\": {}}", "{\"runs\": [...]}"),
        ("{\"runs\": [], \"more\": 1}", "nothing else"),
        ("", "not JSON"),
    ] {
        let (status, resp) = send(body);
        assert_eq!(status, 400, "{body}: {resp}");
        assert_eq!(resp["code"], "BAD_REQUEST");
        assert!(
            resp["messages"][0].as_str().unwrap().contains(expect),
            "{body}: {resp}"
        );
    }
    let too_many: Vec<Value> = (0..10_001).map(|_| json!({})).collect();
    let (status, resp) = send(&json!({ "runs": too_many }).to_string());
    assert_eq!(status, 400);
    assert!(
        resp["messages"][0].as_str().unwrap().contains("10000"),
        "{resp}"
    );
    let (status, resp) = send("{\"runs\": []}");
    assert_eq!(status, 200, "{resp}");
    assert_eq!(
        resp["data"],
        json!({"accepted": 0, "duplicates": 0, "rejected": []})
    );
}

#[test]
fn recordings_upload_and_download() {
    let server = start(Opts::default());
    let key = api_key(&server, "engine");
    let token = admin_token(&server);
    let audio: Vec<u8> = (0..10_000u32).map(|i| (i * 7 % 251) as u8).collect();
    let upload = |ct: &str, bytes: Vec<u8>| {
        let r = client()
            .post(server.url("/api/ingest/v1/recordings"))
            .header("X-API-Key", &key)
            .header("Content-Type", ct)
            .body(bytes)
            .send()
            .unwrap();
        (r.status().as_u16(), r.json::<Value>().unwrap())
    };
    let (status, body) = upload("audio/wav", audio.clone());
    assert_eq!(status, 200, "{body}");
    let id = body["data"]["id"].as_str().unwrap().to_string();
    assert_eq!(id.len(), 64);
    assert_eq!(body["data"]["url"], format!("recordings/{id}"));
    assert_eq!(body["data"]["size"], 10_000);
    // Same bytes, same id; stored under the data directory by hash.
    assert_eq!(
        upload("audio/x-wav", audio.clone()).1["data"]["id"],
        id.as_str()
    );
    let file = server.data_dir.join("recordings").join(&id[..2]).join(&id);
    assert_eq!(std::fs::read(&file).unwrap(), audio);
    // Wrong type, empty body, too large.
    let (status, body) = upload("text/html", b"<html>".to_vec());
    assert_eq!(status, 415, "{body}");
    assert!(body["messages"][0].as_str().unwrap().contains("audio/wav"));
    assert_eq!(upload("audio/ogg", Vec::new()).0, 400);
    // Too large, sent chunked: read up to the limit, then 413. (With Content-Length the
    // answer comes before the body is read: tests/abuse.rs.)
    let r = client()
        .post(server.url("/api/ingest/v1/recordings"))
        .header("X-API-Key", &key)
        .header("Content-Type", "audio/mpeg")
        .body(reqwest::blocking::Body::new(std::io::Cursor::new(vec![
            0u8;
            50 * 1024 * 1024 + 1
        ])))
        .send()
        .unwrap();
    assert_eq!(r.status(), 413);
    assert_eq!(r.json::<Value>().unwrap()["code"], "PAYLOAD_TOO_LARGE");
    // A run refers to it; the run detail links it; the download serves it.
    let mut r = run("with-audio", 5, "2026-07-15T14:05:00Z", "pass");
    r["recordingId"] = json!(id);
    r["segments"][0]["steps"][0]["recordingId"] = json!(id);
    ingest_ok(&server, &key, &[r]);
    let run_id: i64 = trs::db(&server.data_dir)
        .query_row("SELECT id FROM test_runs", [], |r| r.get(0))
        .unwrap();
    let (status, detail) = get(&server, &token, &format!("/api/trs/v1/testruns/{run_id}"));
    assert_eq!(status, 200, "{detail}");
    let url = detail["data"]["segments"][0]["steps"][0]["testResult"]["attachmentUrl"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(detail["data"]["recordingUrl"], url.as_str());
    let r = client()
        .get(server.url(&format!("/api/trs/v1/getContent?attachmentUrl={url}")))
        .bearer_auth(&token)
        .send()
        .unwrap();
    assert_eq!(r.status().as_u16(), 200);
    assert_eq!(r.headers()["content-type"], "audio/wav");
    assert_eq!(r.bytes().unwrap().to_vec(), audio);
}

#[test]
fn health_snapshots() {
    let server = start(Opts::default());
    let key = api_key(&server, "engine");
    let token = admin_token(&server);
    let app = |name: &str, channel: &str, last: &str, status: &str| {
        json!({"clientEndPoint": name, "channel": channel, "lastRun": last,
               "appStatus": {"enabled": true, "status": status},
               "telcoStatus": {"enabled": true, "status": "TRS_PASS"},
               "agentStatus": {"enabled": false, "status": "TRS_FAIL"},
               "componentStatus": [{"name": "CRM DB", "hasComponent": true, "enabled": true}]})
    };
    let post = |body: Value| {
        let r = client()
            .post(server.url("/api/ingest/v1/health"))
            .header("X-API-Key", &key)
            .json(&body)
            .send()
            .unwrap();
        (r.status().as_u16(), r.json::<Value>().unwrap())
    };
    let (status, body) = post(json!({"clientApps": [
        app("ivr-east", "voice", "2026-11-20T10:00:00Z", "TRS_PASS"),
        app("chat-1", "web", "2026-11-20T10:00:00Z", "TRS_FAIL"),
    ]}));
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["data"]["stored"], 2);
    // A newer snapshot replaces, an older one does not.
    post(json!({"clientApps": [app("ivr-east", "voice", "2026-11-20T11:00:00Z", "TRS_FAIL")]}));
    post(json!({"clientApps": [app("ivr-east", "voice", "2026-11-20T09:00:00Z", "TRS_PASS")]}));
    // Bad snapshots refuse the body and name the field.
    let (status, body) =
        post(json!({"clientApps": [app("x", "fax", "2026-11-20T09:00:00Z", "TRS_PASS")]}));
    assert_eq!(status, 400);
    assert!(
        body["messages"][0]
            .as_str()
            .unwrap()
            .contains("clientApps[0].channel"),
        "{body}"
    );
    let (status, body) =
        post(json!({"clientApps": [app(" ", "voice", "2026-11-20T09:00:00Z", "TRS_PASS")]}));
    assert_eq!(status, 400);
    assert!(
        body["messages"][0]
            .as_str()
            .unwrap()
            .contains("clientEndPoint"),
        "{body}"
    );
    let (status, h) = get(&server, &token, "/api/trs/v1/groups/health");
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
    let dir = tempfile::tempdir().unwrap();
    let opts = Opts {
        data_dir: Some(dir.path().to_path_buf()),
        ..Opts::default()
    };
    let mut server = start(opts.clone());
    let key = api_key(&server, "engine");
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
    let data = ingest_ok(&server, &key, &batch);
    assert_eq!(data["accepted"], 500);
    // SIGKILL right after the answer: no shutdown, no checkpoint.
    server.kill();
    drop(server);
    let server = start(opts);
    let token = admin_token(&server);
    let (status, body) = get(
        &server,
        &token,
        "/api/trs/v1/testcases/1/runs?startDate=2026-07-15&pageSize=1000",
    );
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["data"]["totalElements"], 72); // i % 7 == 0 for i in 0..500
    let group = trs::create_group(&server, "All", "voice", &[1, 2, 3, 4, 5, 6, 7]);
    let (_, m) = get(
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
    let again = ingest_ok(&server, &key, &batch);
    assert_eq!(again["duplicates"], 500);
}
