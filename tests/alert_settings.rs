//! Alert settings through the API, in-process (`tests/harness`): every call, the form's
//! rules in the spec's order and words, the schedule's ranges and its 24:00 rules, the
//! statuses that fit a group's channel, who sees and changes what, and the distribution
//! list a setting uses that cannot be deleted.

use crate::harness;
use crate::harness_trs;

use cxwatch::domain::caller::{AccessType, Role};
use harness::App;
use poem::http::Method;
use serde_json::{json, Value};

struct World {
    app: App,
    admin: String,
    voice: i64,
    web: i64,
    list: i64,
}

async fn world() -> World {
    let app = App::new();
    let admin = harness_trs::admin(&app).await.token;
    let key = app.api_key("engine").await;
    let mut web_run = harness_trs::run("w-1", 2, "2026-07-15T14:05:00Z", "pass");
    web_run["testCase"]["channel"] = json!("web");
    harness_trs::ingest_ok(
        &app,
        &key,
        &[
            harness_trs::run("v-1", 1, "2026-07-15T14:05:00Z", "pass"),
            web_run,
        ],
    )
    .await;
    let voice = harness_trs::group(&app, "Billing IVR", "voice", &[1]).await;
    let web = harness_trs::group(&app, "Web chat", "web", &[2]).await;
    let (s, b) = app
        .call(
            Method::POST,
            "/api/distributions",
            Some(&admin),
            Some(&json!({"name": "Billing on call",
                "contacts": [{"name": "Ops", "type": 1, "info": "ops@example.com"}]})),
        )
        .await;
    assert_eq!(s, 200, "{b}");
    let list = b["data"]["id"].as_i64().unwrap();
    World {
        app,
        admin,
        voice,
        web,
        list,
    }
}

fn body(group: i64, list: i64) -> Value {
    json!({
        "name": "Billing down",
        "active": true,
        "testCaseGroupId": group,
        "distributionId": list,
        "emailSubject": "Billing IVR failing",
        "voiceMessage": "The billing line is failing.",
        "smsPrefix": "[cxwatch]",
        "attachRecording": true,
        "attachJiraTicket": false,
        "failureToAlert": 3,
        "notifyOnRecovery": true,
        "alertStatus": ["FAIL", "WARN"],
        "schedule": [
            {"dayOfWeek": 1, "startTimeSlot": "08:00", "endTimeSlot": "12:00"},
            {"dayOfWeek": 1, "startTimeSlot": "11:30", "endTimeSlot": "17:30"},
            {"dayOfWeek": 7, "startTimeSlot": "00:00", "endTimeSlot": "24:00"}
        ],
        "jiraProject": "OPS"
    })
}

fn fields(b: &Value) -> Vec<(String, String)> {
    b["fields"]
        .as_array()
        .unwrap_or(&Vec::new())
        .iter()
        .map(|f| {
            (
                f["field"].as_str().unwrap_or("").to_string(),
                f["message"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn settings_are_saved_read_listed_and_deleted() {
    let w = world().await;
    let (app, t) = (&w.app, w.admin.as_str());
    let (s, b) = app
        .call(
            Method::POST,
            "/api/alerts/settings",
            Some(t),
            Some(&body(w.voice, w.list)),
        )
        .await;
    assert_eq!(s, 200, "{b}");
    let d = &b["data"];
    let id = d["id"].as_i64().unwrap();
    assert_eq!(d["name"], "Billing down");
    assert_eq!(d["testCaseGroupName"], "Billing IVR");
    assert_eq!(d["distributionName"], "Billing on call");
    assert_eq!(d["channel"], "voice");
    assert_eq!(d["attachRecording"], true);
    assert_eq!(d["failureToAlert"], 3);
    assert_eq!(d["alertStatus"], json!(["WARN", "FAIL"]));
    // Overlapping ranges merge; the all-day Sunday is one range ending at 24:00.
    assert_eq!(
        d["schedule"],
        json!([
            {"dayOfWeek": 1, "startTimeSlot": "08:00", "endTimeSlot": "17:30"},
            {"dayOfWeek": 7, "startTimeSlot": "00:00", "endTimeSlot": "24:00"}
        ])
    );
    assert_eq!(d["jiraProject"], "OPS");
    assert!(d.get("jiraAssignee").is_none(), "absent when none: {d}");

    let (s, got) = harness_trs::get(app, t, &format!("/api/alerts/settings/{id}")).await;
    assert_eq!(s, 200);
    assert_eq!(got["data"], *d);

    // An update: a digital group drops attach recording; 00:00 as an end is the day's end.
    let mut changed = body(w.web, w.list);
    changed["id"] = json!(id);
    changed["active"] = json!(false);
    changed["alertStatus"] = json!(["FAIL"]);
    changed["schedule"] =
        json!([{"dayOfWeek": 5, "startTimeSlot": "22:00", "endTimeSlot": "00:00"}]);
    let (s, b) = app
        .call(
            Method::PUT,
            &format!("/api/alerts/settings/{id}"),
            Some(t),
            Some(&changed),
        )
        .await;
    assert_eq!(s, 200, "{b}");
    let d = &b["data"];
    assert_eq!(d["active"], false);
    assert_eq!(d["channel"], "web");
    assert_eq!(d["attachRecording"], false);
    assert_eq!(
        d["schedule"],
        json!([{"dayOfWeek": 5, "startTimeSlot": "22:00", "endTimeSlot": "24:00"}])
    );
    // The id of the body must be the path's.
    changed["id"] = json!(id + 1);
    let (s, b) = app
        .call(
            Method::PUT,
            &format!("/api/alerts/settings/{id}"),
            Some(t),
            Some(&changed),
        )
        .await;
    assert_eq!(s, 400, "{b}");
    assert_eq!(fields(&b)[0].0, "id");

    // The list: paged, searched (label, group or list), sorted.
    let mut second = body(w.voice, w.list);
    second["name"] = json!("Anything else");
    let (s, b) = app
        .call(Method::POST, "/api/alerts/settings", Some(t), Some(&second))
        .await;
    assert_eq!(s, 200, "{b}");
    let (_, page) = harness_trs::get(app, t, "/api/alerts/settings?pageSize=1").await;
    assert_eq!(page["data"]["totalElements"], 2);
    assert_eq!(page["data"]["content"][0]["name"], "Anything else");
    let (_, page) = harness_trs::get(
        app,
        t,
        "/api/alerts/settings?pageNo=1&pageSize=1&sort=name,desc",
    )
    .await;
    assert_eq!(page["data"]["content"][0]["name"], "Anything else");
    let (_, page) =
        harness_trs::get(app, t, "/api/alerts/settings?search=web%20CHAT&pageNo=0").await;
    assert_eq!(page["data"]["totalElements"], 1);
    assert_eq!(page["data"]["content"][0]["id"], id);
    let (s, b) = harness_trs::get(app, t, "/api/alerts/settings?sort=colour").await;
    assert_eq!(s, 400, "{b}");

    let (s, _) = app
        .call(
            Method::DELETE,
            &format!("/api/alerts/settings/{id}"),
            Some(t),
            None,
        )
        .await;
    assert_eq!(s, 200);
    let (s, _) = harness_trs::get(app, t, &format!("/api/alerts/settings/{id}")).await;
    assert_eq!(s, 404);
    let (s, _) = app
        .call(
            Method::DELETE,
            &format!("/api/alerts/settings/{id}"),
            Some(t),
            None,
        )
        .await;
    assert_eq!(s, 404);
}

#[tokio::test(flavor = "multi_thread")]
async fn the_form_rules_answer_beside_each_field_in_the_spec_order() {
    let w = world().await;
    let (app, t) = (&w.app, w.admin.as_str());
    let (s, b) = app
        .call(
            Method::POST,
            "/api/alerts/settings",
            Some(t),
            Some(&json!({})),
        )
        .await;
    assert_eq!(s, 400, "{b}");
    let req = |f: &str| (f.to_string(), "Required".to_string());
    assert_eq!(
        fields(&b),
        [
            req("name"),
            req("testCaseGroupId"),
            req("distributionId"),
            (
                "failureToAlert".into(),
                "number of failures is required".into()
            ),
            req("emailSubject"),
            req("voiceMessage"),
            req("smsPrefix"),
            (
                "alertStatus".into(),
                "at least one failure/warnings is required".into()
            ),
            (
                "schedule".into(),
                "at least one half hour of the schedule is required".into()
            ),
        ]
    );

    // A schedule without a half hour (empty, or left out) would be listed active and never
    // alert: refused on create and on update.
    for schedule in [json!([]), Value::Null] {
        let mut bad = body(w.voice, w.list);
        bad["schedule"] = schedule;
        let (s, b) = app
            .call(Method::POST, "/api/alerts/settings", Some(t), Some(&bad))
            .await;
        assert_eq!(s, 400, "{b}");
        assert_eq!(
            fields(&b),
            [(
                "schedule".to_string(),
                "at least one half hour of the schedule is required".to_string()
            )]
        );
    }
    let (s, b) = app
        .call(
            Method::POST,
            "/api/alerts/settings",
            Some(t),
            Some(&body(w.voice, w.list)),
        )
        .await;
    assert_eq!(s, 200, "{b}");
    let saved = b["data"]["id"].as_i64().unwrap();
    let mut emptied = body(w.voice, w.list);
    emptied["schedule"] = json!([]);
    let (s, b) = app
        .call(
            Method::PUT,
            &format!("/api/alerts/settings/{saved}"),
            Some(t),
            Some(&emptied),
        )
        .await;
    assert_eq!(s, 400, "{b}");
    assert_eq!(fields(&b)[0].0, "schedule");
    let (_, kept) = harness_trs::get(app, t, &format!("/api/alerts/settings/{saved}")).await;
    assert_eq!(kept["data"]["schedule"].as_array().map(Vec::len), Some(2));
    let (s, _) = app
        .call(
            Method::DELETE,
            &format!("/api/alerts/settings/{saved}"),
            Some(t),
            None,
        )
        .await;
    assert_eq!(s, 200);

    // Number of failures: 1, 2, 3, 5 or 10; a range cannot start at 24:00.
    let mut bad = body(w.voice, w.list);
    bad["failureToAlert"] = json!(4);
    bad["schedule"] = json!([{"dayOfWeek": 2, "startTimeSlot": "24:00", "endTimeSlot": "24:00"}]);
    let (s, b) = app
        .call(Method::POST, "/api/alerts/settings", Some(t), Some(&bad))
        .await;
    assert_eq!(s, 400, "{b}");
    let f = fields(&b);
    assert_eq!(f[0].0, "failureToAlert");
    assert_eq!(f[1].0, "schedule");
    assert!(f[1].1.contains("24:00"), "{f:?}");
    for (day, start, end) in [
        (8, "08:00", "09:00"),
        (1, "08:15", "09:00"),
        (1, "10:00", "09:00"),
    ] {
        let mut bad = body(w.voice, w.list);
        bad["schedule"] = json!([{"dayOfWeek": day, "startTimeSlot": start, "endTimeSlot": end}]);
        let (s, b) = app
            .call(Method::POST, "/api/alerts/settings", Some(t), Some(&bad))
            .await;
        assert_eq!(s, 400, "{b}");
        assert_eq!(fields(&b)[0].0, "schedule", "{b}");
    }

    // Rules that need the data: the group and list exist, the statuses are alert statuses.
    let mut bad = body(999, w.list);
    let (s, b) = app
        .call(Method::POST, "/api/alerts/settings", Some(t), Some(&bad))
        .await;
    assert_eq!(s, 400, "{b}");
    assert_eq!(fields(&b)[0].0, "testCaseGroupId");
    bad = body(w.voice, 999);
    let (s, b) = app
        .call(Method::POST, "/api/alerts/settings", Some(t), Some(&bad))
        .await;
    assert_eq!(s, 400, "{b}");
    assert_eq!(fields(&b)[0].0, "distributionId");
    for status in ["PASS", "NOPE"] {
        bad = body(w.voice, w.list);
        bad["alertStatus"] = json!([status]);
        let (s, b) = app
            .call(Method::POST, "/api/alerts/settings", Some(t), Some(&bad))
            .await;
        assert_eq!(s, 400, "{b}");
        assert_eq!(fields(&b)[0].0, "alertStatus", "{status}");
    }
    // Without paging parameters: the spec's array.
    let (_, list) = harness_trs::get(app, t, "/api/alerts/settings").await;
    assert_eq!(list["data"], json!([]), "nothing was saved");
}

#[tokio::test(flavor = "multi_thread")]
async fn all_statuses_and_contact_groups_are_listed() {
    let w = world().await;
    let (s, b) = harness_trs::get(&w.app, &w.admin, "/api/alerts/allStatus").await;
    assert_eq!(s, 200, "{b}");
    let ids: Vec<(i64, &str, &str)> = b["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["id"].as_i64().unwrap(),
                s["code"].as_str().unwrap(),
                s["statusGroup"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        ids,
        [
            (3, "PASS", "TRS_PASS"),
            (4, "WARN", "TRS_WARN"),
            (7, "FAIL", "TRS_FAIL")
        ]
    );
    assert_eq!(b["data"][2]["supportChannel"], "ivr,voice,web");
    let user = w
        .app
        .user("ro@example.com", Role::User, AccessType::ReadOnly, &[])
        .await;
    let (s, b) = harness_trs::get(&w.app, &w.admin, "/api/alerts/contactGroups").await;
    assert_eq!(s, 200, "{b}");
    assert_eq!(
        b["data"],
        json!([{"id": w.list, "name": "Billing on call"}])
    );
    // A restricted user sees only the lists their groups use: none here
    // (tests/distributions.rs has a team's).
    let (s, b) = harness_trs::get(&w.app, &user.token, "/api/alerts/contactGroups").await;
    assert_eq!(s, 200, "{b}");
    assert_eq!(b["data"], json!([]));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_user_sees_and_changes_only_the_settings_of_their_groups() {
    let w = world().await;
    let app = &w.app;
    let mut ids = Vec::new();
    for g in [w.voice, w.web] {
        let (s, b) = app
            .call(
                Method::POST,
                "/api/alerts/settings",
                Some(&w.admin),
                Some(&body(g, w.list)),
            )
            .await;
        assert_eq!(s, 200, "{b}");
        ids.push(b["data"]["id"].as_i64().unwrap());
    }
    let rw = app
        .user(
            "rw@example.com",
            Role::User,
            AccessType::ReadWrite,
            &[w.voice],
        )
        .await
        .token;
    let ro = app
        .user(
            "ro@example.com",
            Role::User,
            AccessType::ReadOnly,
            &[w.voice],
        )
        .await
        .token;
    for t in [&rw, &ro] {
        let (_, page) = harness_trs::get(app, t, "/api/alerts/settings?pageNo=0").await;
        assert_eq!(page["data"]["totalElements"], 1);
        assert_eq!(page["data"]["content"][0]["id"], ids[0]);
        let (s, _) = harness_trs::get(app, t, &format!("/api/alerts/settings/{}", ids[1])).await;
        assert_eq!(s, 403);
    }
    // Read-only changes nothing.
    let (s, _) = app
        .call(
            Method::PUT,
            &format!("/api/alerts/settings/{}", ids[0]),
            Some(&ro),
            Some(&body(w.voice, w.list)),
        )
        .await;
    assert_eq!(s, 403);
    // Read-write: not on another group, nor moving one there.
    let (s, b) = app
        .call(
            Method::POST,
            "/api/alerts/settings",
            Some(&rw),
            Some(&body(w.web, w.list)),
        )
        .await;
    assert_eq!(s, 400, "{b}");
    assert_eq!(fields(&b)[0].0, "testCaseGroupId");
    let (s, _) = app
        .call(
            Method::PUT,
            &format!("/api/alerts/settings/{}", ids[0]),
            Some(&rw),
            Some(&body(w.web, w.list)),
        )
        .await;
    assert_eq!(s, 400);
    let (s, _) = app
        .call(
            Method::DELETE,
            &format!("/api/alerts/settings/{}", ids[1]),
            Some(&rw),
            None,
        )
        .await;
    assert_eq!(s, 403);
    let (s, b) = app
        .call(
            Method::PUT,
            &format!("/api/alerts/settings/{}", ids[0]),
            Some(&rw),
            Some(&body(w.voice, w.list)),
        )
        .await;
    assert_eq!(s, 200, "{b}");
    let (s, _) = app
        .call(
            Method::DELETE,
            &format!("/api/alerts/settings/{}", ids[0]),
            Some(&rw),
            None,
        )
        .await;
    assert_eq!(s, 200);
}
