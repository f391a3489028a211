//! Sign-in, tokens and sign-out through the API in-process (the CLI, demo accounts and
//! one-time links of `cxwatch user login-link` are in `tests/auth.rs`, with the binary).

use crate::common;

use crate::harness;

use cxwatch::domain::caller::{AccessType, Role};
use harness::App;
use poem::http::Method;
use serde_json::{json, Value};

const BAD_CREDENTIALS: &str =
    "Please check your credentials and try again, otherwise contact support";
const PASSWORD: &str = "correct horse";

fn denied() -> Value {
    json!({"code": "UNAUTHORIZED", "messages": ["Access is denied!"]})
}

/// Paths that need a token: existing, future and unknown ones.
const PROTECTED: &[(Method, &str)] = &[
    (Method::POST, "/api/auth/signout"),
    (Method::GET, "/api/users"),
    (Method::GET, "/api/trs/v1/groups"),
    (Method::GET, "/api/trs/v1/groups/1/metric?level=case"),
    (Method::GET, "/api/trs/v1/groups/%ff%fe"),
    (Method::GET, "/api/alerts/events?pageNo=0&pageSize=10"),
    (Method::PUT, "/api/alerts/settings/1"),
    (Method::DELETE, "/api/reports/1"),
    (Method::GET, "/api/no/such/thing"),
];

async fn app_with_ada(access: AccessType) -> App {
    let app = App::new();
    add_ada(&app, access).await;
    app
}

async fn add_ada(app: &App, access: AccessType) {
    let hash = cxwatch::auth::password::hash_password(PASSWORD).unwrap();
    let draft = cxwatch::domain::user::UserDraft {
        username: "ada@example.com".into(),
        first_name: "Ada".into(),
        last_name: "Lovelace".into(),
        role: Role::Admin,
        access,
        group_ids: vec![],
    };
    app.store.create_user(&draft, &hash).await.unwrap();
}

async fn signin(app: &App, body: Value) -> (u16, Value) {
    app.call(Method::POST, "/api/auth/signin", None, Some(&body))
        .await
}

async fn signin_ok(app: &App, username: &str, password: &str, remember: bool) -> Value {
    let (status, body) = signin(
        app,
        json!({"username": username, "password": password, "remember": remember}),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    body["data"].clone()
}

async fn assert_denied_everywhere(app: &App, token: Option<&str>, what: &str) {
    for (method, path) in PROTECTED {
        let (status, body) = app.call(method.clone(), path, token, None).await;
        assert_eq!(status, 401, "{what}: {method} {path}: {body}");
        assert_eq!(body, denied(), "{what}: {method} {path}");
    }
}

/// A valid token gets past the guard (the path itself may not exist: 404 then).
async fn assert_token_works(app: &App, token: &str) {
    for (method, path) in PROTECTED.iter().filter(|(_, p)| *p != "/api/auth/signout") {
        let (status, body) = app.call(method.clone(), path, Some(token), None).await;
        assert_ne!(status, 401, "{method} {path}: {body}");
        assert!(
            body["code"].is_string(),
            "{method} {path}: in the envelope: {body}"
        );
    }
}

fn now_secs() -> i64 {
    common::now_secs()
}

fn expires_at(data: &Value) -> i64 {
    let s = data["expiresAt"].as_str().unwrap();
    chrono::DateTime::parse_from_rfc3339(s).unwrap().timestamp()
}

#[tokio::test(flavor = "multi_thread")]
async fn signin_returns_the_logged_in_user_and_a_working_token() {
    let app = app_with_ada(AccessType::ReadWrite).await;
    let resp = app
        .client
        .post("/api/auth/signin")
        .body_json(&json!({"username": "Ada@Example.com", "password": PASSWORD, "remember": false}))
        .send()
        .await;
    resp.assert_status_is_ok();
    // The token is in the body, not in a header or cookie, and no cache keeps the answer.
    assert!(resp.0.headers().get("authorization").is_none());
    assert!(resp.0.headers().get("set-cookie").is_none());
    assert_eq!(resp.0.headers().get("cache-control").unwrap(), "no-store");
    let body: Value =
        serde_json::from_slice(&resp.0.into_body().into_bytes().await.unwrap()).unwrap();
    assert_eq!(body["code"], "OK");
    assert_eq!(body["messages"], json!([]));
    let data = &body["data"];
    let token = data["accessToken"].as_str().unwrap();
    assert_eq!(token.len(), 43, "32 random bytes, base64url");
    assert_eq!(data["username"], "ada@example.com");
    assert_eq!(data["roles"], json!(["ROLE_ADMIN"]));
    assert_eq!(data["accessType"], "read-write");
    assert_eq!(data["remember"], false);
    assert_eq!(data["firstName"], "Ada");
    assert_eq!(data["lastName"], "Lovelace");
    let mut keys: Vec<_> = data.as_object().unwrap().keys().cloned().collect();
    keys.sort();
    assert_eq!(
        keys,
        [
            "accessToken",
            "accessType",
            "expiresAt",
            "firstName",
            "id",
            "lastName",
            "remember",
            "roles",
            "username"
        ]
    );
    // Default lifetime: 12 hours.
    assert!((expires_at(data) - now_secs() - 12 * 3600).abs() <= 5);
    assert_token_works(&app, token).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn wrong_credentials_and_missing_fields() {
    let app = app_with_ada(AccessType::ReadWrite).await;
    let expected = json!({"code": "UNAUTHORIZED", "messages": [BAD_CREDENTIALS]});
    // Wrong password and unknown user: the same answer.
    for (user, pw) in [
        ("ada@example.com", "correct horse!"),
        ("ada@example.com", "Correct horse"),
        ("nobody@example.com", PASSWORD),
    ] {
        let (status, body) = signin(&app, json!({"username": user, "password": pw})).await;
        assert_eq!(status, 401, "{user}");
        assert_eq!(body, expected, "{user}");
    }
    // Missing or blank fields are named, each tied to its field.
    let (status, body) = signin(&app, json!({"password": "x"})).await;
    assert_eq!(status, 400);
    assert_eq!(body["code"], "BAD_REQUEST");
    assert_eq!(body["messages"], json!(["username is required"]));
    assert_eq!(
        body["fields"],
        json!([{"field": "username", "rule": "required", "message": "username is required"}])
    );
    let (_, body) = signin(&app, json!({"username": "ada@example.com", "password": ""})).await;
    assert_eq!(body["messages"], json!(["password is required"]));
    let (_, body) = signin(&app, json!({"username": "  ", "password": "   "})).await;
    assert_eq!(
        body["messages"],
        json!(["username is required", "password is required"])
    );
    let resp = app
        .client
        .post("/api/auth/signin")
        .content_type("application/json")
        .body("{not json")
        .send()
        .await;
    resp.assert_status(poem::http::StatusCode::BAD_REQUEST);
    // The right password still works afterwards (three failures are under the limit).
    signin_ok(&app, "ada@example.com", PASSWORD, false).await;
}

fn retry_secs(body: &Value) -> u64 {
    let msg = body["messages"][0].as_str().unwrap();
    let rest = msg
        .strip_prefix("Too many failed sign-in attempts; try again in ")
        .unwrap_or_else(|| panic!("{msg}"));
    rest.strip_suffix(" seconds").unwrap().parse().unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn repeated_failures_are_throttled_per_username() {
    let app = app_with_ada(AccessType::ReadWrite).await;
    let bob = app
        .user("bob@example.com", Role::User, AccessType::ReadOnly, &[])
        .await;
    for i in 0..5 {
        let (status, body) = signin(
            &app,
            json!({"username": "ada@example.com", "password": format!("guess {i}")}),
        )
        .await;
        assert_eq!(status, 401, "failure {i}: {body}");
    }
    // Now even the right password waits, and Retry-After says how long.
    let resp = app
        .client
        .post("/api/auth/signin")
        .body_json(&json!({"username": "ADA@example.com", "password": PASSWORD}))
        .send()
        .await;
    resp.assert_status(poem::http::StatusCode::TOO_MANY_REQUESTS);
    let retry_after: u64 = resp
        .0
        .headers()
        .get("retry-after")
        .unwrap()
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    let body: Value =
        serde_json::from_slice(&resp.0.into_body().into_bytes().await.unwrap()).unwrap();
    assert_eq!(body["code"], "TOO_MANY_REQUESTS");
    let wait = retry_secs(&body);
    assert!((1..=30).contains(&wait), "{wait}");
    assert_eq!(retry_after, wait);
    // Other users are unaffected.
    let data = signin_ok(&app, &bob.username, harness::PASSWORD, false).await;
    assert_eq!(data["roles"], json!(["ROLE_USER"]));
    // Unknown usernames are throttled the same way (nothing tells them apart).
    for _ in 0..5 {
        let (status, _) = signin(
            &app,
            json!({"username": "ghost@example.com", "password": "nope nope"}),
        )
        .await;
        assert_eq!(status, 401);
    }
    let (status, body) = signin(
        &app,
        json!({"username": "ghost@example.com", "password": "nope nope"}),
    )
    .await;
    assert_eq!(status, 429);
    assert!((1..=30).contains(&retry_secs(&body)));
}

#[tokio::test(flavor = "multi_thread")]
async fn protected_paths_need_a_valid_token() {
    let app = app_with_ada(AccessType::ReadWrite).await;
    assert_denied_everywhere(&app, None, "no token").await;
    assert_denied_everywhere(&app, Some("not-a-token"), "bad token").await;
    let token = signin_ok(&app, "ada@example.com", PASSWORD, false).await["accessToken"]
        .as_str()
        .unwrap()
        .to_string();
    // Another scheme than Bearer, or a tampered token, is no good either.
    let (status, _) = app
        .call_with(
            Method::GET,
            "/api/users",
            Some(("authorization", format!("Basic {token}"))),
            None,
        )
        .await;
    assert_eq!(status, 401);
    let mut tampered = token.clone();
    tampered.replace_range(0..1, if token.starts_with('A') { "B" } else { "A" });
    assert_denied_everywhere(&app, Some(&tampered), "tampered token").await;
    assert_token_works(&app, &token).await;
    // The OpenAPI document and sign-in stay public, and say which operations need what.
    let (status, spec) = app.call(Method::GET, "/api/openapi.json", None, None).await;
    assert_eq!(status, 200);
    assert!(
        spec["paths"]["/auth/signin"]["post"]["security"].is_null(),
        "public"
    );
    assert_eq!(
        spec["paths"]["/users"]["get"]["security"],
        json!([{"console_token": []}])
    );
    assert!(spec["components"]["securitySchemes"]["console_token"].is_object());
    // The document is read-only.
    let (status, body) = app
        .call(Method::POST, "/api/openapi.json", None, None)
        .await;
    assert_eq!(status, 405, "{body}");
}

#[tokio::test(flavor = "multi_thread")]
async fn signout_ends_only_that_session() {
    let app = app_with_ada(AccessType::ReadWrite).await;
    let first = signin_ok(&app, "ada@example.com", PASSWORD, false).await;
    let second = signin_ok(&app, "ada@example.com", PASSWORD, true).await;
    let first = first["accessToken"].as_str().unwrap();
    let second = second["accessToken"].as_str().unwrap();
    assert_ne!(first, second);
    let (status, body) = app
        .call(Method::POST, "/api/auth/signout", Some(first), None)
        .await;
    assert_eq!(status, 200);
    assert_eq!(body, json!({"code": "OK", "data": true, "messages": []}));
    assert_denied_everywhere(&app, Some(first), "signed-out token").await;
    assert_token_works(&app, second).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn tokens_expire_and_remember_lasts_longer() {
    let app = App::with_config(|c| {
        c.auth.token_ttl_secs = 2;
        c.auth.remember_ttl_days = 2;
    });
    add_ada(&app, AccessType::ReadWrite).await;
    let before = now_secs();
    let short = signin_ok(&app, "ada@example.com", PASSWORD, false).await;
    let long = signin_ok(&app, "ada@example.com", PASSWORD, true).await;
    let after = now_secs();
    assert_eq!(short["remember"], false);
    assert_eq!(long["remember"], true);
    let short_exp = expires_at(&short);
    assert!((before + 2..=after + 2).contains(&short_exp), "{short_exp}");
    let long_exp = expires_at(&long);
    assert!(
        (before + 2 * 86_400..=after + 2 * 86_400).contains(&long_exp),
        "{long_exp}"
    );
    let short = short["accessToken"].as_str().unwrap();
    let long = long["accessToken"].as_str().unwrap();
    assert_token_works(&app, short).await;
    while now_secs() <= short_exp {
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
    assert_denied_everywhere(&app, Some(short), "expired token").await;
    assert_token_works(&app, long).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn sign_in_answers_are_never_stored_by_caches() {
    let app = app_with_ada(AccessType::ReadWrite).await;
    let ada = app
        .store
        .user_by_username("ada@example.com")
        .await
        .unwrap()
        .unwrap();
    let id = app
        .store
        .create_one_time_id(ada.id, common::now_secs())
        .await
        .unwrap();
    let good = json!({"username": "ada@example.com", "password": PASSWORD});
    let bad = json!({"username": "ada@example.com", "password": "nope"});
    for (what, resp, status) in [
        (
            "signin",
            app.client
                .post("/api/auth/signin")
                .body_json(&good)
                .send()
                .await,
            200,
        ),
        (
            "signin, wrong password",
            app.client
                .post("/api/auth/signin")
                .body_json(&bad)
                .send()
                .await,
            401,
        ),
        (
            "getToken",
            app.client
                .get(format!("/api/auth/getToken?id={id}"))
                .send()
                .await,
            200,
        ),
        (
            "getToken, used id",
            app.client
                .get(format!("/api/auth/getToken?id={id}"))
                .send()
                .await,
            401,
        ),
    ] {
        assert_eq!(resp.0.status().as_u16(), status, "{what}");
        assert_eq!(
            resp.0
                .headers()
                .get("cache-control")
                .map(|v| v.to_str().unwrap()),
            Some("no-store"),
            "{what}"
        );
    }
}
