//! Alert events: failing runs sent through the ingest API open events by the
//! setting's rules, with one notification per contact queued in the same transaction; a
//! pass closes them (recovery notifications with notifyOnRecovery); the API lists and
//! shows them within the caller's groups; a re-sent batch or a `kill -9` between batches
//! neither loses nor duplicates an event.
//!
//! Settings are written through the store here (the settings API is its own resource and
//! tests), so that the tests run on either backend (`TEST_POSTGRES_URL`).

use crate::common;
use crate::harness;
use crate::harness_trs;

use std::time::Duration;

use cxwatch::domain::alert_setting::AlertSettingDraft;
use cxwatch::domain::caller::{AccessType, Role, Scope};
use cxwatch::domain::distribution::{Contact, ContactType, DistributionDraft};
use cxwatch::domain::schedule::Week;
use cxwatch::store::Store;
use harness::App;
use harness_trs::{admin, get, group, ingest_ok, run};
use poem::http::Method;
use serde_json::{json, Value};

/// An active setting on `group` telling `list`, counting `statuses` (7, 4), opening at
/// `threshold`, every slot of the week.
fn draft(
    group: i64,
    list: i64,
    threshold: u8,
    statuses: &[i64],
    recovery: bool,
) -> AlertSettingDraft {
    AlertSettingDraft {
        name: "Billing down".into(),
        active: true,
        group_id: group,
        distribution_id: list,
        email_subject: "Billing IVR failing".into(),
        voice_message: "Billing is failing".into(),
        sms_prefix: "[CX]".into(),
        failure_to_alert: threshold,
        notify_on_recovery: recovery,
        statuses: statuses
            .iter()
            .map(|s| match s {
                7 => "FAIL".to_string(),
                4 => "WARN".to_string(),
                _ => "PASS".to_string(),
            })
            .collect(),
        week: Week::from_masks((1..=7).map(|d| (d, (1u64 << 48) - 1))),
        ..Default::default()
    }
}

/// Adds the setting of [`draft`] through the store (whichever backend); returns its id.
async fn setting(
    app: &App,
    group: i64,
    list: i64,
    threshold: u8,
    statuses: &[i64],
    recovery: bool,
) -> i64 {
    app.store
        .create_alert_setting(
            Scope::All,
            &draft(group, list, threshold, statuses, recovery),
        )
        .await
        .unwrap()
}

fn contacts() -> Vec<Contact> {
    vec![
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
        Contact {
            name: "Desk".into(),
            kind: ContactType::Voice,
            info: "+15145550101".into(),
        },
    ]
}

async fn list_of(app: &App) -> i64 {
    app.store
        .create_distribution(&DistributionDraft {
            name: "Billing on call".into(),
            contacts: contacts(),
        })
        .await
        .unwrap()
}

fn at(min: u32) -> String {
    format!("2026-11-23T15:{min:02}:00Z")
}

/// [`at`] in ms, as the engine stores times.
fn at_ms(min: u32) -> i64 {
    chrono::DateTime::parse_from_rfc3339(&at(min))
        .unwrap()
        .timestamp_millis()
}

async fn events(app: &App, token: &str, query: &str) -> Value {
    let (s, b) = get(app, token, &format!("/api/alerts/events{query}")).await;
    assert_eq!(s, 200, "{b}");
    b["data"].clone()
}

/// `(channel, recipient)` of the notifications of `cause`, oldest first.
async fn outbox(app: &App, cause: &str) -> Vec<(i64, String)> {
    let sql = |col: &str| format!("SELECT {col} FROM outbox WHERE cause = '{cause}' ORDER BY id");
    let channels = app.ints(&sql("channel")).await;
    let recipients = app.texts(&sql("recipient")).await;
    channels
        .into_iter()
        .zip(recipients)
        .map(|(c, r)| (c.unwrap(), r.unwrap()))
        .collect()
}

#[tokio::test]
async fn failing_runs_open_an_event_that_a_pass_closes() {
    let app = App::with_config(|c| {
        c.notify.public_url = "https://console.cxwatch.test".into();
    });
    let a = admin(&app).await;
    let key = app.api_key("engine").await;
    // The test cases exist once a run of them is stored; the first passes.
    ingest_ok(
        &app,
        &key,
        &[run("p0", 1, &at(0), "pass"), run("p1", 2, &at(0), "pass")],
    )
    .await;
    let g = group(&app, "Billing", "voice", &[1]).await;
    let other = group(&app, "Sales", "voice", &[2]).await;
    let list = list_of(&app).await;
    let s = setting(&app, g, list, 2, &[7], true).await;
    setting(&app, other, list, 1, &[7], false).await;

    // One failure: below the threshold, nothing opens.
    ingest_ok(&app, &key, &[run("f1", 1, &at(1), "fail")]).await;
    assert_eq!(events(&app, &a.token, "").await["totalElements"], 0);
    // The second opens the event; the batch sent twice changes nothing.
    let batch = [run("f2", 1, &at(2), "fail"), run("w3", 1, &at(3), "warn")];
    ingest_ok(&app, &key, &batch).await;
    let again = ingest_ok(&app, &key, &batch).await;
    assert_eq!(again["duplicates"], 2);
    let page = events(&app, &a.token, "").await;
    assert_eq!(page["totalElements"], 1, "{page}");
    let e = &page["content"][0];
    let id = e["alertId"].as_i64().unwrap();
    assert_eq!(e["testCaseName"], "Case 001");
    assert_eq!(e["distributionName"], "Billing on call");
    assert_eq!(e["testRunCount"], 2);
    assert_eq!(e["testRuns"][0]["runStatusId"], 7);
    assert_eq!(e["status"], "Failure");
    assert_eq!(e["open"], true);
    assert_eq!(e["alertSettingId"], s);
    assert_eq!(e["testCaseGroupName"], "Billing");
    // One notification per contact, in the ingest transaction.
    let queued = outbox(&app, &format!("alert:{id}")).await;
    assert_eq!(
        queued,
        vec![
            (1, "ops@example.com".to_string()),
            (2, "+15145550100".into()),
            (4, "+15145550101".into())
        ]
    );
    let of_email =
        |col: &str| format!("SELECT {col} FROM outbox WHERE cause = 'alert:{id}' AND channel = 1");
    let subject = app.texts(&of_email("subject")).await[0].clone().unwrap();
    let text = app.texts(&of_email("body_text")).await[0].clone().unwrap();
    let html = app.texts(&of_email("body_html")).await[0].clone().unwrap();
    assert_eq!(subject, "Billing IVR failing");
    let link = format!("https://console.cxwatch.test/alert/{id}");
    assert!(text.contains(&link) && html.contains(&link), "{text}");
    // Run times in the site's zone (Toronto, UTC-5 in November).
    assert!(text.contains("2026/11/23 10:01:00"), "{text}");
    assert!(
        text.contains("Case 001") && text.contains("Billing"),
        "{text}"
    );
    let sms = app
        .texts(&format!(
            "SELECT body_text FROM outbox WHERE cause = 'alert:{id}' AND channel = 2"
        ))
        .await[0]
        .clone()
        .unwrap();
    assert!(sms.starts_with("[CX] Failure Case 001"), "{sms}");
    let (_, open) = get(&app, &a.token, "/api/alerts/events/open").await;
    assert_eq!(open["data"]["open"], 1);

    // Further failures join the open event (no storm); a pass closes it, with recovery.
    ingest_ok(
        &app,
        &key,
        &[
            run("f4", 1, &at(4), "fail"),
            run("f5", 1, &at(5), "stopped"),
        ],
    )
    .await;
    let e = &events(&app, &a.token, "").await["content"][0];
    assert_eq!(
        (e["testRunCount"].as_i64(), e["open"].as_bool()),
        (Some(4), Some(true))
    );
    ingest_ok(&app, &key, &[run("p6", 1, &at(6), "pass")]).await;
    let page = events(&app, &a.token, "").await;
    assert_eq!(page["totalElements"], 1);
    assert_eq!(page["content"][0]["open"], false);
    assert!(page["content"][0]["closedTime"].is_string());
    assert_eq!(outbox(&app, &format!("recovery:{id}")).await.len(), 3);
    let (_, open) = get(&app, &a.token, "/api/alerts/events/open").await;
    assert_eq!(open["data"]["open"], 0);

    // Details: runs oldest first, from/to, the notifications and their state.
    let (st, d) = get(&app, &a.token, &format!("/api/alerts/events/{id}")).await;
    assert_eq!(st, 200, "{d}");
    let d = &d["data"];
    assert_eq!(d["alertId"], id);
    assert_eq!(d["testCaseId"], 1);
    assert_eq!(d["testRunCount"], 4);
    assert_eq!(d["jiraTicket"], Value::Null);
    let times: Vec<&str> = d["testRuns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["runTime"].as_str().unwrap())
        .collect();
    assert_eq!(
        times,
        [at(1), at(2), at(4), at(5)]
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>()
    );
    assert_eq!(d["from"], at(1));
    assert_eq!(d["to"], at(5));
    assert_eq!(d["notifications"].as_array().unwrap().len(), 6);
    assert_eq!(d["notifications"][0]["cause"], format!("alert:{id}"));
    assert!(
        ["queued", "sent", "failed"].contains(&d["notifications"][0]["state"].as_str().unwrap())
    );

    // A new failure opens a new event after recovery: two failures again.
    ingest_ok(
        &app,
        &key,
        &[run("f7", 1, &at(7), "fail"), run("f8", 1, &at(8), "fail")],
    )
    .await;
    assert_eq!(events(&app, &a.token, "").await["totalElements"], 2);
    // The other group's threshold-1 setting fires on one failure of its case.
    ingest_ok(&app, &key, &[run("x9", 2, &at(9), "fail")]).await;
    let page = events(&app, &a.token, "").await;
    assert_eq!(page["totalElements"], 3);
    // Newest first.
    assert_eq!(page["content"][0]["testCaseName"], "Case 002");
    assert_eq!(
        events(&app, &a.token, "?status=4").await["totalElements"],
        0
    );
    assert_eq!(
        events(&app, &a.token, "?status=7&pageSize=1").await["content"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    let (st, b) = get(&app, &a.token, "/api/alerts/events?status=5").await;
    assert_eq!(st, 400, "{b}");
    assert_eq!(b["fields"][0]["field"], "status", "{b}");

    // A user sees only the events of their groups.
    let u = app
        .user(
            "sales@example.com",
            Role::User,
            AccessType::ReadOnly,
            &[other],
        )
        .await;
    let mine = events(&app, &u.token, "").await;
    assert_eq!(mine["totalElements"], 1);
    assert_eq!(mine["content"][0]["testCaseGroupId"], other);
    let (st, _) = get(&app, &u.token, &format!("/api/alerts/events/{id}")).await;
    assert_eq!(st, 403);
    let (st, _) = get(&app, &a.token, "/api/alerts/events/999999").await;
    assert_eq!(st, 404);
    let (st, _) = app
        .call(Method::GET, "/api/alerts/events", None, None)
        .await;
    assert_eq!(st, 401);
    let (_, open) = get(&app, &u.token, "/api/alerts/events/open").await;
    assert_eq!(open["data"]["open"], 1);

    // Deleting a setting closes its open events; the history stays.
    app.exec(&format!("DELETE FROM alert_settings WHERE id = {s}"))
        .await;
    let page = events(&app, &a.token, "?status=7").await;
    assert_eq!(page["totalElements"], 3);
    let open_of_case_1 = page["content"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["testCaseId"] == 1 && e["open"] == true)
        .count();
    assert_eq!(open_of_case_1, 0);
}

#[tokio::test]
async fn late_runs_and_inactive_settings() {
    let app = App::new();
    let (a, key, s) = billing_setting(&app).await;
    // Out of order within a batch: evaluated in run-time order (fail, fail opens).
    ingest_ok(
        &app,
        &key,
        &[run("f2", 1, &at(20), "fail"), run("f1", 1, &at(10), "fail")],
    )
    .await;
    let page = events(&app, &a.token, "").await;
    assert_eq!(page["totalElements"], 1);
    // A pass, then a late failure older than it: stored, not evaluated (no new count).
    ingest_ok(&app, &key, &[run("p3", 1, &at(30), "pass")]).await;
    ingest_ok(
        &app,
        &key,
        &[
            run("f-late", 1, &at(25), "fail"),
            run("f4", 1, &at(40), "fail"),
        ],
    )
    .await;
    assert_eq!(events(&app, &a.token, "").await["totalElements"], 1);
    // Inactive: nothing is evaluated.
    app.exec(&format!(
        "UPDATE alert_settings SET active = FALSE WHERE id = {s}"
    ))
    .await;
    ingest_ok(&app, &key, &[run("f5", 1, &at(50), "fail")]).await;
    assert_eq!(events(&app, &a.token, "").await["totalElements"], 1);
    // Active again: the count went on from f4 (f5 was not evaluated): one more opens.
    app.exec(&format!(
        "UPDATE alert_settings SET active = TRUE WHERE id = {s}"
    ))
    .await;
    ingest_ok(&app, &key, &[run("f6", 1, &at(55), "fail")]).await;
    assert_eq!(events(&app, &a.token, "").await["totalElements"], 2);
}

/// An admin, an engine's key, and a first pass of test case 1, then its group 'Billing'
/// and a setting of it (threshold 2, FAIL) to a list: (admin, key, setting).
async fn billing_setting(app: &App) -> (harness::Who, String, i64) {
    let a = admin(app).await;
    let key = app.api_key("engine").await;
    ingest_ok(app, &key, &[run("p0", 1, &at(0), "pass")]).await;
    let g = group(app, "Billing", "voice", &[1]).await;
    let list = list_of(app).await;
    let s = setting(app, g, list, 2, &[7], false).await;
    (a, key, s)
}

/// Another instance on the app's database, with nothing in memory (as after a restart).
async fn other_instance(app: &App) -> Store {
    let config = cxwatch::config::StoreConfig {
        url: app.pg_url.clone().unwrap_or_default(),
        ..Default::default()
    };
    Store::connect(&config, app.data_dir()).await.unwrap()
}

/// A run for `Store::ingest_runs`, as an engine posts it.
fn parse(v: Value) -> cxwatch::domain::ingest::IngestRun {
    cxwatch::domain::ingest::parse_run_str(&v.to_string()).unwrap()
}

/// The engine keeps a (setting, test case)'s state only while it departs from rest, and what a
/// missing row means holds across a restart and another instance: late runs stay late, the
/// backfill still knows the setting was evaluated, and a change another writer makes is
/// seen at the next batch.
#[tokio::test]
async fn a_setting_at_rest_stores_nothing_and_loses_nothing() {
    let app = App::new();
    let a = admin(&app).await;
    let key = app.api_key("engine").await;
    // The states stored, across the test cases' rows.
    let rows = || async {
        let texts = app.texts("SELECT states FROM alert_memory").await;
        let n = (texts.iter().flatten())
            .map(|t| {
                serde_json::from_str::<serde_json::Map<_, _>>(t)
                    .unwrap()
                    .len()
            })
            .sum::<usize>();
        [Some(n as i64)]
    };
    ingest_ok(&app, &key, &[run("p0", 1, &at(0), "pass")]).await;
    let g = group(&app, "Billing", "voice", &[1]).await;
    let list = list_of(&app).await;
    let s = setting(&app, g, list, 2, &[7], false).await;
    ingest_ok(&app, &key, &[run("p1", 1, &at(10), "pass")]).await;
    // A batch that leaves the states at rest moves only the stored clock.
    ingest_ok(&app, &key, &[run("p1b", 1, &at(15), "pass")]).await;
    assert_eq!(rows().await, [Some(0)]);
    assert_eq!(
        app.ints("SELECT clock_ms FROM alert_memory").await,
        [Some(at_ms(15))]
    );
    assert_eq!(
        app.ints("SELECT setting_id FROM alert_setting_evaluated")
            .await,
        [Some(s)]
    );

    // Another instance on the same database, with nothing in memory (as after a restart).
    let other = other_instance(&app).await;
    let tz = chrono_tz::America::Toronto;
    // A failure older than the clock (p1b's, not p1's) is late for the setting at rest: had
    // it counted, the next failure would open an event (threshold 2).
    other
        .ingest_runs(tz, vec![parse(run("late", 1, &at(12), "fail"))])
        .await
        .unwrap();
    ingest_ok(&app, &key, &[run("f1", 1, &at(20), "fail")]).await;
    assert_eq!(events(&app, &a.token, "").await["totalElements"], 0);
    assert_eq!(rows().await, [Some(1)], "a counted failure has its state");
    // A pass brings it back to rest: the state goes.
    other
        .ingest_runs(tz, vec![parse(run("p2", 1, &at(30), "pass"))])
        .await
        .unwrap();
    assert_eq!(rows().await, [Some(0)]);
    // Evaluated, though without a row: the backfill refuses it.
    let again = other.backfill_alerts(tz, vec![s], 0).await;
    assert!(
        matches!(again, Err(cxwatch::store::StoreError::Conflict(_))),
        "{again:?}"
    );
    // A change written straight to the database (no instance told): both see it at their
    // next batch. Threshold 1: a single failure opens.
    app.exec(&format!(
        "UPDATE alert_settings SET failure_to_alert = 1 WHERE id = {s}"
    ))
    .await;
    other
        .ingest_runs(tz, vec![parse(run("f3", 1, &at(40), "fail"))])
        .await
        .unwrap();
    assert_eq!(events(&app, &a.token, "").await["totalElements"], 1);
    // The group loses its test case: neither instance evaluates it any more.
    app.exec(&format!("DELETE FROM group_cases WHERE group_id = {g}"))
        .await;
    ingest_ok(&app, &key, &[run("p4", 1, &at(45), "pass")]).await;
    let page = events(&app, &a.token, "").await;
    assert_eq!(page["content"][0]["open"], true, "{page}");
    // The setting's state (its open event) stays with the test case until the setting goes:
    // its delete, however made, takes the state with it.
    assert_eq!(rows().await, [Some(1)]);
    app.exec(&format!("DELETE FROM alert_settings WHERE id = {s}"))
        .await;
    assert_eq!(rows().await, [Some(0)]);
}

/// Two instances ingesting runs of one test case in turn each start from what the other
/// wrote: a count the other instance ended is not counted on, nor one it started lost.
#[tokio::test]
async fn two_instances_take_turns_on_one_test_case() {
    let app = App::new();
    let (a, key, ..) = billing_setting(&app).await;
    let other = other_instance(&app).await;
    let tz = chrono_tz::America::Toronto;
    // Threshold 2: fail, pass (on the other instance), fail must not open.
    ingest_ok(&app, &key, &[run("f1", 1, &at(10), "fail")]).await;
    other
        .ingest_runs(tz, vec![parse(run("p2", 1, &at(20), "pass"))])
        .await
        .unwrap();
    ingest_ok(&app, &key, &[run("f3", 1, &at(30), "fail")]).await;
    assert_eq!(events(&app, &a.token, "").await["totalElements"], 0);
    // And the other way round: its memory (count 0) is behind this instance's count.
    other
        .ingest_runs(tz, vec![parse(run("f4", 1, &at(40), "fail"))])
        .await
        .unwrap();
    assert_eq!(events(&app, &a.token, "").await["totalElements"], 1);
}

/// `kill -9` of the real binary between two batches: the engine's count is in the
/// database, so the second batch opens the event; re-sending both opens no second one.
#[test]
fn kill_9_between_batches_loses_no_event() {
    let dir = tempfile::tempdir().unwrap();
    let store = common::store(dir.path());
    let key = Store::block_on(store.add_api_key("engine")).unwrap();
    let tz = chrono_tz::America::Toronto;
    let first = cxwatch::domain::ingest::parse_run_str(&run("seed", 1, &at(0), "pass").to_string())
        .unwrap();
    Store::block_on(store.ingest_runs(tz, vec![first])).unwrap();
    let g = Store::block_on(store.create_group(&cxwatch::store::catalog::GroupDraft {
        name: "Billing".into(),
        channel: cxwatch::domain::run::Channel::Voice,
        test_case_ids: vec![1],
    }))
    .unwrap()
    .group
    .id;
    let list = Store::block_on(store.create_distribution(&DistributionDraft {
        name: "Billing on call".into(),
        contacts: contacts(),
    }))
    .unwrap();
    Store::block_on(store.create_alert_setting(Scope::All, &draft(g, list, 2, &[7], false)))
        .unwrap();
    drop(store);

    let opts = common::Opts {
        data_dir: Some(dir.path().to_path_buf()),
        plain_http: true,
        env: vec![("CXWATCH_LOG".into(), "error".into())],
        ..Default::default()
    };
    let post = |server: &common::Server, runs: &[Value]| {
        let r = common::client()
            .post(server.url("/api/ingest/v1/runs"))
            .header("X-API-Key", &key)
            .json(&json!({ "runs": runs }))
            .send()
            .unwrap();
        assert_eq!(r.status().as_u16(), 200);
        r.json::<Value>().unwrap()
    };
    let b1 = [run("k1", 1, &at(1), "fail")];
    let b2 = [run("k2", 1, &at(2), "fail")];
    let mut server = common::start(opts.clone());
    assert_eq!(post(&server, &b1)["data"]["accepted"], 1);
    server.kill();
    let server = common::start(opts);
    assert_eq!(post(&server, &b2)["data"]["accepted"], 1);
    assert_eq!(post(&server, &b1)["data"]["duplicates"], 1);
    assert_eq!(post(&server, &b2)["data"]["duplicates"], 1);
    std::thread::sleep(Duration::from_millis(50));
    let count = |sql: &str| common::query_one::<i64>(dir.path(), sql);
    let (events, runs, queued) = (
        count("SELECT count(*) FROM alert_events"),
        count("SELECT count(*) FROM alert_event_runs"),
        count("SELECT count(*) FROM outbox WHERE cause LIKE 'alert:%'"),
    );
    assert_eq!((events, runs, queued), (1, 2, 3));
}

/// A backfilled event that opened before its incident's first failure joins the incident and
/// moves that first failure earlier; every event the backfill opens names its incident.
#[tokio::test]
async fn a_backfilled_event_moves_its_incidents_first_failure() {
    let app = App::new();
    let key = app.api_key("engine").await;
    // Failures before any setting: case 1 at 15:10, case 3 at 15:05.
    ingest_ok(
        &app,
        &key,
        &[run("f1", 1, &at(10), "fail"), run("f3", 3, &at(5), "fail")],
    )
    .await;
    let g = group(&app, "Billing", "voice", &[1]).await;
    let list = list_of(&app).await;
    let tz = chrono_tz::America::Toronto;
    let ms = |min| {
        chrono::DateTime::parse_from_rfc3339(&at(min))
            .unwrap()
            .timestamp_millis()
    };
    let firsts = || app.ints("SELECT first_ms FROM incidents ORDER BY id");
    let first = setting(&app, g, list, 1, &[7], false).await;
    app.store.backfill_alerts(tz, vec![first], 0).await.unwrap();
    assert_eq!(firsts().await, [Some(ms(10))]);
    // Case 3 joins the group; a second setting's backfill opens its failure at 15:05, inside
    // the incident's window before its first failure.
    app.exec(&format!(
        "INSERT INTO group_cases (group_id, test_case_id) VALUES ({g}, 3)"
    ))
    .await;
    let second = app
        .store
        .create_alert_setting(
            Scope::All,
            &AlertSettingDraft {
                name: "Billing down, second list".into(),
                ..draft(g, list, 1, &[7], false)
            },
        )
        .await
        .unwrap();
    app.store
        .backfill_alerts(tz, vec![second], 0)
        .await
        .unwrap();
    assert_eq!(firsts().await, [Some(ms(5))], "one incident, begun earlier");
    assert_eq!(
        app.ints("SELECT count(*) FROM alert_events").await,
        [Some(3)]
    );
    assert_eq!(
        app.ints("SELECT count(*) FROM alert_events WHERE incident_id IS NULL")
            .await,
        [Some(0)]
    );
}
