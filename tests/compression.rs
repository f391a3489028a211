//! `/api` answers are gzip-encoded for a client that asks; the answer
//! decodes to the same JSON; without `Accept-Encoding` it goes out plain.

use crate::harness;

use std::io::Read;

use cxwatch::domain::caller::{AccessType, Role};
use harness::App;
use poem::http::Method;

#[tokio::test]
async fn json_answers_are_gzip_encoded_when_asked() {
    let app = App::new();
    let admin = app
        .user("admin@example.com", Role::Admin, AccessType::ReadWrite, &[])
        .await;
    let auth = format!("Bearer {}", admin.token);

    let resp = app
        .client
        .request(Method::GET, "/api/users")
        .header("authorization", &auth)
        .header("accept-encoding", "gzip, deflate, br;q=0")
        .send()
        .await;
    resp.assert_status_is_ok();
    let headers = resp.0.headers().clone();
    assert_eq!(
        headers
            .get("content-encoding")
            .and_then(|v| v.to_str().ok()),
        Some("gzip")
    );
    assert!(headers
        .get("vary")
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.to_ascii_lowercase().contains("accept-encoding")));
    let gz = resp.0.into_body().into_bytes().await.unwrap();
    let mut text = String::new();
    flate2::read::GzDecoder::new(&gz[..])
        .read_to_string(&mut text)
        .expect("a gzip body");
    let json: serde_json::Value = serde_json::from_str(&text).expect("JSON inside");
    assert_eq!(json["code"], "OK");

    // Not asked: plain JSON.
    let plain = app
        .client
        .request(Method::GET, "/api/users")
        .header("authorization", &auth)
        .send()
        .await;
    plain.assert_status_is_ok();
    assert!(plain.0.headers().get("content-encoding").is_none());
    let body = plain.0.into_body().into_bytes().await.unwrap();
    assert_eq!(
        serde_json::from_slice::<serde_json::Value>(&body).unwrap()["code"],
        "OK"
    );

    // An error envelope is JSON too.
    let refused = app
        .client
        .request(Method::GET, "/api/users")
        .header("accept-encoding", "gzip")
        .send()
        .await;
    assert_eq!(refused.0.status().as_u16(), 401);
    assert_eq!(
        refused
            .0
            .headers()
            .get("content-encoding")
            .and_then(|v| v.to_str().ok()),
        Some("gzip")
    );
}
