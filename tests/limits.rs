//! Body limits of `/api`, in process: every body has a limit suited to
//! its operation, the answer is 413 in the envelope, and a body is not read past it.

use crate::common;

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use bytes::Bytes;
use cxwatch::config::Config;
use poem::test::TestClient;
use poem::Body;

const MIB: u64 = 1024 * 1024;

fn app(dir: &std::path::Path) -> poem::endpoint::BoxEndpoint<'static> {
    let config = Config {
        data_dir: dir.to_path_buf(),
        ..Config::default()
    };
    let store = common::store(dir);
    cxwatch::server::app(Arc::new(config), Some(store)).unwrap()
}

/// A body of `total` bytes in 64 KiB chunks that counts what was pulled from it.
fn counted(total: u64, pulled: Arc<AtomicU64>) -> Body {
    let chunk = Bytes::from(vec![b'x'; 64 * 1024]);
    let n = total / chunk.len() as u64;
    let stream = futures_util::stream::iter((0..n).map(move |_| {
        pulled.fetch_add(chunk.len() as u64, Ordering::Relaxed);
        Ok::<_, std::io::Error>(chunk.clone())
    }));
    Body::from_bytes_stream(stream)
}

async fn assert_413(resp: poem::test::TestResponse) {
    resp.assert_status(poem::http::StatusCode::PAYLOAD_TOO_LARGE);
    let json = resp.json().await;
    json.value()
        .object()
        .get("code")
        .assert_string("PAYLOAD_TOO_LARGE");
    assert!(!json.value().object().get("messages").array().is_empty());
}

#[tokio::test]
async fn signin_refuses_a_large_declared_body_without_reading_it() {
    let dir = tempfile::tempdir().unwrap();
    let cli = TestClient::new(app(dir.path()));
    let pulled = Arc::new(AtomicU64::new(0));
    let resp = cli
        .post("/api/auth/signin")
        .header("content-type", "application/json")
        .header("content-length", (512 * MIB).to_string())
        .body(counted(512 * MIB, pulled.clone()))
        .send()
        .await;
    assert_413(resp).await;
    assert_eq!(pulled.load(Ordering::Relaxed), 0, "the body was read");
}

#[tokio::test]
async fn a_chunked_body_is_read_up_to_the_limit_only() {
    let dir = tempfile::tempdir().unwrap();
    let cli = TestClient::new(app(dir.path()));
    for path in [
        "/api/auth/signin",
        "/api/trs/v1/groups",
        "/api/ingest/v1/health",
    ] {
        let pulled = Arc::new(AtomicU64::new(0));
        let resp = cli
            .post(path)
            .header("content-type", "application/json")
            .header("x-api-key", "cxw_nokey")
            .header("authorization", "Bearer nothing")
            .body(counted(512 * MIB, pulled.clone()))
            .send()
            .await;
        let status = resp.0.status();
        // Without credentials the handler answers 401 before reading; with them 413.
        if status != poem::http::StatusCode::UNAUTHORIZED {
            assert_413(resp).await;
        }
        let read = pulled.load(Ordering::Relaxed);
        assert!(read <= 5 * MIB, "{path}: {read} bytes read");
    }
}

#[tokio::test]
async fn ingest_keeps_its_large_limits() {
    let dir = tempfile::tempdir().unwrap();
    let cli = TestClient::new(app(dir.path()));
    // 1 MiB is too much for a form but fine for a recording: the API key is checked next.
    let resp = cli
        .post("/api/ingest/v1/recordings")
        .header("content-type", "audio/wav")
        .header("content-length", MIB.to_string())
        .body(vec![0u8; MIB as usize])
        .send()
        .await;
    resp.assert_status(poem::http::StatusCode::UNAUTHORIZED);
    let resp = cli
        .post("/api/ingest/v1/runs")
        .header("content-length", (65 * MIB).to_string())
        .body(Body::empty())
        .send()
        .await;
    assert_413(resp).await;
    let resp = cli
        .post("/api/trs/v1/groups")
        .header("content-length", MIB.to_string())
        .body(vec![0u8; MIB as usize])
        .send()
        .await;
    assert_413(resp).await;
}
