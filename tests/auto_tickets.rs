//! Auto tickets: a setting with attach ticket makes the alert engine queue a
//! durable ticket job with the event it opens; the worker opens the Jira issue (the
//! stand-in, `ui/e2e/jira-standin.mjs`) naming the test case, the group, the runs and the
//! alert, with the runs as a CSV attachment, and records the key on the event and in the
//! auto tickets list. A Jira outage delays the ticket and never loses it; a second attempt
//! after one that may have reached Jira finds the issue by its label instead of opening two.

use crate::harness;
use crate::harness_trs;
use crate::jira_standin;

use std::time::Duration;

use cxwatch::config::JiraFlavour;
use cxwatch::domain::alert_setting::AlertSettingDraft;
use cxwatch::domain::caller::Scope;
use cxwatch::domain::distribution::{Contact, ContactType, DistributionDraft};
use cxwatch::domain::schedule::Week;
use harness::App;
use harness_trs::{admin, get, group, ingest_ok, run};
use jira_standin::StandIn;
use poem::http::Method;
use serde_json::json;
use serde_json::Value;

const ANN_CLOUD: &str = "5b10ac8d82e05b22cc7d4ef5";

fn at(min: u32) -> String {
    format!("2026-11-23T15:{min:02}:00Z")
}

/// An app on the stand-in's Jira, retrying after 1 s, looking every 100 ms.
fn app_on(standin: &StandIn) -> App {
    let cfg = standin.config();
    App::with_config(|c| {
        c.jira = cfg;
        c.notify.public_url = "https://console.cxwatch.test".into();
        c.notify.retry_first_secs = 1;
        c.notify.retry_max_secs = 1;
        c.notify.poll_ms = 100;
    })
}

/// An active setting on `group` opening at the first failure, with attach ticket (through
/// the store, whichever backend).
async fn setting(app: &App, group: i64, assignee: &str) -> i64 {
    let list = app
        .store
        .create_distribution(&DistributionDraft {
            name: "On call".into(),
            contacts: vec![Contact {
                name: "Ops".into(),
                kind: ContactType::Email,
                info: "ops@example.com".into(),
            }],
        })
        .await
        .unwrap();
    app.store
        .create_alert_setting(Scope::All, &draft(group, list, assignee))
        .await
        .unwrap()
}

fn draft(group: i64, list: i64, assignee: &str) -> AlertSettingDraft {
    AlertSettingDraft {
        name: "Billing down".into(),
        active: true,
        group_id: group,
        distribution_id: list,
        attach_jira_ticket: true,
        failure_to_alert: 1,
        statuses: vec!["FAIL".into()],
        week: Week::from_masks((1..=7).map(|d| (d, (1u64 << 48) - 1))),
        jira_assignee: Some(assignee.into()),
        jira_project: Some("CX".into()),
        jira_username: Some("ann".into()),
        ..Default::default()
    }
}

/// The issues carrying `label`.
async fn labelled(standin: &StandIn, label: &str) -> Vec<Value> {
    standin
        .issues()
        .await
        .into_iter()
        .filter(|i| {
            i["rawFields"]["labels"]
                .as_array()
                .is_some_and(|l| l.iter().any(|l| l == label))
        })
        .collect()
}

/// Waits (at most 20 s) until the event has its ticket; answers it.
async fn ticket_of(app: &App, event: i64) -> String {
    for _ in 0..200 {
        let t = app
            .texts(&format!(
                "SELECT jira_ticket FROM alert_events WHERE id = {event}"
            ))
            .await;
        if let Some(Some(t)) = t.into_iter().next() {
            return t;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("event {event} got no ticket");
}

async fn attempts(app: &App, event: i64) -> i64 {
    app.int(&format!(
        "SELECT attempts FROM ticket_jobs WHERE event_id = {event}"
    ))
    .await
}

async fn open_event(app: &App, key: &str) -> i64 {
    ingest_ok(
        app,
        key,
        &[run("f1", 1, &at(1), "fail"), run("f2", 1, &at(2), "fail")],
    )
    .await;
    app.int("SELECT max(id) FROM alert_events").await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_outage_delays_the_ticket_which_then_arrives_exactly_once() {
    let standin = StandIn::start(JiraFlavour::Cloud);
    let app = app_on(&standin);
    let key = app.api_key("engine").await;
    ingest_ok(&app, &key, &[run("p0", 1, &at(0), "pass")]).await;
    let g = group(&app, "Billing", "voice", &[1]).await;
    let s = setting(&app, g, ANN_CLOUD).await;

    standin.down(true).await;
    let event = open_event(&app, &key).await;
    // The job is queued with the event; Jira refuses every attempt meanwhile.
    for _ in 0..100 {
        if attempts(&app, event).await >= 2 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(attempts(&app, event).await >= 2, "the worker retries");
    let label = format!("cxwatch-alert-{event}");
    assert!(labelled(&standin, &label).await.is_empty());
    let none = app
        .texts(&format!(
            "SELECT jira_ticket FROM alert_events WHERE id = {event}"
        ))
        .await;
    assert_eq!(none, vec![None]);

    standin.down(false).await;
    let ticket = ticket_of(&app, event).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    let issues = labelled(&standin, &label).await;
    assert_eq!(issues.len(), 1, "exactly one issue: {issues:?}");
    let issue = &issues[0];
    assert_eq!(issue["key"], ticket.as_str());
    let f = &issue["rawFields"];
    assert_eq!(f["project"]["key"], "CX");
    assert_eq!(f["issuetype"]["name"], "Bug");
    assert_eq!(f["assignee"]["accountId"], ANN_CLOUD);
    let summary = f["summary"].as_str().unwrap();
    assert!(
        summary.contains("Case 001") && summary.contains("Billing"),
        "{summary}"
    );
    let description = f["description"].to_string();
    for part in [
        "Case 001",
        "Billing",
        "run ",
        &format!("https://console.cxwatch.test/alert/{event}"),
    ] {
        assert!(description.contains(part), "{part} in {description}");
    }
    let files = issue["attachments"].as_array().unwrap();
    assert_eq!(files.len(), 1, "{files:?}");
    let csv = files[0]["content"].as_str().unwrap_or_default();
    let runs: Vec<i64> = app
        .ints(&format!(
            "SELECT run_id FROM alert_event_runs WHERE event_id = {event} ORDER BY run_id"
        ))
        .await
        .into_iter()
        .flatten()
        .collect();
    // The run that opened the event, then the one that joined it.
    assert_eq!(runs.len(), 2);
    assert!(csv.starts_with("runId,runTime,status"), "{csv}");
    assert!(csv.contains(&format!("\n{},", runs[0])), "{csv}");

    let of_ticket = |col: &str| format!("SELECT {col} FROM auto_tickets WHERE event_id = {event}");
    let row = (
        app.int(&of_ticket("setting_id")).await,
        app.int(&of_ticket("test_case_id")).await,
        app.texts(&of_ticket("jira_ticket")).await[0]
            .clone()
            .unwrap(),
        app.texts(&of_ticket("run_ids")).await[0].clone().unwrap(),
    );
    assert_eq!(
        row,
        (s, 1, ticket.clone(), format!("{},{}", runs[0], runs[1]))
    );

    // The API lists it for the setting, and an edit changes the ticket and the alert.
    let a = admin(&app).await;
    let (st, list) = get(
        &app,
        &a.token,
        &format!("/api/alerts/autojiraticket/{s}?pageNo=0"),
    )
    .await;
    assert_eq!(st, 200, "{list}");
    assert_eq!(list["data"]["totalElements"], 1);
    let item = &list["data"]["content"][0];
    assert_eq!(item["jiraTicket"], ticket.as_str());
    assert_eq!(item["alertSettingId"], s);
    assert_eq!(item["testcaseId"], 1);
    assert_eq!(item["alertId"], event);
    assert_eq!(item["runIds"], format!("{},{}", runs[0], runs[1]));
    assert!(item["alertTime"].as_str().unwrap().ends_with('Z'));
    let id = item["id"].as_i64().unwrap();
    let data = json!({"project": "CX", "summary": "Billing IVR down", "assignee": ANN_CLOUD,
        "labels": [format!("cxwatch-alert-{event}"), "billing"],
        "description": "Billing is down again", "isAutoJiraTicket": true});
    let (st, out) = put_form(&app, &a.token, &format!("/api/autojiraticket/{id}"), &data).await;
    assert_eq!(st, 200, "{out}");
    assert_eq!(out["data"]["key"], ticket.as_str());
    let f = standin.issue(&ticket).await["rawFields"].clone();
    assert_eq!(f["summary"], "Billing IVR down");
    assert!(f["description"]
        .to_string()
        .contains("Billing is down again"));
    let d = app
        .texts(&format!(
            "SELECT description FROM alert_events WHERE id = {event}"
        ))
        .await[0]
        .clone();
    assert_eq!(d.as_deref(), Some("Billing is down again"));
    let audited = app
        .int(&format!(
            "SELECT count(*) FROM audit_log WHERE kind = 'alert_event' AND action = 'update'
               AND target = '{event}'"
        ))
        .await;
    assert_eq!(audited, 1);
    // The ticket dialog reads it in edit mode.
    let (st, read) = get(
        &app,
        &a.token,
        &format!("/api/jira/v1/issue?username=ann&issueId={ticket}"),
    )
    .await;
    assert_eq!(st, 200, "{read}");
    assert_eq!(read["data"]["autoTicketId"], id);
    assert_eq!(read["data"]["summary"], "Billing IVR down");
    assert!(read["data"].get("reportId").is_none());
    let (st, _) = put_form(&app, &a.token, "/api/autojiraticket/999", &data).await;
    assert_eq!(st, 404);
    let (st, _) = get(&app, &a.token, "/api/alerts/autojiraticket/999").await;
    assert_eq!(st, 404);
}

/// A setting whose assignee is a name, not a Jira account ('Ann Lee'), makes
/// Jira refuse the ticket. The refusal is listed with the setting's waiting tickets (its
/// reason, attempts and next attempt) instead of only in the log; once the setting names the
/// account, the waiting ticket takes it and is opened.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_ticket_is_listed_with_its_reason_until_the_setting_is_mended() {
    let standin = StandIn::start(JiraFlavour::Cloud);
    let app = app_on(&standin);
    let key = app.api_key("engine").await;
    ingest_ok(&app, &key, &[run("p0", 1, &at(0), "pass")]).await;
    let g = group(&app, "Billing", "voice", &[1]).await;
    let s = setting(&app, g, "Ann Lee").await;
    let event = open_event(&app, &key).await;
    let a = admin(&app).await;
    let path = format!("/api/alerts/autojiraticket/{s}/waiting");
    let mut listed = Value::Null;
    for _ in 0..100 {
        let (st, out) = get(&app, &a.token, &path).await;
        assert_eq!(st, 200, "{out}");
        listed = out["data"][0].clone();
        if listed["reason"].is_string() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(listed["alertId"], event, "{listed}");
    assert_eq!(listed["alertSettingId"], s);
    assert_eq!(listed["testcaseId"], 1);
    assert_eq!(listed["assignee"], "Ann Lee");
    assert_eq!(listed["project"], "CX");
    assert!(listed["attempts"].as_i64().unwrap() >= 1, "{listed}");
    let reason = listed["reason"].as_str().unwrap();
    assert!(
        reason.contains("400") && reason.contains("assignee: Specified user does not exist"),
        "Jira's refusal is the reason: {reason}"
    );
    assert!(listed["nextAttempt"].as_str().unwrap().ends_with('Z'));
    assert!(standin.issues().await.is_empty(), "Jira opened nothing");
    let (st, none) = get(&app, &a.token, &format!("/api/alerts/autojiraticket/{s}")).await;
    assert_eq!((st, none["data"].as_array().map(Vec::len)), (200, Some(0)));
    // An unknown setting is 404.
    let (st, _) = get(&app, &a.token, "/api/alerts/autojiraticket/999/waiting").await;
    assert_eq!(st, 404);

    // The setting names Ann's account: the waiting ticket takes it and is opened.
    let list = app.int("SELECT distribution_id FROM alert_settings").await;
    app.store
        .update_alert_setting(Scope::All, s, &draft(g, list, ANN_CLOUD))
        .await
        .unwrap();
    let ticket = ticket_of(&app, event).await;
    let f = standin.issue(&ticket).await["rawFields"].clone();
    assert_eq!(f["assignee"]["accountId"], ANN_CLOUD);
    let (st, out) = get(&app, &a.token, &path).await;
    assert_eq!(
        (st, out["data"].as_array().map(Vec::len)),
        (200, Some(0)),
        "{out}"
    );
}

/// `PUT` a ticket form (`data` part only).
async fn put_form(app: &App, token: &str, path: &str, data: &Value) -> (u16, Value) {
    send_form(app, Method::PUT, token, path, data).await
}

/// Sends a ticket form (`data` part only).
async fn send_form(
    app: &App,
    method: Method,
    token: &str,
    path: &str,
    data: &Value,
) -> (u16, Value) {
    let boundary = "auto-ticket-boundary";
    let body = format!(
        "--{boundary}\r\nContent-Disposition: form-data; name=\"data\"\r\nContent-Type: application/json\r\n\r\n{data}\r\n--{boundary}--\r\n"
    );
    let resp = app
        .client
        .request(method, path)
        .header("authorization", format!("Bearer {token}"))
        .content_type(format!("multipart/form-data; boundary={boundary}"))
        .body(body)
        .send()
        .await;
    let status = resp.0.status().as_u16();
    let bytes = resp.0.into_body().into_bytes().await.unwrap_or_default();
    (
        status,
        serde_json::from_slice(&bytes).unwrap_or(Value::Null),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_issue_an_earlier_attempt_opened_is_found_not_opened_again() {
    let standin = StandIn::start(JiraFlavour::Cloud);
    let app = app_on(&standin);
    let key = app.api_key("engine").await;
    ingest_ok(&app, &key, &[run("p0", 1, &at(0), "pass")]).await;
    let g = group(&app, "Billing", "voice", &[1]).await;
    setting(&app, g, ANN_CLOUD).await;

    // Jira down: the first attempt fails; then hold the job back.
    standin.down(true).await;
    let event = open_event(&app, &key).await;
    for _ in 0..100 {
        if attempts(&app, event).await >= 1 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    app.exec(&format!(
        "UPDATE ticket_jobs SET next_ms = 9000000000000 WHERE event_id = {event}"
    ))
    .await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    standin.down(false).await;
    // As if that attempt had reached Jira and the process died before its commit.
    let label = format!("cxwatch-alert-{event}");
    let jira = cxwatch::jira::Jira::new(&standin.config()).unwrap();
    let earlier = jira
        .create_issue(&cxwatch::jira::IssueDraft {
            project: "CX".into(),
            summary: "from the attempt that died".into(),
            assignee: String::new(),
            labels: vec![label.clone()],
            description: "x".into(),
        })
        .await
        .unwrap();
    app.exec(&format!(
        "UPDATE ticket_jobs SET next_ms = 0, lease_ms = NULL WHERE event_id = {event}"
    ))
    .await;
    let ticket = ticket_of(&app, event).await;
    assert_eq!(ticket, earlier);
    assert_eq!(labelled(&standin, &label).await.len(), 1);
}

/// Alert details: a user opens a ticket for an event the engine opened without one; the key
/// is kept on the event, read back through the ticket calls, and a second create is refused.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_user_tickets_an_alert_from_its_details() {
    let standin = StandIn::start(JiraFlavour::Cloud);
    let app = app_on(&standin);
    let key = app.api_key("engine").await;
    ingest_ok(&app, &key, &[run("p0", 1, &at(0), "pass")]).await;
    let g = group(&app, "Billing", "voice", &[1]).await;
    setting(&app, g, ANN_CLOUD).await;
    app.exec("UPDATE alert_settings SET attach_jira_ticket = FALSE")
        .await;
    let event = open_event(&app, &key).await;
    let a = admin(&app).await;
    let data = json!({
        "alertId": event, "project": "CX", "summary": "Billing balance fails",
        "issueType": "Bug", "assignee": ANN_CLOUD, "labels": ["ivr"], "username": "ann",
        "description": "Two failures in a row."
    });
    let (st, body) = send_form(&app, Method::POST, &a.token, "/api/jira/v1/issue", &data).await;
    assert_eq!(st, 200, "{body}");
    let ticket = body["data"]["key"].as_str().unwrap().to_string();
    let (st, detail) = get(&app, &a.token, &format!("/api/alerts/events/{event}")).await;
    assert_eq!(st, 200);
    assert_eq!(detail["data"]["jiraTicket"], ticket.as_str());
    let (st, read) = get(
        &app,
        &a.token,
        &format!("/api/jira/v1/issue?username=ann&issueId={ticket}"),
    )
    .await;
    assert_eq!(st, 200, "{read}");
    assert_eq!(read["data"]["alertId"], event);
    assert_eq!(read["data"]["summary"], "Billing balance fails");
    let (st, _) = send_form(&app, Method::POST, &a.token, "/api/jira/v1/issue", &data).await;
    assert_eq!(st, 409, "an alert keeps one ticket");
    let changed = json!({"summary": "Billing balance still fails", "assignee": ANN_CLOUD, "labels": ["ivr"], "username": "ann", "description": "x"});
    let path = format!("/api/jira/v1/issue?username=ann&issueId={ticket}");
    let (st, body) = send_form(&app, Method::PUT, &a.token, &path, &changed).await;
    assert_eq!(st, 200, "{body}");
    let audit = app
        .int("SELECT count(*) FROM audit_log WHERE kind = 'alert_event' AND action = 'ticket'")
        .await;
    assert_eq!(audit, 1);
}
