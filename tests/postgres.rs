//! Several cxwatch instances on one PostgreSQL database (docs/postgres.md): the real binary
//! started twice on the same `store.url`, as behind a load balancer. A token one issues
//! works on the other; sign-in throttling counts the attempts made on both; and a `kill -9`
//! of the instance that holds the sender's lease, in the middle of a stream of failing runs
//! sent to both, leaves exactly the alert events and notifications expected, once each; and
//! the demo's live feed moves to the other instance when its holder is killed.
//!
//! Runs when `TEST_POSTGRES_URL` names the server (the README's test command sets it); each
//! test makes its own database there.

use crate::common;
use crate::sinks;

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use cxwatch::domain::caller::{AccessType, Role};
use cxwatch::domain::distribution::{Contact, ContactType, DistributionDraft};
use cxwatch::domain::user::UserDraft;
use cxwatch::store::Store;
use serde_json::{json, Value};

const PASSWORD: &str = "correct horse battery";

struct Site {
    rt: tokio::runtime::Runtime,
    url: String,
    store: Store,
    _dir: tempfile::TempDir,
}

impl Site {
    /// A fresh database on the test server, its schema made, or None without one.
    fn new() -> Option<Site> {
        let base = std::env::var("TEST_POSTGRES_URL").ok()?;
        let rt = tokio::runtime::Runtime::new().unwrap();
        let url = rt.block_on(cxwatch::store::pg::create_test_database(&base));
        let dir = tempfile::tempdir().unwrap();
        let config = cxwatch::config::StoreConfig {
            url: url.clone(),
            ..Default::default()
        };
        let store = rt.block_on(Store::connect(&config, dir.path())).unwrap();
        Some(Site {
            rt,
            url,
            store,
            _dir: dir,
        })
    }

    fn admin(&self) -> i64 {
        let hash = cxwatch::auth::password::hash_password(PASSWORD).unwrap();
        let draft = UserDraft {
            username: "ada@example.com".into(),
            first_name: "Ada".into(),
            last_name: "Lovelace".into(),
            role: Role::Admin,
            access: AccessType::ReadWrite,
            group_ids: vec![],
        };
        self.rt
            .block_on(self.store.create_user(&draft, &hash))
            .unwrap()
    }

    /// An instance of the real binary on this database.
    fn instance(&self, extra_toml: &str) -> common::Server {
        common::start(common::Opts {
            toml: format!("[store]\nurl = \"{}\"\n{extra_toml}", self.url),
            plain_http: true,
            env: vec![("CXWATCH_LOG".into(), "warn".into())],
            ..Default::default()
        })
    }

    fn count(&self, sql: &str) -> i64 {
        let c = self.rt.block_on(async {
            let (client, conn) = tokio_postgres::connect(&self.url, tokio_postgres::NoTls)
                .await
                .unwrap();
            tokio::spawn(conn);
            client.query_one(sql, &[]).await.unwrap().get::<_, i64>(0)
        });
        c
    }
}

fn signin(server: &common::Server, password: &str) -> (u16, Value) {
    let r = common::client()
        .post(server.url("/api/auth/signin"))
        .json(&json!({"username": "ada@example.com", "password": password, "remember": false}))
        .send()
        .unwrap();
    (r.status().as_u16(), r.json().unwrap_or(Value::Null))
}

fn get(server: &common::Server, token: &str, path: &str) -> (u16, Value) {
    let r = common::client()
        .get(server.url(path))
        .bearer_auth(token)
        .send()
        .unwrap();
    (r.status().as_u16(), r.json().unwrap_or(Value::Null))
}

#[test]
fn a_token_from_one_instance_works_on_the_other_and_throttling_counts_both() {
    let Some(site) = Site::new() else {
        return;
    };
    let id = site.admin();
    let a = site.instance("");
    let b = site.instance("");

    let (status, body) = signin(&a, PASSWORD);
    assert_eq!(status, 200, "{body}");
    let token = body["data"]["accessToken"].as_str().unwrap().to_string();
    let (status, body) = get(&b, &token, &format!("/api/users/{id}"));
    assert_eq!(status, 200, "the token of a works on b: {body}");
    assert_eq!(body["data"]["username"], "ada@example.com");
    // Signing out on b ends the session on a too.
    let r = common::client()
        .post(b.url("/api/auth/signout"))
        .bearer_auth(&token)
        .send()
        .unwrap();
    assert_eq!(r.status().as_u16(), 200);
    assert_eq!(get(&a, &token, "/api/users").0, 401);

    // Five free failures, spread over both instances; the sixth attempt waits, on either.
    for (i, server) in [&a, &b, &a, &b, &a].into_iter().enumerate() {
        assert_eq!(signin(server, "wrong").0, 401, "failure {}", i + 1);
    }
    for server in [&b, &a] {
        let (status, body) = signin(server, PASSWORD);
        assert_eq!(status, 429, "{body}");
        assert!(
            body["messages"][0]
                .as_str()
                .unwrap()
                .starts_with("Too many failed sign-in attempts"),
            "{body}"
        );
    }
    assert_eq!(
        site.count(
            "SELECT failures FROM signin_failures WHERE key = 'user 127.0.0.1 ada@example.com'"
        ),
        5
    );
    // The rightful user from another address signs in, on either instance.
    for server in [&a, &b] {
        let (status, body) = signin_from(server, "127.0.0.8", "ada@example.com", PASSWORD);
        assert_eq!(status, 200, "{body}");
    }

    // Twenty usernames guessed once each from one address, spread over both instances: the
    // address waits on either, whatever it tries next.
    for i in 0..20 {
        let server = if i % 2 == 0 { &a } else { &b };
        let (status, body) = signin_from(server, "127.0.0.9", &format!("u{i}@example.com"), "x");
        assert_eq!(status, 401, "guess {i}: {body}");
    }
    for server in [&a, &b] {
        let (status, body) = signin_from(server, "127.0.0.9", "ada@example.com", PASSWORD);
        assert_eq!(status, 429, "{body}");
    }
    assert_eq!(
        site.count("SELECT failures FROM signin_failures WHERE key = 'source 127.0.0.9'"),
        20
    );
}

fn signin_from(
    server: &common::Server,
    from: &str,
    username: &str,
    password: &str,
) -> (u16, Value) {
    let c = reqwest::blocking::Client::builder()
        .danger_accept_invalid_certs(true)
        .local_address(Some(from.parse().unwrap()))
        .timeout(Duration::from_secs(60))
        .build()
        .unwrap();
    let r = c
        .post(server.url("/api/auth/signin"))
        .json(&json!({"username": username, "password": password}))
        .send()
        .unwrap();
    (r.status().as_u16(), r.json().unwrap_or(Value::Null))
}

/// A voice run of test case `case` at `t` (UTC ms), failing.
fn failing_run(case: i64, round: i64, t: i64) -> Value {
    let time = chrono::DateTime::from_timestamp_millis(t)
        .unwrap()
        .to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    json!({
        "engineRunId": format!("stream-{case}-{round}"),
        "testCase": {"id": case, "name": format!("Case {case:03}"), "channel": "voice",
                     "ivr": {"id": 10, "name": "IVR 10"}},
        "runTime": time,
        "runDuration": 42.5,
        "status": "fail",
        "runType": "Schedule",
        "segments": [{"segmentId": 1, "segmentName": "Greeting", "steps": [
            {"stepId": 11, "stepType": "PROMPT", "typeDisplayText": "Prompt",
             "prompt": "Welcome", "testResult": {"status": "fail", "latency": 900}}]}]
    })
}

/// Posts a batch to `server`; false when the instance is gone (the engine then retries
/// the batch elsewhere, as a test engine behind a load balancer does).
fn post(server: &common::Server, key: &str, runs: &[Value]) -> bool {
    let sent = common::client()
        .post(server.url("/api/ingest/v1/runs"))
        .header("X-API-Key", key)
        .json(&json!({ "runs": runs }))
        .timeout(Duration::from_secs(20))
        .send();
    match sent {
        Ok(r) => {
            assert_eq!(r.status().as_u16(), 200, "{:?}", r.text());
            true
        }
        Err(_) => false,
    }
}

#[test]
fn kill_9_of_the_engine_instance_mid_stream_loses_and_repeats_nothing() {
    let Some(site) = Site::new() else {
        return;
    };
    const CASES: i64 = 6;
    const ROUNDS: i64 = 12;
    let sinks = sinks::Sinks::start(&["--delay-ms", "30"]);
    let admin = site.admin();
    let key = site.rt.block_on(site.store.add_api_key("engine")).unwrap();
    let t0 = common::now_ms() - 3_600_000;
    // The test cases exist (a passing run each), then a group of them with a setting that
    // opens an event at the second consecutive failure and mails one contact.
    let seed: Vec<_> = (1..=CASES)
        .map(|c| {
            let mut r = failing_run(c, 0, t0);
            r["status"] = "pass".into();
            r["segments"][0]["steps"][0]["testResult"]["status"] = "pass".into();
            cxwatch::domain::ingest::parse_run_str(&r.to_string()).unwrap()
        })
        .collect();
    let tz = chrono_tz::America::Toronto;
    site.rt.block_on(site.store.ingest_runs(tz, seed)).unwrap();
    let group = site
        .rt
        .block_on(
            site.store
                .create_group(&cxwatch::store::catalog::GroupDraft {
                    name: "Billing".into(),
                    channel: cxwatch::domain::run::Channel::Voice,
                    test_case_ids: (1..=CASES).collect(),
                }),
        )
        .unwrap()
        .group
        .id;
    let list = site
        .rt
        .block_on(site.store.create_distribution(&DistributionDraft {
            name: "Billing on call".into(),
            contacts: vec![Contact {
                name: "Ops".into(),
                kind: ContactType::Email,
                info: "ops@example.com".into(),
            }],
        }))
        .unwrap();

    let toml = sinks.toml();
    // a starts first: it holds the sender's lease.
    let mut a = site.instance(&toml);
    std::thread::sleep(Duration::from_millis(500));
    let b = site.instance(&toml);
    let (_, body) = signin(&a, PASSWORD);
    let token = body["data"]["accessToken"].as_str().unwrap().to_string();
    let setting = common::client()
        .post(a.url("/api/alerts/settings"))
        .bearer_auth(&token)
        .json(&json!({
            "name": "Billing down", "active": true, "testCaseGroupId": group,
            "distributionId": list, "emailSubject": "Billing failing",
            "voiceMessage": "Billing is failing.", "smsPrefix": "[cxwatch]",
            "attachRecording": false, "attachJiraTicket": false, "failureToAlert": 2,
            "notifyOnRecovery": false, "alertStatus": ["FAIL"],
            "schedule": (1..=7).map(|d| json!({"dayOfWeek": d, "startTimeSlot": "00:00",
                                              "endTimeSlot": "24:00"})).collect::<Vec<_>>()
        }))
        .send()
        .unwrap();
    assert_eq!(setting.status().as_u16(), 200, "{:?}", setting.text());
    let _ = admin;

    // The stream: one batch per round (every case fails once), to a and b in turn; a is
    // killed half-way, and what it did not answer goes to b.
    let mut retried = 0;
    for round in 1..=ROUNDS {
        let runs: Vec<Value> = (1..=CASES)
            .map(|c| failing_run(c, round, t0 + round * 60_000))
            .collect();
        if round == ROUNDS / 2 {
            // Mid-batch: the batch is on its way to a when a dies.
            let url = a.url("/api/ingest/v1/runs");
            let (k, body) = (key.clone(), json!({ "runs": runs }));
            let inflight = std::thread::spawn(move || {
                common::client()
                    .post(url)
                    .header("X-API-Key", k)
                    .json(&body)
                    .send()
                    .map(|r| r.status().as_u16())
            });
            std::thread::sleep(Duration::from_millis(5));
            a.kill();
            let _ = inflight.join();
            // Whether or not a committed it, the engine sends it again to b.
            assert!(post(&b, &key, &runs));
            retried += 1;
            continue;
        }
        let to_a = round % 2 == 1 && round < ROUNDS / 2;
        if !(to_a && post(&a, &key, &runs)) {
            assert!(post(&b, &key, &runs));
        }
    }
    assert_eq!(retried, 1);

    // Exactly one event per test case, holding every failing run of it once.
    assert_eq!(site.count("SELECT count(*) FROM alert_events"), CASES);
    assert_eq!(
        site.count("SELECT count(*) FROM alert_event_runs"),
        CASES * ROUNDS
    );
    assert_eq!(
        site.count("SELECT count(DISTINCT run_id) FROM alert_event_runs"),
        CASES * ROUNDS
    );
    assert_eq!(
        site.count("SELECT count(*) FROM test_runs"),
        CASES * (ROUNDS + 1),
        "no run stored twice"
    );
    // One notification per event, queued once; b took over the sending and delivered all.
    assert_eq!(
        site.count("SELECT count(*) FROM outbox WHERE cause LIKE 'alert:%'"),
        CASES
    );
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let sent = site.count("SELECT count(*) FROM outbox WHERE state = 'sent'");
        if sent == CASES {
            break;
        }
        assert!(Instant::now() < deadline, "only {sent} of {CASES} sent");
        std::thread::sleep(Duration::from_millis(200));
    }
    let mails = sinks.messages_blocking()["mail"]
        .as_array()
        .unwrap()
        .clone();
    let ids: BTreeSet<String> = mails
        .iter()
        .map(|m| m["messageId"].as_str().unwrap_or("").to_string())
        .collect();
    assert_eq!(
        ids.len() as i64,
        CASES,
        "every event's mail arrived: {ids:?}"
    );
    // A mail a killed sender handed to the SMTP server without living to mark it sent is
    // sent again by the next holder (at least once; its key is the Message-ID, so a mail
    // client shows it once). Anything more would be two senders at once.
    let in_flight = mails.len() as i64 - CASES;
    assert!(
        (0..=4).contains(&in_flight),
        "{} mails for {CASES} notifications: one sender at a time",
        mails.len()
    );
    drop(b);
}

/// The demo's live feed runs on the instance holding the lease `demo`; when that one is
/// killed, another instance takes the feed over and goes on from where it stopped.
#[test]
fn the_demo_feed_runs_on_one_instance_and_moves_when_it_dies() {
    let Some(site) = Site::new() else {
        return;
    };
    // A demo whose history is already stored (none, here: the test is about the live
    // feed), anchored a minute ago, so the feed has runs to ingest from its first tick.
    let anchor = common::now() - chrono::Duration::minutes(1);
    let state = json!({
        "seed": 7, "anchor": anchor, "until": anchor, "clips": {}, "history_complete": true
    });
    site.rt.block_on(async {
        let (client, conn) = tokio_postgres::connect(&site.url, tokio_postgres::NoTls)
            .await
            .unwrap();
        tokio::spawn(conn);
        client
            .execute(
                "INSERT INTO meta (key, value) VALUES ('demo_state', $1)",
                &[&state.to_string()],
            )
            .await
            .unwrap();
    });
    let until_ms = || {
        site.count(
            "SELECT (extract(epoch FROM ((value::json)->>'until')::timestamptz) * 1000)::BIGINT
               FROM meta WHERE key = 'demo_state'",
        )
    };
    let wait_until = |what: &str, done: &dyn Fn() -> bool| {
        let deadline = Instant::now() + Duration::from_secs(60);
        while !done() {
            assert!(Instant::now() < deadline, "timed out waiting until {what}");
            std::thread::sleep(Duration::from_millis(200));
        }
    };
    let demo = || common::Opts {
        toml: format!("[store]\nurl = \"{}\"\n", site.url),
        args: vec!["--demo".into()],
        plain_http: true,
        env: vec![("CXWATCH_LOG".into(), "info".into())],
        ..Default::default()
    };
    let mut a = common::start(demo());
    wait_until("the first instance's feed stores runs", &|| {
        site.count("SELECT count(*) FROM test_runs") > 0
    });
    let b = common::start(demo());
    // While a lives, b only waits; a's connections close with its process, and b takes the
    // lease within about a second and goes on from the stored state: its next tick
    // stores what ended since a's last one.
    std::thread::sleep(Duration::from_secs(2));
    a.kill();
    let killed = until_ms();
    wait_until("the second instance's feed moves on", &|| {
        until_ms() > killed + 5_000
    });
    drop(b);
}
