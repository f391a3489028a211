//! Deleting a test case group that others use: refused with 409 naming them, nothing gone,
//! until the delete asks the cascade; then each dependent goes (or loses the group) and is
//! audited with its contents, in one transaction with the group.

use crate::common;
use crate::harness;
use crate::harness_trs;

use cxwatch::domain::caller::{AccessType, Role};
use harness::App;
use harness_trs::{admin, group, ingest_ok, run};
use poem::http::Method;
use serde_json::{json, Value};

fn iso(ms: i64) -> String {
    chrono::DateTime::<chrono::Utc>::from_timestamp_millis(ms)
        .unwrap()
        .to_rfc3339()
}

async fn call(app: &App, m: Method, path: &str, token: &str, body: Option<Value>) -> (u16, Value) {
    app.call(m, path, Some(token), body.as_ref()).await
}

async fn made(app: &App, path: &str, token: &str, body: Value) -> i64 {
    let (s, b) = call(app, Method::POST, path, token, Some(body)).await;
    assert_eq!(s, 200, "{path}: {b}");
    b["data"]["id"].as_i64().unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_group_in_use_is_refused_until_the_cascade_is_asked_and_each_dependent_is_audited() {
    let app = App::new();
    let a = admin(&app).await;
    let t = a.token.clone();
    let key = app.api_key("engine").await;
    let now = common::now_ms();
    let recent = iso(now - 3_600_000);
    ingest_ok(
        &app,
        &key,
        &[
            run("g-1", 1, &recent, "pass"),
            run("g-2", 2, &recent, "pass"),
        ],
    )
    .await;
    let cards = group(&app, "Cards - Lost & Stolen", "voice", &[1]).await;
    let spare = group(&app, "Spare", "voice", &[2]).await;
    let lonely = group(&app, "Nobody's", "voice", &[2]).await;
    let list = made(
        &app,
        "/api/distributions",
        &t,
        json!({"name": "On call", "contacts": [{"name": "Desk", "type": 1, "info": "desk@example.com"}]}),
    )
    .await;
    let setting = made(
        &app,
        "/api/alerts/settings",
        &t,
        json!({"name": "Cards down", "testCaseGroupId": cards, "distributionId": list,
            "failureToAlert": 1, "emailSubject": "Down", "voiceMessage": "Down",
            "smsPrefix": "[cx]", "alertStatus": ["FAIL"],
            "schedule": (1..=7).map(|d| json!({"dayOfWeek": d, "startTimeSlot": "00:00",
                "endTimeSlot": "24:00"})).collect::<Vec<_>>()}),
    )
    .await;
    // A failure opens an alert: the setting's history, which its deletion would take.
    ingest_ok(&app, &key, &[run("g-3", 1, &iso(now - 60_000), "fail")]).await;
    let report = made(
        &app,
        "/api/reports?pageNo=0",
        &t,
        json!({"name": "Cards week", "description": "", "reportTypeID": 1,
            "testCaseGroupID": cards, "timeframeName": "Last Week", "runType": "Schedule",
            "latencyWarn": 1000, "latencyFail": 2000}),
    )
    .await;
    let (s, b) = call(
        &app,
        Method::PUT,
        &format!("/api/reports/{report}/schedule"),
        &t,
        Some(
            json!({"frequency": "weekly", "time": "08:00", "dayOfWeek": 1, "distributionID": list}),
        ),
    )
    .await;
    assert_eq!(s, 200, "{b}");
    let both = app
        .user(
            "both@example.com",
            Role::User,
            AccessType::ReadWrite,
            &[cards, spare],
        )
        .await;
    let only = app
        .user(
            "only@example.com",
            Role::User,
            AccessType::ReadOnly,
            &[cards],
        )
        .await;
    let window = |reason: &str, groups: &[i64]| {
        json!({"reason": reason, "kind": "once", "startTime": iso(now + 3_600_000),
            "endTime": iso(now + 7_200_000),
            "testCaseGroups": groups.iter().map(|g| json!({"id": g})).collect::<Vec<_>>()})
    };
    let w_cards = made(
        &app,
        "/api/maintenance/windows",
        &t,
        window("Card IVR release", &[cards]),
    )
    .await;
    let w_both = made(
        &app,
        "/api/maintenance/windows",
        &t,
        window("Carrier work", &[cards, spare]),
    )
    .await;

    // What a delete would take, named before anything is asked.
    let dependents = |id: i64| {
        let (app, t) = (&app, t.clone());
        async move {
            let (s, b) = call(
                app,
                Method::GET,
                &format!("/api/trs/v1/groups/{id}/dependents"),
                &t,
                None,
            )
            .await;
            assert_eq!(s, 200, "{b}");
            b["data"].clone()
        }
    };
    assert_eq!(
        dependents(cards).await,
        json!({
            "alertSettings": [{"id": setting, "name": "Cards down"}],
            "openAlerts": 1,
            "reports": [{"id": report, "name": "Cards week"}],
            "users": [{"id": both.id, "name": "both@example.com"},
                      {"id": only.id, "name": "only@example.com"}],
            "maintenanceWindows": [{"id": w_cards, "name": "Card IVR release"},
                                   {"id": w_both, "name": "Carrier work"}],
        })
    );
    assert_eq!(
        dependents(lonely).await,
        json!({"alertSettings": [], "openAlerts": 0, "reports": [], "users": [],
               "maintenanceWindows": []})
    );
    let (s, _) = call(
        &app,
        Method::GET,
        "/api/trs/v1/groups/999999/dependents",
        &t,
        None,
    )
    .await;
    assert_eq!(s, 404);

    // Refused, naming them; the list delete is all or none.
    let (s, b) = call(
        &app,
        Method::DELETE,
        &format!("/api/trs/v1/groups/{cards}"),
        &t,
        None,
    )
    .await;
    assert_eq!(s, 409, "{b}");
    let msg = b["messages"][0].as_str().unwrap();
    for says in [
        "1 alert setting ('Cards down')",
        "closing their 1 open alert",
        "1 report ('Cards week')",
        "2 users ('both@example.com', 'only@example.com')",
        "2 maintenance windows ('Card IVR release', 'Carrier work')",
        "cascade=true",
    ] {
        assert!(msg.contains(says), "{says}: {msg}");
    }
    let (s, b) = call(
        &app,
        Method::DELETE,
        &format!("/api/trs/v1/groups?ids={lonely},{cards}"),
        &t,
        None,
    )
    .await;
    assert_eq!(s, 409, "{b}");
    for id in [lonely, cards] {
        let (s, _) = call(
            &app,
            Method::GET,
            &format!("/api/trs/v1/groups/{id}"),
            &t,
            None,
        )
        .await;
        assert_eq!(s, 200, "group {id} still there");
    }
    let (s, _) = call(
        &app,
        Method::GET,
        &format!("/api/alerts/settings/{setting}"),
        &t,
        None,
    )
    .await;
    assert_eq!(s, 200, "the setting is still there");
    // Not a boolean: named.
    let (s, b) = call(
        &app,
        Method::DELETE,
        &format!("/api/trs/v1/groups/{cards}?cascade=yes"),
        &t,
        None,
    )
    .await;
    assert_eq!(s, 400, "{b}");

    // With the cascade: each goes, or loses the group, and says so in the audit log.
    let (s, b) = call(
        &app,
        Method::DELETE,
        &format!("/api/trs/v1/groups/{cards}?cascade=true"),
        &t,
        None,
    )
    .await;
    assert_eq!(s, 200, "{b}");
    for path in [
        format!("/api/trs/v1/groups/{cards}"),
        format!("/api/alerts/settings/{setting}"),
        format!("/api/trs/v1/groups/{cards}/dependents"),
    ] {
        let (s, b) = call(&app, Method::GET, &path, &t, None).await;
        assert_eq!(s, 404, "{path}: {b}");
    }
    let (s, b) = call(
        &app,
        Method::GET,
        &format!("/api/reports/{report}"),
        &t,
        None,
    )
    .await;
    assert!(s == 404 || b["data"].is_null(), "report {report}: {s} {b}");
    let groups_of = |id: i64| {
        let (app, t) = (&app, t.clone());
        async move {
            let (s, b) = call(app, Method::GET, &format!("/api/users/{id}"), &t, None).await;
            assert_eq!(s, 200, "{b}");
            b["data"]["testCaseGroups"]
                .as_array()
                .unwrap()
                .iter()
                .map(|g| g["id"].as_i64().unwrap())
                .collect::<Vec<_>>()
        }
    };
    assert_eq!(groups_of(both.id).await, vec![spare]);
    assert_eq!(groups_of(only.id).await, Vec::<i64>::new());
    let window_of = |id: i64| {
        let (app, t) = (&app, t.clone());
        async move {
            let (s, b) = call(
                app,
                Method::GET,
                &format!("/api/maintenance/windows/{id}"),
                &t,
                None,
            )
            .await;
            assert_eq!(s, 200, "{b}");
            b["data"].clone()
        }
    };
    let ended = window_of(w_cards).await;
    assert_eq!(ended["state"], "ended", "{ended}");
    let kept = window_of(w_both).await;
    assert_eq!(
        kept["testCaseGroups"],
        json!([{"id": spare, "name": "Spare"}])
    );
    assert_ne!(kept["state"], "ended", "{kept}");

    // The audit log: each dependent with what it was, then the group.
    let (s, b) = call(&app, Method::GET, "/api/audit?pageSize=50", &t, None).await;
    assert_eq!(s, 200, "{b}");
    let entries = b["data"]["content"].as_array().unwrap();
    let find = |kind: &str, action: &str, id: i64| {
        let target = id.to_string();
        entries
            .iter()
            .find(|e| e["kind"] == kind && e["action"] == action && e["target"] == target.as_str())
            .unwrap_or_else(|| panic!("no {kind} {action} {id} in {b}"))
    };
    let e = find("alert_setting", "delete", setting);
    assert_eq!(e["before"]["name"], "Cards down", "{e}");
    let e = find("report", "delete", report);
    assert_eq!(e["before"]["name"], "Cards week", "{e}");
    assert_eq!(
        e["before"]["schedule"]["distribution_id"],
        json!(list),
        "{e}"
    );
    let e = find("user", "update", only.id);
    assert_eq!(
        (
            e["before"]["group_ids"].clone(),
            e["after"]["group_ids"].clone()
        ),
        (json!([cards]), json!([])),
        "{e}"
    );
    find("user", "update", both.id);
    find("maintenance_window", "end", w_cards);
    find("maintenance_window", "update", w_both);
    find("group", "delete", cards);
}
