//! What the operator sees of an outage: the failing-now answer naming each failing group's
//! alert state (`groups/recent`), the alert list's state filters (open, unacknowledged,
//! mine), the handover since the previous sign-in, and a mute from an alert done right (the
//! test case or the whole group, shown on the alert, extended when muted again, listed once).
//! On either backend (`TEST_POSTGRES_URL`).

use crate::harness;
use crate::harness_trs;

use cxwatch::clock::now_ms;
use cxwatch::domain::alert_setting::AlertSettingDraft;
use cxwatch::domain::caller::{AccessType, Role, Scope};
use cxwatch::domain::distribution::{Contact, ContactType, DistributionDraft};
use cxwatch::domain::schedule::Week;
use harness::App;
use harness_trs::{admin, get, group, ingest_ok, run};
use poem::http::Method;
use serde_json::{json, Value};

async fn list(app: &App) -> i64 {
    app.store
        .create_distribution(&DistributionDraft {
            name: "On call".into(),
            contacts: vec![Contact {
                name: "Mail".into(),
                kind: ContactType::Email,
                info: "ops@example.com".into(),
            }],
        })
        .await
        .unwrap()
}

/// A setting on `group` opening at the `threshold`-th consecutive failure, all week.
async fn setting(app: &App, group: i64, list: i64, threshold: u8) -> i64 {
    app.store
        .create_alert_setting(
            Scope::All,
            &AlertSettingDraft {
                name: format!("Setting of {group} at {threshold}"),
                active: true,
                group_id: group,
                distribution_id: list,
                email_subject: "Failing".into(),
                voice_message: "Failing".into(),
                sms_prefix: "[CX]".into(),
                failure_to_alert: threshold,
                statuses: vec!["FAIL".into()],
                week: Week::from_masks((1..=7).map(|d| (d, (1u64 << 48) - 1))),
                ..Default::default()
            },
        )
        .await
        .unwrap()
}

fn iso(ms: i64) -> String {
    chrono::DateTime::<chrono::Utc>::from_timestamp_millis(ms)
        .unwrap()
        .to_rfc3339()
}

fn ms(v: &Value) -> i64 {
    chrono::DateTime::parse_from_rfc3339(v.as_str().unwrap())
        .unwrap()
        .timestamp_millis()
}

async fn call(app: &App, m: Method, path: &str, token: &str, body: Option<Value>) -> (u16, Value) {
    app.call(m, path, Some(token), body.as_ref()).await
}

/// The open event of test case `case`.
async fn event_of(app: &App, token: &str, case: i64) -> i64 {
    let (_, page) = get(app, token, "/api/alerts/events?pageSize=100").await;
    page["data"]["content"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["testCaseId"] == case && e["open"] == true)
        .unwrap_or_else(|| panic!("no open event of case {case}: {page}"))["alertId"]
        .as_i64()
        .unwrap()
}

fn group_alert(recent: &Value, id: i64) -> Value {
    recent["data"]["groups"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["groupId"] == id)
        .unwrap_or_else(|| panic!("no group {id}: {recent}"))["alert"]
        .clone()
}

#[tokio::test]
async fn the_failing_now_answer_names_each_failing_groups_alert_state() {
    let app = App::new();
    let a = admin(&app).await;
    let key = app.api_key("engine").await;
    let now = now_ms();
    let t = |k: i64| iso(now - 600_000 + k * 1000);
    // Cases 1..6 exist before their groups.
    ingest_ok(
        &app,
        &key,
        &(1..=6)
            .map(|c| run(&format!("p{c}"), c, &t(0), "pass"))
            .collect::<Vec<_>>(),
    )
    .await;
    let l = list(&app).await;
    let open = group(&app, "Billing", "voice", &[1]).await;
    let acked = group(&app, "Cards", "voice", &[2]).await;
    let near = group(&app, "Claims", "voice", &[3]).await;
    let muted = group(&app, "Loans", "voice", &[4]).await;
    let bare = group(&app, "Sales", "voice", &[5]).await;
    let fine = group(&app, "Travel", "voice", &[6]).await;
    setting(&app, open, l, 1).await;
    setting(&app, acked, l, 1).await;
    let near_setting = setting(&app, near, l, 5).await;
    // A second setting farther from alerting does not hide the nearer one.
    setting(&app, near, l, 10).await;
    setting(&app, muted, l, 1).await;
    setting(&app, fine, l, 1).await;
    let mut runs = vec![
        run("f1", 1, &t(1), "fail"),
        run("f2", 2, &t(1), "fail"),
        run("f4", 4, &t(1), "fail"),
        run("f5", 5, &t(1), "fail"),
        run("p6", 6, &t(1), "pass"),
    ];
    runs.extend((0..4).map(|k| run(&format!("f3-{k}"), 3, &t(1 + k), "fail")));
    ingest_ok(&app, &key, &runs).await;

    let rw = app
        .user(
            "ana@example.com",
            Role::User,
            AccessType::ReadWrite,
            &[open, acked, near, muted],
        )
        .await;
    let acked_event = event_of(&app, &a.token, 2).await;
    let (st, b) = call(
        &app,
        Method::POST,
        &format!("/api/alerts/{acked_event}/acknowledge"),
        &rw.token,
        None,
    )
    .await;
    assert_eq!(st, 200, "{b}");
    let muted_event = event_of(&app, &a.token, 4).await;
    let until = now_ms() + 3_600_000;
    let (st, b) = call(
        &app,
        Method::POST,
        &format!("/api/alerts/{muted_event}/mute"),
        &rw.token,
        Some(json!({"until": iso(until), "target": "group"})),
    )
    .await;
    assert_eq!(st, 200, "{b}");
    let window = b["data"]["windowId"].as_i64().unwrap();

    let (st, recent) = get(&app, &a.token, "/api/trs/v1/groups/recent").await;
    assert_eq!(st, 200, "{recent}");
    let open_event = event_of(&app, &a.token, 1).await;
    assert_eq!(
        group_alert(&recent, open),
        json!({"state": "open", "alertId": open_event})
    );
    let ack = group_alert(&recent, acked);
    assert_eq!(ack["state"], "acknowledged", "{ack}");
    assert_eq!(ack["alertId"], acked_event);
    assert_eq!(ack["by"], "ana@example.com");
    assert!((ms(&ack["time"]) - now_ms()).abs() < 60_000, "{ack}");
    assert_eq!(
        group_alert(&recent, near),
        json!({"state": "notYet", "failures": 4, "threshold": 5,
               "alertSettingId": near_setting})
    );
    let m = group_alert(&recent, muted);
    assert_eq!(m["state"], "muted", "{m}");
    assert_eq!(m["by"], "ana@example.com");
    assert_eq!(m["windowId"], window);
    assert_eq!(m["wholeGroup"], true);
    assert_eq!(m["alertId"], muted_event);
    assert!((ms(&m["until"]) - until).abs() < 1000, "{m}");
    assert_eq!(group_alert(&recent, bare), json!({"state": "noSetting"}));
    assert_eq!(
        group_alert(&recent, fine),
        Value::Null,
        "a passing group has none"
    );

    // A restricted user gets the states of their own groups only.
    let (_, mine) = get(&app, &rw.token, "/api/trs/v1/groups/recent").await;
    let ids: Vec<i64> = mine["data"]["groups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["groupId"].as_i64().unwrap())
        .collect();
    assert_eq!(ids.len(), 4, "{mine}");
    assert_eq!(group_alert(&mine, near)["state"], "notYet");
}

#[tokio::test]
async fn a_group_mute_shows_on_the_alert_and_muting_again_extends_it() {
    let app = App::new();
    let a = admin(&app).await;
    let key = app.api_key("engine").await;
    let now = now_ms();
    let t = |k: i64| iso(now - 600_000 + k * 1000);
    ingest_ok(
        &app,
        &key,
        &[run("p1", 1, &t(0), "pass"), run("p2", 2, &t(0), "pass")],
    )
    .await;
    let l = list(&app).await;
    let g = group(&app, "Card Services", "voice", &[1, 2]).await;
    setting(&app, g, l, 1).await;
    ingest_ok(&app, &key, &[run("f1", 1, &t(1), "fail")]).await;
    let event = event_of(&app, &a.token, 1).await;
    let rw = app
        .user("ana@example.com", Role::User, AccessType::ReadWrite, &[g])
        .await;
    let ro = app
        .user("viewer@example.com", Role::User, AccessType::ReadOnly, &[g])
        .await;
    let details = format!("/api/alerts/events/{event}");
    let mute = format!("/api/alerts/{event}/mute");
    let (_, d) = get(&app, &ro.token, &details).await;
    assert_eq!(d["data"]["mute"], Value::Null, "{d}");
    let body = |until: i64, target: &str| Some(json!({"until": iso(until), "target": target}));
    assert_eq!(
        call(
            &app,
            Method::POST,
            &mute,
            &ro.token,
            body(now + 3_600_000, "group")
        )
        .await
        .0,
        403
    );
    let (st, b) = call(
        &app,
        Method::POST,
        &mute,
        &rw.token,
        Some(json!({"until": iso(now + 3_600_000), "target": "everything"})),
    )
    .await;
    assert_eq!(st, 400, "{b}");

    // Muted for an hour: the whole group, shown on the alert after a reload.
    let (st, first) = call(
        &app,
        Method::POST,
        &mute,
        &rw.token,
        body(now + 3_600_000, "group"),
    )
    .await;
    assert_eq!(st, 200, "{first}");
    assert_eq!(first["data"]["extended"], false);
    let wid = first["data"]["windowId"].as_i64().unwrap();
    let (_, d) = get(&app, &ro.token, &details).await;
    let shown = &d["data"]["mute"];
    assert_eq!(shown["windowId"], wid, "{d}");
    assert_eq!(shown["target"], "group");
    assert_eq!(shown["by"], "ana@example.com");
    assert_eq!(shown["alertId"], event);
    assert!(
        (ms(&shown["until"]) - (now + 3_600_000)).abs() < 1000,
        "{d}"
    );
    let (_, w) = get(&app, &a.token, &format!("/api/maintenance/windows/{wid}")).await;
    assert_eq!(w["data"]["testCaseGroups"][0]["id"], g, "{w}");
    assert_eq!(w["data"]["testCases"], json!([]), "{w}");

    // Muting again extends the same window; a shorter mute keeps the longer end.
    let (st, again) = call(
        &app,
        Method::POST,
        &mute,
        &a.token,
        body(now + 4 * 3_600_000, "group"),
    )
    .await;
    assert_eq!(st, 200, "{again}");
    assert_eq!(again["data"]["windowId"], wid);
    assert_eq!(again["data"]["extended"], true);
    assert!((ms(&again["data"]["until"]) - (now + 4 * 3_600_000)).abs() < 1000);
    let (_, shorter) = call(
        &app,
        Method::POST,
        &mute,
        &rw.token,
        body(now + 3_600_000, "group"),
    )
    .await;
    assert_eq!(shorter["data"]["windowId"], wid);
    assert_eq!(shorter["data"]["extended"], false);
    assert_eq!(shorter["data"]["until"], again["data"]["until"]);
    let (_, banner) = get(&app, &ro.token, "/api/maintenance/now").await;
    assert_eq!(
        banner["data"]["active"].as_array().unwrap().len(),
        1,
        "the dashboard lists the mute once: {banner}"
    );
    let (_, d) = get(&app, &ro.token, &details).await;
    assert_eq!(d["data"]["mute"]["until"], again["data"]["until"], "{d}");

    // The other test case of the group is muted too: its failure opens nothing.
    ingest_ok(&app, &key, &[run("f2", 2, &iso(now_ms()), "fail")]).await;
    let (_, page) = get(&app, &a.token, "/api/alerts/events").await;
    assert_eq!(page["data"]["totalElements"], 1, "{page}");

    // A test case mute is another window; unmuting the group's leaves the alert showing it.
    let (_, case) = call(
        &app,
        Method::POST,
        &mute,
        &rw.token,
        body(now + 7_200_000, "testCase"),
    )
    .await;
    let cid = case["data"]["windowId"].as_i64().unwrap();
    assert_ne!(cid, wid);
    let (st, b) = call(
        &app,
        Method::POST,
        &format!("/api/maintenance/windows/{wid}/end"),
        &rw.token,
        None,
    )
    .await;
    assert_eq!(st, 200, "{b}");
    let (_, d) = get(&app, &ro.token, &details).await;
    assert_eq!(d["data"]["mute"]["windowId"], cid, "{d}");
    assert_eq!(d["data"]["mute"]["target"], "testCase");
    // Muting the group again after the unmute makes a new window.
    let (_, fresh) = call(
        &app,
        Method::POST,
        &mute,
        &rw.token,
        body(now + 3_600_000, "group"),
    )
    .await;
    let fid = fresh["data"]["windowId"].as_i64().unwrap();
    assert!(fid != wid && fid != cid, "{fresh}");
    assert_eq!(fresh["data"]["extended"], false);
}

#[tokio::test]
async fn the_alert_list_filters_by_state_and_the_handover_lists_the_night() {
    let app = App::new();
    let a = admin(&app).await;
    let key = app.api_key("engine").await;
    let now = now_ms();
    let t = |k: i64| iso(now - 600_000 + k * 1000);
    ingest_ok(
        &app,
        &key,
        &(1..=4)
            .map(|c| run(&format!("p{c}"), c, &t(0), "pass"))
            .collect::<Vec<_>>(),
    )
    .await;
    let l = list(&app).await;
    let g = group(&app, "Card Services", "voice", &[1, 2, 3, 4]).await;
    setting(&app, g, l, 1).await;
    let rw = app
        .user("ana@example.com", Role::User, AccessType::ReadWrite, &[g])
        .await;
    // The handover starts at Ana's previous sign-in: one before the night, then tonight's.
    app.store
        .record_sign_in(rw.id, now - 1_200_000)
        .await
        .unwrap();
    app.store.record_sign_in(rw.id, now - 1000).await.unwrap();
    ingest_ok(
        &app,
        &key,
        &(1..=4)
            .map(|c| run(&format!("f{c}"), c, &t(1), "fail"))
            .collect::<Vec<_>>(),
    )
    .await;
    let (e1, e2, e3, e4) = (
        event_of(&app, &a.token, 1).await,
        event_of(&app, &a.token, 2).await,
        event_of(&app, &a.token, 3).await,
        event_of(&app, &a.token, 4).await,
    );
    // e2 acknowledged by Ana, e3 closed by a pass, e4 commented on by Ana (still open,
    // unacknowledged), e1 muted by the administrator.
    let ack = call(
        &app,
        Method::POST,
        &format!("/api/alerts/{e2}/acknowledge"),
        &rw.token,
        None,
    )
    .await;
    assert_eq!(ack.0, 200, "{}", ack.1);
    ingest_ok(&app, &key, &[run("p3b", 3, &t(2), "pass")]).await;
    let c = call(
        &app,
        Method::PUT,
        &format!("/api/alerts/{e4}"),
        &rw.token,
        Some(json!({"comment": "on it"})),
    )
    .await;
    assert_eq!(c.0, 200, "{}", c.1);
    let m = call(
        &app,
        Method::POST,
        &format!("/api/alerts/{e1}/mute"),
        &a.token,
        Some(json!({"until": iso(now + 3_600_000)})),
    )
    .await;
    assert_eq!(m.0, 200, "{}", m.1);

    let ids = |page: &Value| -> Vec<i64> {
        let mut v: Vec<i64> = page["data"]["content"]
            .as_array()
            .unwrap_or_else(|| panic!("{page}"))
            .iter()
            .map(|e| e["alertId"].as_i64().unwrap())
            .collect();
        v.sort();
        v
    };
    let sorted = |mut v: Vec<i64>| {
        v.sort();
        v
    };
    let (_, p) = get(&app, &rw.token, "/api/alerts/events?state=open").await;
    assert_eq!(ids(&p), sorted(vec![e1, e2, e4]));
    assert_eq!(p["data"]["totalElements"], 3);
    let (_, p) = get(&app, &rw.token, "/api/alerts/events?state=unacknowledged").await;
    assert_eq!(ids(&p), sorted(vec![e1, e4]));
    let (_, p) = get(&app, &rw.token, "/api/alerts/events?state=mine").await;
    assert_eq!(
        ids(&p),
        sorted(vec![e2, e4]),
        "acknowledged or commented by Ana"
    );
    let (_, p) = get(&app, &a.token, "/api/alerts/events?state=mine").await;
    assert_eq!(ids(&p), vec![e1], "muted by the administrator");
    // Paged, with the status filter too.
    let (_, p) = get(
        &app,
        &rw.token,
        "/api/alerts/events?state=open&status=7&pageSize=2&pageNo=1",
    )
    .await;
    assert_eq!(p["data"]["totalElements"], 3, "{p}");
    assert_eq!(p["data"]["content"].as_array().unwrap().len(), 1, "{p}");
    let (st, b) = get(&app, &rw.token, "/api/alerts/events?state=closed").await;
    assert_eq!(st, 400, "{b}");
    assert_eq!(b["fields"][0]["field"], "state", "{b}");

    // The handover since Ana's previous sign-in: the four openings, then what was done.
    let (st, h) = get(&app, &rw.token, "/api/alerts/handover").await;
    assert_eq!(st, 200, "{h}");
    assert_eq!(h["data"]["sinceSource"], "previousSignIn", "{h}");
    assert_eq!(ms(&h["data"]["since"]), now - 1_200_000);
    let entries: Vec<(String, i64)> = h["data"]["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                e["kind"].as_str().unwrap().to_string(),
                e["alertId"].as_i64().unwrap(),
            )
        })
        .collect();
    let count = |k: &str| entries.iter().filter(|(kind, _)| kind == k).count();
    assert_eq!(count("opened"), 4, "{h}");
    assert!(entries.contains(&("acknowledged".into(), e2)), "{h}");
    assert!(entries.contains(&("closed".into(), e3)), "{h}");
    assert!(entries.contains(&("muted".into(), e1)), "{h}");
    assert_eq!(entries.len(), 7, "{h}");
    let muted = h["data"]["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["kind"] == "muted")
        .unwrap();
    assert_eq!(muted["by"], a.username.as_str());
    assert_eq!(muted["target"], "testCase");
    assert_eq!(muted["testCaseGroupName"], "Card Services");
    let times: Vec<i64> = h["data"]["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| ms(&e["time"]))
        .collect();
    assert!(times.windows(2).all(|w| w[0] <= w[1]), "oldest first: {h}");
    // A start given: nothing before it; in the future: refused.
    let (st, later) = get(
        &app,
        &rw.token,
        &format!(
            "/api/alerts/handover?since={}",
            iso(now_ms() + 60_000).replace('+', "%2B")
        ),
    )
    .await;
    assert_eq!(st, 400, "{later}");
    let (_, given) = get(
        &app,
        &rw.token,
        &format!(
            "/api/alerts/handover?since={}",
            iso(now - 3_600_000).replace('+', "%2B")
        ),
    )
    .await;
    assert_eq!(given["data"]["sinceSource"], "given", "{given}");
    assert_eq!(given["data"]["entries"].as_array().unwrap().len(), 7);
    // Another group's user sees none of it; without a previous sign-in, the last 12 hours.
    let other = group(&app, "Sales", "voice", &[]).await;
    let stranger = app
        .user(
            "sales@example.com",
            Role::User,
            AccessType::ReadWrite,
            &[other],
        )
        .await;
    let (_, h) = get(&app, &stranger.token, "/api/alerts/handover").await;
    assert_eq!(h["data"]["entries"], json!([]), "{h}");
    assert_eq!(h["data"]["sinceSource"], "default", "{h}");
}

#[tokio::test]
async fn a_sign_in_moves_the_last_to_the_previous() {
    let app = App::new();
    let who = app
        .user("ana@example.com", Role::User, AccessType::ReadWrite, &[])
        .await;
    // app.user signed in once: no previous yet.
    assert_eq!(app.store.previous_sign_in(who.id).await.unwrap(), None);
    let (st, b) = app
        .call(
            Method::POST,
            "/api/auth/signin",
            None,
            Some(&json!({"username": "ana@example.com", "password": harness::PASSWORD, "remember": false})),
        )
        .await;
    assert_eq!(st, 200, "{b}");
    let previous = app.store.previous_sign_in(who.id).await.unwrap();
    assert!(
        previous.is_some_and(|p| (p - now_ms()).abs() < 60_000),
        "{previous:?}"
    );
}
