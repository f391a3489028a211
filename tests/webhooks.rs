//! Chat and webhook channels, in-process (`tests/harness`) against a real
//! HTTPS receiver of the private CA (`tests/sinks`, `ui/e2e/notify-sinks.mjs`) that checks
//! each body against the vendor's published format (Microsoft Teams Workflows / incoming
//! webhook Adaptive Card message, Slack and Mattermost incoming webhooks, cxwatch's own
//! signed JSON): per-row Confirm, a real alert and its recovery from the engine, a receiver
//! that refuses, and the channels off by default.

use crate::common;

use crate::harness;
use crate::harness_trs;
use crate::sinks;

use std::time::Duration;

use common::now_ms;
use cxwatch::domain::alert_setting::{AlertSettingDraft, Escalation};
use cxwatch::domain::caller::Scope;
use cxwatch::domain::distribution::{Contact, ContactType, DistributionDraft};
use cxwatch::domain::schedule::Week;
use harness::App;
use harness_trs::{admin, group, ingest_ok, run};
use poem::http::Method;
use serde_json::{json, Value};
use sinks::Sinks;

const VENDORS: [(&str, i64, &str); 4] = [
    ("webhook", 8, "Webhook"),
    ("teams", 16, "Microsoft Teams"),
    ("slack", 32, "Slack"),
    ("mattermost", 64, "Mattermost"),
];

/// The requests the sink got on `/{vendor}/…`, oldest first.
fn hooks<'a>(m: &'a Value, vendor: &str) -> Vec<&'a Value> {
    m["http"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| {
            r["path"]
                .as_str()
                .unwrap()
                .starts_with(&format!("/{vendor}/"))
        })
        .collect()
}

/// The sent notifications' page once it counts `want`: a receiver has a message a moment
/// before the sender records it sent.
async fn sent(app: &App, token: &str, want: u64) -> Value {
    let mut b = Value::Null;
    for _ in 0..150 {
        b = app
            .call(
                Method::GET,
                "/api/notifications?state=sent",
                Some(token),
                None,
            )
            .await
            .1;
        if b["data"]["totalElements"] == want {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    b
}

fn body(r: &Value) -> Value {
    serde_json::from_str(r["body"].as_str().unwrap()).unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn webhook_contacts_are_confirmed_and_receive_alerts_and_recoveries() {
    let sinks = Sinks::start(&[]);
    let app = App::with_config(|c| sinks.configure(c));
    let a = admin(&app).await;
    let t = a.token.as_str();

    // The four types are offered, and sendable.
    let (s, b) = app
        .call(Method::GET, "/api/distributions/types", Some(t), None)
        .await;
    assert_eq!(s, 200, "{b}");
    for (_, id, name) in VENDORS {
        let ty = b["data"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["id"] == id)
            .unwrap_or_else(|| panic!("no type {id}: {b}"));
        assert_eq!(ty["name"], name);
        assert_eq!(ty["configured"], true);
    }

    // Confirm each row: a test message in the vendor's format, over TLS with the site's CA.
    for (vendor, _, name) in VENDORS {
        let url = sinks.hook(vendor, "confirm");
        let (s, b) = app
            .call(
                Method::POST,
                &format!(
                    "/api/distributions/testContact?{vendor}={}",
                    urlencoding(&url)
                ),
                Some(t),
                None,
            )
            .await;
        assert_eq!(s, 200, "{vendor}: {b}");
        assert_eq!(b["data"]["message"], format!("{name} has been confirmed."));
        assert_eq!(b["data"]["state"], "sent");
    }
    let m = sinks.messages().await;
    for (vendor, _, _) in VENDORS {
        let got = hooks(&m, vendor);
        assert_eq!(got.len(), 1, "{vendor}: {m:#}");
        assert_eq!(got[0]["problems"], json!([]), "{vendor}: {:#}", got[0]);
        assert_eq!(got[0]["secure"], true);
        assert_eq!(got[0]["method"], "POST");
    }
    let generic = hooks(&m, "webhook")[0];
    assert_eq!(generic["signatureOk"], true, "{generic:#}");
    assert_eq!(generic["headers"]["x-team"], "contact-centre");
    let g = body(generic);
    assert_eq!(g["event"], "test");
    assert_eq!(g["link"], "https://console.cxwatch.test");
    // The vendors' own requests carry no cxwatch signature or custom header.
    assert!(hooks(&m, "slack")[0]["headers"]["x-cxwatch-signature"].is_null());
    assert!(hooks(&m, "teams")[0]["headers"]["x-team"].is_null());

    // A bad address is refused by the rules.
    let (s, b) = app
        .call(
            Method::POST,
            "/api/distributions/testContact?slack=hooks.slack.com/x",
            Some(t),
            None,
        )
        .await;
    assert_eq!(s, 400, "{b}");
    assert_eq!(b["fields"][0]["field"], "slack", "{b}");

    // A list of the four, saved through the API and read back.
    let contacts: Vec<Value> = VENDORS
        .iter()
        .map(|(v, id, name)| json!({"name": name, "type": id, "info": sinks.hook(v, "alerts")}))
        .collect();
    let (s, b) = app
        .call(
            Method::POST,
            "/api/distributions",
            Some(t),
            Some(&json!({"name": "Ops channels", "contacts": contacts})),
        )
        .await;
    assert_eq!(s, 200, "{b}");
    let list = b["data"]["id"].as_i64().unwrap();
    assert_eq!(
        b["data"]["type"],
        json!(["Webhook", "Microsoft Teams", "Slack", "Mattermost"])
    );
    let (_, b) = app
        .call(
            Method::GET,
            "/api/distributions?type=16&pageNo=0&pageSize=10",
            Some(t),
            None,
        )
        .await;
    assert_eq!(b["data"]["totalElements"], 1, "{b}");

    // A real alert from the engine and its recovery reach every channel, with the link.
    let key = app.api_key("engine").await;
    ingest_ok(&app, &key, &[run("p0", 1, "2026-11-23T15:00:00Z", "pass")]).await;
    let g = group(&app, "Billing", "voice", &[1]).await;
    app.store
        .create_alert_setting(
            Scope::All,
            &AlertSettingDraft {
                name: "Billing down".into(),
                active: true,
                group_id: g,
                distribution_id: list,
                email_subject: "Billing IVR failing".into(),
                failure_to_alert: 1,
                notify_on_recovery: true,
                statuses: vec!["FAIL".into()],
                week: Week::from_masks((1..=7).map(|d| (d, (1u64 << 48) - 1))),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    ingest_ok(&app, &key, &[run("f1", 1, "2026-11-23T15:01:00Z", "fail")]).await;
    ingest_ok(&app, &key, &[run("p2", 1, "2026-11-23T15:02:00Z", "pass")]).await;
    let m = sinks
        .wait_for(15, |m| {
            VENDORS.iter().all(|(v, _, _)| hooks(m, v).len() == 3)
        })
        .await;
    for (vendor, _, _) in VENDORS {
        for r in &hooks(&m, vendor)[1..] {
            assert_eq!(r["problems"], json!([]), "{vendor}: {r:#}");
            assert_eq!(r["path"], format!("/{vendor}/alerts"));
        }
    }
    let events: Vec<Value> = hooks(&m, "webhook")[1..].iter().map(|r| body(r)).collect();
    let mut kinds: Vec<&str> = events
        .iter()
        .map(|e| e["event"].as_str().unwrap())
        .collect();
    kinds.sort();
    assert_eq!(kinds, ["alert", "recovery"]);
    let alert = events.iter().find(|e| e["event"] == "alert").unwrap();
    assert_eq!(alert["subject"], "Billing IVR failing");
    assert_eq!(alert["testCase"], "Case 001");
    let link = alert["link"].as_str().unwrap();
    assert!(
        link.starts_with("https://console.cxwatch.test/alert/"),
        "{alert}"
    );
    let teams = hooks(&m, "teams")[1..]
        .iter()
        .map(|r| body(r))
        // The alert, not its recovery: deliveries run side by side, in no set order.
        .find(|b| {
            b.to_string().contains("Billing IVR failing") && !b.to_string().contains("Recovered")
        })
        .unwrap();
    let card = &teams["attachments"][0]["content"];
    assert_eq!(card["actions"][0]["url"], link);
    let slack = hooks(&m, "slack")[1..]
        .iter()
        .map(|r| body(r))
        // The alert, not its recovery: deliveries run side by side, in no set order.
        .find(|b| {
            b.to_string().contains("Billing IVR failing") && !b.to_string().contains("Recovered")
        })
        .unwrap();
    assert_eq!(slack["blocks"][0]["text"]["text"], "Billing IVR failing");
    let mm = hooks(&m, "mattermost")[1..]
        .iter()
        .map(|r| body(r))
        // The alert, not its recovery: deliveries run side by side, in no set order.
        .find(|b| {
            b.to_string().contains("Billing IVR failing") && !b.to_string().contains("Recovered")
        })
        .unwrap();
    assert!(
        mm["text"]
            .as_str()
            .unwrap()
            .contains(&format!("[Open in cxwatch]({link})")),
        "{mm}"
    );
    // All delivered: nothing queued or failed.
    let b = sent(&app, t, 4 + 8).await;
    assert_eq!(b["data"]["totalElements"], 4 + 8, "{b}");
}

/// An escalation reaches a second list of chat channels in each vendor's format, with
/// the link back to the event: the escalation worker's batch queues it in the outbox, and the
/// same sender as for alerts delivers it.
#[tokio::test(flavor = "multi_thread")]
async fn escalations_reach_chat_channels_in_their_format() {
    let sinks = Sinks::start(&[]);
    let app = App::with_config(|c| sinks.configure(c));
    let a = admin(&app).await;
    let chat_list = |path: &'static str, name: &'static str| {
        let contacts: Vec<Contact> = VENDORS
            .iter()
            .map(|(v, id, n)| Contact {
                name: (*n).into(),
                kind: ContactType::of_id(*id).unwrap(),
                info: sinks.hook(v, path),
            })
            .collect();
        DistributionDraft {
            name: name.into(),
            contacts,
        }
    };
    let first = app
        .store
        .create_distribution(&chat_list("alerts", "On call"))
        .await
        .unwrap();
    let second = app
        .store
        .create_distribution(&chat_list("escalation", "Managers"))
        .await
        .unwrap();
    let key = app.api_key("engine").await;
    ingest_ok(&app, &key, &[run("p0", 1, "2026-11-23T15:00:00Z", "pass")]).await;
    let g = group(&app, "Billing", "voice", &[1]).await;
    app.store
        .create_alert_setting(
            Scope::All,
            &AlertSettingDraft {
                name: "Billing down".into(),
                active: true,
                group_id: g,
                distribution_id: first,
                email_subject: "Billing IVR failing".into(),
                failure_to_alert: 1,
                statuses: vec!["FAIL".into()],
                week: Week::from_masks((1..=7).map(|d| (d, (1u64 << 48) - 1))),
                escalation: Some(Escalation {
                    distribution_id: second,
                    delay_min: 1,
                }),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    ingest_ok(&app, &key, &[run("f1", 1, "2026-11-23T15:01:00Z", "fail")]).await;
    sinks
        .wait_for(15, |m| {
            VENDORS.iter().all(|(v, _, _)| hooks(m, v).len() == 1)
        })
        .await;

    // The delay passes unacknowledged (the event is made a minute older): the app's own
    // escalation worker queues the second list, and its sender delivers.
    app.exec("UPDATE alert_events SET alert_ms = alert_ms - 60000")
        .await;
    let m = sinks
        .wait_for(15, |m| {
            VENDORS.iter().all(|(v, _, _)| hooks(m, v).len() == 2)
        })
        .await;
    for (vendor, _, _) in VENDORS {
        let r = hooks(&m, vendor)[1];
        assert_eq!(r["path"], format!("/{vendor}/escalation"), "{r:#}");
        assert_eq!(r["problems"], json!([]), "{vendor}: {r:#}");
    }
    let generic = body(hooks(&m, "webhook")[1]);
    assert_eq!(generic["event"], "escalation", "{generic:#}");
    assert_eq!(generic["testCase"], "Case 001", "{generic:#}");
    let link = generic["link"].as_str().unwrap();
    assert!(
        link.starts_with("https://console.cxwatch.test/alert/"),
        "{generic}"
    );
    let teams = body(hooks(&m, "teams")[1]);
    assert_eq!(
        teams["attachments"][0]["content"]["actions"][0]["url"],
        link
    );
    let mm = body(hooks(&m, "mattermost")[1]);
    assert!(
        mm["text"]
            .as_str()
            .unwrap()
            .contains(&format!("[Open in cxwatch]({link})")),
        "{mm}"
    );
    // Once: a later batch queues nothing more.
    let again = app
        .store
        .escalate_due(
            chrono_tz::America::Toronto,
            "https://console.cxwatch.test".into(),
            now_ms() + 600_000,
            100,
        )
        .await
        .unwrap();
    assert_eq!(again, 0);
    let b = sent(&app, &a.token, 8).await;
    assert_eq!(b["data"]["totalElements"], 8, "{b}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_refusing_receiver_fails_and_webhooks_are_off_by_default() {
    let sinks = Sinks::start(&[]);
    let app = App::with_config(|c| sinks.configure(c));
    let a = admin(&app).await;
    // A receiver answering 400 (as Slack does to a bad payload): a permanent failure, its
    // reason without the URL's secret path.
    sinks.http_status(400).await;
    let url = sinks.hook("slack", "T000/B000/secret-token");
    let (s, b) = app
        .call(
            Method::POST,
            &format!("/api/distributions/testContact?slack={}", urlencoding(&url)),
            Some(&a.token),
            None,
        )
        .await;
    assert_eq!(s, 502, "{b}");
    // The test answers a generic message (it cannot read the receiver's page); the stored
    // reason says the status, with the scheme and host only.
    let answer = b["messages"][0].as_str().unwrap();
    assert!(
        answer.starts_with("Slack did not take the test message"),
        "{answer}"
    );
    assert_eq!(b["reasonCode"], "failed", "{b}");
    let (_, list) = app
        .call(
            Method::GET,
            "/api/notifications?state=failed",
            Some(&a.token),
            None,
        )
        .await;
    let reason = list["data"]["content"][0]["reason"].as_str().unwrap();
    assert!(
        reason.contains("Slack webhook https://localhost:"),
        "{reason}"
    );
    assert!(reason.contains("400"), "{reason}");
    assert!(!reason.contains("secret-token"), "{reason}");
    sinks.http_status(200).await;

    // Without [notify.webhook] enabled nothing leaves the machine.
    let off = App::new();
    let o = admin(&off).await;
    let (_, b) = off
        .call(
            Method::GET,
            "/api/distributions/types",
            Some(&o.token),
            None,
        )
        .await;
    assert!(b["data"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["id"].as_i64().unwrap() >= 8)
        .all(|t| t["configured"] == false));
    let before = sinks.messages().await["http"].as_array().unwrap().len();
    let (s, b) = off
        .call(
            Method::POST,
            &format!("/api/distributions/testContact?teams={}", urlencoding(&url)),
            Some(&o.token),
            None,
        )
        .await;
    assert_eq!(s, 409, "{b}");
    assert_eq!(b["code"], "NOT_CONFIGURED", "{b}");
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(
        sinks.messages().await["http"].as_array().unwrap().len(),
        before
    );
}

fn urlencoding(s: &str) -> String {
    s.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}
