//! The alert engine of both backends fed the same batches: every read must answer the
//! same (events, their runs and notifications, ticket jobs). Run with `TEST_POSTGRES_URL`
//! set (each test gets a fresh database); without it they pass at once. The helpers serve
//! PostgreSQL's own engine tests too (`store/pg/alerts.rs`).

use chrono_tz::America::Toronto;
use rand::{Rng, SeedableRng};
use serde_json::json;

use crate::domain::alert_setting::AlertSettingDraft;
use crate::domain::caller::{Scope, Visibility};
use crate::domain::distribution::{Contact, ContactType, DistributionDraft};
use crate::domain::ingest::{parse_run, IngestRun};
use crate::domain::page::{Page, PageRequest};
use crate::domain::run::Channel;
use crate::domain::schedule::Week;
use crate::store::alerts::{AlertEvent, AlertEventFilter, AlertOptions};
use crate::store::catalog::GroupDraft;
use crate::store::pg::testdb::connect;
use crate::store::runs::ms_to_time;
use crate::store::{
    AlertEventStore, AlertSettingStore, AutoTicketStore, CatalogStore, DistributionStore,
    OutboxStore, RunStore, Sqlite, StoreError, StoreOptions,
};

pub(crate) fn run(engine_id: &str, case: i64, ms: i64, status: &str) -> IngestRun {
    let time = ms_to_time(ms).to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    parse_run(&json!({
        "engineRunId": engine_id,
        "testCase": {"id": case, "name": format!("Case {case}"), "channel": "voice",
                     "ivr": {"id": 10, "name": "Main IVR"}},
        "runTime": time, "runDuration": 12.0, "status": status, "runType": "Schedule",
        "segments": []
    }))
    .unwrap()
}

/// Batches of runs of cases 1..=4 over a few hours, statuses at random, some batches
/// out of order and some runs late.
fn batches(seed: u64, count: usize) -> Vec<Vec<IngestRun>> {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    let t0 = 1_795_000_000_000; // 2026-11-18
    let mut n = 0;
    (0..count)
        .map(|b| {
            let size = rng.gen_range(1..=6);
            (0..size)
                .map(|_| {
                    n += 1;
                    let case = rng.gen_range(1..=4);
                    let late = rng.gen_bool(0.1);
                    let minute = b as i64 * 5 + rng.gen_range(0..5) - if late { 20 } else { 0 };
                    let status = match rng.gen_range(0..10) {
                        0..=4 => "fail",
                        5 | 6 => "warn",
                        _ => "pass",
                    };
                    run(&format!("r{n}"), case, t0 + minute * 60_000, status)
                })
                .collect()
        })
        .collect()
}

fn all_week() -> Week {
    Week::from_masks((1..=7).map(|d| (d, (1u64 << 48) - 1)))
}

/// The same site on any backend: two groups, a list, settings of every kind.
pub(crate) async fn site(
    store: &(impl CatalogStore + DistributionStore + AlertSettingStore),
) -> Vec<i64> {
    let g1 = store
        .create_group(&GroupDraft {
            name: "Billing".into(),
            channel: Channel::Voice,
            test_case_ids: vec![1, 2],
        })
        .await
        .unwrap()
        .group
        .id;
    let g2 = store
        .create_group(&GroupDraft {
            name: "Sales".into(),
            channel: Channel::Voice,
            test_case_ids: vec![2, 3, 4],
        })
        .await
        .unwrap()
        .group
        .id;
    let list = store
        .create_distribution(&DistributionDraft {
            name: "On call".into(),
            contacts: vec![
                Contact {
                    name: "Ops".into(),
                    kind: ContactType::Email,
                    info: "ops@example.com".into(),
                },
                Contact {
                    name: "Phone".into(),
                    kind: ContactType::Sms,
                    info: "+15145550100".into(),
                },
            ],
        })
        .await
        .unwrap();
    let draft =
        |name: &str, group, threshold, statuses: &[&str], recovery, jira| AlertSettingDraft {
            name: name.into(),
            active: true,
            group_id: group,
            distribution_id: list,
            email_subject: format!("{name} failing"),
            voice_message: "Failing".into(),
            sms_prefix: "[cx]".into(),
            attach_jira_ticket: jira,
            failure_to_alert: threshold,
            notify_on_recovery: recovery,
            statuses: statuses.iter().map(|s| s.to_string()).collect(),
            week: all_week(),
            jira_assignee: jira.then(|| "ann".into()),
            jira_project: jira.then(|| "CX".into()),
            jira_username: jira.then(|| "ann".into()),
            ..Default::default()
        };
    let mut ids = Vec::new();
    for d in [
        draft("Billing down", g1, 2, &["FAIL"], true, false),
        draft("Billing shaky", g1, 3, &["FAIL", "WARN"], false, true),
        draft("Sales down", g2, 1, &["FAIL"], true, false),
    ] {
        ids.push(store.create_alert_setting(Scope::All, &d).await.unwrap());
    }
    let mut night = draft("Sales nights", g2, 2, &["FAIL", "WARN"], true, false);
    night.week = Week::from_masks((1..=7).map(|d| (d, 0xFFFF)));
    ids.push(
        store
            .create_alert_setting(Scope::All, &night)
            .await
            .unwrap(),
    );
    ids
}

/// What both backends must agree on: the events (without the times `Clock::Now` gives),
/// their runs and notifications, the open count, the ticket jobs.
async fn picture(store: &(impl AlertEventStore + AutoTicketStore + OutboxStore)) -> String {
    let page = store
        .list_alert_events(
            Scope::All,
            PageRequest { no: 0, size: 1000 },
            AlertEventFilter::default(),
        )
        .await
        .unwrap();
    let mut out = format!(
        "total {} open {} jobs {} outbox {:?}\n",
        page.total,
        store.open_alert_count(Scope::All).await.unwrap(),
        store.queued_ticket_jobs().await.unwrap(),
        store.outbox_counts().await.unwrap(),
    );
    for mut e in page.items {
        let Visibility::Visible(d) = store.alert_event(Scope::All, e.id).await.unwrap() else {
            panic!("event {} not visible", e.id);
        };
        let closed = e.closed_time.is_some();
        e.alert_time = ms_to_time(0);
        e.closed_time = None;
        out += &format!("{e:?} closed {closed}\n");
        for r in d.runs {
            out += &format!("  run {} {} {:?}\n", r.id, r.run_time, r.status);
        }
        for n in d.notifications {
            out += &format!(
                "  {} {:?} {} {:?} {:?} {:?} {:?} {}\n",
                n.key, n.channel, n.recipient, n.subject, n.text, n.html, n.vars, n.cause
            );
        }
    }
    out
}

/// Each incident's tally and causes as kept (migration 0039), then as its events say; the
/// two must agree.
pub(crate) async fn tallies(store: &impl crate::store::sql::SqlStore) -> (String, String) {
    const KEPT: [&str; 2] = [
        "SELECT id, first_ms, events, open_events, last_closed_ms FROM incidents ORDER BY id",
        "SELECT incident_id, kind, cause_id FROM incident_causes ORDER BY 1, 2, 3",
    ];
    const FROM_EVENTS: [&str; 2] = [
        "SELECT incident_id AS id, min(alert_ms) AS first_ms, count(*) AS events,
                count(*) - count(closed_ms) AS open_events, max(closed_ms) AS last_closed_ms
           FROM alert_events WHERE incident_id IS NOT NULL
          GROUP BY incident_id ORDER BY incident_id",
        "SELECT DISTINCT incident_id, 0 AS kind, group_id AS cause_id FROM alert_events
          WHERE incident_id IS NOT NULL
         UNION
         SELECT DISTINCT e.incident_id, 1, tc.ivr_id
           FROM alert_events e JOIN test_cases tc ON tc.id = e.test_case_id
          WHERE e.incident_id IS NOT NULL AND tc.ivr_id IS NOT NULL
          ORDER BY 1, 2, 3",
    ];
    (
        dump(store, KEPT).await.unwrap(),
        dump(store, FROM_EVENTS).await.unwrap(),
    )
}

/// The rows of a tally query and a causes query, one line each.
async fn dump(
    store: &impl crate::store::sql::SqlStore,
    [tally, causes]: [&'static str; 2],
) -> crate::store::StoreResult<String> {
    use crate::store::sql::Exec;
    crate::store::sql::read!(store, |c| {
        let mut out = String::new();
        for r in c.query(tally, &[]).await? {
            out += &format!(
                "{} first {} events {} open {} closed {:?}\n",
                r.col::<i64>("id")?,
                r.col::<i64>("first_ms")?,
                r.col::<i64>("events")?,
                r.col::<i64>("open_events")?,
                r.col::<Option<i64>>("last_closed_ms")?
            );
        }
        for r in c.query(causes, &[]).await? {
            out += &format!(
                "{} cause {} {}\n",
                r.col::<i64>("incident_id")?,
                r.col::<i64>("kind")?,
                r.col::<i64>("cause_id")?
            );
        }
        Ok(out)
    })
}

#[tokio::test]
async fn the_engine_answers_as_sqlite_s_over_random_batches() {
    let Some(url) = crate::store::pg::testdb::fresh().await else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let pg = connect(&url, dir.path()).await;
    let lite_dir = tempfile::tempdir().unwrap();
    let lite = Sqlite::open(lite_dir.path(), StoreOptions::default()).unwrap();
    let options = AlertOptions {
        public_url: "https://console.example".into(),
        ..AlertOptions::default()
    };
    pg.configure_alerts(options.clone());
    lite.configure_alerts(options);
    // The test cases exist once a run of each is stored.
    let seed: Vec<IngestRun> = (1..=4)
        .map(|c| run(&format!("seed{c}"), c, 1_794_990_000_000, "pass"))
        .collect();
    pg.ingest_runs(Toronto, seed.clone()).await.unwrap();
    lite.ingest_runs(Toronto, seed).await.unwrap();
    assert_eq!(site(&pg).await, site(&lite).await);
    let mut opened = 0;
    for batch in batches(7, 60) {
        let a = pg.ingest_runs(Toronto, batch.clone()).await.unwrap();
        let b = lite.ingest_runs(Toronto, batch).await.unwrap();
        assert_eq!(a.alerts, b.alerts);
        opened += a.alerts.opened;
    }
    assert!(opened > 5, "the batches open events: {opened}");
    let (p, l) = (picture(&pg).await, picture(&lite).await);
    assert_eq!(p, l);
    // Each backend's tallies against its events (the times are each ingest's own).
    for (kept, derived) in [tallies(&pg).await, tallies(&lite).await] {
        assert!(kept.contains("closed Some"), "an event closed:\n{kept}");
        assert_eq!(kept, derived);
    }
}

#[tokio::test]
async fn the_backfill_answers_as_sqlite_s() {
    let Some(url) = crate::store::pg::testdb::fresh().await else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let pg = connect(&url, dir.path()).await;
    let lite_dir = tempfile::tempdir().unwrap();
    let lite = Sqlite::open(lite_dir.path(), StoreOptions::default()).unwrap();
    // The history first, no settings yet; then new settings and the engine over it.
    for batch in batches(11, 40) {
        pg.ingest_runs(Toronto, batch.clone()).await.unwrap();
        lite.ingest_runs(Toronto, batch).await.unwrap();
    }
    let ids = site(&pg).await;
    assert_eq!(ids, site(&lite).await);
    let a = pg.backfill_alerts(Toronto, ids.clone(), 0).await.unwrap();
    let b = lite.backfill_alerts(Toronto, ids.clone(), 0).await.unwrap();
    assert_eq!(a, b);
    assert!(a.opened > 3, "{a:?}");
    assert_eq!(picture(&pg).await, picture(&lite).await);
    for (kept, derived) in [tallies(&pg).await, tallies(&lite).await] {
        assert!(kept.contains("cause 1 10"), "{kept}");
        assert_eq!(kept, derived);
    }
    // Run times: the events' times too.
    let times = |p: Page<AlertEvent>| {
        p.items
            .into_iter()
            .map(|e| (e.id, e.alert_time, e.closed_time))
            .collect::<Vec<_>>()
    };
    let page = PageRequest { no: 0, size: 1000 };
    let listed = times(
        pg.list_alert_events(Scope::All, page, AlertEventFilter::default())
            .await
            .unwrap(),
    );
    assert_eq!(
        listed,
        times(
            lite.list_alert_events(Scope::All, page, AlertEventFilter::default())
                .await
                .unwrap()
        )
    );
    // Newest first by the time each opened (a backfill opens them out of time order).
    assert!(listed.windows(2).all(|w| w[0].1 >= w[1].1), "{listed:?}");
    // Settings with evaluated runs are refused.
    let again = pg.backfill_alerts(Toronto, ids, 0).await;
    assert!(matches!(again, Err(StoreError::Conflict(_))), "{again:?}");
}
