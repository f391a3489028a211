//! Sessions and answers, through the API in-process: the server ends a session idle for
//! `auth.idle_timeout_secs` (a kiosk session excepted), every API answer says
//! `Cache-Control: no-store`, and new passwords made of the product's or the site's name,
//! or known to every guesser, are refused with rule `weak`.

use crate::common;
use crate::harness;

use cxwatch::domain::caller::{AccessType, Role};
use harness::{App, PASSWORD};
use poem::http::Method;
use serde_json::{json, Value};

async fn signin(app: &App, username: &str, kiosk: bool) -> String {
    let (s, b) = app
        .call(
            Method::POST,
            "/api/auth/signin",
            None,
            Some(&json!({"username": username, "password": PASSWORD, "kiosk": kiosk})),
        )
        .await;
    assert_eq!(s, 200, "{b}");
    b["data"]["accessToken"].as_str().unwrap().to_string()
}

/// Makes the session of `token` look unused for `secs` on the tests' clock.
async fn idle_for(app: &App, token: &str, secs: i64) {
    let hash = cxwatch::store::auth::hash_secret(token);
    app.exec(&format!(
        "UPDATE tokens SET last_used_at = {} WHERE token_hash = '{hash}'",
        common::now_secs() - secs
    ))
    .await;
}

async fn last_used(app: &App, token: &str) -> i64 {
    let hash = cxwatch::store::auth::hash_secret(token);
    app.int(&format!(
        "SELECT last_used_at FROM tokens WHERE token_hash = '{hash}'"
    ))
    .await
}

#[tokio::test(flavor = "multi_thread")]
async fn a_session_idle_for_fifteen_minutes_ends_on_the_server_a_kiosk_one_does_not() {
    let app = App::new();
    let admin = app
        .user("ada@x.test", Role::Admin, AccessType::ReadWrite, &[])
        .await;
    let token = signin(&app, &admin.username, false).await;
    let (s, _) = app
        .call(Method::GET, "/api/users", Some(&token), None)
        .await;
    assert_eq!(s, 200);

    // 14 minutes without a call: still signed in, and the call is its last use.
    idle_for(&app, &token, 14 * 60).await;
    let (s, _) = app
        .call(Method::GET, "/api/users", Some(&token), None)
        .await;
    assert_eq!(s, 200);
    assert!(
        last_used(&app, &token).await >= common::now_secs() - 5,
        "the call counts as use"
    );
    // Calls within a minute of the last one written do not write again.
    idle_for(&app, &token, 30).await;
    let (s, _) = app
        .call(Method::GET, "/api/users", Some(&token), None)
        .await;
    assert_eq!(s, 200);
    assert!(last_used(&app, &token).await <= common::now_secs() - 29);

    // 16 minutes: the session is over, well before its 12 hours.
    idle_for(&app, &token, 16 * 60).await;
    for _ in 0..2 {
        let (s, b) = app
            .call(Method::GET, "/api/users", Some(&token), None)
            .await;
        assert_eq!(s, 401, "{b}");
    }

    // A kiosk session (a wall display) is never idle.
    let wall = app
        .user("wall@x.test", Role::Admin, AccessType::ReadOnly, &[])
        .await;
    app.store.set_kiosk(wall.id, true).await.unwrap();
    let kiosk = signin(&app, &wall.username, true).await;
    idle_for(&app, &kiosk, 3 * 3600).await;
    let (s, b) = app
        .call(Method::GET, "/api/trs/v1/groups", Some(&kiosk), None)
        .await;
    assert_eq!(s, 200, "{b}");
}

#[tokio::test(flavor = "multi_thread")]
async fn no_idle_limit_when_the_site_turns_it_off() {
    let app = App::with_config(|c| c.auth.idle_timeout_secs = 0);
    let admin = app
        .user("ada@x.test", Role::Admin, AccessType::ReadWrite, &[])
        .await;
    let token = signin(&app, &admin.username, false).await;
    idle_for(&app, &token, 3600).await;
    let (s, _) = app
        .call(Method::GET, "/api/users", Some(&token), None)
        .await;
    assert_eq!(s, 200);
}

#[tokio::test(flavor = "multi_thread")]
async fn every_api_answer_says_no_store() {
    let app = App::new();
    let admin = app
        .user("ada@x.test", Role::Admin, AccessType::ReadWrite, &[])
        .await;
    for (path, token, status) in [
        ("/api/users", Some(admin.token.as_str()), 200),
        ("/api/trs/v1/groups", Some(admin.token.as_str()), 200),
        ("/api/audit", Some(admin.token.as_str()), 200),
        ("/api/users/999", Some(admin.token.as_str()), 404),
        ("/api/users", None, 401),
        ("/api/no/such/path", Some(admin.token.as_str()), 404),
    ] {
        let mut req = app.client.get(path);
        if let Some(t) = token {
            req = req.header("authorization", format!("Bearer {t}"));
        }
        let resp = req.send().await;
        assert_eq!(resp.0.status().as_u16(), status, "{path}");
        assert_eq!(
            resp.0
                .headers()
                .get("cache-control")
                .and_then(|v| v.to_str().ok()),
            Some("no-store"),
            "{path}"
        );
    }
}

async fn create_user(app: &App, token: &str, password: &str) -> (u16, Value) {
    app.call(
        Method::POST,
        "/api/users",
        Some(token),
        Some(
            &json!({"username": "grace@navy.example", "firstName": "Grace",
            "lastName": "Hopper", "roles": ["ROLE_ADMIN"], "accessType": "read-write",
            "testCaseGroups": [], "password": password}),
        ),
    )
    .await
}

#[tokio::test(flavor = "multi_thread")]
async fn passwords_of_the_product_the_site_or_every_guesser_are_refused() {
    let app = App::with_config(|c| c.server.hostnames = vec!["cx.acme.example".into()]);
    let admin = app
        .user("ada@x.test", Role::Admin, AccessType::ReadWrite, &[])
        .await;
    for pw in ["Cxwatch2026!", "AcmeAcme2026!", "correcthorsebatterystaple"] {
        let (s, b) = create_user(&app, &admin.token, pw).await;
        assert_eq!(s, 400, "{pw}: {b}");
        assert_eq!(b["fields"][0]["field"], "password", "{b}");
        assert_eq!(b["fields"][0]["rule"], "weak", "{pw}: {b}");
        assert!(
            b["messages"][0]
                .as_str()
                .unwrap()
                .starts_with("password is too easy to guess"),
            "{b}"
        );
    }
    // The same words for a change of one's own password.
    let path = format!("/api/users/{}/overridePassword", admin.id);
    let (s, b) = app
        .call(
            Method::PATCH,
            &path,
            Some(&admin.token),
            Some(&json!({"oldPassword": PASSWORD, "newPassword": "Cxwatch2026!"})),
        )
        .await;
    assert_eq!(s, 400, "{b}");
    assert_eq!(b["fields"][0]["rule"], "weak", "{b}");
    let (s, b) = create_user(&app, &admin.token, "tulip orbit canyon").await;
    assert_eq!(s, 200, "{b}");
}
