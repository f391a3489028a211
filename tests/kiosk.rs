//! Kiosk sessions (a wall display) and the status strip's last minutes, through the API
//! in-process: an administrator allows kiosk sessions per user; a kiosk session is
//! read-only on the server whatever the user's access; `groups/recent` counts the runs of
//! the last minutes per group the caller sees.

use crate::common;

use crate::harness;

use chrono::{Duration, SecondsFormat};
use cxwatch::domain::caller::{AccessType, Role};
use harness::{App, PASSWORD};
use poem::http::Method;
use serde_json::{json, Value};

async fn signin(app: &App, username: &str, password: &str, kiosk: bool) -> (u16, Value) {
    app.call(
        Method::POST,
        "/api/auth/signin",
        None,
        Some(&json!({"username": username, "password": password, "kiosk": kiosk})),
    )
    .await
}

fn user_body(u: &Value, kiosk: Option<bool>) -> Value {
    let mut b = json!({"username": u["username"], "firstName": u["firstName"],
        "lastName": u["lastName"], "roles": u["roles"], "accessType": u["accessType"],
        "testCaseGroups": u["testCaseGroups"]});
    if let Some(k) = kiosk {
        b["kiosk"] = json!(k);
    }
    b
}

#[tokio::test(flavor = "multi_thread")]
async fn kiosk_sessions_are_allowed_per_user_and_read_only() {
    let app = App::new();
    let admin = app
        .user("admin@x.test", Role::Admin, AccessType::ReadWrite, &[])
        .await;
    let wall = app
        .user("wall@x.test", Role::Admin, AccessType::ReadWrite, &[])
        .await;
    let user_path = format!("/api/users/{}", wall.id);

    // Not allowed yet: right credentials, 403 naming why; wrong ones stay 401.
    let (s, body) = signin(&app, &wall.username, PASSWORD, true).await;
    assert_eq!(s, 403, "{body}");
    assert!(
        body["messages"][0].as_str().unwrap().contains("kiosk"),
        "{body}"
    );
    let (s, _) = signin(&app, &wall.username, "wrong password!", true).await;
    assert_eq!(s, 401);
    let (_, u) = app
        .call(Method::GET, &user_path, Some(&admin.token), None)
        .await;
    assert_eq!(u["data"]["kiosk"], json!(false), "{u}");

    // The administrator allows it; a save without the field leaves it as it is.
    let (s, saved) = app
        .call(
            Method::PUT,
            &user_path,
            Some(&admin.token),
            Some(&user_body(&u["data"], Some(true))),
        )
        .await;
    assert_eq!(s, 200, "{saved}");
    assert_eq!(saved["data"]["kiosk"], json!(true));
    let (s, saved) = app
        .call(
            Method::PUT,
            &user_path,
            Some(&admin.token),
            Some(&user_body(&saved["data"], None)),
        )
        .await;
    assert_eq!(s, 200, "{saved}");
    assert_eq!(saved["data"]["kiosk"], json!(true));

    // A kiosk session: marked so, with the long lifetime, reads but never writes, even for a
    // read-write administrator (own profile included).
    let (s, k) = signin(&app, &wall.username, PASSWORD, true).await;
    assert_eq!(s, 200, "{k}");
    assert_eq!(k["data"]["kiosk"], json!(true));
    assert_eq!(k["data"]["remember"], json!(true));
    assert_eq!(k["data"]["accessType"], json!("read-write"));
    let token = k["data"]["accessToken"].as_str().unwrap().to_string();
    for path in [
        "/api/users",
        "/api/trs/v1/groups",
        "/api/trs/v1/groups/recent",
    ] {
        let (s, b) = app.call(Method::GET, path, Some(&token), None).await;
        assert_eq!(s, 200, "{path}: {b}");
    }
    let writes = [
        (
            Method::PUT,
            user_path.clone(),
            user_body(&saved["data"], Some(false)),
        ),
        (
            Method::POST,
            "/api/trs/v1/groups".to_string(),
            json!({"name": "X", "channel": "voice", "testCases": []}),
        ),
        (
            Method::PATCH,
            format!("{user_path}/overridePassword"),
            json!({"newPassword": "another long password", "oldPassword": PASSWORD}),
        ),
        (
            Method::DELETE,
            format!("/api/users/{}", admin.id),
            Value::Null,
        ),
    ];
    for (m, path, body) in writes {
        let body = (!body.is_null()).then_some(body);
        let (s, b) = app
            .call(m.clone(), &path, Some(&token), body.as_ref())
            .await;
        assert_eq!(s, 403, "{m} {path}: {b}");
        assert!(
            b["messages"][0].as_str().unwrap().contains("kiosk session"),
            "{b}"
        );
    }
    // The same user's normal session still writes.
    let (s, n) = signin(&app, &wall.username, PASSWORD, false).await;
    assert_eq!(s, 200);
    assert!(n["data"].get("kiosk").is_none(), "{n}");
    let normal = n["data"]["accessToken"].as_str().unwrap().to_string();
    let (s, b) = app
        .call(
            Method::POST,
            "/api/trs/v1/groups",
            Some(&normal),
            Some(&json!({"name": "Y", "channel": "voice", "testCases": []})),
        )
        .await;
    assert_ne!(s, 403, "{b}");

    // Forbidding it ends the kiosk sessions, not the others.
    let (s, _) = app
        .call(
            Method::PUT,
            &user_path,
            Some(&admin.token),
            Some(&user_body(&saved["data"], Some(false))),
        )
        .await;
    assert_eq!(s, 200);
    let (s, _) = app
        .call(Method::GET, "/api/trs/v1/groups", Some(&token), None)
        .await;
    assert_eq!(s, 401, "the kiosk session ended");
    let (s, _) = app
        .call(Method::GET, "/api/trs/v1/groups", Some(&normal), None)
        .await;
    assert_eq!(s, 200, "the normal session goes on");
    let (s, _) = signin(&app, &wall.username, PASSWORD, true).await;
    assert_eq!(s, 403);
}

#[tokio::test(flavor = "multi_thread")]
async fn kiosk_can_be_allowed_on_create() {
    let app = App::new();
    let admin = app
        .user("admin@x.test", Role::Admin, AccessType::ReadWrite, &[])
        .await;
    let new_user = json!({"username": "tv@x.test", "firstName": "Wall", "lastName": "TV",
        "roles": ["ROLE_ADMIN"], "accessType": "read-only", "testCaseGroups": [],
        "password": "a long enough password", "kiosk": true});
    let (s, b) = app
        .call(
            Method::POST,
            "/api/users",
            Some(&admin.token),
            Some(&new_user),
        )
        .await;
    assert_eq!(s, 200, "{b}");
    assert_eq!(b["data"]["kiosk"], json!(true));
    let (s, k) = signin(&app, "tv@x.test", "a long enough password", true).await;
    assert_eq!(s, 200, "{k}");
    assert_eq!(k["data"]["kiosk"], json!(true));
}

fn run(engine_id: &str, case: i64, minutes_ago: i64, status: &str) -> Value {
    let at =
        (common::now() - Duration::minutes(minutes_ago)).to_rfc3339_opts(SecondsFormat::Secs, true);
    json!({
        "engineRunId": engine_id,
        "testCase": {"id": case, "name": format!("Case {case}"), "channel": "voice",
                     "ivr": {"id": 10, "name": "Retail IVR"}},
        "runTime": at,
        "runDuration": 30.0,
        "status": status,
        "runType": "Manual",
        "segments": [{"segmentId": 1, "segmentName": "Greeting", "steps": [
            {"stepId": 11, "stepType": "PROMPT", "typeDisplayText": "Prompt", "prompt": "Welcome",
             "testResult": {"status": status, "utterance": "Welcome", "latency": 900}}]}]
    })
}

#[tokio::test(flavor = "multi_thread")]
async fn recent_counts_the_last_minutes_per_visible_group() {
    let app = App::new();
    let admin = app
        .user("admin@x.test", Role::Admin, AccessType::ReadWrite, &[])
        .await;
    let key = app.api_key("engine").await;
    let runs = vec![
        run("a1", 1, 2, "fail"),
        run("a2", 1, 5, "pass"),
        run("a3", 1, 40, "fail"),
        run("b1", 2, 3, "warn"),
        run("b2", 2, 90, "fail"),
        run("c1", 3, 90, "fail"),
    ];
    let (s, out) = app
        .call_with(
            Method::POST,
            "/api/ingest/v1/runs",
            Some(("x-api-key", key)),
            Some(&json!({ "runs": runs })),
        )
        .await;
    assert_eq!(s, 200, "{out}");
    let mut ids = vec![];
    for (name, case) in [("Claims", 1), ("Billing", 2), ("Quiet", 3)] {
        let cases = json!([{ "id": case }]);
        let (s, g) = app
            .call(
                Method::POST,
                "/api/trs/v1/groups",
                Some(&admin.token),
                Some(&json!({"name": name, "channel": "voice", "testCases": cases})),
            )
            .await;
        assert_eq!(s, 200, "{g}");
        ids.push(g["data"]["id"].as_i64().unwrap());
    }
    let (s, r) = app
        .call(
            Method::GET,
            "/api/trs/v1/groups/recent",
            Some(&admin.token),
            None,
        )
        .await;
    assert_eq!(s, 200, "{r}");
    let groups = r["data"]["groups"].as_array().unwrap();
    let names: Vec<&str> = groups.iter().map(|g| g["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["Billing", "Claims", "Quiet"], "by name");
    let counts = |g: &Value| {
        (
            g["successCount"].as_i64().unwrap(),
            g["warningCount"].as_i64().unwrap(),
            g["failureCount"].as_i64().unwrap(),
        )
    };
    assert_eq!(counts(&groups[0]), (0, 1, 0));
    assert_eq!(counts(&groups[1]), (1, 0, 1));
    assert_eq!(counts(&groups[2]), (0, 0, 0));
    assert!(groups[1]["lastRunTime"].is_string());
    assert!(groups[2].get("lastRunTime").is_none() || groups[2]["lastRunTime"].is_null());

    // A wider window takes the older runs in; a run type narrows.
    let (_, r) = app
        .call(
            Method::GET,
            "/api/trs/v1/groups/recent?minutes=60",
            Some(&admin.token),
            None,
        )
        .await;
    assert_eq!(counts(&r["data"]["groups"][1]), (1, 0, 2));
    let (_, r) = app
        .call(
            Method::GET,
            "/api/trs/v1/groups/recent?caseRunType=Schedule",
            Some(&admin.token),
            None,
        )
        .await;
    assert_eq!(counts(&r["data"]["groups"][1]), (0, 0, 0));

    // A restricted user sees their groups only.
    let user = app
        .user("user@x.test", Role::User, AccessType::ReadOnly, &[ids[1]])
        .await;
    let (_, r) = app
        .call(
            Method::GET,
            "/api/trs/v1/groups/recent",
            Some(&user.token),
            None,
        )
        .await;
    let names: Vec<&str> = r["data"]["groups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["Billing"]);

    // Bad input: field-tagged.
    for q in ["minutes=0", "minutes=1441", "caseRunType=Nightly"] {
        let (s, b) = app
            .call(
                Method::GET,
                &format!("/api/trs/v1/groups/recent?{q}"),
                Some(&admin.token),
                None,
            )
            .await;
        assert_eq!(s, 400, "{q}: {b}");
        assert!(b.to_string().contains(q.split('=').next().unwrap()), "{b}");
    }
}
