//! The audit log: every change through the API (and the CLI) is recorded in the same
//! transaction, with who, from where, before and after, never a password or token; read
//! through `GET api/audit` (paged, filtered) by read-write administrators only; records
//! cannot be changed.

use crate::common;
use crate::harness;
use crate::harness_trs;

use cxwatch::domain::caller::{AccessType, Role};
use harness::{App, PASSWORD};
use poem::http::Method;
use serde_json::{json, Value};

async fn audit(app: &App, token: &str, query: &str) -> Value {
    let (s, body) = app
        .call(
            Method::GET,
            &format!("/api/audit{query}"),
            Some(token),
            None,
        )
        .await;
    assert_eq!(s, 200, "{body}");
    body["data"].clone()
}

#[tokio::test(flavor = "multi_thread")]
async fn changes_are_recorded_with_who_what_before_and_after() {
    let app = App::new();
    let admin = app
        .user("boss@x.test", Role::Admin, AccessType::ReadWrite, &[])
        .await;
    // A user created, renamed, given a new password and deleted through the API.
    let new_user = json!({"username": "new@x.test", "firstName": "New", "lastName": "User",
        "roles": ["ROLE_ADMIN"], "accessType": "read-only", "password": "a long enough password"});
    let (s, body) = app
        .call(
            Method::POST,
            "/api/users",
            Some(&admin.token),
            Some(&new_user),
        )
        .await;
    assert_eq!(s, 200, "{body}");
    let id = body["data"]["id"].as_i64().unwrap();
    let mut renamed = new_user.clone();
    renamed["firstName"] = json!("Renamed");
    renamed.as_object_mut().unwrap().remove("password");
    let (s, body) = app
        .call(
            Method::PUT,
            &format!("/api/users/{id}"),
            Some(&admin.token),
            Some(&renamed),
        )
        .await;
    assert_eq!(s, 200, "{body}");
    let (s, body) = app
        .call(
            Method::DELETE,
            &format!("/api/users/{id}"),
            Some(&admin.token),
            None,
        )
        .await;
    assert!(s == 200 || s == 204, "{s} {body}");
    // Sign-in and sign-out.
    let (s, body) = app
        .call(
            Method::POST,
            "/api/auth/signin",
            None,
            Some(&json!({"username": "boss@x.test", "password": PASSWORD})),
        )
        .await;
    assert_eq!(s, 200, "{body}");

    let page = audit(&app, &admin.token, "?kind=user").await;
    let items = page["content"].as_array().unwrap();
    let actions: Vec<&str> = items
        .iter()
        .map(|r| r["action"].as_str().unwrap())
        .collect();
    // The harness made the administrator through the store: "system".
    assert_eq!(actions, ["delete", "update", "create", "create"], "{page}");
    assert_eq!(items[3]["username"], "system");
    let update = &items[1];
    assert_eq!(update["username"], "boss@x.test");
    assert_eq!(update["userId"], admin.id);
    assert!(!update["address"].as_str().unwrap().is_empty());
    assert_eq!(update["target"], id.to_string());
    assert_eq!(update["before"]["first_name"], "New");
    assert_eq!(update["after"]["first_name"], "Renamed");
    assert!(items[2]["before"].is_null() && items[0]["after"].is_null());
    let all = audit(&app, &admin.token, "?pageSize=1000")
        .await
        .to_string();
    for secret in [
        "password_hash",
        "argon2",
        "a long enough password",
        &admin.token,
    ] {
        assert!(!all.contains(secret), "{secret} in the audit log: {all}");
    }
    let sessions = audit(&app, &admin.token, "?kind=session").await;
    assert!(sessions["content"]
        .as_array()
        .unwrap()
        .iter()
        .any(|r| r["action"] == "sign_in" && r["username"] == "boss@x.test"));

    // Filters and paging.
    let mine = audit(
        &app,
        &admin.token,
        &format!("?userId={}&pageSize=2", admin.id),
    )
    .await;
    assert_eq!(mine["content"].as_array().unwrap().len(), 2);
    assert!(mine["totalElements"].as_i64().unwrap() >= 3);
    let none = audit(&app, &admin.token, "?from=2999-01-01T00:00:00Z").await;
    assert_eq!(none["totalElements"], 0);
    let (s, body) = app
        .call(
            Method::GET,
            "/api/audit?from=yesterday",
            Some(&admin.token),
            None,
        )
        .await;
    assert_eq!(s, 400, "{body}");
    assert_eq!(body["fields"][0]["field"], "from", "{body}");
}

#[tokio::test(flavor = "multi_thread")]
async fn only_read_write_admins_read_it_and_nobody_changes_it() {
    let (app, _dir) = harness_trs::app();
    let ro = app
        .user("ro@x.test", Role::Admin, AccessType::ReadOnly, &[])
        .await;
    let rw = harness_trs::admin(&app).await;
    assert_eq!(
        app.call(Method::GET, "/api/audit", Some(&ro.token), None)
            .await
            .0,
        403
    );
    for m in [Method::POST, Method::PUT, Method::DELETE] {
        let (s, _) = app.call(m, "/api/audit", Some(&rw.token), None).await;
        assert_eq!(s, 405);
    }
    // Not even SQL changes a record.
    let err = app
        .exec_err("UPDATE audit_log SET username = 'someone else'")
        .await;
    assert!(err.contains("cannot be changed"), "{err}");
}

#[test]
fn the_cli_records_its_changes_and_prints_the_log() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    // Run as a service's shell or `docker exec` runs it: no USER, LOGNAME or SUDO_USER. The
    // log still names the account of the process's uid, not 'cli:unknown'.
    let added = std::process::Command::new(common::BIN)
        .args(["--data-dir", d, "apikey", "add", "--name", "engine-7"])
        .env_remove("USER")
        .env_remove("LOGNAME")
        .env_remove("SUDO_USER")
        .output()
        .unwrap();
    assert!(
        added.status.success(),
        "{}",
        String::from_utf8_lossy(&added.stderr)
    );
    let me = std::process::Command::new("id")
        .arg("-un")
        .output()
        .unwrap();
    let me = String::from_utf8_lossy(&me.stdout).trim().to_string();
    assert!(!me.is_empty());
    let (code, out, err) = common::run_cli(&["--data-dir", d, "audit", "--kind", "api_key"], "");
    assert_eq!(code, 0, "{err}");
    let line = out.lines().next().unwrap_or_default();
    let cols: Vec<&str> = line.split('\t').collect();
    assert_eq!(cols[1], format!("cli:{me}"), "{out}");
    assert_eq!(
        &cols[2..6],
        ["local", "api_key", "create", "engine-7"],
        "{out}"
    );
    assert!(err.contains("1 record(s)"), "{err}");
    let (code, _, err) = common::run_cli(&["--data-dir", d, "audit", "--since", "soon"], "");
    assert_eq!(code, 1);
    assert!(err.contains("--since"), "{err}");
}

/// Saves `body` at `path` (create), changes it with `edit` (update), deletes it; returns its id.
async fn create_update_delete(
    app: &App,
    token: &str,
    path: &str,
    body: &Value,
    edit: impl FnOnce(&mut Value),
) -> i64 {
    let (s, created) = app.call(Method::POST, path, Some(token), Some(body)).await;
    assert_eq!(s, 200, "{created}");
    let id = created["data"]["id"].as_i64().unwrap();
    let mut changed = body.clone();
    edit(&mut changed);
    let item = format!("{path}/{id}");
    let (s, b) = app
        .call(Method::PUT, &item, Some(token), Some(&changed))
        .await;
    assert_eq!(s, 200, "{b}");
    let (s, b) = app.call(Method::DELETE, &item, Some(token), None).await;
    assert!(s == 200 || s == 204, "{s} {b}");
    id
}

/// The three records of one item, newest first, as (action, before, after).
async fn history(app: &App, token: &str, kind: &str, id: i64) -> Vec<(String, Value, Value)> {
    let page = audit(app, token, &format!("?kind={kind}")).await;
    page["content"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["target"].as_str().and_then(|t| t.parse().ok()) == Some(id))
        .map(|r| {
            let action = r["action"].as_str().unwrap().to_string();
            (action, r["before"].clone(), r["after"].clone())
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn reports_and_distribution_lists_are_recorded_too() {
    let app = App::new();
    let admin = harness_trs::admin(&app).await;
    let t = &admin.token;

    let list = json!({"name": "Billing on call", "contacts": [
        {"name": "Ops mailbox", "type": 1, "info": "ops@example.com"}]});
    let id = create_update_delete(&app, t, "/api/distributions", &list, |b| {
        b["contacts"][0]["info"] = json!("night@example.com");
    })
    .await;
    let h = history(&app, t, "distribution_list", id).await;
    let actions: Vec<&str> = h.iter().map(|(a, _, _)| a.as_str()).collect();
    assert_eq!(actions, ["delete", "update", "create"], "{h:?}");
    assert_eq!(h[1].1["contacts"][0]["info"], "ops@example.com");
    assert_eq!(h[1].2["contacts"][0]["info"], "night@example.com");
    assert!(h[0].2.is_null() && h[2].1.is_null());

    let key = app.api_key("engine").await;
    let first = harness_trs::run("a-1", 1, "2026-07-15T14:05:00Z", "pass");
    harness_trs::ingest_ok(&app, &key, &[first]).await;
    let group = harness_trs::group(&app, "North", "voice", &[1]).await;
    let report = json!({"name": "Weekly trend", "description": "", "reportTypeID": 2,
        "testCaseGroupID": group, "timeframeName": "Last Week", "runType": "Schedule"});
    let id = create_update_delete(&app, t, "/api/reports", &report, |b| {
        b["name"] = json!("Weekly trend (night)");
    })
    .await;
    let h = history(&app, t, "report", id).await;
    let actions: Vec<&str> = h.iter().map(|(a, _, _)| a.as_str()).collect();
    assert_eq!(actions, ["delete", "update", "create"], "{h:?}");
    assert_eq!(h[1].1["name"], "Weekly trend");
    assert_eq!(h[1].2["name"], "Weekly trend (night)");
    assert_eq!(h[0].1["group_id"], group);

    // An alert setting: its row with its status codes and schedule masks.
    let (s, b) = app
        .call(Method::POST, "/api/distributions", Some(t), Some(&list))
        .await;
    assert_eq!(s, 200, "{b}");
    let list_id = b["data"]["id"].as_i64().unwrap();
    let setting = json!({"name": "Billing down", "testCaseGroupId": group,
        "distributionId": list_id, "failureToAlert": 2, "emailSubject": "Down",
        "voiceMessage": "Down", "smsPrefix": "[cx]", "alertStatus": ["FAIL"],
        "schedule": [{"dayOfWeek": 1, "startTimeSlot": "00:00", "endTimeSlot": "00:30"}]});
    let id = create_update_delete(&app, t, "/api/alerts/settings", &setting, |b| {
        b["alertStatus"] = json!(["FAIL", "WARN"]);
        b["schedule"][0]["endTimeSlot"] = json!("01:00");
    })
    .await;
    let h = history(&app, t, "alert_setting", id).await;
    let actions: Vec<&str> = h.iter().map(|(a, _, _)| a.as_str()).collect();
    assert_eq!(actions, ["delete", "update", "create"], "{h:?}");
    assert_eq!(h[1].1["statuses"], json!(["FAIL"]));
    assert_eq!(h[1].2["statuses"], json!(["WARN", "FAIL"]));
    assert_eq!(h[1].1["schedule"], json!([{"day_of_week": 1, "slots": 1}]));
    assert_eq!(h[1].2["schedule"], json!([{"day_of_week": 1, "slots": 3}]));
    assert_eq!(h[0].1["failure_to_alert"], 2);
    assert!(h[0].2.is_null() && h[2].1.is_null());
}
