//! What the API fuzzer (`scripts/fuzz.sh`, schemathesis) holds the server to, checked
//! in-process so that a regression shows without the fuzzer: a 405 names the methods the
//! path has (`Allow`, RFC 9110 §15.5.6), in the envelope; a too long address or too large
//! headers get 414 and 431 in the envelope, not an empty body.

mod harness;

use harness::App;
use poem::http::Method;

#[tokio::test(flavor = "multi_thread")]
async fn method_not_allowed_lists_the_paths_methods() {
    let app = App::new();
    for (method, path, allow) in [
        (Method::PATCH, "/api/users", "GET, POST"),
        (Method::TRACE, "/api/auth/getToken", "GET"),
        (Method::POST, "/api/users/7", "DELETE, GET, PUT"),
        (Method::DELETE, "/api/trs/v1/groups/channels", "GET"),
        (Method::GET, "/api/ingest/v1/runs", "POST"),
    ] {
        let resp = app.client.request(method.clone(), path).send().await;
        resp.assert_status(poem::http::StatusCode::METHOD_NOT_ALLOWED);
        resp.assert_header("allow", allow);
        let body = resp.json().await;
        body.value()
            .object()
            .get("code")
            .assert_string("METHOD_NOT_ALLOWED");
    }
}

#[test]
fn allowed_methods_come_from_the_document() {
    use cxwatch::api::allowed_methods;
    assert_eq!(
        allowed_methods("/users/{id}").as_deref(),
        Some("DELETE, GET, PUT")
    );
    assert_eq!(
        allowed_methods("/api/trs/v1/groups/3").as_deref(),
        Some("DELETE, GET, PUT")
    );
    assert_eq!(
        allowed_methods("/trs/v1/groups/health").as_deref(),
        Some("GET")
    );
    assert_eq!(allowed_methods("/nowhere"), None);
}

#[tokio::test(flavor = "multi_thread")]
async fn long_address_and_large_headers_get_the_envelope() {
    let app = App::new();
    let long = "a".repeat(cxwatch::server::limits::MAX_URI);
    let resp = app
        .client
        .get(format!("/api/users?search={long}"))
        .send()
        .await;
    resp.assert_status(poem::http::StatusCode::URI_TOO_LONG);
    resp.json()
        .await
        .value()
        .object()
        .get("code")
        .assert_string("URI_TOO_LONG");

    let big = "b".repeat(cxwatch::server::limits::MAX_HEADER_BYTES / 2);
    let resp = app
        .client
        .get("/api/users")
        .header("x-one", big.clone())
        .header("x-two", big)
        .send()
        .await;
    resp.assert_status(poem::http::StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE);
    resp.json()
        .await
        .value()
        .object()
        .get("code")
        .assert_string("REQUEST_HEADER_FIELDS_TOO_LARGE");

    // Below the limits: the usual answer (401 without a token).
    let resp = app.client.get("/api/users?search=ok").send().await;
    resp.assert_status(poem::http::StatusCode::UNAUTHORIZED);
}
