//! The test-run read API in-process: response shapes (field names as the spec gives
//! them), paging, run detail, recordings with Range, group scoping of a restricted user
//! (403) and every kind of bad input.

use crate::harness;
use crate::harness_trs;

use cxwatch::domain::caller::{AccessType, Role};
use harness::App;
use harness_trs::{get, ingest_ok, raw, run};
use poem::http::Method;
use serde_json::{json, Value};

struct Site {
    app: App,
    admin: String,
    group_a: i64,
    group_b: i64,
    group_w: i64,
    audio_a: String,
    audio_b: String,
    audio: Vec<u8>,
}

/// Uploads with the key as a bearer token (the other header form ingest accepts).
async fn upload(app: &App, key: &str, bytes: Vec<u8>) -> String {
    let r = raw(app
        .client
        .post("/api/ingest/v1/recordings")
        .header("Authorization", format!("Bearer {key}"))
        .content_type("audio/mpeg")
        .body(bytes))
    .await;
    assert_eq!(r.status, 200);
    r.json()["data"]["id"].as_str().unwrap().to_string()
}

/// Cases 1-4 voice (IVR 10: cases 2, 4; IVR 11: cases 1, 3), case 9 web (chatbot 20).
/// Group A = {1, 2}, B = {3, 4}, W = {9}.
async fn site() -> Site {
    let (app, _dir) = harness_trs::app();
    let key = app.api_key("engine").await;
    let admin = harness_trs::admin(&app).await.token;
    let audio: Vec<u8> = (0..10_000u32).map(|i| (i % 256) as u8).collect();
    let audio_a = upload(&app, &key, audio.clone()).await;
    let audio_b = upload(&app, &key, b"ID3 other audio".to_vec()).await;
    let mut runs = Vec::new();
    for case in 1..=4 {
        for (i, status) in ["pass", "warn", "fail", "stopped", "pass"]
            .iter()
            .enumerate()
        {
            let mut r = run(
                &format!("c{case}-{i}"),
                case,
                &format!("2026-07-15T{:02}:{:02}:00Z", 13 + i, 10 * case),
                status,
            );
            if i == 4 {
                r["runType"] = json!("Manual");
            }
            r["mosCqIn"] = json!(3.0 + 0.25 * i as f64);
            if case == 1 && i == 0 {
                r["recordingId"] = json!(audio_a);
            }
            if case == 3 && i == 0 {
                r["segments"][0]["steps"][0]["recordingId"] = json!(audio_b);
            }
            runs.push(r);
        }
    }
    let mut web = run("w1", 9, "2026-07-15T14:00:00Z", "pass");
    web["testCase"] = json!({"id": 9, "name": "Chat order status", "channel": "web",
                             "ivr": {"id": 20, "name": "Chatbot"}});
    web["mosCqIn"] = Value::Null;
    runs.push(web);
    ingest_ok(&app, &key, &runs).await;
    let group_a = harness_trs::group(&app, "Alpha", "voice", &[1, 2]).await;
    let group_b = harness_trs::group(&app, "Bravo", "voice", &[3, 4]).await;
    let group_w = harness_trs::group(&app, "Web", "web", &[9]).await;
    Site {
        app,
        admin,
        group_a,
        group_b,
        group_w,
        audio_a,
        audio_b,
        audio,
    }
}

fn keys(v: &Value) -> Vec<String> {
    let mut k: Vec<String> = v.as_object().unwrap().keys().cloned().collect();
    k.sort();
    k
}

fn sorted(names: &[&str]) -> Vec<String> {
    let mut k: Vec<String> = names.iter().map(|s| s.to_string()).collect();
    k.sort();
    k
}

async fn run_id(site: &Site, case: i64, i: usize) -> i64 {
    let key = cxwatch::store::runs::engine_key(&format!("c{case}-{i}"));
    let hex: String = key.iter().map(|b| format!("{b:02x}")).collect();
    // A blob literal: X'..' in SQLite, '\x..'::bytea in PostgreSQL.
    let literal = match site.app.pg_url {
        Some(_) => format!("'\\x{hex}'::bytea"),
        None => format!("X'{hex}'"),
    };
    site.app
        .int(&format!(
            "SELECT run_id FROM run_keys WHERE engine_key = {literal}"
        ))
        .await
}

#[tokio::test(flavor = "multi_thread")]
async fn catalog_shapes() {
    let s = site().await;
    let (status, body) = get(&s.app, &s.admin, "/api/trs/v1/groups").await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["code"], "OK");
    assert_eq!(body["messages"], json!([]));
    assert_eq!(
        body["data"],
        json!([
            {"id": s.group_a, "name": "Alpha", "channel": "voice", "caseCount": 2, "ivrCount": 2},
            {"id": s.group_b, "name": "Bravo", "channel": "voice", "caseCount": 2, "ivrCount": 2},
            {"id": s.group_w, "name": "Web", "channel": "web", "caseCount": 1, "ivrCount": 1},
        ])
    );
    let (_, body) = get(
        &s.app,
        &s.admin,
        &format!("/api/trs/v1/groups/{}", s.group_a),
    )
    .await;
    assert_eq!(
        body["data"],
        json!({"id": s.group_a, "name": "Alpha", "channel": "voice", "caseCount": 2, "ivrCount": 2,
               "testCases": [{"id": 1, "ivrId": 11, "name": "Case 001"},
                             {"id": 2, "ivrId": 10, "name": "Case 002"}]})
    );
    let (_, body) = get(&s.app, &s.admin, "/api/trs/v1/groups/channels").await;
    assert_eq!(
        body["data"],
        json!([{"id": "voice", "code": 1, "name": "Voice"}, {"id": "web", "code": 2, "name": "Digital"}])
    );
    let (_, body) = get(&s.app, &s.admin, "/api/trs/v1/ivrs").await;
    assert_eq!(
        body["data"],
        json!([
            {"id": 20, "name": "Chatbot", "channel": "web",
             "testCases": [{"id": 9, "ivrId": 20, "name": "Chat order status"}]},
            {"id": 10, "name": "IVR 10", "channel": "voice",
             "testCases": [{"id": 2, "ivrId": 10, "name": "Case 002"}, {"id": 4, "ivrId": 10, "name": "Case 004"}]},
            {"id": 11, "name": "IVR 11", "channel": "voice",
             "testCases": [{"id": 1, "ivrId": 11, "name": "Case 001"}, {"id": 3, "ivrId": 11, "name": "Case 003"}]},
        ])
    );
    let (_, body) = get(&s.app, &s.admin, "/api/trs/v1/groups/health").await;
    assert_eq!(
        body["data"],
        json!([{"channel": "voice", "clientApps": []}, {"channel": "web", "clientApps": []}])
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn metric_and_mos_shapes() {
    let s = site().await;
    let (status, body) = get(
        &s.app,
        &s.admin,
        &format!(
            "/api/trs/v1/groups/{}/metric?level=case&startDate=2026-07-15&caseRunType=Schedule",
            s.group_a
        ),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let list = body["data"].as_array().unwrap();
    assert_eq!(list.len(), 2);
    let e = &list[0];
    assert_eq!(
        keys(e),
        sorted(&[
            "entityId",
            "entityName",
            "entityType",
            "channel",
            "periodStart",
            "periodEnd",
            "successCount",
            "warningCount",
            "failureCount",
            "hourlyStatus",
            "segmentId",
            "segmentName",
            "stoppedCount",
            "latencyCount",
            "avgLatency",
            "minLatency",
            "maxLatency",
            "medianLatency",
            "mosCount",
            "avgMosCq",
            "minMosCq",
            "maxMosCq",
            "medianMosCq",
        ])
    );
    // Case 1, Schedule runs: pass (13:10Z), warn (14:10Z), fail (15:10Z), stopped (16:10Z);
    // MOS 3.0, 3.25, 3.5, 3.75; step latencies 900, 1200, 400 per run.
    assert_eq!(
        (
            e["entityId"].clone(),
            e["entityName"].clone(),
            e["entityType"].clone(),
            e["channel"].clone(),
            e["periodStart"].clone(),
            e["periodEnd"].clone()
        ),
        (
            json!(1),
            json!("Case 001"),
            json!("case"),
            json!("voice"),
            json!("2026-07-15"),
            json!("2026-07-15")
        )
    );
    assert_eq!(
        (
            e["successCount"].clone(),
            e["warningCount"].clone(),
            e["failureCount"].clone(),
            e["stoppedCount"].clone()
        ),
        (json!(1), json!(1), json!(2), json!(1))
    );
    assert_eq!(
        (e["segmentId"].clone(), e["segmentName"].clone()),
        (Value::Null, Value::Null)
    );
    let hours = e["hourlyStatus"].as_array().unwrap();
    assert_eq!(hours.len(), 24);
    // 13:10Z is 09:10 EDT.
    assert_eq!(
        hours[9],
        json!({"hourly": "2026-07-15T09:00:00", "successCount": 1, "warningCount": 0, "failureCount": 0})
    );
    assert_eq!(hours[12]["failureCount"], 1);
    assert_eq!(hours[0]["successCount"], 0);
    assert_eq!(
        (
            e["latencyCount"].clone(),
            e["minLatency"].clone(),
            e["maxLatency"].clone(),
            e["avgLatency"].clone(),
            e["medianLatency"].clone()
        ),
        (json!(12), json!(0.4), json!(1.2), json!(0.83), json!(0.9))
    );
    assert_eq!(
        (
            e["mosCount"].clone(),
            e["minMosCq"].clone(),
            e["maxMosCq"].clone(),
            e["avgMosCq"].clone(),
            e["medianMosCq"].clone()
        ),
        (json!(4), json!(3.0), json!(3.8), json!(3.4), json!(3.4))
    );
    // Manual: only the fifth run of each case.
    let (_, body) = get(
        &s.app,
        &s.admin,
        &format!(
            "/api/trs/v1/groups/{}/metric?startDate=2026-07-15&caseRunType=Manual",
            s.group_a
        ),
    )
    .await;
    assert_eq!(body["data"][1]["successCount"], 1);
    assert_eq!(body["data"][1]["failureCount"], 0);
    // Segment level: one entity per segment of each test case.
    let (_, body) = get(
        &s.app,
        &s.admin,
        &format!(
            "/api/trs/v1/groups/{}/metric?level=segment&startDate=2026-07-15&endDate=2026-07-16&caseRunType=Schedule",
            s.group_b
        ),
    ).await;
    let list = body["data"].as_array().unwrap();
    let ids: Vec<_> = list
        .iter()
        .map(|e| {
            (
                e["entityId"].clone(),
                e["segmentId"].clone(),
                e["segmentName"].clone(),
                e["entityType"].clone(),
            )
        })
        .collect();
    assert_eq!(
        ids,
        vec![
            (json!(3), json!(1), json!("Greeting"), json!("segment")),
            (json!(3), json!(2), json!("Main menu"), json!("segment")),
            (json!(4), json!(1), json!("Greeting"), json!("segment")),
            (json!(4), json!(2), json!("Main menu"), json!("segment")),
        ]
    );
    // Greeting always passes; Main menu carries the run's status.
    assert_eq!(
        (
            list[0]["successCount"].clone(),
            list[0]["failureCount"].clone()
        ),
        (json!(4), json!(0))
    );
    assert_eq!(
        (
            list[1]["successCount"].clone(),
            list[1]["warningCount"].clone(),
            list[1]["failureCount"].clone()
        ),
        (json!(1), json!(1), json!(2))
    );
    assert_eq!(list[1]["periodEnd"], "2026-07-16");
    assert_eq!(list[1]["mosCount"], 0);
    assert_eq!(list[1]["avgMosCq"], Value::Null);
    assert_eq!(list[0]["avgLatency"], 0.9);
    // MOS rows.
    let (_, body) = get(
        &s.app,
        &s.admin,
        &format!(
            "/api/trs/v1/groups/{}/mos?startDate=2026-07-15&caseRunType=Schedule",
            s.group_a
        ),
    )
    .await;
    let rows = body["data"].as_array().unwrap();
    assert_eq!(rows.len(), 24);
    // 09:00 local: case 1 (3.0) and case 2 (3.0).
    assert_eq!(
        rows[9],
        json!({"hourly": "2026-07-15T09:00:00", "minMosCq": 3.0, "maxMosCq": 3.0, "avgMosCq": 3.0,
               "medianMosCq": 3.0, "runCount": 2})
    );
    assert_eq!(rows[3]["avgMosCq"], Value::Null);
    // A web group without MOS has 24 empty rows and a case entity with null MOS.
    let (_, body) = get(
        &s.app,
        &s.admin,
        &format!(
            "/api/trs/v1/groups/{}/mos?startDate=2026-07-15&caseRunType=Schedule",
            s.group_w
        ),
    )
    .await;
    assert!(body["data"]
        .as_array()
        .unwrap()
        .iter()
        .all(|r| r["runCount"] == 0));
}

/// `groups/hourly` gives every group what its `groups/{id}/metric` gives, added over its
/// test cases (counts and the 24 hour slots), for each run type and range; a restricted user
/// gets only their groups.
#[tokio::test(flavor = "multi_thread")]
async fn groups_hourly_adds_up_each_groups_metric() {
    let s = site().await;
    let restricted = s
        .app
        .user(
            "hourly@example.com",
            Role::User,
            AccessType::ReadOnly,
            &[s.group_b],
        )
        .await
        .token;
    let sums = |entities: &Value| {
        let mut counts = [0u64; 3];
        let mut hours = [[0u64; 24]; 3];
        for e in entities.as_array().unwrap() {
            for (k, f) in ["successCount", "warningCount", "failureCount"]
                .iter()
                .enumerate()
            {
                counts[k] += e[f].as_u64().unwrap();
                for (h, slot) in e["hourlyStatus"].as_array().unwrap().iter().enumerate() {
                    hours[k][h] += slot[f].as_u64().unwrap();
                }
            }
        }
        json!({
            "successCount": counts[0], "warningCount": counts[1], "failureCount": counts[2],
            "successByHour": hours[0].to_vec(), "warningByHour": hours[1].to_vec(),
            "failureByHour": hours[2].to_vec(),
        })
    };
    let mut runs_seen = 0;
    for (token, groups) in [
        (&s.admin, vec![s.group_a, s.group_b, s.group_w]),
        (&restricted, vec![s.group_b]),
    ] {
        for query in [
            "startDate=2026-07-15&caseRunType=Schedule",
            "startDate=2026-07-15",
            "startDate=2026-07-14&endDate=2026-07-16&caseRunType=Schedule",
            "startDate=2026-07-16&caseRunType=Schedule",
        ] {
            let (status, body) =
                get(&s.app, token, &format!("/api/trs/v1/groups/hourly?{query}")).await;
            assert_eq!(status, 200, "{query}: {body}");
            let items = body["data"].as_array().unwrap();
            assert_eq!(
                items
                    .iter()
                    .map(|g| g["groupId"].as_i64().unwrap())
                    .collect::<Vec<_>>(),
                groups,
                "{query}: the groups the caller sees, by id"
            );
            for item in items {
                let id = item["groupId"].as_i64().unwrap();
                let (status, metric) = get(
                    &s.app,
                    token,
                    &format!("/api/trs/v1/groups/{id}/metric?level=case&{query}"),
                )
                .await;
                assert_eq!(status, 200, "{metric}");
                let mut want = sums(&metric["data"]);
                want["groupId"] = json!(id);
                assert_eq!(item, &want, "{query}: group {id}");
                runs_seen += want["successCount"].as_u64().unwrap()
                    + want["warningCount"].as_u64().unwrap()
                    + want["failureCount"].as_u64().unwrap();
            }
        }
    }
    assert!(runs_seen > 0, "the site's runs are counted");
    // The parameters are checked as the metric's are.
    for (query, field) in [
        ("", "startDate"),
        ("startDate=2026-13-01", "startDate"),
        ("startDate=2026-07-15&caseRunType=Nightly", "caseRunType"),
        ("startDate=2026-07-15&endDate=2026-07-14", "endDate"),
    ] {
        let (status, body) = get(
            &s.app,
            &s.admin,
            &format!("/api/trs/v1/groups/hourly?{query}"),
        )
        .await;
        assert_eq!(status, 400, "{query}: {body}");
        assert!(
            body["messages"][0].as_str().unwrap_or("").contains(field),
            "{query}: {body}"
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn run_list_and_detail() {
    let s = site().await;
    let (status, body) = get(
        &s.app,
        &s.admin,
        "/api/trs/v1/testcases/1/runs?startDate=2026-07-15&pageNo=0",
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["data"]["totalElements"], 5);
    let content = body["data"]["content"].as_array().unwrap();
    let newest = &content[0];
    assert_eq!(
        keys(newest),
        sorted(&[
            "runId",
            "testCaseId",
            "testCaseName",
            "runTime",
            "runDuration",
            "runStatusId",
            "runStatus",
            "mosCqIn",
            "runType",
            "runResult"
        ])
    );
    assert_eq!(
        *newest,
        json!({"runId": run_id(&s, 1, 4).await, "testCaseId": 1, "testCaseName": "Case 001",
               "runTime": "2026-07-15T17:10:00Z", "runDuration": 61.25, "runStatusId": 3,
               "runStatus": "Pass", "mosCqIn": 4.0, "runType": "Manual", "runResult": "pass"})
    );
    let statuses: Vec<_> = content
        .iter()
        .map(|r| {
            (
                r["runStatusId"].as_i64().unwrap(),
                r["runStatus"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        statuses,
        vec![
            (3, "Pass".into()),
            (7, "Failure".into()),
            (7, "Failure".into()),
            (4, "Warning".into()),
            (3, "Pass".into())
        ]
    );
    // Paging: newest first, pageNo 0-based.
    let (_, page) = get(
        &s.app,
        &s.admin,
        "/api/trs/v1/testcases/1/runs?startDate=2026-07-15&pageNo=1&pageSize=2",
    )
    .await;
    let ids: Vec<_> = page["data"]["content"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["runId"].clone())
        .collect();
    assert_eq!(
        ids,
        vec![json!(run_id(&s, 1, 2).await), json!(run_id(&s, 1, 1).await)]
    );
    assert_eq!(page["data"]["totalElements"], 5);
    let (_, page) = get(
        &s.app,
        &s.admin,
        "/api/trs/v1/testcases/1/runs?startDate=2026-07-15&pageNo=3&pageSize=2",
    )
    .await;
    assert_eq!(page["data"]["content"], json!([]));
    // Filters: status and run type.
    let (_, f) = get(
        &s.app,
        &s.admin,
        "/api/trs/v1/testcases/1/runs?startDate=2026-07-15&status=failure&pageNo=0",
    )
    .await;
    assert_eq!(f["data"]["totalElements"], 2);
    let (_, f) = get(
        &s.app,
        &s.admin,
        "/api/trs/v1/testcases/1/runs?startDate=2026-07-15&caseRunType=Manual&pageNo=0",
    )
    .await;
    assert_eq!(f["data"]["totalElements"], 1);
    let (_, f) = get(
        &s.app,
        &s.admin,
        "/api/trs/v1/testcases/1/runs?startDate=2026-07-16&pageNo=0",
    )
    .await;
    assert_eq!(f["data"]["totalElements"], 0);

    // Detail.
    let id = run_id(&s, 1, 0).await;
    let (status, body) = get(&s.app, &s.admin, &format!("/api/trs/v1/testruns/{id}")).await;
    assert_eq!(status, 200, "{body}");
    let d = &body["data"];
    assert_eq!(d["runId"], id);
    assert_eq!(d["runStatus"], "Pass");
    assert_eq!(d["recordingId"], s.audio_a.as_str());
    assert_eq!(d["recordingUrl"], format!("recordings/{}", s.audio_a));
    assert_eq!(
        (
            d["channel"].clone(),
            d["ivrId"].clone(),
            d["ivrName"].clone()
        ),
        (json!("voice"), json!(11), json!("IVR 11"))
    );
    let segs = d["segments"].as_array().unwrap();
    assert_eq!(segs.len(), 2);
    assert_eq!(
        keys(&segs[0]),
        sorted(&["segmentId", "segmentName", "steps"])
    );
    let step = &segs[0]["steps"][0];
    assert_eq!(
        *step,
        json!({"stepId": 11, "stepType": "PROMPT", "typeDisplayText": "Prompt",
               "prompt": "Welcome to Acme", "promptLatencyMin": 200, "promptLatencyMax": 3000,
               "incompleteTimeout": 1500, "completeTimeout": 800, "bargeInTime": null,
               "recordingId": null, "extra": null,
               "testResult": {"status": "pass", "utterance": "Welcome to Acme", "latency": 900,
                              "confidence": 0.93, "recordingDuration": 2.4,
                              "startTime": "2026-07-15T13:10:00Z", "endTime": "2026-07-15T13:10:00Z",
                              "attachmentUrl": null}})
    );
    let dtmf = &segs[1]["steps"][1];
    assert_eq!(dtmf["bargeInTime"], 250);
    assert_eq!(dtmf["testResult"]["utterance"], Value::Null);
    assert_eq!(dtmf["testResult"]["status"], "pass");
    // Step audio of case 3.
    let (_, body) = get(
        &s.app,
        &s.admin,
        &format!("/api/trs/v1/testruns/{}", run_id(&s, 3, 0).await),
    )
    .await;
    let step = &body["data"]["segments"][0]["steps"][0];
    assert_eq!(step["recordingId"], s.audio_b.as_str());
    assert_eq!(
        step["testResult"]["attachmentUrl"],
        format!("recordings/{}", s.audio_b)
    );
    assert_eq!(body["data"]["recordingId"], Value::Null);
}

#[tokio::test(flavor = "multi_thread")]
async fn recordings_support_ranges() {
    let s = site().await;
    let url = format!("/api/trs/v1/recordings/{}", s.audio_a);
    let fetch = |range: Option<&str>| {
        let mut r = s
            .app
            .client
            .get(&url)
            .header("Authorization", format!("Bearer {}", s.admin));
        if let Some(range) = range {
            r = r.header("Range", range);
        }
        raw(r)
    };
    let r = fetch(None).await;
    assert_eq!(r.status, 200);
    assert_eq!(r.header("content-type"), "audio/mpeg");
    assert_eq!(r.header("accept-ranges"), "bytes");
    assert_eq!(r.header("content-length"), "10000");
    assert_eq!(r.body, s.audio);
    let r = fetch(Some("bytes=100-199")).await;
    assert_eq!(r.status, 206);
    assert_eq!(r.header("content-range"), "bytes 100-199/10000");
    assert_eq!(r.header("content-length"), "100");
    assert_eq!(r.header("content-type"), "audio/mpeg");
    assert_eq!(r.body, s.audio[100..200].to_vec());
    let r = fetch(Some("bytes=9990-")).await;
    assert_eq!(r.status, 206);
    assert_eq!(r.header("content-range"), "bytes 9990-9999/10000");
    assert_eq!(r.body, s.audio[9990..].to_vec());
    let r = fetch(Some("bytes=-16")).await;
    assert_eq!(r.body, s.audio[9984..].to_vec());
    let r = fetch(Some("bytes=10000-")).await;
    assert_eq!(r.status, 416);
    assert_eq!(r.header("content-range"), "bytes */10000");
    // getContent serves the same with ranges.
    let r = raw(s
        .app
        .client
        .get(format!(
            "/api/trs/v1/getContent?attachmentUrl=recordings/{}",
            s.audio_a
        ))
        .header("Authorization", format!("Bearer {}", s.admin))
        .header("Range", "bytes=0-9"))
    .await;
    assert_eq!(r.status, 206);
    assert_eq!(r.body, s.audio[..10].to_vec());
}

#[tokio::test(flavor = "multi_thread")]
async fn restricted_users_see_only_their_groups() {
    let s = site().await;
    let token = s
        .app
        .user(
            "operator@example.com",
            Role::User,
            AccessType::ReadWrite,
            &[s.group_a],
        )
        .await
        .token;
    let (_, body) = get(&s.app, &token, "/api/trs/v1/groups").await;
    let ids: Vec<_> = body["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["id"].clone())
        .collect();
    assert_eq!(ids, vec![json!(s.group_a)]);
    let (_, body) = get(&s.app, &token, "/api/trs/v1/ivrs").await;
    let cases: Vec<_> = body["data"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|i| {
            i["testCases"]
                .as_array()
                .unwrap()
                .iter()
                .map(|c| c["id"].clone())
        })
        .collect();
    assert_eq!(cases, vec![json!(2), json!(1)]);
    let ok = [
        format!("/api/trs/v1/groups/{}", s.group_a),
        format!(
            "/api/trs/v1/groups/{}/metric?startDate=2026-07-15",
            s.group_a
        ),
        format!("/api/trs/v1/groups/{}/mos?startDate=2026-07-15", s.group_a),
        "/api/trs/v1/testcases/1/runs?startDate=2026-07-15".into(),
        format!("/api/trs/v1/testruns/{}", run_id(&s, 1, 0).await),
        format!("/api/trs/v1/recordings/{}", s.audio_a),
        format!(
            "/api/trs/v1/getContent?attachmentUrl=recordings/{}",
            s.audio_a
        ),
    ];
    for path in ok {
        let (status, body) = get(&s.app, &token, &path).await;
        assert_eq!(status, 200, "{path}: {body}");
    }
    let forbidden = [
        format!("/api/trs/v1/groups/{}", s.group_b),
        format!(
            "/api/trs/v1/groups/{}/metric?startDate=2026-07-15",
            s.group_b
        ),
        format!(
            "/api/trs/v1/groups/{}/metric?level=segment&startDate=2026-07-15",
            s.group_w
        ),
        format!("/api/trs/v1/groups/{}/mos?startDate=2026-07-15", s.group_b),
        "/api/trs/v1/testcases/3/runs?startDate=2026-07-15".into(),
        format!("/api/trs/v1/testruns/{}", run_id(&s, 3, 1).await),
        format!("/api/trs/v1/recordings/{}", s.audio_b),
        format!(
            "/api/trs/v1/getContent?attachmentUrl=recordings/{}",
            s.audio_b
        ),
    ];
    for path in forbidden {
        let (status, body) = get(&s.app, &token, &path).await;
        assert_eq!(status, 403, "{path}: {body}");
        assert_eq!(body["code"], "FORBIDDEN");
        assert!(!body["messages"][0].as_str().unwrap().is_empty());
    }
    // Administrators see everything.
    let (_, body) = get(&s.app, &s.admin, "/api/trs/v1/groups").await;
    assert_eq!(body["data"].as_array().unwrap().len(), 3);
    let (status, _) = get(
        &s.app,
        &s.admin,
        &format!("/api/trs/v1/recordings/{}", s.audio_b),
    )
    .await;
    assert_eq!(status, 200);
    // A user whose first role is ROLE_ADMIN is not restricted, even with ROLE_USER after it.
    let both = s
        .app
        .user("lead@example.com", Role::Admin, AccessType::ReadWrite, &[])
        .await;
    s.app
        .exec(&format!(
            "UPDATE users SET roles = 'ROLE_ADMIN,ROLE_USER' WHERE id = {}",
            both.id
        ))
        .await;
    let both = both.token;
    let (status, _) = get(&s.app, &both, &format!("/api/trs/v1/groups/{}", s.group_b)).await;
    assert_eq!(status, 200);
    // Without a token: 401.
    let (status, _) = s
        .app
        .call(Method::GET, "/api/trs/v1/groups", None, None)
        .await;
    assert_eq!(status, 401);
}

#[tokio::test(flavor = "multi_thread")]
async fn bad_input_is_named() {
    let s = site().await;
    let a = s.group_a;
    let bad = async |path: String, status: u16, expect: &[&str]| {
        let (got, body) = get(&s.app, &s.admin, &path).await;
        assert_eq!(got, status, "{path}: {body}");
        let msgs = body["messages"]
            .as_array()
            .unwrap_or_else(|| panic!("{path}: {body}"));
        assert_eq!(msgs.len(), expect.len(), "{path}: {body}");
        for (m, e) in msgs.iter().zip(expect) {
            assert!(
                m.as_str().unwrap().contains(e),
                "{path}: {m} should contain {e:?}"
            );
        }
    };
    let m = format!("/api/trs/v1/groups/{a}/metric");
    bad(m.clone(), 400, &["startDate is required"]).await;
    bad(
        format!("{m}?startDate=2026-02-30"),
        400,
        &["startDate \"2026-02-30\" is not a date"],
    )
    .await;
    bad(format!("{m}?startDate=15/07/2026"), 400, &["is not a date"]).await;
    bad(
        format!("{m}?startDate=2026-07-15&endDate=2026-07-14"),
        400,
        &["is after endDate"],
    )
    .await;
    bad(
        format!("{m}?startDate=2025-01-01&endDate=2026-07-14"),
        400,
        &["longer than 400 days"],
    )
    .await;
    bad(
        format!("{m}?startDate=2026-07-15&caseRunType=Nightly"),
        400,
        &["caseRunType \"Nightly\""],
    )
    .await;
    bad(
        format!("{m}?startDate=2026-07-15&level=ivr"),
        400,
        &["level \"ivr\""],
    )
    .await;
    bad(
        format!("{m}?startDate=x&endDate=y&level=z&caseRunType=w"),
        400,
        &[
            "level \"z\"",
            "startDate \"x\"",
            "endDate \"y\"",
            "caseRunType \"w\"",
        ],
    )
    .await;
    bad(
        "/api/trs/v1/groups/999/metric?startDate=2026-07-15".into(),
        404,
        &["Group 999 does not exist"],
    )
    .await;
    bad("/api/trs/v1/groups/999".into(), 404, &["Group 999"]).await;
    bad("/api/trs/v1/groups/abc".into(), 400, &["id"]).await;
    bad(
        format!("/api/trs/v1/groups/{a}/mos?startDate=2026-07-15&endDate=bad"),
        400,
        &["endDate"],
    )
    .await;
    bad(
        "/api/trs/v1/groups/999/mos?startDate=2026-07-15".into(),
        404,
        &["Group 999"],
    )
    .await;
    let r = "/api/trs/v1/testcases/1/runs";
    bad(
        format!("{r}?startDate=2026-07-15&pageSize=0"),
        400,
        &["pageSize 0"],
    )
    .await;
    bad(
        format!("{r}?startDate=2026-07-15&pageSize=1001"),
        400,
        &["pageSize 1001"],
    )
    .await;
    bad(
        format!("{r}?startDate=2026-07-15&pageNo=-1"),
        400,
        &["pageNo -1"],
    )
    .await;
    bad(
        format!("{r}?startDate=2026-07-15&pageNo=x"),
        400,
        &["pageNo"],
    )
    .await;
    bad(
        format!("{r}?startDate=2026-07-15&status=great"),
        400,
        &["status \"great\""],
    )
    .await;
    bad(r.to_string(), 400, &["startDate is required"]).await;
    bad(
        "/api/trs/v1/testcases/999/runs?startDate=2026-07-15".into(),
        404,
        &["Test case 999"],
    )
    .await;
    bad(
        "/api/trs/v1/testruns/999999".into(),
        404,
        &["Test run 999999"],
    )
    .await;
    bad(
        "/api/trs/v1/getContent".into(),
        400,
        &["attachmentUrl is required"],
    )
    .await;
    bad(
        "/api/trs/v1/getContent?attachmentUrl=https://example.com/a.wav".into(),
        400,
        &["is not content of this console"],
    )
    .await;
    bad(
        "/api/trs/v1/getContent?attachmentUrl=recordings/../../cxwatch.db".into(),
        400,
        &["is not content of this console"],
    )
    .await;
    bad(
        format!("/api/trs/v1/recordings/{}", "0".repeat(64)),
        404,
        &["does not exist"],
    )
    .await;
    bad(
        "/api/trs/v1/recordings/..%2F..%2Fcxwatch.db".into(),
        404,
        &["does not exist"],
    )
    .await;
}

#[tokio::test(flavor = "multi_thread")]
async fn groups_are_edited_by_read_write_administrators() {
    let s = site().await;
    let send = async |token: &str, m: Method, path: &str, body: Option<Value>| {
        s.app.call(m, path, Some(token), body.as_ref()).await
    };
    // Validation names every problem; nothing is written.
    let (status, body) = send(
        &s.admin,
        Method::POST,
        "/api/trs/v1/groups",
        Some(json!({})),
    )
    .await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(
        body["messages"],
        json!([
            "name is required.",
            "channel is required (voice or web).",
            "testCases needs at least one test case."
        ])
    );
    let (status, body) = send(
        &s.admin,
        Method::POST,
        "/api/trs/v1/groups",
        Some(json!({"name": "X", "channel": "fax", "testCases": [{"id": 1}]})),
    )
    .await;
    assert_eq!(status, 400);
    assert!(
        body["messages"][0].as_str().unwrap().contains("fax"),
        "{body}"
    );
    let (status, body) = send(
        &s.admin,
        Method::POST,
        "/api/trs/v1/groups",
        Some(json!({"name": "X", "channel": "voice", "testCases": [{"id": 1}, {"id": 9}]})),
    )
    .await;
    assert_eq!(status, 400);
    assert!(
        body["messages"][0]
            .as_str()
            .unwrap()
            .contains("Test case 9 is a web test case"),
        "{body}"
    );
    let (status, body) = send(
        &s.admin,
        Method::POST,
        "/api/trs/v1/groups",
        Some(json!({"name": "X", "channel": "voice", "testCases": [{"id": 77}]})),
    )
    .await;
    assert_eq!(status, 400);
    assert!(
        body["messages"][0]
            .as_str()
            .unwrap()
            .contains("Test case 77 does not exist"),
        "{body}"
    );
    let (status, _) = send(
        &s.admin,
        Method::POST,
        "/api/trs/v1/groups",
        Some(json!({"name": 5})),
    )
    .await;
    assert_eq!(status, 400);
    let (_, list) = get(&s.app, &s.admin, "/api/trs/v1/groups").await;
    assert_eq!(list["data"].as_array().unwrap().len(), 3);
    // Create, update, delete.
    let (status, body) = send(
        &s.admin,
        Method::POST,
        "/api/trs/v1/groups",
        Some(json!({"name": " Charlie ", "channel": "voice", "testCases": [{"id": 3}, {"id": 1}]})),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["code"], "OK");
    let id = body["data"]["id"].as_i64().unwrap();
    assert_eq!(
        body["data"],
        json!({"id": id, "name": "Charlie", "channel": "voice", "caseCount": 2, "ivrCount": 1,
               "testCases": [{"id": 1, "ivrId": 11, "name": "Case 001"}, {"id": 3, "ivrId": 11, "name": "Case 003"}]})
    );
    let path = format!("/api/trs/v1/groups/{id}");
    let (status, body) = send(
        &s.admin,
        Method::PUT,
        &path,
        Some(json!({"id": id, "name": "Charlie 2", "channel": "voice", "testCases": [{"id": 2}]})),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(
        body["data"]["testCases"],
        json!([{"id": 2, "ivrId": 10, "name": "Case 002"}])
    );
    let (status, _) = send(
        &s.admin,
        Method::PUT,
        &path,
        Some(json!({"id": id + 1, "name": "Y", "channel": "voice", "testCases": [{"id": 2}]})),
    )
    .await;
    assert_eq!(status, 400);
    let (status, _) = send(
        &s.admin,
        Method::PUT,
        "/api/trs/v1/groups/999",
        Some(json!({"name": "Y", "channel": "voice", "testCases": [{"id": 2}]})),
    )
    .await;
    assert_eq!(status, 404);
    // Restricted users and read-only administrators may not change groups.
    let user = s
        .app
        .user("op@example.com", Role::User, AccessType::ReadWrite, &[id])
        .await
        .token;
    let ro = s
        .app
        .user("ro@example.com", Role::Admin, AccessType::ReadOnly, &[])
        .await
        .token;
    for token in [&user, &ro] {
        let (status, body) = send(token, Method::DELETE, &path, None).await;
        assert_eq!(status, 403, "{body}");
        let (status, _) = send(
            token,
            Method::POST,
            "/api/trs/v1/groups",
            Some(json!({"name": "Z", "channel": "voice", "testCases": [{"id": 2}]})),
        )
        .await;
        assert_eq!(status, 403);
    }
    // Assigned to a user: refused, naming them, until the cascade is asked.
    let (status, body) = send(&s.admin, Method::DELETE, &path, None).await;
    assert_eq!(status, 409, "{body}");
    assert!(
        body["messages"][0]
            .as_str()
            .unwrap()
            .contains("1 user ('op@example.com')"),
        "{body}"
    );
    let cascade = format!("{path}?cascade=true");
    let (status, body) = send(&s.admin, Method::DELETE, &cascade, None).await;
    assert_eq!((status, body["data"].clone()), (200, json!(true)));
    let (status, _) = send(&s.admin, Method::DELETE, &path, None).await;
    assert_eq!(status, 404);
    // The user's assignment went with the group.
    let (_, list) = get(&s.app, &user, "/api/trs/v1/groups").await;
    assert_eq!(list["data"], json!([]));
}

/// In-process: what the layered resources add (JSON-only ingest, scoped health, paging
/// bounds), through `cxwatch::api::routes` and poem's test client.
#[tokio::test(flavor = "multi_thread")]
async fn in_process_json_only_ingest_scoped_health_and_paging_bounds() {
    let app = App::new();
    let key = app.api_key("engine").await;
    let admin = app
        .user("admin@x.test", Role::Admin, AccessType::ReadWrite, &[])
        .await;
    // runs and health take application/json only.
    for path in ["/api/ingest/v1/runs", "/api/ingest/v1/health"] {
        let resp = app
            .client
            .post(path)
            .header("X-API-Key", key.clone())
            .content_type("text/plain")
            .body("{}")
            .send()
            .await;
        resp.assert_status(poem::http::StatusCode::UNSUPPORTED_MEDIA_TYPE);
    }
    let batch = json!({"runs": [run("h1", 1, "2026-07-15T14:05:00Z", "pass")]});
    let (status, body) = app
        .call_with(
            Method::POST,
            "/api/ingest/v1/runs",
            Some(("X-API-Key", key.clone())),
            Some(&batch),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    // Test case 1 calls 'IVR 11'; its endpoint is 'IVR-11 (...)'.
    let app_health = |name: &str| {
        json!({"clientEndPoint": name, "channel": "voice", "lastRun": "2026-07-15T14:00:00Z",
               "appStatus": {"enabled": true, "status": "TRS_PASS"},
               "telcoStatus": {"enabled": true, "status": "TRS_PASS"},
               "agentStatus": {"enabled": false, "status": "TRS_PASS"},
               "componentStatus": []})
    };
    let health = json!({"clientApps": [app_health("IVR-11 (+1 800 555 0111)"), app_health("IVR-10 (+1 800 555 0110)")]});
    let (status, body) = app
        .call_with(
            Method::POST,
            "/api/ingest/v1/health",
            Some(("X-API-Key", key.clone())),
            Some(&health),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let group = harness_trs::group(&app, "G", "voice", &[1]).await;
    let member = app
        .user("member@x.test", Role::User, AccessType::ReadOnly, &[group])
        .await;
    let outsider = app
        .user("outsider@x.test", Role::User, AccessType::ReadOnly, &[])
        .await;
    let endpoints = |body: &Value| -> Vec<String> {
        body["data"][0]["clientApps"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a["clientEndPoint"].as_str().unwrap().to_string())
            .collect()
    };
    let path = "/api/trs/v1/groups/health";
    let (_, body) = app.call(Method::GET, path, Some(&admin.token), None).await;
    assert_eq!(endpoints(&body).len(), 2, "{body}");
    let (_, body) = app.call(Method::GET, path, Some(&member.token), None).await;
    assert_eq!(endpoints(&body), ["IVR-11 (+1 800 555 0111)"], "{body}");
    let (_, body) = app
        .call(Method::GET, path, Some(&outsider.token), None)
        .await;
    assert!(endpoints(&body).is_empty(), "{body}");
    // Paging bounds are real and named.
    let runs = "/api/trs/v1/testcases/1/runs?startDate=2026-07-15";
    let (status, body) = app
        .call(
            Method::GET,
            &format!("{runs}&pageNo=1000000&pageSize=1000"),
            Some(&admin.token),
            None,
        )
        .await;
    assert_eq!(status, 200, "{body}");
    let (status, body) = app
        .call(
            Method::GET,
            &format!("{runs}&pageNo=1000001"),
            Some(&admin.token),
            None,
        )
        .await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(body["fields"][0]["field"], "pageNo", "{body}");
    assert!(
        body["messages"][0]
            .as_str()
            .unwrap()
            .contains("between 0 and 1000000"),
        "{body}"
    );
    // A group is hidden from a user outside it, and missing when it does not exist.
    let (status, _) = app
        .call(
            Method::GET,
            &format!("/api/trs/v1/groups/{group}"),
            Some(&outsider.token),
            None,
        )
        .await;
    assert_eq!(status, 403);
}
