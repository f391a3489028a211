//! Each delivery on its own, and failures that say what to fix without a secret,
//! in-process (`tests/harness`) against the real SMTP server and HTTP(S) sinks
//! (`tests/sinks`) and a webhook receiver that accepts connections and never answers:
//!
//! - an alert mail queued behind a hanging Teams receiver reaches the inbox while that
//!   receiver still hangs (and the failing-run-to-inbox latency is printed, 20 samples);
//! - `Retry-After` is honoured within `retry_max_secs`; a 404, an untrusted certificate
//!   (webhook and SMTP in the same words) fail at once, naming the configuration key;
//! - a webhook's URL is in no answer, stored reason or log line; a webhook test answers the
//!   same for a closed port and a refusal; loopback and link-local targets are refused
//!   unless allowed;
//! - an alert event's recipients are masked for every caller but administrators.

use crate::harness;
use crate::harness_trs;
use crate::sinks;

use std::io::Write;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use cxwatch::clock::now_ms;
use cxwatch::domain::alert_setting::AlertSettingDraft;
use cxwatch::domain::caller::{AccessType, Role, Scope};
use cxwatch::domain::schedule::Week;
use harness::App;
use harness_trs::{admin, group, ingest_ok, run};
use poem::http::Method;
use serde_json::{json, Value};
use sinks::Sinks;
use tokio::io::AsyncReadExt;

/// A webhook receiver that accepts every connection, reads what it is sent and never
/// answers: `accepted` connections so far, `closed` by the client since.
struct Hang {
    port: u16,
    accepted: Arc<AtomicUsize>,
    closed: Arc<AtomicUsize>,
}

async fn hang() -> Hang {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    let accepted = Arc::new(AtomicUsize::new(0));
    let closed = Arc::new(AtomicUsize::new(0));
    let (a, c) = (accepted.clone(), closed.clone());
    tokio::spawn(async move {
        loop {
            let Ok((mut sock, _)) = listener.accept().await else {
                return;
            };
            a.fetch_add(1, Ordering::SeqCst);
            let c = c.clone();
            tokio::spawn(async move {
                let mut buf = [0u8; 4096];
                while matches!(sock.read(&mut buf).await, Ok(n) if n > 0) {}
                c.fetch_add(1, Ordering::SeqCst);
            });
        }
    });
    Hang {
        port,
        accepted,
        closed,
    }
}

fn percentile(sorted: &[i64], p: f64) -> i64 {
    let i = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[i.clamp(1, sorted.len()) - 1]
}

async fn alert_setting(app: &App, group: i64, list: i64, recovery: bool) {
    app.store
        .create_alert_setting(
            Scope::All,
            &AlertSettingDraft {
                name: "Billing down".into(),
                active: true,
                group_id: group,
                distribution_id: list,
                email_subject: "Billing IVR failing".into(),
                failure_to_alert: 1,
                notify_on_recovery: recovery,
                statuses: vec!["FAIL".into()],
                week: Week::from_masks((1..=7).map(|d| (d, (1u64 << 48) - 1))),
                ..Default::default()
            },
        )
        .await
        .unwrap();
}

/// A failing run's alert mail is not held behind a Teams receiver that never answers: the
/// list has both contacts, the receiver's slots (`per_destination`) are all taken by earlier
/// alerts, and each mail reaches the real SMTP server while every connection to the
/// receiver is still open (its time-out is 60 s). Prints the failing-run-to-inbox latency
/// over 20 alerts.
#[tokio::test(flavor = "multi_thread")]
async fn alert_mail_goes_at_once_while_a_webhook_hangs() {
    let sinks = Sinks::start(&[]);
    let dead = hang().await;
    let app = App::with_config(|c| {
        sinks.configure(c);
        c.notify.webhook.timeout_secs = 60;
        c.notify.concurrency = 8;
        c.notify.per_destination = 4;
        c.notify.poll_ms = 1000;
    });
    let a = admin(&app).await;
    let t = a.token.as_str();
    let teams = format!("http://127.0.0.1:{}/workflows/SECRET-PATH", dead.port);
    let (s, b) = app
        .call(
            Method::POST,
            "/api/distributions",
            Some(t),
            Some(&json!({"name": "Ops", "contacts": [
                {"name": "Teams", "type": 16, "info": teams},
                {"name": "Ops mail", "type": 1, "info": "ops@example.com"}]})),
        )
        .await;
    assert_eq!(s, 200, "{b}");
    let list = b["data"]["id"].as_i64().unwrap();
    let key = app.api_key("engine").await;
    // One test case per sample: each failing run opens an event of its own.
    let cases: Vec<i64> = (1..=20).collect();
    let passes: Vec<Value> = cases
        .iter()
        .map(|c| run(&format!("p{c}"), *c, "2026-11-23T15:00:00Z", "pass"))
        .collect();
    ingest_ok(&app, &key, &passes).await;
    let g = group(&app, "Billing", "voice", &cases).await;
    alert_setting(&app, g, list, false).await;

    let mut latencies = Vec::new();
    for i in 0..20 {
        let before = now_ms();
        ingest_ok(
            &app,
            &key,
            &[run(
                &format!("f{i}"),
                cases[i],
                "2026-11-23T15:01:00Z",
                "fail",
            )],
        )
        .await;
        let m = sinks
            .wait_for(20, |m| m["mail"].as_array().unwrap().len() > i)
            .await;
        let at = m["mail"][i]["at"].as_i64().unwrap();
        // Delivered while the receiver still holds every connection it was given.
        assert_eq!(dead.closed.load(Ordering::SeqCst), 0, "sample {i}");
        latencies.push(at - before);
    }
    // The receiver's slots were all taken for most samples: it hung all along.
    let accepted = dead.accepted.load(Ordering::SeqCst);
    assert_eq!(accepted, 4, "per_destination connections, no more");
    assert_eq!(dead.closed.load(Ordering::SeqCst), 0);
    let mut sorted = latencies.clone();
    sorted.sort();
    println!(
        "failing run to inbox with one dead receiver, 20 samples: p50 {} ms, p99 {} ms, max {} ms (all: {latencies:?})",
        percentile(&sorted, 50.0),
        percentile(&sorted, 99.0),
        sorted.last().unwrap()
    );
    let m = sinks.messages().await;
    assert_eq!(m["mail"].as_array().unwrap().len(), 20);
}

/// A refusal with `Retry-After` is tried again when the receiver says (not on the back-off),
/// at most `retry_max_secs` later; a 404 fails at once naming what to fix.
#[tokio::test(flavor = "multi_thread")]
async fn retry_after_is_honoured_and_a_404_fails_at_once() {
    let sinks = Sinks::start(&[]);
    let app = App::with_config(|c| {
        sinks.configure(c);
        c.notify.retry_first_secs = 30;
        c.notify.retry_max_secs = 60;
    });
    let a = admin(&app).await;
    let t = a.token.as_str();
    let notification = |id: i64| {
        let app = &app;
        async move {
            let (s, b) = app
                .call(
                    Method::GET,
                    &format!("/api/notifications/{id}"),
                    Some(t),
                    None,
                )
                .await;
            assert_eq!(s, 200, "{b}");
            b["data"].clone()
        }
    };
    let test = |q: String| {
        let app = &app;
        async move {
            let before = now_ms();
            let (s, b) = app
                .call(
                    Method::POST,
                    &format!("/api/distributions/testContact?{q}"),
                    Some(t),
                    None,
                )
                .await;
            (before, now_ms(), s, b)
        }
    };
    let id_of = |b: &Value| -> i64 {
        let m = b["messages"][0].as_str().unwrap();
        let at = m.rfind("(notification ").unwrap() + "(notification ".len();
        m[at..]
            .chars()
            .take_while(|c| c.is_ascii_digit())
            .collect::<String>()
            .parse()
            .unwrap()
    };

    // SMS gateway and Slack webhook: 429 / 503 with Retry-After 2 (seconds), then a date
    // an hour away (capped at 60 s).
    for (q, status) in [
        ("sms=%2B15145550100".to_string(), 429),
        (format!("slack={}", enc(&sinks.hook("slack", "x"))), 503),
    ] {
        sinks.http_status_retry_after(status, "2").await;
        let (before, after, s, b) = test(q.clone()).await;
        assert_eq!(s, 502, "{b}");
        // A webhook test answers one generic code; the notification keeps the real one.
        let answered = if q.starts_with("sms") {
            "rate_limited"
        } else {
            "failed"
        };
        assert_eq!(b["reasonCode"], answered, "{b}");
        let n = notification(id_of(&b)).await;
        assert_eq!(n["state"], "queued");
        assert_eq!(n["reasonCode"], "rate_limited");
        let next = chrono::DateTime::parse_from_rfc3339(n["nextAttemptTime"].as_str().unwrap())
            .unwrap()
            .timestamp_millis();
        // Seconds in the answer: whole seconds of the time (RFC 3339 to the second).
        assert!(
            next >= (before + 2000) / 1000 * 1000 && next <= after + 2000,
            "{q}: next {next}, sent between {before} and {after}"
        );
        let date = (chrono::Utc::now() + chrono::Duration::hours(1))
            .format("%a, %d %b %Y %H:%M:%S GMT")
            .to_string();
        sinks.http_status_retry_after(status, &enc(&date)).await;
        let (before, after, _, b) = test(q.clone()).await;
        let n = notification(id_of(&b)).await;
        let next = chrono::DateTime::parse_from_rfc3339(n["nextAttemptTime"].as_str().unwrap())
            .unwrap()
            .timestamp_millis();
        assert!(
            next >= (before + 60_000) / 1000 * 1000 && next <= after + 60_000,
            "{q}: capped at retry_max_secs: {next}"
        );
    }

    // 404: no retry can help, one attempt, and the reason says what to fix.
    sinks.http_status(404).await;
    let (_, _, s, b) = test("sms=%2B15145550100".into()).await;
    assert_eq!(s, 502, "{b}");
    assert_eq!(b["reasonCode"], "http_status");
    assert_eq!(b["reasonStatus"], 404);
    let n = notification(id_of(&b)).await;
    assert_eq!(
        (n["state"].as_str(), n["attempts"].as_u64()),
        (Some("failed"), Some(1))
    );
    assert!(
        n["reason"]
            .as_str()
            .unwrap()
            .contains("check notify.sms.url"),
        "{n}"
    );
}

/// A certificate not signed by a trusted CA fails at once, in the same words for the mail
/// server as for a webhook, naming the section's `ca` and `trust` keys.
#[tokio::test(flavor = "multi_thread")]
async fn untrusted_certificates_fail_at_once_in_the_same_words() {
    let sinks = Sinks::start(&[]);
    let app = App::with_config(|c| {
        sinks.configure(c);
        c.notify.smtp.ca = None;
        c.notify.webhook.ca = None;
    });
    let a = admin(&app).await;
    let t = a.token.as_str();
    for (q, section) in [
        (
            // By address: a name with two (::1 and 127.0.0.1) reports the last one's error.
            format!(
                "teams={}",
                enc(&format!("https://127.0.0.1:{}/teams/x", sinks.https))
            ),
            "notify.webhook",
        ),
        // Last: the sink's SMTP server does not outlive a client that drops the handshake.
        ("email=ops%40example.com".to_string(), "notify.smtp"),
    ] {
        let (s, b) = app
            .call(
                Method::POST,
                &format!("/api/distributions/testContact?{q}"),
                Some(t),
                None,
            )
            .await;
        assert_eq!(s, 502, "{b}");
        let m = b["messages"][0].as_str().unwrap();
        let at = m.rfind("(notification ").unwrap() + "(notification ".len();
        let id: String = m[at..].chars().take_while(|c| c.is_ascii_digit()).collect();
        let (_, one) = app
            .call(
                Method::GET,
                &format!("/api/notifications/{id}"),
                Some(t),
                None,
            )
            .await;
        let n = &one["data"];
        assert_eq!(n["attempts"], 1, "{n}");
        assert_eq!(n["reasonCode"], "untrusted_certificate", "{n}");
        let reason = n["reason"].as_str().unwrap();
        for part in [
            "certificate not trusted (".to_string(),
            "): give the CA that signed it in ".to_string(),
            format!("{section}.ca (or set {section}.trust = "),
        ] {
            assert!(reason.contains(&part), "{part:?} not in {reason:?}");
        }
        assert!(
            !reason.contains("Connection error: Connection error"),
            "{reason}"
        );
    }
}

/// A `tracing` subscriber for the whole process (nextest runs each test in its own) that
/// keeps every log line.
#[derive(Clone, Default)]
struct Log(Arc<Mutex<Vec<u8>>>);

impl Write for Log {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl<'a> tracing_subscriber::fmt::MakeWriter<'a> for Log {
    type Writer = Log;
    fn make_writer(&'a self) -> Log {
        self.clone()
    }
}

/// A webhook's URL (its path is the secret) is in no answer, stored reason, site channel
/// outcome or log line; the test answers the same for a closed port as for a refusal; and
/// loopback or link-local targets are refused unless their host is allowed.
#[tokio::test(flavor = "multi_thread")]
async fn webhook_urls_stay_secret_and_internal_targets_are_refused() {
    let log = Log::default();
    tracing::subscriber::set_global_default(
        tracing_subscriber::fmt()
            .with_max_level(tracing::Level::DEBUG)
            .with_writer(log.clone())
            .with_ansi(false)
            .finish(),
    )
    .unwrap();
    let sinks = Sinks::start(&[]);
    let closed = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let app = App::with_config(|c| {
        sinks.configure(c);
        c.notify.max_attempts = 1;
    });
    let a = admin(&app).await;
    let t = a.token.as_str();
    let secret = "T0KEN-in-the-path";
    let test = |q: String| {
        let app = &app;
        async move {
            app.call(
                Method::POST,
                &format!("/api/distributions/testContact?{q}"),
                Some(t),
                None,
            )
            .await
        }
    };
    let without_id = |b: &Value| {
        let m = b["messages"][0].as_str().unwrap().to_string();
        m[..m.rfind(" (notification").unwrap()].to_string()
    };

    // A closed port and a receiver that refuses (400 with a body): the same answer.
    let (s, down) = test(format!(
        "slack={}",
        enc(&format!("http://127.0.0.1:{closed}/services/{secret}"))
    ))
    .await;
    assert_eq!(s, 502, "{down}");
    sinks.http_status(400).await;
    let (s, refused) = test(format!(
        "slack={}",
        enc(&format!("http://127.0.0.1:{}/slack/{secret}", sinks.http))
    ))
    .await;
    assert_eq!(s, 502, "{refused}");
    assert_eq!(without_id(&down), without_id(&refused));
    assert_eq!(down["reasonCode"], refused["reasonCode"]);
    assert!(!refused.to_string().contains("second line"), "{refused}");
    assert!(!refused.to_string().contains("refused with"), "{refused}");
    sinks.http_status(200).await;

    // Stored reasons, the site's channel outcome: scheme and host at most.
    let (_, list) = app
        .call(
            Method::GET,
            "/api/notifications?state=failed",
            Some(t),
            None,
        )
        .await;
    let items = list["data"]["content"].as_array().unwrap();
    assert_eq!(items.len(), 2, "{list}");
    let codes: Vec<&str> = items
        .iter()
        .map(|n| n["reasonCode"].as_str().unwrap())
        .collect();
    assert_eq!(codes, ["http_status", "unreachable"], "{list}");
    for n in items {
        let reason = n["reason"].as_str().unwrap();
        assert!(!reason.contains(secret), "{reason}");
        assert!(
            reason.contains("Slack webhook http://127.0.0.1:"),
            "{reason}"
        );
    }
    let (s, ch) = app
        .call(Method::GET, "/api/site/channels", Some(t), None)
        .await;
    assert_eq!(s, 200, "{ch}");
    assert!(!ch.to_string().contains(secret), "{ch}");
    let hooks = ch["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["channel"] == "webhook")
        .unwrap();
    assert_eq!(hooks["last"]["reasonCode"], "http_status", "{hooks}");
    assert_eq!(hooks["last"]["reasonStatus"], 400, "{hooks}");

    // Loopback and link-local targets not allowed: refused before any request.
    let strict = App::with_config(|c| {
        sinks.configure(c);
        c.notify.webhook.allowed_hosts = vec!["localhost".into()];
    });
    let sa = admin(&strict).await;
    let before = sinks.messages().await["http"].as_array().unwrap().len();
    for url in [
        format!("http://127.0.0.1:{}/slack/{secret}", sinks.http),
        "http://169.254.169.254/latest/meta-data/".to_string(),
        "http://[fe80::1]/x".to_string(),
        "http://[::1]:9/x".to_string(),
    ] {
        let (s, b) = strict
            .call(
                Method::POST,
                &format!("/api/distributions/testContact?webhook={}", enc(&url)),
                Some(&sa.token),
                None,
            )
            .await;
        assert_eq!(s, 502, "{url}: {b}");
        assert_eq!(b["reasonCode"], "blocked_host", "{url}: {b}");
        assert!(
            b["messages"][0]
                .as_str()
                .unwrap()
                .contains("notify.webhook.allowed_hosts"),
            "{b}"
        );
    }
    // An allowed name still reaches its receiver.
    let (s, b) = strict
        .call(
            Method::POST,
            &format!(
                "/api/distributions/testContact?slack={}",
                enc(&sinks.hook("slack", "ok"))
            ),
            Some(&sa.token),
            None,
        )
        .await;
    assert_eq!(s, 200, "{b}");
    assert_eq!(
        sinks.messages().await["http"].as_array().unwrap().len(),
        before + 1
    );

    // The log: the failures were logged, without the path.
    tokio::time::sleep(Duration::from_millis(100)).await;
    let text = String::from_utf8(log.0.lock().unwrap().clone()).unwrap();
    assert!(text.contains("notification not delivered"), "{text}");
    assert!(text.contains("Slack webhook http://127.0.0.1:"), "{text}");
    assert!(
        !text.contains(secret),
        "the log has the secret path:\n{text}"
    );
}

/// `GET alerts/events/{id}`: administrators see each notification's recipient and reason;
/// a user of the group, read-write or read-only, sees the channel, the outcome and its code,
/// a webhook's scheme and host, and no address, number or path.
#[tokio::test(flavor = "multi_thread")]
async fn alert_recipients_are_masked_for_every_role_but_administrators() {
    let sinks = Sinks::start(&[]);
    let app = App::with_config(|c| sinks.configure(c));
    let a = admin(&app).await;
    let t = a.token.as_str();
    let secret = "B0T-SECRET";
    let (s, b) = app
        .call(
            Method::POST,
            "/api/distributions",
            Some(t),
            Some(&json!({"name": "Ops", "contacts": [
                {"name": "Teams", "type": 16, "info": sinks.hook("teams", secret)},
                {"name": "Ann", "type": 1, "info": "ann.private@example.com"},
                {"name": "Ann SMS", "type": 2, "info": "+15145550123"}]})),
        )
        .await;
    assert_eq!(s, 200, "{b}");
    let list = b["data"]["id"].as_i64().unwrap();
    let key = app.api_key("engine").await;
    ingest_ok(&app, &key, &[run("p0", 1, "2026-11-23T15:00:00Z", "pass")]).await;
    let g = group(&app, "Billing", "voice", &[1]).await;
    alert_setting(&app, g, list, false).await;
    ingest_ok(&app, &key, &[run("f1", 1, "2026-11-23T15:01:00Z", "fail")]).await;
    sinks
        .wait_for(15, |m| {
            !m["mail"].as_array().unwrap().is_empty() && m["http"].as_array().unwrap().len() >= 2
        })
        .await;
    let (_, events) = app
        .call(
            Method::GET,
            "/api/alerts/events?pageNo=0&pageSize=10",
            Some(t),
            None,
        )
        .await;
    let id = events["data"]["content"][0]["alertId"].as_i64().unwrap();
    let path = format!("/api/alerts/events/{id}");

    let (s, full) = app.call(Method::GET, &path, Some(t), None).await;
    assert_eq!(s, 200, "{full}");
    let text = full.to_string();
    for shown in [secret, "ann.private@example.com", "+15145550123"] {
        assert!(text.contains(shown), "administrators see {shown}: {full}");
    }
    for (role, access) in [
        (Role::Admin, AccessType::ReadOnly),
        (Role::User, AccessType::ReadWrite),
        (Role::User, AccessType::ReadOnly),
    ] {
        let who = app
            .user(
                &format!("{}-{}@example.com", role.as_str(), access.as_str()),
                role,
                access,
                &[g],
            )
            .await;
        let (s, b) = app.call(Method::GET, &path, Some(&who.token), None).await;
        assert_eq!(s, 200, "{b}");
        let text = b.to_string();
        if role == Role::Admin {
            assert!(
                text.contains(secret),
                "a read-only administrator is one: {b}"
            );
            continue;
        }
        for hidden in [secret, "ann.private@example.com", "+15145550123", "/teams/"] {
            assert!(
                !text.contains(hidden),
                "{role:?} {access:?} sees {hidden}: {b}"
            );
        }
        let notes = b["data"]["notifications"].as_array().unwrap();
        assert_eq!(notes.len(), 3, "{b}");
        for n in notes {
            assert_eq!(n["recipientHidden"], true);
            assert!(n["reason"].is_null());
            assert!(n["state"].is_string());
        }
        let teams = notes.iter().find(|n| n["type"] == 16).unwrap();
        assert_eq!(teams["recipient"], "https://localhost/…");
        assert_eq!(b["data"]["distributionName"], "Ops");
    }
}

fn enc(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}
