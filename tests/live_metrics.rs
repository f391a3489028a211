//! Operations: `GET /metrics` (Prometheus, behind its token) counts what ingest and the
//! HTTP layer did and reads the store's gauges; `GET api/live` streams ingest to open
//! dashboards, each caller only what they may see.

use crate::harness;
use crate::harness_trs;

use std::time::{Duration, Instant};

use cxwatch::domain::caller::{AccessType, Role};
use futures_util::StreamExt;
use harness::App;
use harness_trs::{group, ingest_ok, run};

/// The samples of an exposition: each series (name and labels as written) and its value.
fn samples(text: &str) -> std::collections::BTreeMap<String, f64> {
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .map(|l| {
            let (series, value) = l.rsplit_once(' ').expect("a sample line has a value");
            (
                series.to_string(),
                value.parse().expect("a sample's value is a number"),
            )
        })
        .collect()
}

async fn scrape(app: &App, token: Option<&str>) -> (u16, String, String) {
    let mut req = app.client.get("/metrics");
    if let Some(t) = token {
        req = req.header("authorization", format!("Bearer {t}"));
    }
    let resp = req.send().await.0;
    let status = resp.status().as_u16();
    let ct = resp
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_string();
    let body = resp.into_body().into_string().await.unwrap_or_default();
    (status, ct, body)
}

#[tokio::test(flavor = "multi_thread")]
async fn metrics_behind_the_token_count_ingest_requests_and_read_the_store() {
    let app = App::with_config(|c| c.metrics.token = "scrape-secret".into());
    let key = app.api_key("engine").await;
    ingest_ok(&app, &key, &[run("m-1", 1, "2026-07-15T14:05:00Z", "pass")]).await;
    let g = group(&app, "North", "voice", &[1]).await;
    ingest_ok(
        &app,
        &key,
        &[
            run("m-2", 1, "2026-07-15T15:05:00Z", "fail"),
            run("m-3", 2, "2026-07-15T15:06:00Z", "pass"),
            run("m-2", 1, "2026-07-15T15:05:00Z", "fail"),
        ],
    )
    .await;
    let admin = harness_trs::admin(&app).await;
    let (s, _) = harness_trs::get(&app, &admin.token, &format!("/api/trs/v1/groups/{g}")).await;
    assert_eq!(s, 200);

    assert_eq!(scrape(&app, None).await.0, 401);
    assert_eq!(scrape(&app, Some("wrong")).await.0, 401);
    let (status, ct, text) = scrape(&app, Some("scrape-secret")).await;
    assert_eq!(status, 200, "{text}");
    assert!(ct.starts_with("application/openmetrics-text"), "{ct}");
    let when = chrono::DateTime::parse_from_rfc3339("2026-07-15T15:05:00Z")
        .unwrap()
        .timestamp();
    // Values are compared as numbers parsed from the exposition, not as text: a value in the
    // wrong unit can have the right one as its prefix (milliseconds against seconds).
    let got = samples(&text);
    for (series, want) in [
        ("cxwatch_test_runs_total{group=\"\",test_case=\"1\",channel=\"voice\",status=\"pass\"}".to_string(), 1.0),
        (format!("cxwatch_test_runs_total{{group=\"{g}\",test_case=\"1\",channel=\"voice\",status=\"fail\"}}"), 1.0),
        ("cxwatch_test_runs_total{group=\"\",test_case=\"2\",channel=\"voice\",status=\"pass\"}".to_string(), 1.0),
        ("cxwatch_ingest_batches_total".to_string(), 2.0),
        ("cxwatch_ingest_runs_total{outcome=\"accepted\"}".to_string(), 3.0),
        ("cxwatch_ingest_runs_total{outcome=\"duplicate\"}".to_string(), 1.0),
        ("cxwatch_test_case_last_run_timestamp_seconds{test_case=\"1\"}".to_string(), when as f64),
        ("cxwatch_http_requests_total{method=\"POST\",route=\"/api/ingest/v1/runs\",status=\"200\"}".to_string(), 2.0),
        ("cxwatch_http_requests_total{method=\"GET\",route=\"/api/trs/v1/groups/{id}\",status=\"200\"}".to_string(), 1.0),
        ("cxwatch_http_request_duration_seconds_count{method=\"POST\",route=\"/api/ingest/v1/runs\"}".to_string(), 2.0),
        ("cxwatch_alert_events_open".to_string(), 0.0),
        ("cxwatch_notification_outbox_depth".to_string(), 0.0),
        ("cxwatch_notification_outbox_failed".to_string(), 0.0),
        ("cxwatch_live_streams".to_string(), 0.0),
    ] {
        assert_eq!(got.get(&series), Some(&want), "{series}\n{text}");
    }
    assert!(text.ends_with("# EOF\n"), "{text}");
    let size = got["cxwatch_database_size_bytes"];
    assert!(size > 4096.0, "{size}");
    // No raw id of a path becomes a label.
    assert!(
        !text.contains(&format!("/api/trs/v1/groups/{g}\"")),
        "{text}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn metrics_are_not_served_without_a_token() {
    let app = App::new();
    assert_eq!(scrape(&app, Some("")).await.0, 404);
}

/// Reads server-sent events until one of `kind` arrives; its data line.
async fn next_event(
    body: &mut (impl futures_util::Stream<Item = Result<bytes::Bytes, std::io::Error>> + Unpin),
    buf: &mut String,
    kind: &str,
    within: Duration,
) -> Option<serde_json::Value> {
    let deadline = Instant::now() + within;
    loop {
        while let Some(end) = buf.find("\n\n") {
            let event: String = buf.drain(..end + 2).collect();
            if event.lines().any(|l| l == format!("event: {kind}")) {
                let data = event.lines().find_map(|l| l.strip_prefix("data: "))?;
                return serde_json::from_str(data).ok();
            }
        }
        let left = deadline.saturating_duration_since(Instant::now());
        match tokio::time::timeout(left, body.next()).await {
            Ok(Some(Ok(chunk))) => buf.push_str(&String::from_utf8_lossy(&chunk)),
            _ => return None,
        }
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn ingest_reaches_open_streams_within_two_seconds_scoped_to_the_caller() {
    let app = App::with_config(|c| c.metrics.token = "t".into());
    let key = app.api_key("engine").await;
    ingest_ok(
        &app,
        &key,
        &[
            run("l-1", 1, "2026-07-15T14:05:00Z", "pass"),
            run("l-2", 2, "2026-07-15T14:05:00Z", "pass"),
        ],
    )
    .await;
    let north = group(&app, "North", "voice", &[1]).await;
    let south = group(&app, "South", "voice", &[2]).await;
    let admin = harness_trs::admin(&app).await;
    let user = app
        .user("north@x.test", Role::User, AccessType::ReadOnly, &[north])
        .await;
    let open = |token: String| {
        let client = &app.client;
        async move {
            let resp = client
                .get("/api/live")
                .header("authorization", format!("Bearer {token}"))
                .send()
                .await
                .0;
            assert_eq!(resp.status().as_u16(), 200);
            assert_eq!(
                resp.headers().get("content-type").unwrap(),
                "text/event-stream"
            );
            resp.into_body().into_bytes_stream()
        }
    };
    let (mut a, mut u) = (
        open(admin.token.clone()).await,
        open(user.token.clone()).await,
    );
    let (mut abuf, mut ubuf) = (String::new(), String::new());
    let second = Duration::from_secs(2);
    assert!(next_event(&mut a, &mut abuf, "open", second)
        .await
        .is_some());
    assert!(next_event(&mut u, &mut ubuf, "open", second)
        .await
        .is_some());

    // A run of South: the administrator hears of it, the North user does not.
    let sent = Instant::now();
    ingest_ok(&app, &key, &[run("l-3", 2, "2026-07-15T15:05:00Z", "fail")]).await;
    let event = next_event(&mut a, &mut abuf, "runs", second).await.unwrap();
    assert!(sent.elapsed() < second);
    assert_eq!(event["testCaseIds"], serde_json::json!([2]));
    assert_eq!(event["groupIds"], serde_json::json!([south]));
    // A run of North next: the user's first event is it, not South's.
    ingest_ok(&app, &key, &[run("l-4", 1, "2026-07-15T15:06:00Z", "warn")]).await;
    let event = next_event(&mut u, &mut ubuf, "runs", second).await.unwrap();
    assert_eq!(event["testCaseIds"], serde_json::json!([1]));
    assert_eq!(event["groupIds"], serde_json::json!([north]));
    let event = next_event(&mut a, &mut abuf, "runs", second).await.unwrap();
    assert_eq!(event["testCaseIds"], serde_json::json!([1]));

    // Open streams show in the metrics gauge; a closed one leaves it.
    let (_, _, text) = scrape(&app, Some("t")).await;
    assert_eq!(samples(&text)["cxwatch_live_streams"], 2.0, "{text}");
    drop(u);
    let (_, _, text) = scrape(&app, Some("t")).await;
    assert_eq!(samples(&text)["cxwatch_live_streams"], 1.0, "{text}");
    // Without a token the stream is refused in the envelope.
    let resp = app.client.get("/api/live").send().await.0;
    assert_eq!(resp.status().as_u16(), 401);
}

#[tokio::test(flavor = "multi_thread")]
async fn docs_list_every_metric_and_the_dashboard_uses_it() {
    let app = App::with_config(|c| c.metrics.token = "t".into());
    let key = app.api_key("engine").await;
    ingest_ok(&app, &key, &[run("d-1", 1, "2026-07-15T14:05:00Z", "pass")]).await;
    let (_, _, text) = scrape(&app, Some("t")).await;
    let docs =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/metrics.md")).unwrap();
    let dashboard = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/docs/grafana-dashboard.json"
    ))
    .unwrap();
    serde_json::from_str::<serde_json::Value>(&dashboard).expect("the dashboard is JSON");
    let names: Vec<&str> = text
        .lines()
        .filter_map(|l| l.strip_prefix("# TYPE "))
        .filter_map(|l| l.split(' ').next())
        .collect();
    assert!(names.len() >= 11, "{names:?}");
    for name in names {
        assert!(
            docs.contains(&format!("`{name}")),
            "{name} is not in docs/metrics.md"
        );
        assert!(
            dashboard.contains(name),
            "{name} is not on the Grafana dashboard"
        );
    }
}
