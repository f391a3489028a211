//! An escalation with the real binary, a real SMTP server and two `kill -9`s: one
//! just before the escalation is due (its claim not yet made), one while its mails go out.
//! After the restarts every contact of the second list has the escalation mail, queued once
//! per contact (the outbox holds one row each, the event is stamped escalated once): nothing
//! lost, nothing queued twice. On the wire SMTP is at least once: a message the killed process
//! had in flight may arrive a second time, never more than the two it had in flight.
//!
//! The delay is in minutes (1 at least). Rather than wait one, the failing run is stored
//! before the start with a run time 52 s ago and the new setting is run over it with the
//! engine's backfill (`backfill_alerts`, as a new alert setting is over the stored runs): the
//! event opens at the run's time, so the escalation falls due 8 s after the start.

use crate::common;
use crate::sinks;

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use common::now_ms;
use cxwatch::domain::alert_setting::{AlertSettingDraft, Escalation};
use cxwatch::domain::caller::Scope;
use cxwatch::domain::distribution::{Contact, ContactType, DistributionDraft};
use cxwatch::domain::run::Channel;
use cxwatch::domain::schedule::Week;
use cxwatch::store::catalog::GroupDraft;
use cxwatch::store::Store;
use serde_json::json;
use sinks::Sinks;

const CONTACTS: usize = 30;
/// How long after the start the escalation falls due.
const LEAD_MS: i64 = 8_000;

/// The escalation mails received: recipient -> how many times.
fn escalations(sinks: &Sinks) -> BTreeMap<String, usize> {
    let mut out = BTreeMap::new();
    for m in sinks.messages_blocking()["mail"].as_array().unwrap() {
        if !m["subject"]
            .as_str()
            .unwrap_or("")
            .starts_with("Escalated: ")
        {
            continue;
        }
        for to in m["rcptTo"].as_array().unwrap() {
            *out.entry(to.as_str().unwrap().to_string()).or_default() += 1;
        }
    }
    out
}

fn mail_list(name: &str, who: impl Iterator<Item = String>) -> DistributionDraft {
    DistributionDraft {
        name: name.into(),
        contacts: who
            .map(|info| Contact {
                name: info.clone(),
                kind: ContactType::Email,
                info,
            })
            .collect(),
    }
}

#[test]
fn an_escalation_killed_before_and_during_its_mails_reaches_every_contact_once() {
    let sinks = Sinks::start(&["--delay-ms", "60"]);
    let dir = tempfile::tempdir().unwrap();
    let store = common::store(dir.path());
    let tz = chrono_tz::UTC;
    let run_ms = now_ms() - 60_000 + LEAD_MS;
    let due_ms = run_ms + 60_000;
    Store::block_on(async {
        let time = chrono::DateTime::<chrono::Utc>::from_timestamp_millis(run_ms)
            .unwrap()
            .to_rfc3339();
        let run = cxwatch::domain::ingest::parse_run(&json!({
            "engineRunId": "esc-1",
            "testCase": {"id": 1, "name": "Card activation", "channel": "voice",
                         "ivr": {"id": 10, "name": "Cards IVR"}},
            "runTime": time, "runDuration": 30.0, "status": "fail", "runType": "Schedule",
            "segments": [{"segmentId": 1, "segmentName": "Greeting", "steps": [
                {"stepId": 11, "stepType": "PROMPT", "typeDisplayText": "Prompt",
                 "prompt": "Welcome", "testResult": {"status": "fail", "latency": 900}}]}]
        }))
        .unwrap();
        store.ingest_runs(tz, vec![run]).await.unwrap();
        let group = store
            .create_group(&GroupDraft {
                name: "Cards".into(),
                channel: Channel::Voice,
                test_case_ids: vec![1],
            })
            .await
            .unwrap()
            .group
            .id;
        let on_call = store
            .create_distribution(&mail_list(
                "Cards on call",
                std::iter::once("oncall@example.com".to_string()),
            ))
            .await
            .unwrap();
        let managers = store
            .create_distribution(&mail_list(
                "Managers",
                (0..CONTACTS).map(|i| format!("manager{i}@example.com")),
            ))
            .await
            .unwrap();
        let setting = store
            .create_alert_setting(
                Scope::All,
                &AlertSettingDraft {
                    name: "Cards down".into(),
                    active: true,
                    group_id: group,
                    distribution_id: on_call,
                    email_subject: "Cards IVR failing".into(),
                    voice_message: "Cards is failing".into(),
                    sms_prefix: "[CX]".into(),
                    failure_to_alert: 1,
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
        let out = store
            .backfill_alerts(tz, vec![setting], run_ms - 1_000)
            .await
            .unwrap();
        assert_eq!(out.opened, 1, "the failing run opens the event at its time");
    });
    drop(store);

    let toml = sinks
        .toml()
        .replace("poll_ms = 100", "poll_ms = 100\nconcurrency = 2");
    let opts = common::Opts {
        toml,
        data_dir: Some(dir.path().to_path_buf()),
        plain_http: true,
        env: vec![("CXWATCH_LOG".into(), "error".into())],
        ..Default::default()
    };

    // Killed just before the escalation is due: nothing of it is queued yet.
    let mut server = common::start(opts.clone());
    while now_ms() < due_ms - 300 {
        std::thread::sleep(Duration::from_millis(20));
    }
    server.kill();
    let queued: i64 = common::query_one(
        dir.path(),
        "SELECT count(*) FROM outbox WHERE cause LIKE 'escalation:%'",
    );
    assert_eq!(queued, 0, "escalated before it was due");
    assert!(escalations(&sinks).is_empty());

    // Restarted after the delay: the escalation is made at once; killed again while its
    // mails go out.
    let mut server = common::start(opts.clone());
    let started = Instant::now();
    let deadline = started + Duration::from_secs(30);
    while escalations(&sinks).values().sum::<usize>() < 3 {
        assert!(Instant::now() < deadline, "the escalation was not mailed");
        std::thread::sleep(Duration::from_millis(10));
    }
    let late_ms = now_ms() - due_ms;
    server.kill();
    let before = escalations(&sinks).len();
    assert!(
        before < CONTACTS,
        "all {before} were sent before the second kill"
    );

    let _server = common::start(opts);
    let deadline = Instant::now() + Duration::from_secs(60);
    let got = loop {
        let got = escalations(&sinks);
        if got.len() == CONTACTS {
            break got;
        }
        assert!(
            Instant::now() < deadline,
            "after the restarts {} of {CONTACTS} managers have the escalation",
            got.len()
        );
        std::thread::sleep(Duration::from_millis(100));
    };
    let want: Vec<String> = {
        let mut v: Vec<String> = (0..CONTACTS)
            .map(|i| format!("manager{i}@example.com"))
            .collect();
        v.sort();
        v
    };
    assert_eq!(got.keys().cloned().collect::<Vec<_>>(), want);
    // Queued once: one outbox row per contact, the event stamped escalated.
    let rows: i64 = common::query_one(
        dir.path(),
        "SELECT count(*) FROM outbox WHERE cause LIKE 'escalation:%'",
    );
    assert_eq!(rows, CONTACTS as i64);
    let escalated: i64 = common::query_one(
        dir.path(),
        "SELECT count(*) FROM alert_events WHERE escalated_ms IS NOT NULL",
    );
    assert_eq!(escalated, 1);
    // Wait for the sender to settle, then count: at most the two in flight at the kill twice.
    std::thread::sleep(Duration::from_millis(500));
    let got = escalations(&sinks);
    let twice = got.values().filter(|&&n| n > 1).count();
    assert!(
        got.values().all(|&n| n <= 2) && twice <= 2,
        "duplicates beyond the two in flight: {got:?}"
    );
    eprintln!(
        "escalation: 3 mails in {late_ms} ms after the due time (through a kill); \
         {before} of {CONTACTS} before the second kill; {twice} received twice"
    );
}
