//! The site page's API (cxwatch's addition): the first-run checklist from
//! real data, ingest API keys made, listed and revoked in the console (shown once, audited),
//! the outbound channels' state with a real test, and the audit log searched; who may do
//! what (administrators read, read-write administrators change). Both backends.

use crate::harness;
use crate::sinks;

use cxwatch::domain::caller::{AccessType, Role};
use harness::App;
use poem::http::Method;
use serde_json::{json, Value};
use sinks::Sinks;

fn run(id: &str) -> Value {
    json!({
        "engineRunId": id,
        "testCase": {"id": 101, "name": "Billing balance enquiry", "channel": "voice",
                     "ivr": {"id": 7, "name": "Acme main IVR"}},
        "runTime": "2026-07-15T14:05:00Z",
        "runDuration": 61.25,
        "status": "pass",
        "runType": "Schedule",
        "segments": [{"segmentId": 1, "segmentName": "Greeting", "steps": [
            {"stepId": 11, "stepType": "PROMPT", "typeDisplayText": "Prompt",
             "prompt": "Thank you for calling Acme.",
             "testResult": {"status": "pass", "utterance": "Thank you for calling Acme.",
                            "latency": 940}}]}]
    })
}

async fn get(app: &App, token: &str, path: &str) -> Value {
    let (s, b) = app.call(Method::GET, path, Some(token), None).await;
    assert_eq!(s, 200, "{path}: {b}");
    b["data"].clone()
}

async fn ingest(app: &App, key: &str, id: &str) -> u16 {
    app.call_with(
        Method::POST,
        "/api/ingest/v1/runs",
        Some(("x-api-key", key.to_string())),
        Some(&json!({"runs": [run(id)]})),
    )
    .await
    .0
}

/// An operator finds the keys no engine uses: each says when it was last used, written at
/// most once a minute per key (ingest pays no write per call); and a key is named once
/// without case ('engine-1' and 'ENGINE-1' were two keys no log could tell apart).
#[tokio::test(flavor = "multi_thread")]
async fn keys_say_when_last_used_without_a_write_per_call_and_are_named_once_without_case() {
    let app = App::new();
    let admin = app
        .user("keys.admin@x.test", Role::Admin, AccessType::ReadWrite, &[])
        .await;
    let t = admin.token.as_str();
    let key = app.api_key("engine-1").await;
    app.api_key("engine-2").await;
    let keys = get(&app, t, "/api/site/apikeys").await;
    assert_eq!(keys[0]["lastUsedTime"], Value::Null, "{keys}");
    assert_eq!(keys[1]["lastUsedTime"], Value::Null, "{keys}");

    let before = cxwatch::clock::now() - chrono::Duration::seconds(1);
    assert_eq!(ingest(&app, &key, "k/1").await, 200);
    let after = cxwatch::clock::now();
    let keys = get(&app, t, "/api/site/apikeys").await;
    let used = chrono::DateTime::parse_from_rfc3339(keys[0]["lastUsedTime"].as_str().unwrap())
        .unwrap()
        .with_timezone(&chrono::Utc);
    assert!(before <= used && used <= after, "{keys}");
    assert_eq!(
        keys[1]["lastUsedTime"],
        Value::Null,
        "the other key is unused"
    );

    // Within the minute, another call writes nothing: the stored time, set back here, stays.
    app.exec("UPDATE api_keys SET last_used_ms = 1000 WHERE name = 'engine-1'")
        .await;
    assert_eq!(ingest(&app, &key, "k/2").await, 200);
    assert_eq!(
        app.int("SELECT last_used_ms FROM api_keys WHERE name = 'engine-1'")
            .await,
        1000
    );

    // Another case of a name is the same name: 409 naming the key that has it.
    for name in ["ENGINE-1", " Engine-1 "] {
        let (s, b) = app
            .call(
                Method::POST,
                "/api/site/apikeys",
                Some(t),
                Some(&json!({"name": name})),
            )
            .await;
        assert_eq!(s, 409, "{name}: {b}");
        assert_eq!(b["fields"][0]["field"], "name", "{b}");
        assert_eq!(b["fields"][0]["rule"], "taken", "{b}");
        let msg = b["messages"][0].as_str().unwrap();
        assert!(
            msg.contains("\"engine-1\"") && msg.contains("without case"),
            "{msg}"
        );
    }
    // And a key is revoked by its name in any case.
    let (s, b) = app
        .call(Method::DELETE, "/api/site/apikeys/ENGINE-2", Some(t), None)
        .await;
    assert_eq!(s, 200, "{b}");
    let keys = get(&app, t, "/api/site/apikeys").await;
    assert_eq!(keys.as_array().unwrap().len(), 1, "{keys}");
    assert_eq!(keys[0]["name"], "engine-1");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_fresh_install_gets_its_engine_key_in_the_console_and_the_checklist_follows() {
    let app = App::new();
    let admin = app
        .user("site.admin@x.test", Role::Admin, AccessType::ReadWrite, &[])
        .await;
    let t = admin.token.as_str();

    // A fresh store: nothing done yet.
    let c = get(&app, t, "/api/site/checklist").await;
    assert_eq!(
        c,
        json!({"apiKeys": 0, "runs": 0, "lastRunTime": null, "groups": 0,
               "distributionLists": 0, "alertSettings": 0})
    );
    assert_eq!(get(&app, t, "/api/site/apikeys").await, json!([]));

    // A key made in the console: shown once, listed without it.
    let (s, made) = app
        .call(
            Method::POST,
            "/api/site/apikeys",
            Some(t),
            Some(&json!({"name": " engine-1 "})),
        )
        .await;
    assert_eq!(s, 200, "{made}");
    let key = made["data"]["key"].as_str().unwrap().to_string();
    assert!(key.starts_with("cxw_") && key.len() == 68, "{key}");
    assert_eq!(made["data"]["name"], "engine-1");
    let keys = get(&app, t, "/api/site/apikeys").await;
    assert_eq!(keys.as_array().unwrap().len(), 1);
    assert_eq!(keys[0]["name"], "engine-1");
    assert!(keys[0]["createdTime"].as_str().unwrap().ends_with('Z'));
    assert!(
        !keys.to_string().contains(&key),
        "the key is shown only once"
    );

    // Its name is unique, and needed.
    let (s, b) = app
        .call(
            Method::POST,
            "/api/site/apikeys",
            Some(t),
            Some(&json!({"name": "engine-1"})),
        )
        .await;
    assert_eq!(s, 409, "{b}");
    assert_eq!(b["fields"][0]["field"], "name");
    assert_eq!(b["fields"][0]["rule"], "taken");
    for name in [json!(""), json!("   "), json!(null), json!("x".repeat(101))] {
        let (s, b) = app
            .call(
                Method::POST,
                "/api/site/apikeys",
                Some(t),
                Some(&json!({"name": name})),
            )
            .await;
        assert_eq!(s, 400, "{name}: {b}");
        assert_eq!(b["fields"][0]["field"], "name", "{b}");
    }

    // The engine posts with it: the checklist sees the run.
    assert_eq!(ingest(&app, &key, "e1/1").await, 200);
    let c = get(&app, t, "/api/site/checklist").await;
    assert_eq!(c["apiKeys"], 1);
    assert_eq!(c["runs"], 1);
    assert_eq!(c["lastRunTime"], "2026-07-15T14:05:00Z");

    // A group, a list and an alert setting tick the rest.
    let (s, g) = app
        .call(
            Method::POST,
            "/api/trs/v1/groups",
            Some(t),
            Some(&json!({"name": "Billing", "channel": "voice", "testCases": [{"id": 101}]})),
        )
        .await;
    assert_eq!(s, 200, "{g}");
    let (s, d) = app
        .call(
            Method::POST,
            "/api/distributions",
            Some(t),
            Some(&json!({"name": "On call", "contacts": [{"name": "Ops", "type": 1, "info": "ops@x.test"}]})),
        )
        .await;
    assert_eq!(s, 200, "{d}");
    let (s, a) = app
        .call(
            Method::POST,
            "/api/alerts/settings",
            Some(t),
            Some(
                &json!({"name": "Billing down", "testCaseGroupId": g["data"]["id"],
                "distributionId": d["data"]["id"], "failureToAlert": 1, "emailSubject": "Down",
                "voiceMessage": "Down", "smsPrefix": "[cx]", "alertStatus": ["FAIL"],
                "schedule": [{"dayOfWeek": 1, "startTimeSlot": "00:00", "endTimeSlot": "24:00"}]}),
            ),
        )
        .await;
    assert_eq!(s, 200, "{a}");
    let c = get(&app, t, "/api/site/checklist").await;
    assert_eq!(
        (&c["groups"], &c["distributionLists"], &c["alertSettings"]),
        (&json!(1), &json!(1), &json!(1))
    );

    // Revoked: the engine is refused at once; a second revoke finds nothing.
    let (s, b) = app
        .call(Method::DELETE, "/api/site/apikeys/engine-1", Some(t), None)
        .await;
    assert_eq!(s, 200, "{b}");
    assert_eq!(ingest(&app, &key, "e1/2").await, 401);
    let (s, b) = app
        .call(Method::DELETE, "/api/site/apikeys/engine-1", Some(t), None)
        .await;
    assert_eq!(s, 404, "{b}");
    assert_eq!(get(&app, t, "/api/site/apikeys").await, json!([]));

    // Both are in the audit log, by the administrator, never with the key; found by text
    // and by action.
    let found = get(&app, t, "/api/audit?kind=api_key").await;
    let actions: Vec<(&str, &str, &str)> = found["content"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["action"].as_str().unwrap(),
                r["target"].as_str().unwrap(),
                r["username"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        actions,
        [
            ("delete", "engine-1", "site.admin@x.test"),
            ("create", "engine-1", "site.admin@x.test")
        ]
    );
    assert!(!found.to_string().contains(&key));
    let searched = get(&app, t, "/api/audit?search=ENGINE-1&action=delete").await;
    assert_eq!(searched["totalElements"], 1, "{searched}");
    assert_eq!(searched["content"][0]["action"], "delete");
    let by_text = get(&app, t, "/api/audit?search=billing%20down").await;
    assert_eq!(by_text["totalElements"], 1, "{by_text}");
    assert_eq!(by_text["content"][0]["kind"], "alert_setting");
    let none = get(&app, t, "/api/audit?search=100%25").await;
    assert_eq!(none["totalElements"], 0, "% is a character, not a wildcard");
}

#[tokio::test(flavor = "multi_thread")]
async fn administrators_read_read_write_administrators_change_and_no_one_else() {
    let app = App::new();
    let rw = app
        .user("rw@x.test", Role::Admin, AccessType::ReadWrite, &[])
        .await;
    let ro = app
        .user("ro@x.test", Role::Admin, AccessType::ReadOnly, &[])
        .await;
    let user = app
        .user("user@x.test", Role::User, AccessType::ReadWrite, &[])
        .await;
    app.api_key("engine-1").await;
    let key_body = json!({"name": "engine-2"});
    let calls: [(Method, &str, Option<&Value>, [u16; 3]); 6] = [
        (Method::GET, "/api/site/checklist", None, [200, 403, 200]),
        (Method::GET, "/api/site/apikeys", None, [200, 403, 200]),
        (Method::GET, "/api/site/channels", None, [200, 403, 200]),
        (
            Method::POST,
            "/api/site/apikeys",
            Some(&key_body),
            [403, 403, 200],
        ),
        (
            Method::POST,
            "/api/site/channels/jira/test",
            Some(&json!({})),
            [403, 403, 409],
        ),
        (
            Method::DELETE,
            "/api/site/apikeys/engine-1",
            None,
            [403, 403, 200],
        ),
    ];
    for (method, path, body, [want_ro, want_user, want_rw]) in calls {
        for (who, token, want) in [
            ("read-only admin", &ro.token, want_ro),
            ("user", &user.token, want_user),
            ("read-write admin", &rw.token, want_rw),
        ] {
            let (s, b) = app.call(method.clone(), path, Some(token), body).await;
            assert_eq!(s, want, "{who} {method} {path}: {b}");
        }
    }
    // The read-only administrator changed nothing.
    let keys = get(&app, &rw.token, "/api/site/apikeys").await;
    assert_eq!(
        keys,
        json!([{"name": "engine-2", "createdTime": keys[0]["createdTime"], "lastUsedTime": null}])
    );
    let (s, _) = app
        .call(Method::GET, "/api/site/checklist", None, None)
        .await;
    assert_eq!(s, 401);
}

#[tokio::test(flavor = "multi_thread")]
async fn channels_say_what_is_configured_without_secrets_and_tests_really_send() {
    let sinks = Sinks::start(&[]);
    let app = App::with_config(|c| sinks.configure(c));
    let admin = app
        .user(
            "ops.lead@example.com",
            Role::Admin,
            AccessType::ReadWrite,
            &[],
        )
        .await;
    let t = admin.token.as_str();

    let channels = get(&app, t, "/api/site/channels").await;
    let by = |name: &str| {
        channels
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["channel"] == name)
            .unwrap()
            .clone()
    };
    let kinds: Vec<&str> = channels
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["channel"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["email", "sms", "voice", "webhook", "jira", "sso"]);
    let email = by("email");
    assert_eq!(email["configured"], true);
    assert_eq!(
        email["summary"],
        format!(
            "127.0.0.1:{} (STARTTLS), from cxwatch <alerts@cxwatch.test>",
            sinks.smtp
        )
    );
    assert_eq!(email["last"], Value::Null);
    assert_eq!(
        by("sms")["summary"],
        format!("POST http://127.0.0.1:{}", sinks.http)
    );
    assert_eq!(by("webhook")["configured"], true);
    assert_eq!(by("jira")["configured"], false);
    assert_eq!(by("jira")["setting"], "jira.url");
    assert_eq!(by("sso")["configured"], false);
    let text = channels.to_string();
    for secret in [
        sinks.pass.as_str(),
        "gw-token",
        sinks::WEBHOOK_SECRET,
        "{number}",
    ] {
        assert!(!text.contains(secret), "{secret} in {text}");
    }

    // E-mail: to the caller by default, a real message over SMTP.
    let (s, b) = app
        .call(
            Method::POST,
            "/api/site/channels/email/test",
            Some(t),
            Some(&json!({})),
        )
        .await;
    assert_eq!(s, 200, "{b}");
    assert_eq!(b["data"]["message"], "Email has been confirmed.");
    let m = sinks
        .wait_for(5, |m| m["mail"].as_array().unwrap().len() == 1)
        .await;
    assert_eq!(m["mail"][0]["rcptTo"], json!(["ops.lead@example.com"]));
    let email = get(&app, t, "/api/site/channels").await[0].clone();
    assert_eq!(email["last"]["state"], "sent", "{email}");

    // SMS needs a number; a bad one is refused beside the field; a good one goes.
    for (body, want, field) in [
        (json!({}), 400, Some("to")),
        (json!({"to": "5550100"}), 400, Some("to")),
        (json!({"to": "+15145550100"}), 200, None),
    ] {
        let (s, b) = app
            .call(
                Method::POST,
                "/api/site/channels/sms/test",
                Some(t),
                Some(&body),
            )
            .await;
        assert_eq!(s, want, "{body}: {b}");
        if let Some(f) = field {
            assert_eq!(b["fields"][0]["field"], f, "{b}");
        }
    }
    let m = sinks
        .wait_for(5, |m| !m["http"].as_array().unwrap().is_empty())
        .await;
    assert_eq!(m["http"][0]["path"], "/sms");

    // A mail server that refuses: the test says why, and the channel's last outcome too.
    sinks.smtp_mode("down").await;
    let (s, b) = app
        .call(
            Method::POST,
            "/api/site/channels/email/test",
            Some(t),
            Some(&json!({"to": "other@example.com"})),
        )
        .await;
    assert_eq!(s, 502, "{b}");
    assert!(b["messages"][0]
        .as_str()
        .unwrap()
        .contains(&format!("SMTP 127.0.0.1:{}", sinks.smtp)));
    let email = get(&app, t, "/api/site/channels").await[0].clone();
    assert_ne!(email["last"]["state"], "sent", "{email}");
    assert!(email["last"]["reason"].as_str().is_some(), "{email}");

    // Jira and single sign-on are not configured here: said with NOT_CONFIGURED.
    for (channel, words) in [
        ("jira", "Jira is not configured (jira.url)"),
        ("sso", "Single sign-on is not configured for this host"),
    ] {
        let (s, b) = app
            .call(
                Method::POST,
                &format!("/api/site/channels/{channel}/test"),
                Some(t),
                Some(&json!({})),
            )
            .await;
        assert_eq!(s, 409, "{b}");
        assert_eq!(b["code"], "NOT_CONFIGURED");
        assert!(b["messages"][0].as_str().unwrap().starts_with(words), "{b}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_channel_without_a_server_is_refused_before_anything_is_recorded() {
    let app = App::new();
    let admin = app
        .user("a@x.test", Role::Admin, AccessType::ReadWrite, &[])
        .await;
    let channels = get(&app, &admin.token, "/api/site/channels").await;
    assert!(channels
        .as_array()
        .unwrap()
        .iter()
        .all(|c| c["configured"] == false && c["summary"].is_null()));
    for (channel, body, words) in [
        ("email", json!({}), "No mail server is configured"),
        ("sms", json!({"to": "+15145550100"}), "No SMS gateway"),
        ("voice", json!({"to": "not a number"}), "No voice gateway"),
        (
            "webhook",
            json!({"to": "https://hooks.example.com/x"}),
            "Webhooks are off",
        ),
    ] {
        let (s, b) = app
            .call(
                Method::POST,
                &format!("/api/site/channels/{channel}/test"),
                Some(&admin.token),
                Some(&body),
            )
            .await;
        assert_eq!(s, 409, "{channel}: {b}");
        assert_eq!(b["code"], "NOT_CONFIGURED");
        assert!(b["messages"][0].as_str().unwrap().starts_with(words), "{b}");
    }
    let notes = get(&app, &admin.token, "/api/notifications").await;
    assert_eq!(notes["totalElements"], 0, "{notes}");
}
