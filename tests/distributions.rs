//! Distribution lists and notifications, in-process (`tests/harness`) against a real SMTP
//! server with STARTTLS and AUTH and an HTTP gateway sink (`tests/sinks`): the lists' API
//! and rules, test messages that arrive, alerts queued in the outbox with attachments,
//! servers that are down or refuse and deliver later, and channels without a server.

use crate::harness;
use crate::sinks;

use std::time::Duration;

use cxwatch::domain::caller::{AccessType, Role};
use cxwatch::domain::notify::{Attachment, Message};
use harness::App;
use poem::http::Method;
use serde_json::{json, Value};
use sinks::Sinks;

async fn admin(app: &App) -> String {
    app.user(
        "admin@cxwatch.test",
        Role::Admin,
        AccessType::ReadWrite,
        &[],
    )
    .await
    .token
}

fn list_body() -> Value {
    json!({
        "name": "Billing on call",
        "contacts": [
            {"name": "Ops mailbox", "type": 1, "info": "ops@example.com"},
            {"name": "On-call phone", "type": 2, "info": "+1 (514) 555-0100"}
        ]
    })
}

async fn notification(app: &App, token: &str, id: i64) -> Value {
    let (s, b) = app
        .call(
            Method::GET,
            &format!("/api/notifications/{id}"),
            Some(token),
            None,
        )
        .await;
    assert_eq!(s, 200, "{b}");
    b["data"].clone()
}

async fn wait_state(app: &App, token: &str, id: i64, state: &str) -> Value {
    for _ in 0..150 {
        let n = notification(app, token, id).await;
        if n["state"] == state {
            return n;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!(
        "notification {id} never {state}: {}",
        notification(app, token, id).await
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn lists_are_saved_checked_filtered_and_deleted() {
    let app = App::new();
    let t = admin(&app).await;
    let (s, b) = app
        .call(
            Method::POST,
            "/api/distributions",
            Some(&t),
            Some(&list_body()),
        )
        .await;
    assert_eq!(s, 200, "{b}");
    let d = &b["data"];
    let id = d["id"].as_i64().unwrap();
    assert_eq!(d["label"], json!(["Ops mailbox", "On-call phone"]));
    assert_eq!(d["type"], json!(["Email", "SMS"]));
    assert_eq!(d["email"], json!(["ops@example.com", "+15145550100"]));
    assert_eq!(d["contacts"][1]["type"], 2);
    assert!(d["lastModifiedTime"].as_str().unwrap().ends_with('Z'));

    // Every rule, beside its field, and nothing saved.
    let bad = json!({"name": " ", "contacts": [
        {"name": "", "type": 1, "info": "not-an-address"},
        {"name": "x", "type": 3, "info": "+15145550100"},
        {"name": "y", "type": 4, "info": "514"}
    ]});
    let (s, b) = app
        .call(Method::POST, "/api/distributions", Some(&t), Some(&bad))
        .await;
    assert_eq!(s, 400, "{b}");
    let fields: Vec<_> = b["fields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["field"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        fields,
        [
            "name",
            "contacts[0].name",
            "contacts[0].info",
            "contacts[1].type",
            "contacts[2].info"
        ]
    );
    let (s, b) = app
        .call(
            Method::POST,
            "/api/distributions",
            Some(&t),
            Some(&json!({"name": "Empty", "contacts": []})),
        )
        .await;
    assert_eq!(s, 400);
    assert_eq!(b["fields"][0]["field"], "contacts");

    // A second list with a voice row; the type filter and search.
    let voice =
        json!({"name": "Desk", "contacts": [{"name": "Desk", "type": 4, "info": "+33612345678"}]});
    let (s, _) = app
        .call(Method::POST, "/api/distributions", Some(&t), Some(&voice))
        .await;
    assert_eq!(s, 200);
    let (_, b) = app
        .call(
            Method::GET,
            "/api/distributions?type=2&pageNo=0",
            Some(&t),
            None,
        )
        .await;
    assert_eq!(b["data"]["totalElements"], 1);
    assert_eq!(b["data"]["content"][0]["name"], "Billing on call");
    let (_, b) = app
        .call(
            Method::GET,
            "/api/distributions?search=3361&pageNo=0",
            Some(&t),
            None,
        )
        .await;
    assert_eq!(b["data"]["content"][0]["name"], "Desk");
    let (_, b) = app
        .call(
            Method::GET,
            "/api/distributions?pageSize=1&pageNo=1&sort=name,asc",
            Some(&t),
            None,
        )
        .await;
    assert_eq!(b["data"]["totalElements"], 2);
    assert_eq!(b["data"]["content"][0]["name"], "Desk");
    let (s, _) = app
        .call(Method::GET, "/api/distributions?type=3", Some(&t), None)
        .await;
    assert_eq!(s, 400);

    // Update replaces the rows; the path's id wins over none, a different one is refused.
    let mut upd = list_body();
    upd["contacts"].as_array_mut().unwrap().pop();
    let (s, b) = app
        .call(
            Method::PUT,
            &format!("/api/distributions/{id}"),
            Some(&t),
            Some(&upd),
        )
        .await;
    assert_eq!(s, 200, "{b}");
    assert_eq!(b["data"]["contacts"].as_array().unwrap().len(), 1);
    upd["id"] = json!(id + 100);
    let (s, _) = app
        .call(
            Method::PUT,
            &format!("/api/distributions/{id}"),
            Some(&t),
            Some(&upd),
        )
        .await;
    assert_eq!(s, 400);
    let (_, b) = app
        .call(Method::GET, "/api/distributions/types", Some(&t), None)
        .await;
    assert_eq!(
        b["data"],
        json!([
            {"id": 1, "name": "Email", "configured": false},
            {"id": 2, "name": "SMS", "configured": false},
            {"id": 4, "name": "Voice", "configured": false},
            {"id": 8, "name": "Webhook", "configured": false},
            {"id": 16, "name": "Microsoft Teams", "configured": false},
            {"id": 32, "name": "Slack", "configured": false},
            {"id": 64, "name": "Mattermost", "configured": false}
        ])
    );
    let (s, _) = app
        .call(
            Method::DELETE,
            &format!("/api/distributions/{id}"),
            Some(&t),
            None,
        )
        .await;
    assert_eq!(s, 200);
    let (s, _) = app
        .call(
            Method::GET,
            &format!("/api/distributions/{id}"),
            Some(&t),
            None,
        )
        .await;
    assert_eq!(s, 404);
}

#[tokio::test(flavor = "multi_thread")]
async fn test_messages_and_alerts_arrive_by_smtp_and_gateway() {
    let sinks = Sinks::start(&[]);
    let app = App::with_config(|c| sinks.configure(c));
    let t = admin(&app).await;

    // Confirm an e-mail row: a real message over STARTTLS with AUTH.
    let (s, b) = app
        .call(
            Method::POST,
            "/api/distributions/testContact?email=ops@example.com",
            Some(&t),
            None,
        )
        .await;
    assert_eq!(s, 200, "{b}");
    assert_eq!(b["data"]["message"], "Email has been confirmed.");
    let id = b["data"]["id"].as_i64().unwrap();
    let n = notification(&app, &t, id).await;
    assert_eq!(n["state"], "sent");
    assert_eq!(n["attempts"], 1);
    let m = sinks
        .wait_for(5, |m| m["mail"].as_array().unwrap().len() == 1)
        .await;
    let mail = &m["mail"][0];
    assert_eq!(mail["secure"], true, "STARTTLS was used");
    assert_eq!(mail["user"], sinks.user.as_str());
    assert_eq!(mail["rcptTo"], json!(["ops@example.com"]));
    assert_eq!(mail["envelopeFrom"], "alerts@cxwatch.test");
    assert_eq!(mail["heloName"], "console.cxwatch.test");
    assert_eq!(mail["subject"], "cxwatch test message");
    let key = n["key"].as_str().unwrap();
    assert_eq!(
        mail["messageId"],
        format!("<{key}@cxwatch.test>"),
        "the notification's key is the Message-ID"
    );
    assert!(mail["text"]
        .as_str()
        .unwrap()
        .contains("https://console.cxwatch.test"));
    assert!(mail["html"]
        .as_str()
        .unwrap()
        .contains("<strong>cxwatch</strong>"));

    // Confirm an SMS row: the gateway's template, rendered.
    let (s, b) = app
        .call(
            Method::POST,
            "/api/distributions/testContact?sms=%2B15145550100",
            Some(&t),
            None,
        )
        .await;
    assert_eq!(s, 200, "{b}");
    assert_eq!(b["data"]["message"], "Text/SMS has been confirmed.");
    let m = sinks.messages().await;
    let req = &m["http"][0];
    assert_eq!(req["path"], "/sms");
    assert_eq!(req["query"], "?to=%2B15145550100");
    assert_eq!(req["headers"]["x-auth"], "Bearer gw-token");
    assert_eq!(req["headers"]["content-type"], "application/json");
    let body: Value = serde_json::from_str(req["body"].as_str().unwrap()).unwrap();
    assert_eq!(body["to"], "+15145550100");
    assert_eq!(body["token"], "gw-token");
    assert!(body["key"].as_str().unwrap().starts_with("test-"));

    // An alert queued for a list: one notification per row, the e-mail with its attachment.
    let (_, b) = app
        .call(
            Method::POST,
            "/api/distributions",
            Some(&t),
            Some(&json!({
            "name": "All", "contacts": [
                {"name": "Ops", "type": 1, "info": "ops@example.com"},
                {"name": "Phone", "type": 2, "info": "+15145550100"},
                {"name": "Desk", "type": 4, "info": "+15145550101"}]})),
        )
        .await;
    let list = b["data"]["id"].as_i64().unwrap();
    let wav: Vec<u8> = (0..2048u32).map(|i| (i % 251) as u8).collect();
    let msg = Message {
        subject: "Billing IVR failed".into(),
        text: "Billing IVR failed 3 times".into(),
        html: Some("<p>Billing IVR failed 3 times</p>".into()),
        sms_prefix: "[CX]".into(),
        sms_text: String::new(),
        voice_message: "Billing is failing".into(),
        test_case: "Billing IVR".into(),
        status: "Failure".into(),
        link: "https://console.cxwatch.test/alert/7".into(),
        attachments: vec![Attachment {
            name: "recording-7.wav".into(),
            content_type: "audio/wav".into(),
            data: wav.clone(),
            content_id: None,
        }],
    };
    let ids = app
        .store
        .enqueue_list(list, msg, "alert:7".into(), "alert:7".into())
        .await
        .unwrap();
    assert_eq!(ids.len(), 3);
    let m = sinks
        .wait_for(10, |m| {
            m["mail"].as_array().unwrap().len() == 2 && m["http"].as_array().unwrap().len() == 3
        })
        .await;
    let mail = &m["mail"][1];
    assert_eq!(mail["subject"], "Billing IVR failed");
    assert_eq!(mail["attachments"][0]["filename"], "recording-7.wav");
    assert_eq!(mail["attachments"][0]["contentType"], "audio/wav");
    assert_eq!(mail["attachments"][0]["size"], 2048);
    use sha2::Digest;
    assert_eq!(
        mail["attachments"][0]["sha256"],
        hex::encode(sha2::Sha256::digest(&wav))
    );
    // The sender delivers concurrently: the SMS and the call reach the gateway in either order.
    let sent = |path: &str| {
        m["http"].as_array().unwrap()[1..]
            .iter()
            .find(|r| r["path"] == path)
            .unwrap_or_else(|| panic!("nothing sent to {path}: {m}"))
            .clone()
    };
    let sms: Value = serde_json::from_str(sent("/sms")["body"].as_str().unwrap()).unwrap();
    assert_eq!(sms["text"], "[CX] Billing IVR failed 3 times");
    assert_eq!(sms["key"], "alert:7:1");
    assert_eq!(
        sent("/voice")["body"],
        "to=%2B15145550101&say=Billing%20is%20failing"
    );
    // Queueing the same alert again sends nothing twice.
    let again = app
        .store
        .enqueue_list(list, Message::default(), "alert:7".into(), "alert:7".into())
        .await
        .unwrap();
    assert_eq!(again, ids);
    // The server has a message a moment before cxwatch hears it was accepted.
    for id in ids {
        wait_state(&app, &t, id, "sent").await;
    }
    let (_, b) = app
        .call(
            Method::GET,
            "/api/notifications?cause=alert:7&state=sent",
            Some(&t),
            None,
        )
        .await;
    assert_eq!(b["data"]["totalElements"], 3, "{b}");
}

#[tokio::test(flavor = "multi_thread")]
async fn down_or_refusing_servers_deliver_later() {
    let sinks = Sinks::start(&[]);
    let app = App::with_config(|c| sinks.configure(c));
    let t = admin(&app).await;

    // The mail server is down: the Confirm says why, the message waits and goes later.
    sinks.smtp_mode("down").await;
    let (s, b) = app
        .call(
            Method::POST,
            "/api/distributions/testContact?email=ops@example.com",
            Some(&t),
            None,
        )
        .await;
    assert_eq!(s, 502, "{b}");
    let reason = b["messages"][0].as_str().unwrap();
    assert!(
        reason.contains(&format!("SMTP 127.0.0.1:{}", sinks.smtp)),
        "{reason}"
    );
    assert!(reason.contains("will be tried again"), "{reason}");
    let id: i64 = reason
        .rsplit("notification ")
        .next()
        .unwrap()
        .split(';')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    let n = notification(&app, &t, id).await;
    assert_eq!(n["state"], "queued");
    assert!(n["reason"].as_str().unwrap().contains("SMTP"));
    assert!(n["nextAttemptTime"].is_string());
    sinks.smtp_mode("ok").await;
    let n = wait_state(&app, &t, id, "sent").await;
    assert!(n["attempts"].as_u64().unwrap() >= 2);
    assert!(n["reason"].is_null());
    sinks
        .wait_for(5, |m| m["mail"].as_array().unwrap().len() == 1)
        .await;

    // The mail server refuses for now (451): the same.
    sinks.smtp_mode("tempfail").await;
    let (s, b) = app
        .call(
            Method::POST,
            "/api/distributions/testContact?email=desk@example.com",
            Some(&t),
            None,
        )
        .await;
    assert_eq!(s, 502);
    assert!(b["messages"][0].as_str().unwrap().contains("451"), "{b}");
    sinks.smtp_mode("ok").await;
    sinks
        .wait_for(10, |m| m["mail"].as_array().unwrap().len() == 2)
        .await;

    // The gateway answers 503, then 200: delivered later. A 400 fails at once, with the
    // status and the first line of the body.
    sinks.http_status(503).await;
    let (s, b) = app
        .call(
            Method::POST,
            "/api/distributions/testContact?sms=%2B15145550100",
            Some(&t),
            None,
        )
        .await;
    assert_eq!(s, 502);
    assert!(
        b["messages"][0]
            .as_str()
            .unwrap()
            .contains("answered 503 Service Unavailable: refused with 503"),
        "{b}"
    );
    sinks.http_status(200).await;
    sinks
        .wait_for(10, |m| m["http"].as_array().unwrap().len() >= 2)
        .await;
    sinks.http_status(400).await;
    let (s, b) = app
        .call(
            Method::POST,
            "/api/distributions/testContact?sms=%2B15145550100",
            Some(&t),
            None,
        )
        .await;
    assert_eq!(s, 502);
    let msg = b["messages"][0].as_str().unwrap();
    assert!(
        !msg.contains("tried again") && !msg.contains("second line"),
        "{msg}"
    );
    let (_, b) = app
        .call(
            Method::GET,
            "/api/notifications?state=failed",
            Some(&t),
            None,
        )
        .await;
    assert_eq!(b["data"]["totalElements"], 1);
    assert!(b["data"]["content"][0]["reason"]
        .as_str()
        .unwrap()
        .contains("400 Bad Request: refused with 400"));
}

#[tokio::test(flavor = "multi_thread")]
async fn channels_without_a_server_fail_plainly_and_the_rest_still_go() {
    let sinks = Sinks::start(&[]);
    let app = App::with_config(|c| {
        sinks.configure(c);
        c.notify.smtp.host = String::new();
        c.metrics.token = "scrape".into();
    });
    let t = admin(&app).await;
    // Nothing failed upstream, so not a 502: 409 NOT_CONFIGURED, saying so,
    // and nothing recorded.
    let (s, b) = app
        .call(
            Method::POST,
            "/api/distributions/testContact?email=ops@example.com",
            Some(&t),
            None,
        )
        .await;
    assert_eq!(s, 409, "{b}");
    assert_eq!(b["code"], "NOT_CONFIGURED");
    assert_eq!(
        b["messages"][0],
        "No mail server is configured (notify.smtp.host): a test e-mail cannot be sent."
    );
    let (_, b) = app
        .call(Method::GET, "/api/distributions/types", Some(&t), None)
        .await;
    assert_eq!(b["data"][0]["configured"], false);
    assert_eq!(b["data"][1]["configured"], true);
    let (s, _) = app
        .call(
            Method::POST,
            "/api/distributions/testContact?sms=%2B15145550100",
            Some(&t),
            None,
        )
        .await;
    assert_eq!(s, 200);
    // Bad input: named, nothing queued.
    let (s, b) = app
        .call(
            Method::POST,
            "/api/distributions/testContact?sms=12",
            Some(&t),
            None,
        )
        .await;
    assert_eq!(s, 400);
    assert_eq!(b["fields"][0]["field"], "sms");
    let (s, _) = app
        .call(
            Method::POST,
            "/api/distributions/testContact",
            Some(&t),
            None,
        )
        .await;
    assert_eq!(s, 400);
    let (_, b) = app
        .call(Method::GET, "/api/notifications", Some(&t), None)
        .await;
    assert_eq!(b["data"]["totalElements"], 1, "the SMS only: {b}");
    // An alert to a list with an e-mail contact is recorded and fails for good.
    let (s, list) = app
        .call(
            Method::POST,
            "/api/distributions",
            Some(&t),
            Some(&list_body()),
        )
        .await;
    assert_eq!(s, 200, "{list}");
    let ids = app
        .store
        .enqueue_list(
            list["data"]["id"].as_i64().unwrap(),
            Message::default(),
            "alert:1".into(),
            "alert:1".into(),
        )
        .await
        .unwrap();
    let mail = wait_state(&app, &t, ids[0], "failed").await;
    assert!(mail["reason"]
        .as_str()
        .unwrap()
        .contains("No mail server is configured (notify.smtp.host)"));
    wait_state(&app, &t, ids[1], "sent").await;
    // Prometheus sees the outbox: the e-mail failed for good, the SMS is not waiting.
    let text = app
        .client
        .get("/metrics")
        .header("authorization", "Bearer scrape")
        .send()
        .await
        .0
        .into_body()
        .into_string()
        .await
        .unwrap();
    assert!(
        text.contains("cxwatch_notification_outbox_failed 1"),
        "{text}"
    );
    assert!(
        text.contains("cxwatch_notification_outbox_depth 0"),
        "{text}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn implicit_tls_delivers_too() {
    let sinks = Sinks::start(&["--implicit-tls"]);
    let app = App::with_config(|c| {
        sinks.configure(c);
        c.notify.smtp.security = cxwatch::config::SmtpSecurity::Tls;
    });
    let t = admin(&app).await;
    let (s, b) = app
        .call(
            Method::POST,
            "/api/distributions/testContact?email=tls@example.com",
            Some(&t),
            None,
        )
        .await;
    assert_eq!(s, 200, "{b}");
    let m = sinks
        .wait_for(5, |m| m["mail"].as_array().unwrap().len() == 1)
        .await;
    assert_eq!(m["mail"][0]["secure"], true);
    assert_eq!(m["mail"][0]["user"], sinks.user.as_str());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_plain_relay_delivers_without_tls_or_auth() {
    let sinks = Sinks::start(&["--plain"]);
    let app = App::with_config(|c| {
        sinks.configure(c);
        c.notify.smtp.security = cxwatch::config::SmtpSecurity::None;
        c.notify.smtp.username = String::new();
    });
    let t = admin(&app).await;
    let (s, b) = app
        .call(
            Method::POST,
            "/api/distributions/testContact?email=relay@example.com",
            Some(&t),
            None,
        )
        .await;
    assert_eq!(s, 200, "{b}");
    let m = sinks
        .wait_for(5, |m| m["mail"].as_array().unwrap().len() == 1)
        .await;
    assert_eq!(m["mail"][0]["secure"], false);
    assert_eq!(m["mail"][0]["rcptTo"], json!(["relay@example.com"]));
}

#[tokio::test(flavor = "multi_thread")]
async fn starttls_is_required_when_configured() {
    // A server that offers no STARTTLS is refused rather than sent to in the clear.
    let sinks = Sinks::start(&["--plain"]);
    let app = App::with_config(|c| sinks.configure(c));
    let t = admin(&app).await;
    let (s, b) = app
        .call(
            Method::POST,
            "/api/distributions/testContact?email=relay@example.com",
            Some(&t),
            None,
        )
        .await;
    assert_eq!(s, 502, "{b}");
    assert!(sinks.messages().await["mail"]
        .as_array()
        .unwrap()
        .is_empty());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_list_an_alert_setting_uses_cannot_be_deleted() {
    let app = App::new();
    let t = admin(&app).await;
    let key = app.api_key("engine").await;
    let run = json!({"engineRunId": "d-1", "testCase": {"id": 1, "name": "Balance",
        "channel": "voice", "ivr": {"id": 10, "name": "IVR"}},
        "runTime": "2026-07-15T14:05:00Z", "runDuration": 12.0, "status": "pass",
        "runType": "Manual", "segments": []});
    let (s, b) = app
        .call_with(
            Method::POST,
            "/api/ingest/v1/runs",
            Some(("x-api-key", key)),
            Some(&json!({"runs": [run]})),
        )
        .await;
    assert_eq!(s, 200, "{b}");
    let (s, g) = app
        .call(
            Method::POST,
            "/api/trs/v1/groups",
            Some(&t),
            Some(&json!({"name": "Billing", "channel": "voice", "testCases": [{"id": 1}]})),
        )
        .await;
    assert_eq!(s, 200, "{g}");
    let group = g["data"]["id"].as_i64().unwrap();
    let (_, b) = app
        .call(
            Method::POST,
            "/api/distributions",
            Some(&t),
            Some(&list_body()),
        )
        .await;
    let list = b["data"]["id"].as_i64().unwrap();
    let mut settings = Vec::new();
    for name in ["Night shift", "Billing down"] {
        let (s, b) = app
            .call(
                Method::POST,
                "/api/alerts/settings",
                Some(&t),
                Some(
                    &json!({"name": name, "testCaseGroupId": group, "distributionId": list,
                    "failureToAlert": 1, "emailSubject": "Down", "voiceMessage": "Down",
                    "smsPrefix": "[cx]", "alertStatus": ["FAIL"],
                    "schedule": [{"dayOfWeek": 1, "startTimeSlot": "00:00", "endTimeSlot": "24:00"}]}),
                ),
            )
            .await;
        assert_eq!(s, 200, "{b}");
        settings.push(b["data"]["id"].as_i64().unwrap());
    }
    let path = format!("/api/distributions/{list}");
    let (s, b) = app.call(Method::DELETE, &path, Some(&t), None).await;
    assert_eq!(s, 409, "{b}");
    let msg = b["messages"][0].as_str().unwrap();
    assert!(
        msg.contains("'Billing down', 'Night shift'"),
        "names the settings: {msg}"
    );
    let (s, _) = app.call(Method::GET, &path, Some(&t), None).await;
    assert_eq!(s, 200, "still there");
    for id in settings {
        let (s, _) = app
            .call(
                Method::DELETE,
                &format!("/api/alerts/settings/{id}"),
                Some(&t),
                None,
            )
            .await;
        assert_eq!(s, 200);
    }
    let (s, b) = app.call(Method::DELETE, &path, Some(&t), None).await;
    assert_eq!(s, 200, "{b}");
}

/// What uses a list is named before a delete is asked (the list screen asks it first, so that
/// it does not confirm 'cannot be undone' for a refusal): the alert settings that send to it,
/// those that escalate to it (deleting such a list used to fail on the foreign key) and the
/// reports scheduled to it. A restricted user's contact groups are only the lists their own
/// groups use, never another team's.
#[tokio::test(flavor = "multi_thread")]
async fn what_uses_a_list_is_named_first_and_only_its_team_sees_it() {
    let app = App::new();
    let t = admin(&app).await;
    let key = app.api_key("engine").await;
    let run = |id: &str, case: i64| {
        json!({"engineRunId": id, "testCase": {"id": case, "name": format!("Case {case}"),
            "channel": "voice", "ivr": {"id": 10, "name": "IVR"}},
            "runTime": "2026-07-15T14:05:00Z", "runDuration": 12.0, "status": "pass",
            "runType": "Manual", "segments": []})
    };
    let (s, b) = app
        .call_with(
            Method::POST,
            "/api/ingest/v1/runs",
            Some(("x-api-key", key)),
            Some(&json!({"runs": [run("u-1", 1), run("u-2", 2)]})),
        )
        .await;
    assert_eq!(s, 200, "{b}");
    let mut groups = Vec::new();
    for (name, case) in [("Billing", 1), ("Claims", 2)] {
        let (s, g) = app
            .call(
                Method::POST,
                "/api/trs/v1/groups",
                Some(&t),
                Some(&json!({"name": name, "channel": "voice", "testCases": [{"id": case}]})),
            )
            .await;
        assert_eq!(s, 200, "{g}");
        groups.push(g["data"]["id"].as_i64().unwrap());
    }
    let mut lists = Vec::new();
    for name in [
        "Billing on call",
        "Billing managers",
        "Billing weekly",
        "Claims desk",
    ] {
        let mut body = list_body();
        body["name"] = json!(name);
        let (s, b) = app
            .call(Method::POST, "/api/distributions", Some(&t), Some(&body))
            .await;
        assert_eq!(s, 200, "{b}");
        lists.push(b["data"]["id"].as_i64().unwrap());
    }
    let (on_call, managers, weekly, claims) = (lists[0], lists[1], lists[2], lists[3]);
    let (s, b) = app
        .call(
            Method::POST,
            "/api/alerts/settings",
            Some(&t),
            Some(
                &json!({"name": "Billing down", "testCaseGroupId": groups[0],
                "distributionId": on_call, "escalationDistributionId": managers,
                "escalationDelayMin": 30, "failureToAlert": 1, "emailSubject": "Down",
                "voiceMessage": "Down", "smsPrefix": "[cx]", "alertStatus": ["FAIL"],
                "schedule": [{"dayOfWeek": 1, "startTimeSlot": "00:00", "endTimeSlot": "24:00"}]}),
            ),
        )
        .await;
    assert_eq!(s, 200, "{b}");
    let setting = b["data"]["id"].as_i64().unwrap();
    let (s, b) = app
        .call(
            Method::POST,
            "/api/reports?pageNo=0",
            Some(&t),
            Some(
                &json!({"name": "Billing week", "description": "", "reportTypeID": 1,
                "testCaseGroupID": groups[0], "timeframeName": "Last Week",
                "runType": "Schedule", "latencyWarn": 1000, "latencyFail": 2000}),
            ),
        )
        .await;
    assert_eq!(s, 200, "{b}");
    let report = b["data"]["id"].as_i64().unwrap();
    let (s, b) = app
        .call(
            Method::PUT,
            &format!("/api/reports/{report}/schedule"),
            Some(&t),
            Some(
                &json!({"frequency": "weekly", "time": "08:00", "dayOfWeek": 1,
                "distributionID": weekly}),
            ),
        )
        .await;
    assert_eq!(s, 200, "{b}");

    let dependents = |id: i64| {
        let app = &app;
        let t = t.clone();
        async move {
            let (s, b) = app
                .call(
                    Method::GET,
                    &format!("/api/distributions/{id}/dependents"),
                    Some(&t),
                    None,
                )
                .await;
            assert_eq!(s, 200, "{b}");
            b["data"].clone()
        }
    };
    let none = json!([]);
    let used = json!([{"id": setting, "name": "Billing down"}]);
    assert_eq!(
        dependents(on_call).await,
        json!({"alertSettings": used, "escalations": none, "reportSchedules": none})
    );
    assert_eq!(
        dependents(managers).await,
        json!({"alertSettings": none, "escalations": used, "reportSchedules": none})
    );
    assert_eq!(
        dependents(weekly).await,
        json!({"alertSettings": none, "escalations": none,
               "reportSchedules": [{"id": report, "name": "Billing week"}]})
    );
    assert_eq!(
        dependents(claims).await,
        json!({"alertSettings": none, "escalations": none, "reportSchedules": none})
    );
    let (s, _) = app
        .call(
            Method::GET,
            "/api/distributions/999999/dependents",
            Some(&t),
            None,
        )
        .await;
    assert_eq!(s, 404);

    // Each refusal names what uses the list, as the dependents said.
    for (id, says) in [
        (
            on_call,
            "the contact group of the alert setting 'Billing down'",
        ),
        (
            managers,
            "the escalation list of the alert setting 'Billing down'",
        ),
        (
            weekly,
            "the recipient of the scheduled report 'Billing week'",
        ),
    ] {
        let (s, b) = app
            .call(
                Method::DELETE,
                &format!("/api/distributions/{id}"),
                Some(&t),
                None,
            )
            .await;
        assert_eq!(s, 409, "{b}");
        let msg = b["messages"][0].as_str().unwrap();
        assert!(msg.contains(says), "{msg}");
    }

    // A restricted user sees only the lists their groups use; an administrator sees all.
    let contact_groups = |token: String| {
        let app = &app;
        async move {
            let (s, b) = app
                .call(Method::GET, "/api/alerts/contactGroups", Some(&token), None)
                .await;
            assert_eq!(s, 200, "{b}");
            b["data"]
                .as_array()
                .unwrap()
                .iter()
                .map(|l| l["name"].as_str().unwrap().to_string())
                .collect::<Vec<_>>()
        }
    };
    let billing = app
        .user(
            "billing@x.test",
            Role::User,
            AccessType::ReadWrite,
            &groups[..1],
        )
        .await;
    let claims_user = app
        .user(
            "claims@x.test",
            Role::User,
            AccessType::ReadOnly,
            &groups[1..],
        )
        .await;
    assert_eq!(
        contact_groups(billing.token).await,
        ["Billing managers", "Billing on call", "Billing weekly"]
    );
    assert!(contact_groups(claims_user.token).await.is_empty());
    assert_eq!(
        contact_groups(t.clone()).await,
        [
            "Billing managers",
            "Billing on call",
            "Billing weekly",
            "Claims desk"
        ]
    );

    // Once nothing uses it, a list goes.
    let (s, b) = app
        .call(
            Method::DELETE,
            &format!("/api/distributions/{claims}"),
            Some(&t),
            None,
        )
        .await;
    assert_eq!(s, 200, "{b}");
}

/// A test message on a channel without a server is not a 502 (nothing failed
/// upstream): 409 `NOT_CONFIGURED` saying which server is missing, nothing recorded.
#[tokio::test(flavor = "multi_thread")]
async fn test_contact_without_a_server_says_not_configured() {
    let app = App::new();
    let t = admin(&app).await;
    for (query, says) in [
        ("email=ops@example.com", "No mail server is configured"),
        ("sms=%2B15145550100", "No SMS gateway is configured"),
        ("voice=%2B15145550100", "No voice gateway is configured"),
    ] {
        let (s, b) = app
            .call(
                Method::POST,
                &format!("/api/distributions/testContact?{query}"),
                Some(&t),
                None,
            )
            .await;
        assert_eq!(s, 409, "{query}: {b}");
        assert_eq!(b["code"], "NOT_CONFIGURED", "{b}");
        assert!(b["messages"][0].as_str().unwrap().starts_with(says), "{b}");
    }
    let (_, b) = app
        .call(Method::GET, "/api/notifications", Some(&t), None)
        .await;
    assert_eq!(b["data"]["totalElements"], 0, "{b}");
}
