//! Scheduled report mail with the real binary: a slot missed while cxwatch was
//! down is mailed once at start, with its summary, inline PNG chart and CSV, to every contact
//! of the list at a real SMTP server; a `kill -9` while those mails go out, and the restart,
//! lose none and queue the slot no second time (the outbox holds one row per contact; the
//! server gets each Message-ID, a message in flight at the kill at most twice).

use crate::common;
use crate::sinks;

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use cxwatch::domain::caller::Scope;
use cxwatch::domain::distribution::{Contact, ContactType, DistributionDraft};
use cxwatch::domain::report::{ReportDraft, ReportType, Timeframe};
use cxwatch::domain::report_schedule::{Cadence, Frequency, Language, ScheduleDraft};
use cxwatch::domain::run::{Channel, RunType};
use cxwatch::store::catalog::GroupDraft;
use cxwatch::store::Store;
use sinks::Sinks;

const CONTACTS: usize = 40;

fn mails(sinks: &Sinks) -> Vec<serde_json::Value> {
    sinks.messages_blocking()["mail"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| {
            m["subject"]
                .as_str()
                .unwrap_or("")
                .starts_with("cxwatch report: ")
        })
        .cloned()
        .collect()
}

#[test]
fn a_missed_slot_is_mailed_once_and_a_kill_9_loses_and_duplicates_nothing() {
    let sinks = Sinks::start(&["--delay-ms", "60"]);
    let dir = tempfile::tempdir().unwrap();
    let store = common::store(dir.path());
    let slot_ms = common::now_ms() - 3_600_000;
    let (report, list) = Store::block_on(async {
        let group = store
            .create_group(&GroupDraft {
                name: "Billing".into(),
                channel: Channel::Voice,
                test_case_ids: vec![],
            })
            .await
            .unwrap()
            .group
            .id;
        let report = store
            .create_report(
                Scope::All,
                &ReportDraft {
                    name: "Billing weekly".into(),
                    report_type: ReportType::TestCasePerformance,
                    group_id: group,
                    timeframe: Timeframe::LastWeek,
                    custom: (None, None),
                    run_type: RunType::Schedule,
                    latency_warn: 0,
                    latency_fail: 0,
                },
            )
            .await
            .unwrap();
        let list = store
            .create_distribution(&DistributionDraft {
                name: "Managers".into(),
                contacts: (0..CONTACTS)
                    .map(|i| Contact {
                        name: format!("Manager {i}"),
                        kind: ContactType::Email,
                        info: format!("manager{i}@example.com"),
                    })
                    .collect(),
            })
            .await
            .unwrap();
        // Due an hour ago: cxwatch was down at the slot.
        store
            .set_report_schedule(
                report,
                ScheduleDraft {
                    cadence: Cadence {
                        frequency: Frequency::Daily,
                        minute: 6 * 60,
                        weekday: 1,
                        month_day: 1,
                    },
                    distribution_id: list,
                    language: Language::En,
                    active: true,
                },
                slot_ms,
            )
            .await
            .unwrap();
        (report, list)
    });
    drop(store);
    let _ = list;

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
    let mut server = common::start(opts.clone());
    let deadline = Instant::now() + Duration::from_secs(60);
    while mails(&sinks).len() < 5 {
        assert!(Instant::now() < deadline, "the missed slot was not mailed");
        std::thread::sleep(Duration::from_millis(20));
    }
    server.kill();
    let before = mails(&sinks).len();
    assert!(before < CONTACTS, "all {before} were sent before the kill");

    // The first mail: summary, inline chart, CSV.
    let m = &mails(&sinks)[0];
    assert_eq!(
        m["subject"].as_str().unwrap().split(" (").next().unwrap(),
        "cxwatch report: Billing weekly"
    );
    assert!(m["text"].as_str().unwrap().contains("Test runs: 0"), "{m}");
    let att = m["attachments"].as_array().unwrap();
    let png = att
        .iter()
        .find(|a| a["contentType"] == "image/png")
        .unwrap();
    assert_eq!(png["related"], true);
    use base64::Engine;
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(png["base64"].as_str().unwrap())
        .unwrap();
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
    let csv = att
        .iter()
        .find(|a| a["contentType"].as_str().unwrap().starts_with("text/csv"))
        .unwrap();
    assert!(csv["filename"]
        .as_str()
        .unwrap()
        .starts_with(&format!("report-{report}-billing-weekly-")));

    let _server = common::start(opts);
    let want: BTreeSet<String> = (0..CONTACTS)
        .map(|i| format!("<report.{report}.{slot_ms}.{i}@cxwatch.test>"))
        .collect();
    let deadline = Instant::now() + Duration::from_secs(90);
    loop {
        let got: BTreeSet<String> = mails(&sinks)
            .iter()
            .map(|m| m["messageId"].as_str().unwrap_or("").to_string())
            .collect();
        if got == want {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "after the restart {} of {CONTACTS} arrived; extra or missing: {:?}",
            got.len(),
            want.symmetric_difference(&got).take(5).collect::<Vec<_>>()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    // One slot queued once: a row per contact, and the schedule moved on to a later slot.
    let rows: i64 = common::query_one(
        dir.path(),
        "SELECT count(*) FROM outbox WHERE cause LIKE 'report:%'",
    );
    assert_eq!(rows, CONTACTS as i64);
    let last: i64 = common::query_one(
        dir.path(),
        &format!("SELECT last_slot_ms FROM report_schedules WHERE id = {report}"),
    );
    assert_eq!(last, slot_ms);
    let next: i64 = common::query_one(
        dir.path(),
        &format!("SELECT next_ms FROM report_schedules WHERE id = {report}"),
    );
    assert!(next > common::now_ms(), "the next slot is ahead");
    let total = mails(&sinks).len();
    assert!(total <= CONTACTS + 2, "{total} messages for {CONTACTS}");
    eprintln!("report mails before the kill: {before}; received: {total} for {CONTACTS}");
}
