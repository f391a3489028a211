//! The alert's life after it fires: acknowledging an open event (who and when,
//! once, within the caller's groups, read-write only; a closed one is a conflict), comments
//! through `PUT alerts/{id}` (a thread, the latest kept as section 7's comment), the
//! details' timeline, and escalation to a setting's second list, once, through the outbox,
//! never after an acknowledgement. On either backend (`TEST_POSTGRES_URL`).

use crate::common;

use crate::harness;
use crate::harness_trs;

use common::now_ms;
use cxwatch::domain::alert_setting::{AlertSettingDraft, Escalation};
use cxwatch::domain::caller::{AccessType, Role, Scope};
use cxwatch::domain::distribution::{Contact, ContactType, DistributionDraft};
use cxwatch::domain::schedule::Week;
use harness::App;
use harness_trs::{admin, get, group, ingest_ok, run};
use poem::http::Method;
use serde_json::{json, Value};

async fn list(app: &App, name: &str, email: &str) -> i64 {
    app.store
        .create_distribution(&DistributionDraft {
            name: name.into(),
            contacts: vec![
                Contact {
                    name: "Mail".into(),
                    kind: ContactType::Email,
                    info: email.into(),
                },
                Contact {
                    name: "Phone".into(),
                    kind: ContactType::Sms,
                    info: "+15145550100".into(),
                },
            ],
        })
        .await
        .unwrap()
}

/// A setting on `group` opening at the first failure, every slot of the week.
async fn setting(app: &App, group: i64, list: i64, escalation: Option<Escalation>) -> i64 {
    app.store
        .create_alert_setting(
            Scope::All,
            &AlertSettingDraft {
                name: "Billing down".into(),
                active: true,
                group_id: group,
                distribution_id: list,
                email_subject: "Billing IVR failing".into(),
                voice_message: "Billing is failing".into(),
                sms_prefix: "[CX]".into(),
                failure_to_alert: 1,
                statuses: vec!["FAIL".into()],
                week: Week::from_masks((1..=7).map(|d| (d, (1u64 << 48) - 1))),
                escalation,
                ..Default::default()
            },
        )
        .await
        .unwrap()
}

fn at(min: u32) -> String {
    format!("2026-11-23T15:{min:02}:00Z")
}

async fn call(app: &App, m: Method, path: &str, token: &str, body: Option<Value>) -> (u16, Value) {
    app.call(m, path, Some(token), body.as_ref()).await
}

fn kinds(d: &Value) -> Vec<String> {
    d["timeline"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["kind"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test]
async fn acknowledge_comment_and_the_timeline() {
    let app = App::with_config(|c| {
        c.notify.public_url = "https://console.cxwatch.test".into();
    });
    let a = admin(&app).await;
    let key = app.api_key("engine").await;
    ingest_ok(
        &app,
        &key,
        &[run("p0", 1, &at(0), "pass"), run("q0", 2, &at(0), "pass")],
    )
    .await;
    let g = group(&app, "Billing", "voice", &[1]).await;
    let other = group(&app, "Sales", "voice", &[2]).await;
    let l = list(&app, "Billing on call", "ops@example.com").await;
    setting(&app, g, l, None).await;
    ingest_ok(&app, &key, &[run("f1", 1, &at(1), "fail")]).await;
    let (_, page) = get(&app, &a.token, "/api/alerts/events").await;
    let id = page["data"]["content"][0]["alertId"].as_i64().unwrap();
    assert_eq!(page["data"]["content"][0]["acknowledgedBy"], Value::Null);
    // The alert mail links to the details that offer to acknowledge.
    let text = app
        .texts(&format!(
            "SELECT body_text FROM outbox WHERE cause = 'alert:{id}' AND channel = 1"
        ))
        .await[0]
        .clone()
        .unwrap();
    assert!(
        text.contains(&format!(
            "Acknowledge: https://console.cxwatch.test/alert/{id}?acknowledge=1"
        )),
        "{text}"
    );

    let rw = app
        .user("night@example.com", Role::User, AccessType::ReadWrite, &[g])
        .await;
    let ro = app
        .user("viewer@example.com", Role::User, AccessType::ReadOnly, &[g])
        .await;
    let stranger = app
        .user(
            "sales@example.com",
            Role::User,
            AccessType::ReadWrite,
            &[other],
        )
        .await;
    let ack = format!("/api/alerts/{id}/acknowledge");
    let put = format!("/api/alerts/{id}");
    // Read-only accounts see, cannot act; another group's user does not see it.
    assert_eq!(call(&app, Method::POST, &ack, &ro.token, None).await.0, 403);
    let c = Some(json!({"comment": "looking"}));
    assert_eq!(
        call(&app, Method::PUT, &put, &ro.token, c.clone()).await.0,
        403
    );
    assert_eq!(
        call(&app, Method::POST, &ack, &stranger.token, None)
            .await
            .0,
        403
    );
    assert_eq!(
        call(&app, Method::PUT, &put, &stranger.token, c).await.0,
        403
    );
    let missing = call(
        &app,
        Method::POST,
        "/api/alerts/999999/acknowledge",
        &a.token,
        None,
    );
    assert_eq!(missing.await.0, 404);

    // Acknowledged once: who and when; a second acknowledgement keeps the first.
    let before = now_ms();
    let (st, d) = call(&app, Method::POST, &ack, &rw.token, None).await;
    assert_eq!(st, 200, "{d}");
    assert_eq!(d["data"]["acknowledgedBy"], "night@example.com");
    let when = d["data"]["acknowledgedTime"].as_str().unwrap().to_string();
    let when_ms = chrono::DateTime::parse_from_rfc3339(&when)
        .unwrap()
        .timestamp_millis();
    assert!(
        when_ms >= before - 1000 && when_ms <= now_ms() + 1000,
        "{when}"
    );
    let (st, d) = call(&app, Method::POST, &ack, &a.token, None).await;
    assert_eq!(st, 200, "{d}");
    assert_eq!(d["data"]["acknowledgedBy"], "night@example.com");
    assert_eq!(d["data"]["acknowledgedTime"], when);
    let (_, page) = get(&app, &ro.token, "/api/alerts/events").await;
    assert_eq!(
        page["data"]["content"][0]["acknowledgedBy"],
        "night@example.com"
    );
    assert_eq!(
        app.int(&format!(
            "SELECT count(*) FROM audit_log WHERE kind = 'alert_event' AND action = 'acknowledge' AND target = '{id}'"
        ))
        .await,
        1
    );

    // Comments: a thread, oldest first; the latest is section 7's comment; an empty one
    // clears that and keeps the thread.
    for text in ["I have it", "IVR vendor called"] {
        let (st, d) = call(
            &app,
            Method::PUT,
            &put,
            &rw.token,
            Some(json!({"comment": text})),
        )
        .await;
        assert_eq!(st, 200, "{d}");
    }
    let (st, d) = call(
        &app,
        Method::PUT,
        &put,
        &a.token,
        Some(json!({"comment": "x".repeat(4001)})),
    )
    .await;
    assert_eq!(
        (st, d["fields"][0]["field"].clone()),
        (400, json!("comment"))
    );
    let (_, d) = get(&app, &ro.token, &format!("/api/alerts/events/{id}")).await;
    let d = &d["data"];
    assert_eq!(d["comment"], "IVR vendor called");
    let thread: Vec<(&str, &str)> = d["comments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["author"].as_str().unwrap(), c["text"].as_str().unwrap()))
        .collect();
    assert_eq!(
        thread,
        [
            ("night@example.com", "I have it"),
            ("night@example.com", "IVR vendor called")
        ]
    );
    let (st, d) = call(
        &app,
        Method::PUT,
        &put,
        &a.token,
        Some(json!({"comment": ""})),
    )
    .await;
    assert_eq!(st, 200, "{d}");
    assert_eq!(d["data"]["comment"], Value::Null);
    assert_eq!(d["data"]["comments"].as_array().unwrap().len(), 2);

    // The timeline: opened, each notification, acknowledged, the comments; then recovered.
    ingest_ok(&app, &key, &[run("p2", 1, &at(2), "pass")]).await;
    let (_, d) = get(&app, &a.token, &format!("/api/alerts/events/{id}")).await;
    let d = &d["data"];
    assert_eq!(
        kinds(d),
        [
            "opened",
            "notified",
            "notified",
            "acknowledged",
            "commented",
            "commented",
            "recovered"
        ],
        "{d}"
    );
    let t = &d["timeline"];
    assert_eq!(t[0]["text"], "Billing on call");
    assert_eq!(t[1]["notification"]["recipient"], "ops@example.com");
    assert_eq!(t[3]["by"], "night@example.com");
    assert_eq!(t[4]["text"], "I have it");
    // A closed event has nothing to acknowledge.
    let (st, b) = call(
        &app,
        Method::POST,
        &format!("/api/alerts/{}/acknowledge", id),
        &a.token,
        None,
    )
    .await;
    assert_eq!(st, 200, "acknowledged before it closed: {b}");
    ingest_ok(&app, &key, &[run("f3", 1, &at(3), "fail")]).await;
    let (_, page) = get(&app, &a.token, "/api/alerts/events").await;
    let second = page["data"]["content"][0]["alertId"].as_i64().unwrap();
    assert_ne!(second, id);
    ingest_ok(&app, &key, &[run("p4", 1, &at(4), "pass")]).await;
    let (st, b) = call(
        &app,
        Method::POST,
        &format!("/api/alerts/{second}/acknowledge"),
        &a.token,
        None,
    )
    .await;
    assert_eq!(st, 409, "{b}");
}

#[tokio::test]
async fn escalation_notifies_the_second_list_once_unless_acknowledged() {
    let app = App::with_config(|c| {
        c.notify.public_url = "https://console.cxwatch.test".into();
    });
    let a = admin(&app).await;
    let key = app.api_key("engine").await;
    ingest_ok(
        &app,
        &key,
        &[run("p0", 1, &at(0), "pass"), run("q0", 2, &at(0), "pass")],
    )
    .await;
    let g = group(&app, "Billing", "voice", &[1, 2]).await;
    let first = list(&app, "Billing on call", "ops@example.com").await;
    let second = list(&app, "Managers", "boss@example.com").await;
    let s = setting(
        &app,
        g,
        first,
        Some(Escalation {
            distribution_id: second,
            delay_min: 1,
        }),
    )
    .await;
    let (st, b) = get(&app, &a.token, &format!("/api/alerts/settings/{s}")).await;
    assert_eq!(st, 200, "{b}");
    assert_eq!(b["data"]["escalationDistributionId"], second);
    assert_eq!(b["data"]["escalationDistributionName"], "Managers");
    assert_eq!(b["data"]["escalationDelayMin"], 1);

    assert_eq!(app.store.next_escalation_ms().await.unwrap(), None);
    ingest_ok(
        &app,
        &key,
        &[run("f1", 1, &at(1), "fail"), run("g1", 2, &at(1), "fail")],
    )
    .await;
    let ids = app
        .ints("SELECT id FROM alert_events ORDER BY test_case_id")
        .await;
    let (e1, e2) = (ids[0].unwrap(), ids[1].unwrap());
    let opened = app
        .int(&format!(
            "SELECT alert_ms FROM alert_events WHERE id = {e1}"
        ))
        .await;
    let due = app.store.next_escalation_ms().await.unwrap().unwrap();
    assert!(
        due >= opened + 60_000 && due <= opened + 61_000,
        "{due} {opened}"
    );
    // Event 2 is acknowledged within the delay: it is never escalated.
    let (st, _) = call(
        &app,
        Method::POST,
        &format!("/api/alerts/{e2}/acknowledge"),
        &a.token,
        None,
    )
    .await;
    assert_eq!(st, 200);

    let tz = chrono_tz::America::Toronto;
    let url = "https://console.cxwatch.test".to_string();
    // Before the delay: nothing.
    let n = app.store.escalate_due(tz, url.clone(), due - 1, 100).await;
    assert_eq!(n.unwrap(), 0);
    // At the delay: one notification per contact of the second list, once.
    let n = app.store.escalate_due(tz, url.clone(), due, 100).await;
    assert_eq!(n.unwrap(), 2);
    let n = app
        .store
        .escalate_due(tz, url.clone(), due + 600_000, 100)
        .await;
    assert_eq!(n.unwrap(), 0);
    assert_eq!(app.store.next_escalation_ms().await.unwrap(), None);
    let recipients = app
        .texts("SELECT recipient FROM outbox WHERE cause LIKE 'escalation:%' ORDER BY id")
        .await;
    assert_eq!(
        recipients,
        [
            Some("boss@example.com".to_string()),
            Some("+15145550100".into())
        ]
    );
    assert_eq!(
        app.int(&format!(
            "SELECT count(*) FROM outbox WHERE cause = 'escalation:{e1}'"
        ))
        .await,
        2
    );
    let subject = app
        .texts(&format!(
            "SELECT subject FROM outbox WHERE cause = 'escalation:{e1}' AND channel = 1"
        ))
        .await[0]
        .clone()
        .unwrap();
    assert_eq!(subject, "Escalated: Billing IVR failing");

    let (_, d) = get(&app, &a.token, &format!("/api/alerts/events/{e1}")).await;
    let d = &d["data"];
    assert!(d["escalatedTime"].is_string(), "{d}");
    assert_eq!(
        kinds(d),
        [
            "opened",
            "notified",
            "notified",
            "escalated",
            "notified",
            "notified"
        ],
        "{d}"
    );
    let last = &d["timeline"][5]["notification"];
    assert_eq!(last["cause"], format!("escalation:{e1}"));
    // A closed event is no longer due, and an acknowledged one never was.
    let (_, d2) = get(&app, &a.token, &format!("/api/alerts/events/{e2}")).await;
    assert_eq!(d2["data"]["escalatedTime"], Value::Null);

    // The setting's escalation is checked: both or neither, an existing list.
    let body = |list: Value, delay: Value| {
        json!({"name": "Esc", "testCaseGroupId": g, "distributionId": first,
               "failureToAlert": 1, "emailSubject": "s", "voiceMessage": "v",
               "smsPrefix": "p", "alertStatus": ["FAIL"],
               "schedule": [{"dayOfWeek": 1, "startTimeSlot": "00:00", "endTimeSlot": "24:00"}],
               "escalationDistributionId": list, "escalationDelayMin": delay})
    };
    for (b, field) in [
        (body(json!(second), Value::Null), "escalationDelayMin"),
        (body(json!(999_999), json!(5)), "escalationDistributionId"),
        (body(json!(second), json!(0)), "escalationDelayMin"),
    ] {
        let (st, r) = call(
            &app,
            Method::POST,
            "/api/alerts/settings",
            &a.token,
            Some(b),
        )
        .await;
        assert_eq!(
            (st, r["fields"][0]["field"].clone()),
            (400, json!(field)),
            "{r}"
        );
    }
}

fn iso(ms: i64) -> String {
    chrono::DateTime::<chrono::Utc>::from_timestamp_millis(ms)
        .unwrap()
        .to_rfc3339()
}

#[tokio::test]
async fn maintenance_windows_keep_the_engine_quiet_and_mark_the_runs() {
    let app = App::new();
    let a = admin(&app).await;
    let key = app.api_key("engine").await;
    let now = now_ms();
    let min_ago = |m: i64| iso(now - m * 60_000);
    ingest_ok(
        &app,
        &key,
        &[
            run("p0", 1, &min_ago(120), "pass"),
            run("q0", 2, &min_ago(120), "pass"),
        ],
    )
    .await;
    let g = group(&app, "Billing", "voice", &[1]).await;
    let other = group(&app, "Sales", "voice", &[2]).await;
    let l = list(&app, "Billing on call", "ops@example.com").await;
    setting(&app, g, l, None).await;
    setting(&app, other, l, None).await;
    let rw = app
        .user("night@example.com", Role::User, AccessType::ReadWrite, &[g])
        .await;
    let ro = app
        .user("viewer@example.com", Role::User, AccessType::ReadOnly, &[g])
        .await;

    // A once window on the Billing group from 90 minutes ago to 30 minutes from now.
    let body = json!({"reason": "IVR release", "kind": "once",
        "startTime": min_ago(90), "endTime": iso(now + 30 * 60_000),
        "testCaseGroups": [{"id": g}]});
    let (st, _) = call(
        &app,
        Method::POST,
        "/api/maintenance/windows",
        &ro.token,
        Some(body.clone()),
    )
    .await;
    assert_eq!(st, 403, "read-only");
    let mut foreign = body.clone();
    foreign["testCaseGroups"] = json!([{"id": other}]);
    let (st, b) = call(
        &app,
        Method::POST,
        "/api/maintenance/windows",
        &rw.token,
        Some(foreign),
    )
    .await;
    assert_eq!(
        (st, b["fields"][0]["field"].clone()),
        (400, json!("testCaseGroups")),
        "{b}"
    );
    let (st, w) = call(
        &app,
        Method::POST,
        "/api/maintenance/windows",
        &rw.token,
        Some(body),
    )
    .await;
    assert_eq!(st, 200, "{w}");
    let w = &w["data"];
    let wid = w["id"].as_i64().unwrap();
    assert_eq!(
        (w["state"].as_str(), w["kind"].as_str()),
        (Some("active"), Some("once"))
    );
    assert_eq!(w["testCaseGroups"][0]["name"], "Billing");
    assert_eq!(w["createdBy"], "night@example.com");

    // Failing runs inside it (one ran an hour ago and arrives only now): stored, marked, no
    // event; the other group's failure opens one.
    ingest_ok(
        &app,
        &key,
        &[
            run("f1", 1, &min_ago(60), "fail"),
            run("f2", 1, &min_ago(1), "fail"),
            run("g1", 2, &min_ago(1), "fail"),
        ],
    )
    .await;
    let (_, page) = get(&app, &a.token, "/api/alerts/events").await;
    assert_eq!(page["data"]["totalElements"], 1, "{page}");
    assert_eq!(page["data"]["content"][0]["testCaseId"], 2);
    let today = common::now().date_naive();
    let days = format!(
        "startDate={}&endDate={}",
        today - chrono::Duration::days(1),
        today + chrono::Duration::days(1)
    );
    let (_, runs) = get(
        &app,
        &a.token,
        &format!("/api/trs/v1/testcases/1/runs?{days}&pageNo=0&pageSize=10"),
    )
    .await;
    let marks: Vec<(String, bool)> = runs["data"]["content"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["runResult"].as_str().unwrap().to_string(),
                r["maintenance"].as_bool().unwrap_or(false),
            )
        })
        .collect();
    assert_eq!(
        marks,
        [
            ("fail".to_string(), true),
            ("fail".to_string(), true),
            ("pass".to_string(), false)
        ],
        "{runs}"
    );
    let (_, w) = get(&app, &a.token, &format!("/api/maintenance/windows/{wid}")).await;
    assert_eq!(w["data"]["runCount"], 2);
    let (_, banner) = get(&app, &ro.token, "/api/maintenance/now").await;
    assert_eq!(banner["data"]["active"][0]["id"], wid, "{banner}");

    // Ended early: the next failure opens an event.
    let (st, w) = call(
        &app,
        Method::POST,
        &format!("/api/maintenance/windows/{wid}/end"),
        &rw.token,
        None,
    )
    .await;
    assert_eq!(st, 200, "{w}");
    assert_eq!(w["data"]["state"], "ended");
    let (st, _) = call(
        &app,
        Method::PUT,
        &format!("/api/maintenance/windows/{wid}"),
        &rw.token,
        Some(
            json!({"reason": "x", "kind": "once", "startTime": min_ago(5),
                    "endTime": iso(now + 60_000), "testCaseGroups": [{"id": g}]}),
        ),
    )
    .await;
    assert_eq!(st, 409, "an ended window is not edited");
    ingest_ok(&app, &key, &[run("f3", 1, &iso(now_ms()), "fail")]).await;
    let (_, page) = get(&app, &a.token, "/api/alerts/events").await;
    assert_eq!(page["data"]["totalElements"], 2, "{page}");
    let event = page["data"]["content"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["testCaseId"] == 1)
        .unwrap()["alertId"]
        .as_i64()
        .unwrap();

    // Mute the open event for an hour: a window on its test case; the next failure does not
    // join, a pass does not close it either (the engine leaves the case alone).
    let mute = format!("/api/alerts/{event}/mute");
    let (st, b) = call(
        &app,
        Method::POST,
        &mute,
        &rw.token,
        Some(json!({"until": iso(now - 1000)})),
    )
    .await;
    assert_eq!(
        (st, b["fields"][0]["field"].clone()),
        (400, json!("until")),
        "{b}"
    );
    let (st, m) = call(
        &app,
        Method::POST,
        &mute,
        &rw.token,
        Some(json!({"until": iso(now + 3_600_000)})),
    )
    .await;
    assert_eq!(st, 200, "{m}");
    let mid = m["data"]["windowId"].as_i64().unwrap();
    let (_, w) = get(&app, &a.token, &format!("/api/maintenance/windows/{mid}")).await;
    assert_eq!(w["data"]["alertId"], event);
    assert_eq!(w["data"]["testCases"][0]["id"], 1);
    ingest_ok(&app, &key, &[run("f4", 1, &iso(now_ms()), "fail")]).await;
    let (_, d) = get(&app, &a.token, &format!("/api/alerts/events/{event}")).await;
    assert_eq!(d["data"]["testRunCount"], 1, "{d}");
    // The dashboard's counts leave the marked runs out and say how many.
    let (_, metric) = get(
        &app,
        &a.token,
        &format!(
            "/api/trs/v1/groups/{g}/metric?startDate={}&endDate={}&caseRunType=Schedule",
            today - chrono::Duration::days(1),
            today + chrono::Duration::days(1)
        ),
    )
    .await;
    let m = &metric["data"][0];
    assert_eq!(m["maintenanceCount"], 3, "{metric}");
    assert_eq!(m["failureCount"], 1, "only f3 counts: {metric}");
    assert_eq!(m["successCount"], 1, "{metric}");
    let slot_sum: i64 = m["hourlyStatus"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["maintenanceCount"].as_i64().unwrap_or(0))
        .sum();
    assert_eq!(slot_sum, 3);
    // The list: newest first; the viewer sees both, the other group's user neither.
    let (_, list) = get(&app, &ro.token, "/api/maintenance/windows").await;
    assert_eq!(list["data"]["totalElements"], 2, "{list}");
    assert_eq!(list["data"]["content"][0]["id"], mid);
    let sales = app
        .user(
            "sales@example.com",
            Role::User,
            AccessType::ReadOnly,
            &[other],
        )
        .await;
    let (_, list) = get(&app, &sales.token, "/api/maintenance/windows").await;
    assert_eq!(list["data"]["totalElements"], 0);
    let (st, _) = get(
        &app,
        &sales.token,
        &format!("/api/maintenance/windows/{wid}"),
    )
    .await;
    assert_eq!(st, 403);
}

/// Sums `key` over the rows of `rows`.
fn sum(rows: &Value, key: &str) -> i64 {
    rows.as_array()
        .unwrap()
        .iter()
        .map(|r| r[key].as_i64().unwrap_or(0))
        .sum()
}

/// A window made (or moved) into the past marks the runs already stored there, in the same
/// transaction; the reports (trend and test case performance, segment performance, MOS,
/// latency by hour) and the dashboard's 'Last 15 min' strip leave marked runs out and say
/// how many, absent when none; a mute stores no reason of its own (the console words it in
/// the reader's language).
#[tokio::test]
async fn past_runs_are_marked_and_left_out_of_reports_and_the_strip() {
    let app = App::new();
    let a = admin(&app).await;
    let key = app.api_key("engine").await;
    let now = now_ms();
    let min_ago = |m: i64| iso(now - m * 60_000);
    // Stored before any window: a pass, then two failures (their 'Main menu' segment fails,
    // 'Greeting' passes); case 2 fails too.
    ingest_ok(
        &app,
        &key,
        &[
            run("p0", 1, &min_ago(50), "pass"),
            run("f1", 1, &min_ago(40), "fail"),
            run("f2", 1, &min_ago(5), "fail"),
            run("w1", 2, &min_ago(30), "fail"),
        ],
    )
    .await;
    let g = group(&app, "Billing", "voice", &[1]).await;
    let sales = group(&app, "Sales", "voice", &[2]).await;
    let (_, recent) = get(&app, &a.token, "/api/trs/v1/groups/recent?minutes=15").await;
    let billing = |r: &Value, id: i64| {
        r["data"]["groups"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["groupId"] == id)
            .unwrap()
            .clone()
    };
    assert_eq!(billing(&recent, g)["failureCount"], 1, "{recent}");
    assert!(billing(&recent, g).get("maintenanceCount").is_none());

    // A once window from 45 minutes ago: f1 and f2, stored already, are marked at once.
    let body = json!({"reason": "IVR release", "kind": "once",
        "startTime": min_ago(45), "endTime": iso(now + 30 * 60_000),
        "testCaseGroups": [{"id": g}]});
    let (st, w) = call(
        &app,
        Method::POST,
        "/api/maintenance/windows",
        &a.token,
        Some(body),
    )
    .await;
    assert_eq!(st, 200, "{w}");
    let wid = w["data"]["id"].as_i64().unwrap();
    assert_eq!(w["data"]["runCount"], 2, "{w}");

    // The strip: f2 (5 minutes ago) is maintenance, not a failure.
    let (_, recent) = get(&app, &a.token, "/api/trs/v1/groups/recent?minutes=15").await;
    let b = billing(&recent, g);
    assert_eq!(
        (b["failureCount"].as_i64(), b["maintenanceCount"].as_i64()),
        (Some(0), Some(1)),
        "{recent}"
    );

    let today = common::now().date_naive();
    let (d0, d1) = (
        today - chrono::Duration::days(1),
        today + chrono::Duration::days(1),
    );
    let range = format!("startDate={d0}&endDate={d1}&caseRunType=Schedule");
    // Test case performance and trend (case level): only p0 counts.
    let (_, m) = get(
        &app,
        &a.token,
        &format!("/api/trs/v1/groups/{g}/metric?{range}"),
    )
    .await;
    let c = &m["data"][0];
    assert_eq!(
        (
            c["successCount"].as_i64(),
            c["failureCount"].as_i64(),
            c["maintenanceCount"].as_i64()
        ),
        (Some(1), Some(0), Some(2)),
        "{m}"
    );
    assert_eq!(sum(&c["hourlyStatus"], "maintenanceCount"), 2);
    // Segment performance: each segment leaves out both runs, with the segment's status.
    let (_, m) = get(
        &app,
        &a.token,
        &format!("/api/trs/v1/groups/{g}/metric?level=segment&{range}"),
    )
    .await;
    let segs = m["data"].as_array().unwrap();
    assert_eq!(segs.len(), 2, "{m}");
    for s in segs {
        assert_eq!(s["maintenanceCount"], 2, "{m}");
        assert_eq!(
            (s["successCount"].as_i64(), s["failureCount"].as_i64()),
            (Some(1), Some(0)),
            "{m}"
        );
    }
    // MOS: the two marked runs' 4.2 are left out of their hours.
    let (_, mos) = get(
        &app,
        &a.token,
        &format!("/api/trs/v1/groups/{g}/mos?{range}"),
    )
    .await;
    assert_eq!(sum(&mos["data"], "maintenanceCount"), 2, "{mos}");
    assert_eq!(sum(&mos["data"], "runCount"), 1, "{mos}");
    // Latency by hour: runs and step latencies of the marked runs are left out.
    let (st, r) = call(
        &app,
        Method::POST,
        "/api/reports",
        &a.token,
        Some(
            json!({"name": "Billing latency", "reportTypeID": 6, "testCaseGroupID": g,
               "timeframeName": "Custom", "timeframeBegin": d0.to_string(),
               "timeframeEnd": d1.to_string(), "runType": "Schedule",
               "latencyWarn": 1000, "latencyFail": 2000}),
        ),
    )
    .await;
    assert_eq!(st, 200, "{r}");
    let rid = r["data"]["id"].as_i64().unwrap();
    let (_, lat) = get(&app, &a.token, &format!("/api/reports/{rid}/latency")).await;
    let lat = &lat["data"];
    assert_eq!(lat["maintenanceCount"], 2, "{lat}");
    assert_eq!(sum(&lat["latencyByHr"], "runCount"), 1, "{lat}");
    // p0's three step latencies only.
    assert_eq!(sum(&lat["latencyByHr"], "latencyCount"), 3, "{lat}");
    for s in lat["segments"].as_array().unwrap() {
        assert_eq!(sum(&s["latencyByHr"], "runCount"), 1, "{s}");
    }
    // The report's CSV (and so its scheduled mail, which reads the same rows): p0 only.
    let out = harness_trs::raw(
        app.client
            .get(format!("/api/reports/{rid}/export"))
            .header("authorization", format!("Bearer {}", a.token)),
    )
    .await;
    assert_eq!(out.status, 200);
    let text = String::from_utf8(out.body).unwrap();
    let rows: Vec<Vec<&str>> = text
        .trim_start_matches('\u{feff}')
        .split("\r\n")
        .skip(1)
        .filter(|l| !l.is_empty())
        .map(|l| l.split(',').collect())
        .collect();
    let col = |i: usize| -> u64 { rows.iter().map(|r| r[i].parse::<u64>().unwrap()).sum() };
    assert_eq!((col(7), col(8), col(10)), (1, 1, 0), "{text}");

    // Moved to start 10 minutes ago: f1 is no longer covered, f2 still is.
    let (st, w) = call(
        &app,
        Method::PUT,
        &format!("/api/maintenance/windows/{wid}"),
        &a.token,
        Some(json!({"reason": "IVR release", "kind": "once",
            "startTime": min_ago(10), "endTime": iso(now + 30 * 60_000),
            "testCaseGroups": [{"id": g}]})),
    )
    .await;
    assert_eq!(st, 200, "{w}");
    assert_eq!(w["data"]["runCount"], 1, "{w}");
    let (_, m) = get(
        &app,
        &a.token,
        &format!("/api/trs/v1/groups/{g}/metric?{range}"),
    )
    .await;
    assert_eq!(
        (
            m["data"][0]["failureCount"].as_i64(),
            m["data"][0]["maintenanceCount"].as_i64()
        ),
        (Some(1), Some(1)),
        "{m}"
    );

    // A weekly window over every half hour from an hour ago marks case 2's stored failure.
    let every_day: Vec<Value> = (1..=7)
        .map(|d| json!({"dayOfWeek": d, "startTimeSlot": "00:00", "endTimeSlot": "24:00"}))
        .collect();
    let (st, w) = call(
        &app,
        Method::POST,
        "/api/maintenance/windows",
        &a.token,
        Some(
            json!({"reason": "Sales weekly", "kind": "weekly", "startTime": min_ago(60),
            "schedule": every_day, "testCaseGroups": [{"id": sales}]}),
        ),
    )
    .await;
    assert_eq!(st, 200, "{w}");
    assert_eq!(w["data"]["runCount"], 1, "{w}");
    let (_, m) = get(
        &app,
        &a.token,
        &format!("/api/trs/v1/groups/{sales}/metric?{range}"),
    )
    .await;
    assert_eq!(m["data"][0]["failureCount"], 0, "{m}");
    // Without marked runs, no maintenanceCount anywhere (the spec's shape).
    let (_, m) = get(
        &app,
        &a.token,
        &format!(
            "/api/trs/v1/groups/{g}/metric?startDate={}&caseRunType=Schedule",
            today - chrono::Duration::days(5)
        ),
    )
    .await;
    assert!(m["data"][0].get("maintenanceCount").is_none(), "{m}");

    // A mute keeps no reason of its own: the console words it from the alert.
    ingest_ok(&app, &key, &[run("q1", 3, &min_ago(1), "pass")]).await;
    let other = group(&app, "Claims", "voice", &[3]).await;
    let l = list(&app, "Claims on call", "claims@example.com").await;
    setting(&app, other, l, None).await;
    ingest_ok(&app, &key, &[run("q2", 3, &iso(now_ms()), "fail")]).await;
    let (_, page) = get(&app, &a.token, "/api/alerts/events").await;
    let event = page["data"]["content"][0]["alertId"].as_i64().unwrap();
    let (st, m) = call(
        &app,
        Method::POST,
        &format!("/api/alerts/{event}/mute"),
        &a.token,
        Some(json!({"until": iso(now + 3_600_000)})),
    )
    .await;
    assert_eq!(st, 200, "{m}");
    let mid = m["data"]["windowId"].as_i64().unwrap();
    let (_, w) = get(&app, &a.token, &format!("/api/maintenance/windows/{mid}")).await;
    assert_eq!(
        (w["data"]["reason"].as_str(), w["data"]["alertId"].as_i64()),
        (Some(""), Some(event)),
        "{w}"
    );
    assert_eq!(w["data"]["testCases"][0]["name"], "Case 003");
}
