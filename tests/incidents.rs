//! Incidents (`docs/alerting.md` 'Incidents'): alerts that open close together and share a
//! cause (one IVR application behind several groups) are one incident, kept by the engine
//! in the transaction that opens them; a later alert's notification says it joined and pages
//! nobody (e-mail only), nor does its recovery, which says whether the incident is still open;
//! its escalation pages a list once; acknowledging or muting the incident acts on each of its
//! open alerts; one part recovering leaves it open until the last. On either backend
//! (`TEST_POSTGRES_URL`).

use crate::harness;
use crate::harness_trs;

use cxwatch::domain::alert_setting::{AlertSettingDraft, Escalation};
use cxwatch::domain::caller::{AccessType, Role, Scope};
use cxwatch::domain::distribution::{Contact, ContactType, DistributionDraft};
use cxwatch::domain::schedule::Week;
use harness::App;
use harness_trs::{admin, get, group, ingest_ok, run};
use poem::http::Method;
use serde_json::{json, Value};

fn at(min: u32) -> String {
    format!("2026-11-23T03:{min:02}:00Z")
}

/// A setting opening at the first failure, every slot of the week, as `change` leaves it.
async fn setting_with(
    app: &App,
    name: &str,
    group: i64,
    list: i64,
    change: impl Fn(&mut AlertSettingDraft),
) -> i64 {
    let mut draft = AlertSettingDraft {
        name: name.into(),
        active: true,
        group_id: group,
        distribution_id: list,
        email_subject: format!("{name} failing"),
        voice_message: format!("{name} is failing"),
        sms_prefix: "[CX]".into(),
        failure_to_alert: 1,
        statuses: vec!["FAIL".into()],
        week: Week::from_masks((1..=7).map(|d| (d, (1u64 << 48) - 1))),
        ..Default::default()
    };
    change(&mut draft);
    app.store
        .create_alert_setting(Scope::All, &draft)
        .await
        .unwrap()
}

/// The channels (1 e-mail, 2 SMS) and texts queued for alert `id`'s opening.
async fn queued(app: &App, id: i64) -> Vec<(i64, String)> {
    queued_for(app, &format!("alert:{id}")).await
}

/// The channels and texts queued for `cause`.
async fn queued_for(app: &App, cause: &str) -> Vec<(i64, String)> {
    let channels = app
        .texts(&format!(
            "SELECT CAST(channel AS TEXT) FROM outbox WHERE cause = '{cause}' ORDER BY id"
        ))
        .await;
    let texts = app
        .texts(&format!(
            "SELECT body_text FROM outbox WHERE cause = '{cause}' ORDER BY id"
        ))
        .await;
    channels
        .into_iter()
        .zip(texts)
        .map(|(c, t)| {
            (
                c.unwrap_or_default().parse().unwrap_or(0),
                t.unwrap_or_default(),
            )
        })
        .collect()
}

/// A list of one e-mail and one SMS contact.
async fn on_call(app: &App, name: &str) -> i64 {
    app.store
        .create_distribution(&DistributionDraft {
            name: name.into(),
            contacts: vec![
                Contact {
                    name: "Mail".into(),
                    kind: ContactType::Email,
                    info: "ops@example.com".into(),
                },
                Contact {
                    name: "Pager".into(),
                    kind: ContactType::Sms,
                    info: "+15145550100".into(),
                },
            ],
        })
        .await
        .unwrap()
}

fn alert_of(page: &Value, case: &str) -> Value {
    page["data"]["content"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["testCaseName"] == case)
        .cloned()
        .unwrap_or_else(|| panic!("no alert of {case} in {page}"))
}

/// The four test cases' passing runs, then a group and a setting telling `list` (changed by
/// `change`) for each: Cards (case 1), Loans (3) and After hours (5) enter by IVR 11, Sales
/// (2) by IVR 10 (harness_trs::run). Their groups' ids in that order.
async fn four_groups(
    app: &App,
    key: &str,
    list: i64,
    change: impl Fn(&mut AlertSettingDraft),
) -> [i64; 4] {
    ingest_ok(
        app,
        key,
        &[1, 3, 5, 2].map(|c| run(&format!("p{c}"), c, &at(0), "pass")),
    )
    .await;
    let mut ids = [0; 4];
    for (i, (name, case)) in [("Cards", 1), ("Loans", 3), ("After hours", 5), ("Sales", 2)]
        .into_iter()
        .enumerate()
    {
        ids[i] = group(app, name, "voice", &[case]).await;
        setting_with(app, name, ids[i], list, &change).await;
    }
    ids
}

/// Cards, Loans and Sales fail in one batch; After hours a batch later.
async fn four_fail(app: &App, key: &str) {
    ingest_ok(
        app,
        key,
        &[
            run("f1", 1, &at(1), "fail"),
            run("f3", 3, &at(1), "fail"),
            run("f2", 2, &at(2), "fail"),
        ],
    )
    .await;
    ingest_ok(app, key, &[run("f5", 5, &at(6), "fail")]).await;
}

#[tokio::test]
async fn one_ivr_outage_behind_three_groups_is_one_incident() {
    let app = App::with_config(|c| {
        c.notify.public_url = "https://console.cxwatch.test".into();
    });
    let a = admin(&app).await;
    let key = app.api_key("engine").await;
    let list = on_call(&app, "On call").await;
    let [g1, _, _, g2] = four_groups(&app, &key, list, |_| {}).await;
    four_fail(&app, &key).await;

    let (_, page) = get(&app, &a.token, "/api/alerts/events?pageSize=50").await;
    let cards = alert_of(&page, "Case 001");
    let loans = alert_of(&page, "Case 003");
    let late = alert_of(&page, "Case 005");
    let sales = alert_of(&page, "Case 002");
    let incident = cards["incidentId"].as_i64().unwrap();
    assert_eq!(loans["incidentId"], json!(incident));
    assert_eq!(late["incidentId"], json!(incident));
    assert_ne!(sales["incidentId"], json!(incident));
    assert!(sales["incidentId"].as_i64().is_some());

    // The first alert pages (e-mail and SMS) naming the incident; those that joined say so
    // in an e-mail and page nobody.
    let ids: Vec<i64> = [&cards, &loans, &late]
        .iter()
        .map(|e| e["alertId"].as_i64().unwrap())
        .collect();
    let first = *ids.iter().min().unwrap();
    for id in &ids {
        let q = queued(&app, *id).await;
        if *id == first {
            assert_eq!(
                q.iter().map(|(c, _)| *c).collect::<Vec<_>>(),
                vec![1, 2],
                "{q:?}"
            );
            assert!(
                q[0].1.contains(&format!(
                    "Incident {incident}: https://console.cxwatch.test/incident/{incident}"
                )),
                "{q:?}"
            );
        } else {
            assert_eq!(q.len(), 1, "{q:?}");
            assert_eq!(q[0].0, 1);
            assert!(
                q[0].1
                    .starts_with(&format!("Alert {id} joined incident {incident} (")),
                "{q:?}"
            );
        }
    }

    // The incident: titled by the shared IVR, three groups, open.
    let path = format!("/api/alerts/incidents/{incident}");
    let (s, inc) = get(&app, &a.token, &path).await;
    assert_eq!(s, 200, "{inc}");
    let d = &inc["data"];
    assert_eq!(d["title"], "IVR 11");
    assert_eq!(d["titleKind"], "entryPoint");
    assert_eq!(d["state"], "open");
    assert_eq!(d["alertCount"], 3);
    assert_eq!(d["groups"].as_array().unwrap().len(), 3);
    assert_eq!(d["mutedUntil"], Value::Null);
    // The alert's details name it.
    let (_, details) = get(&app, &a.token, &format!("/api/alerts/events/{first}")).await;
    assert_eq!(details["data"]["incidentId"], json!(incident));

    // A user of one group sees the incident with that group's alert only, and acting on it
    // acts on that alert only; a read-only one cannot act.
    let cards_user = app
        .user(
            "cards@example.com",
            Role::User,
            AccessType::ReadWrite,
            &[g1],
        )
        .await;
    let viewer = app
        .user(
            "viewer@example.com",
            Role::User,
            AccessType::ReadOnly,
            &[g1],
        )
        .await;
    let sales_user = app
        .user(
            "sales@example.com",
            Role::User,
            AccessType::ReadWrite,
            &[g2],
        )
        .await;
    let (_, mine) = get(&app, &cards_user.token, &path).await;
    assert_eq!(mine["data"]["alertCount"], 1, "{mine}");
    assert_eq!(get(&app, &sales_user.token, &path).await.0, 403);
    assert_eq!(
        get(&app, &a.token, "/api/alerts/incidents/999999").await.0,
        404
    );
    let ack = format!("{path}/acknowledge");
    let ro = app
        .call(Method::POST, &ack, Some(&viewer.token), None)
        .await;
    assert_eq!(ro.0, 403, "{}", ro.1);

    // Acknowledged from the incident: every open alert, by whom and when.
    let (s, after) = app.call(Method::POST, &ack, Some(&a.token), None).await;
    assert_eq!(s, 200, "{after}");
    assert_eq!(after["data"]["state"], "acknowledged");
    assert_eq!(after["data"]["acknowledgedBy"], json!(a.username));
    assert_eq!(after["data"]["acknowledgedAlertCount"], 3);
    let (_, e) = get(&app, &a.token, &format!("/api/alerts/events/{}", ids[2])).await;
    assert_eq!(e["data"]["acknowledgedBy"], json!(a.username));

    // Muted from the incident: each open alert's test case, the incident says until when.
    let until = (chrono::Utc::now() + chrono::Duration::hours(1)).to_rfc3339();
    let (s, muted) = app
        .call(
            Method::POST,
            &format!("{path}/mute"),
            Some(&a.token),
            Some(&json!({ "until": until })),
        )
        .await;
    assert_eq!(s, 200, "{muted}");
    assert_eq!(muted["data"]["mutedBy"], json!(a.username));
    assert!(muted["data"]["mutedUntil"].as_str().is_some());
    let windows = app
        .texts("SELECT CAST(count(*) AS TEXT) FROM maintenance_windows WHERE event_id IS NOT NULL")
        .await;
    assert_eq!(windows[0].as_deref(), Some("3"));

    // One part recovers: still open; the last one resolves it.
    ingest_ok(&app, &key, &[run("r1", 1, &at(10), "pass")]).await;
    let (_, inc) = get(&app, &a.token, &path).await;
    assert_eq!(inc["data"]["openAlertCount"], 2);
    assert_ne!(inc["data"]["state"], "resolved");
    let (_, open) = get(&app, &a.token, "/api/alerts/incidents?state=open").await;
    assert_eq!(open["data"]["totalElements"], 2, "{open}");
    ingest_ok(
        &app,
        &key,
        &[run("r3", 3, &at(11), "pass"), run("r5", 5, &at(11), "pass")],
    )
    .await;
    let (_, inc) = get(&app, &a.token, &path).await;
    assert_eq!(inc["data"]["state"], "resolved");
    assert!(inc["data"]["resolvedTime"].as_str().is_some());
    let (_, resolved) = get(&app, &a.token, "/api/alerts/incidents?state=resolved").await;
    assert_eq!(
        resolved["data"]["content"][0]["incidentId"],
        json!(incident),
        "{resolved}"
    );
    // A resolved incident has nothing to acknowledge.
    assert_eq!(
        app.call(Method::POST, &ack, Some(&a.token), None).await.0,
        409
    );
    assert_eq!(
        get(&app, &a.token, "/api/alerts/incidents?state=nope")
            .await
            .0,
        400
    );
}

/// A joined alert's recovery pages nobody, as its alert did not: the recovery of the alert
/// that started the incident goes to e-mail and SMS, a joined one's to e-mail only, whether
/// they recover in one batch or in two, and whether an alert opens and recovers in one.
#[tokio::test]
async fn a_joined_alert_s_recovery_pages_nobody() {
    let app = App::new();
    let key = app.api_key("engine").await;
    let list = on_call(&app, "On call").await;
    four_groups(&app, &key, list, |d| d.notify_on_recovery = true).await;
    ingest_ok(&app, &key, &[run("f1", 1, &at(1), "fail")]).await;
    ingest_ok(&app, &key, &[run("f3", 3, &at(2), "fail")]).await;
    // Case 5 fails and passes again in one batch: it joins and recovers at once.
    ingest_ok(
        &app,
        &key,
        &[run("f5", 5, &at(3), "fail"), run("q5", 5, &at(4), "pass")],
    )
    .await;
    let a = admin(&app).await;
    let (_, page) = get(&app, &a.token, "/api/alerts/events?pageSize=50").await;
    let [first, joined, flash] = ["Case 001", "Case 003", "Case 005"]
        .map(|c| alert_of(&page, c)["alertId"].as_i64().unwrap());
    let incident = alert_of(&page, "Case 001")["incidentId"].as_i64().unwrap();
    let channels = |q: &[(i64, String)]| q.iter().map(|(c, _)| *c).collect::<Vec<_>>();
    assert_eq!(channels(&queued(&app, joined).await), vec![1]);
    let q = queued_for(&app, &format!("recovery:{flash}")).await;
    assert_eq!(channels(&q), vec![1]);
    assert!(
        q[0].1.starts_with(&format!(
            "Incident {incident} is still open: 2 alerts not recovered.\nRecovered: test case \
             Case 005"
        )),
        "{q:?}"
    );
    // The first recovers before the one that joined: its recovery pages, saying the incident
    // is not over; the other's pages nobody, and says the incident is resolved.
    ingest_ok(&app, &key, &[run("r1", 1, &at(5), "pass")]).await;
    ingest_ok(&app, &key, &[run("r3", 3, &at(6), "pass")]).await;
    for (id, case, want, head) in [
        (
            first,
            "Case 001",
            vec![1, 2],
            "is still open: 1 alert not recovered.",
        ),
        (
            joined,
            "Case 003",
            vec![1],
            "is resolved: all its alerts recovered.",
        ),
    ] {
        let q = queued_for(&app, &format!("recovery:{id}")).await;
        assert_eq!(channels(&q), want, "{q:?}");
        assert!(
            q[0].1.starts_with(&format!(
                "Incident {incident} {head}\nRecovered: test case {case}"
            )),
            "{q:?}"
        );
    }
}

/// An incident's escalation pages the second list once: its first alert escalated goes to
/// the list's e-mail and SMS, the others (in the same pass or a later one) to e-mail only.
/// An alert of no incident's own pages as before.
#[tokio::test]
async fn an_incident_s_escalation_pages_once() {
    let app = App::new();
    let key = app.api_key("engine").await;
    let list = on_call(&app, "On call").await;
    let managers = on_call(&app, "Managers").await;
    four_groups(&app, &key, list, |d| {
        d.escalation = Some(Escalation {
            distribution_id: managers,
            delay_min: 1,
        })
    })
    .await;
    four_fail(&app, &key).await;
    let a = admin(&app).await;
    let (_, page) = get(&app, &a.token, "/api/alerts/events?pageSize=50").await;
    let [cards, loans, sales, late] = ["Case 001", "Case 003", "Case 002", "Case 005"]
        .map(|c| alert_of(&page, c)["alertId"].as_i64().unwrap());
    let tz = chrono_tz::America::Toronto;
    let url = String::new();
    let due = app.store.next_escalation_ms().await.unwrap().unwrap();
    // Cards, Loans (one incident) and Sales (another) are due; After hours, opened a batch
    // later, in a later pass.
    assert_eq!(
        app.store
            .escalate_due(tz, url.clone(), due, 100)
            .await
            .unwrap(),
        5
    );
    assert_eq!(
        app.store
            .escalate_due(tz, url.clone(), due + 120_000, 100)
            .await
            .unwrap(),
        1
    );
    let channels = |q: Vec<(i64, String)>| q.into_iter().map(|(c, _)| c).collect::<Vec<_>>();
    let first = cards.min(loans);
    for (id, want) in [
        (first, vec![1, 2]),
        (cards.max(loans), vec![1]),
        (late, vec![1]),
        (sales, vec![1, 2]),
    ] {
        let q = queued_for(&app, &format!("escalation:{id}")).await;
        assert_eq!(channels(q), want, "escalation of alert {id}");
    }
}
