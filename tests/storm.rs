//! An alert storm on three instances of the real binary behind a load balancer, one of them
//! killed with `kill -9` in the middle (docs/postgres.md 'Several instances').
//!
//! Three `cxwatch serve` share one fresh PostgreSQL database; a round-robin TCP balancer
//! (below) spreads the test engines' connections over them and skips an instance that no
//! longer accepts. Three engine threads post every test case's failing runs, round after
//! round, through the balancer, and post a batch again when its answer is lost, as an
//! engine does. The alert setting opens an event at the second failure and mails and
//! webhooks its list; its escalation is due as the event opens, so the escalation worker
//! queues the second list's notifications during the storm too. The instance started first, which holds every lease (the outbox's sender, the
//! escalation worker, ...), is killed half-way.
//!
//! Afterwards each test case has exactly one event holding each of its failing runs once
//! (none opened twice, none lost), each event was escalated once (one outbox row per
//! contact), and every notification reached the real SMTP server or the webhook sink at
//! least once; a duplicate (one the killed sender had handed over without living to mark
//! it sent) is counted and bounded. The figures are printed.
//!
//! Runs when `TEST_POSTGRES_URL` names the server; makes its own database there.

use crate::common;
use crate::sinks;

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use cxwatch::domain::alert_setting::{AlertSettingDraft, Escalation};
use cxwatch::domain::caller::Scope;
use cxwatch::domain::distribution::{Contact, ContactType, DistributionDraft};
use cxwatch::domain::run::Channel;
use cxwatch::domain::schedule::Week;
use cxwatch::store::catalog::GroupDraft;
use cxwatch::store::Store;
use serde_json::{json, Value};

const CASES: i64 = 30;
const ROUNDS: i64 = 8;
const ENGINES: i64 = 3;
/// Contacts of each list: one mail, one webhook.
const CONTACTS: i64 = 2;
/// Notifications the sender has in flight at once.
const CONCURRENCY: usize = 4;
/// The leases an instance takes at start-up: notify, escalations, reports (tickets only
/// with `[jira]`).
const LEASES: i64 = 3;

/// A round-robin TCP balancer on 127.0.0.1: each connection goes to the next instance; one
/// that refuses the connection is skipped, as a balancer's health check would.
struct Balancer {
    addr: SocketAddr,
    stop: Arc<AtomicBool>,
}

impl Balancer {
    fn start(backends: Vec<u16>) -> Balancer {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let stop = Arc::new(AtomicBool::new(false));
        let next = AtomicUsize::new(0);
        let halt = stop.clone();
        std::thread::spawn(move || {
            for client in listener.incoming() {
                if halt.load(Ordering::Acquire) {
                    return;
                }
                let Ok(client) = client else { continue };
                let first = next.fetch_add(1, Ordering::Relaxed);
                let upstream = (0..backends.len()).find_map(|i| {
                    let port = backends[(first + i) % backends.len()];
                    TcpStream::connect(("127.0.0.1", port)).ok()
                });
                let Some(upstream) = upstream else {
                    continue; // dropped: the engine retries
                };
                pipe(client, upstream);
            }
        });
        Balancer { addr, stop }
    }

    fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }
}

impl Drop for Balancer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Release);
        let _ = TcpStream::connect(self.addr);
    }
}

/// Copies bytes both ways until either side closes.
fn pipe(a: TcpStream, b: TcpStream) {
    let one_way = |mut from: TcpStream, mut to: TcpStream| {
        std::thread::spawn(move || {
            let mut buf = [0u8; 16 * 1024];
            loop {
                match from.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => {
                        if to.write_all(&buf[..n]).is_err() {
                            break;
                        }
                    }
                }
            }
            let _ = to.shutdown(Shutdown::Write);
            let _ = from.shutdown(Shutdown::Read);
        });
    };
    one_way(a.try_clone().unwrap(), b.try_clone().unwrap());
    one_way(b, a);
}

/// A voice run of test case `case` in round `round` at `t` (UTC ms), failing.
fn failing_run(case: i64, round: i64, t: i64) -> Value {
    let time = chrono::DateTime::from_timestamp_millis(t)
        .unwrap()
        .to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    let status = if round == 0 { "pass" } else { "fail" };
    json!({
        "engineRunId": format!("storm-{case}-{round}"),
        "testCase": {"id": case, "name": format!("Case {case:03}"), "channel": "voice",
                     "ivr": {"id": 10, "name": "IVR 10"}},
        "runTime": time,
        "runDuration": 42.5,
        "status": status,
        "runType": "Schedule",
        "segments": [{"segmentId": 1, "segmentName": "Greeting", "steps": [
            {"stepId": 11, "stepType": "PROMPT", "typeDisplayText": "Prompt",
             "prompt": "Welcome", "testResult": {"status": status, "latency": 900}}]}]
    })
}

fn list(name: &str, who: &str, hook: String) -> DistributionDraft {
    DistributionDraft {
        name: name.into(),
        contacts: vec![
            Contact {
                name: format!("{who} mail"),
                kind: ContactType::Email,
                info: format!("{who}@example.com"),
            },
            Contact {
                name: format!("{who} hook"),
                kind: ContactType::Webhook,
                info: hook,
            },
        ],
    }
}

fn count(rt: &tokio::runtime::Runtime, url: &str, sql: &str) -> i64 {
    rt.block_on(async {
        let (client, conn) = tokio_postgres::connect(url, tokio_postgres::NoTls)
            .await
            .unwrap();
        tokio::spawn(conn);
        client.query_one(sql, &[]).await.unwrap().get::<_, i64>(0)
    })
}

fn execute(rt: &tokio::runtime::Runtime, url: &str, sql: &str) {
    rt.block_on(async {
        let (client, conn) = tokio_postgres::connect(url, tokio_postgres::NoTls)
            .await
            .unwrap();
        tokio::spawn(conn);
        client.batch_execute(sql).await.unwrap();
    })
}

/// Each delivery the sinks received: (notification key, cause kind `alert`/`escalation`).
fn deliveries(sinks: &sinks::Sinks) -> Vec<(String, String)> {
    let m = sinks.messages_blocking();
    let mut out = Vec::new();
    for mail in m["mail"].as_array().unwrap() {
        // Message-ID <key-as-local-part@domain>: the key, kept to letters, digits and .-_
        let id = mail["messageId"]
            .as_str()
            .unwrap_or("")
            .trim_matches(['<', '>']);
        let local = id.split('@').next().unwrap_or("").to_string();
        let kind = local
            .split([':', '.', '-', '_'])
            .next()
            .unwrap_or("")
            .into();
        out.push((format!("mail {local}"), kind));
    }
    for req in m["http"].as_array().unwrap() {
        if !req["path"].as_str().unwrap_or("").starts_with("/webhook/") {
            continue;
        }
        let key = req["headers"]["x-cxwatch-delivery"]
            .as_str()
            .unwrap_or("")
            .to_string();
        let kind = key.split(':').next().unwrap_or("").into();
        out.push((format!("hook {key}"), kind));
    }
    out
}

#[test]
fn an_alert_storm_on_three_instances_with_one_killed_opens_each_event_once() {
    let Ok(base) = std::env::var("TEST_POSTGRES_URL") else {
        return;
    };
    let started = Instant::now();
    let rt = tokio::runtime::Runtime::new().unwrap();
    let url = rt.block_on(cxwatch::store::pg::create_test_database(&base));
    let dir = tempfile::tempdir().unwrap();
    let store = rt
        .block_on(Store::connect(
            &cxwatch::config::StoreConfig {
                url: url.clone(),
                ..Default::default()
            },
            dir.path(),
        ))
        .unwrap();
    let sinks = sinks::Sinks::start(&["--delay-ms", "20"]);
    let hook = |name: &str| format!("http://127.0.0.1:{}/webhook/{name}", sinks.http);

    // An hour ago every case passed once; the group, the lists and the setting.
    let t0 = common::now_ms() - 3_600_000;
    let tz = chrono_tz::UTC;
    rt.block_on(async {
        let seed = (1..=CASES)
            .map(|c| {
                cxwatch::domain::ingest::parse_run_str(&failing_run(c, 0, t0).to_string()).unwrap()
            })
            .collect();
        store.ingest_runs(tz, seed).await.unwrap();
        let group = store
            .create_group(&GroupDraft {
                name: "Billing".into(),
                channel: Channel::Voice,
                test_case_ids: (1..=CASES).collect(),
            })
            .await
            .unwrap()
            .group
            .id;
        let on_call = store
            .create_distribution(&list("On call", "oncall", hook("oncall")))
            .await
            .unwrap();
        let managers = store
            .create_distribution(&list("Managers", "manager", hook("managers")))
            .await
            .unwrap();
        store
            .create_alert_setting(
                Scope::All,
                &AlertSettingDraft {
                    name: "Billing down".into(),
                    active: true,
                    group_id: group,
                    distribution_id: on_call,
                    email_subject: "Billing failing".into(),
                    voice_message: "Billing is failing".into(),
                    sms_prefix: "[CX]".into(),
                    failure_to_alert: 2,
                    statuses: vec!["FAIL".into()],
                    week: Week::from_masks((1..=7).map(|d| (d, (1u64 << 48) - 1))),
                    escalation: Some(Escalation {
                        distribution_id: managers,
                        delay_min: 1,
                    }),
                    ..Default::default()
                },
            )
            .await
            .unwrap();
    });
    let key = rt.block_on(store.add_api_key("engine")).unwrap();
    drop(store);
    // The delay is a minute at least (the API and a CHECK of the schema); 0, set in this
    // test's own database, makes each escalation due as its event opens, so that they are
    // queued during the storm (and across the kill) rather than a minute later. The
    // worker, its lease and its transaction are the same whatever the delay.
    execute(
        &rt,
        &url,
        "ALTER TABLE alert_settings DROP CONSTRAINT alert_settings_escalation_delay_min_check;
         UPDATE alert_settings SET escalation_delay_min = 0",
    );

    let toml = format!(
        "[store]\nurl = \"{url}\"\n{}[notify.webhook]\nenabled = true\nsecret = \"{}\"\n\
         allowed_hosts = [\"127.0.0.1\"]\ntimeout_secs = 5\n",
        sinks.toml().replace(
            "poll_ms = 100",
            &format!(
                "poll_ms = 100\nconcurrency = {CONCURRENCY}\n\
                 public_url = \"https://console.cxwatch.test\""
            )
        ),
        sinks::WEBHOOK_SECRET
    );
    let instance = || {
        common::start(common::Opts {
            toml: toml.clone(),
            plain_http: true,
            env: vec![("CXWATCH_LOG".into(), "error".into())],
            ..Default::default()
        })
    };
    let leases = "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted \
                  AND database = (SELECT oid FROM pg_database WHERE datname = current_database())";
    // The first instance takes every lease before the others start.
    let mut first = instance();
    let deadline = Instant::now() + Duration::from_secs(20);
    while count(&rt, &url, leases) < LEASES {
        assert!(
            Instant::now() < deadline,
            "the first instance took no lease"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let others = [instance(), instance()];
    let balancer = Balancer::start(vec![first.port, others[0].port, others[1].port]);
    let ready = started.elapsed();

    // The storm: each engine owns every third case and posts one batch per round.
    let posted = Arc::new(AtomicUsize::new(0));
    let retries = Arc::new(AtomicUsize::new(0));
    let engines: Vec<_> = (0..ENGINES)
        .map(|e| {
            let (posted, retries) = (posted.clone(), retries.clone());
            let (target, key) = (balancer.url("/api/ingest/v1/runs"), key.clone());
            std::thread::spawn(move || {
                // A new connection per request: the balancer spreads requests, not clients.
                let client = reqwest::blocking::Client::builder()
                    .pool_max_idle_per_host(0)
                    .timeout(Duration::from_secs(20))
                    .build()
                    .unwrap();
                for round in 1..=ROUNDS {
                    let runs: Vec<Value> = (1..=CASES)
                        .filter(|c| c % ENGINES == e)
                        .map(|c| failing_run(c, round, t0 + round * 60_000))
                        .collect();
                    let deadline = Instant::now() + Duration::from_secs(30);
                    loop {
                        let sent = client
                            .post(&target)
                            .header("X-API-Key", &key)
                            .json(&json!({ "runs": runs }))
                            .send();
                        match sent {
                            Ok(r) if r.status().is_success() => break,
                            other => {
                                assert!(
                                    Instant::now() < deadline,
                                    "round {round} of engine {e} never taken: {other:?}"
                                );
                                retries.fetch_add(1, Ordering::Relaxed);
                                std::thread::sleep(Duration::from_millis(100));
                            }
                        }
                    }
                    posted.fetch_add(1, Ordering::Relaxed);
                }
            })
        })
        .collect();
    // Half-way, while events open, escalations are queued and mails go out: kill -9 the
    // instance holding the leases.
    let half = (ENGINES * ROUNDS / 2) as usize;
    while posted.load(Ordering::Relaxed) < half {
        std::thread::sleep(Duration::from_millis(5));
    }
    let queued_at_kill = count(&rt, &url, "SELECT count(*) FROM outbox");
    let sent_at_kill = count(
        &rt,
        &url,
        "SELECT count(*) FROM outbox WHERE state = 'sent'",
    );
    first.kill();
    for e in engines {
        e.join().unwrap();
    }

    // Every notification delivered: nothing left queued, nothing failed.
    let deadline = Instant::now() + Duration::from_secs(40);
    loop {
        let waiting = count(
            &rt,
            &url,
            "SELECT count(*) FROM outbox WHERE state <> 'sent'",
        );
        let expected = CASES * CONTACTS * 2;
        let rows = count(&rt, &url, "SELECT count(*) FROM outbox");
        if waiting == 0 && rows >= expected {
            break;
        }
        let failed = count(
            &rt,
            &url,
            "SELECT count(*) FROM outbox WHERE state = 'failed'",
        );
        assert_eq!(failed, 0, "notifications failed");
        assert!(
            Instant::now() < deadline,
            "{waiting} of {rows} notifications not sent ({expected} expected)"
        );
        std::thread::sleep(Duration::from_millis(200));
    }
    // The sinks record what they accepted before the sender hears back: a moment to land.
    std::thread::sleep(Duration::from_millis(300));

    let q = |sql: &str| count(&rt, &url, sql);
    let opened = q("SELECT count(*) FROM alert_events");
    let twice = q("SELECT coalesce(sum(n - 1), 0)::BIGINT FROM \
                   (SELECT count(*) AS n FROM alert_events GROUP BY test_case_id) e WHERE n > 1");
    let cases_with_event = q("SELECT count(DISTINCT test_case_id) FROM alert_events");
    let lost = CASES - cases_with_event;
    let runs_in_events = q("SELECT count(DISTINCT run_id) FROM alert_event_runs");
    let stored_runs = q("SELECT count(*) FROM test_runs");
    let escalated = q("SELECT count(*) FROM alert_events WHERE escalated_ms IS NOT NULL");
    let alert_rows = q("SELECT count(*) FROM outbox WHERE cause LIKE 'alert:%'");
    let escalation_rows = q("SELECT count(*) FROM outbox WHERE cause LIKE 'escalation:%'");
    let got = deliveries(&sinks);
    let mut by_key: BTreeMap<&str, usize> = BTreeMap::new();
    for (key, _) in &got {
        *by_key.entry(key.as_str()).or_default() += 1;
    }
    let escalation_deliveries = got.iter().filter(|(_, k)| k == "escalation").count();
    let duplicates = got.len() - by_key.len();
    let notifications = alert_rows + escalation_rows;

    println!(
        "storm: {CASES} test cases x {ROUNDS} failing rounds, {ENGINES} engines, 3 instances \
         behind a round-robin balancer; the lease holder killed after {half} of {} batches \
         ({queued_at_kill} notifications queued, {sent_at_kill} sent at the kill); \
         {} batches posted again",
        ENGINES * ROUNDS,
        retries.load(Ordering::Relaxed)
    );
    println!(
        "storm: alerts opened {opened}, opened twice {twice}, lost {lost}; escalated {escalated} \
         ({escalation_rows} escalation notifications queued, {escalation_deliveries} delivered); \
         notifications {notifications} queued, {} delivered, {} distinct, duplicates {duplicates}; \
         {:.1} s in all ({:.1} s to start)",
        got.len(),
        by_key.len(),
        started.elapsed().as_secs_f64(),
        ready.as_secs_f64()
    );

    assert_eq!(
        stored_runs,
        CASES * (ROUNDS + 1),
        "a run stored twice or lost"
    );
    assert_eq!(twice, 0, "an alert event opened twice");
    assert_eq!(lost, 0, "a test case without its alert event");
    assert_eq!(opened, CASES);
    assert_eq!(
        runs_in_events,
        CASES * ROUNDS,
        "each failing run in its event once"
    );
    assert_eq!(q("SELECT count(*) FROM alert_event_runs"), CASES * ROUNDS);
    assert_eq!(escalated, CASES, "each event escalated once");
    assert_eq!(
        alert_rows,
        CASES * CONTACTS,
        "each alert queued once a contact"
    );
    assert_eq!(
        escalation_rows,
        CASES * CONTACTS,
        "each escalation queued once a contact"
    );
    // At least once: every queued notification arrived.
    assert_eq!(
        by_key.len() as i64,
        notifications,
        "a notification never arrived: {by_key:?}"
    );
    // A duplicate is one the killed sender had in flight; more would be two senders at once.
    assert!(
        duplicates <= CONCURRENCY,
        "{duplicates} duplicates: more than the killed sender had in flight"
    );
    drop(others);
    drop(balancer);
}
