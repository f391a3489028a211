//! Hour slots across daylight-saving changes in the site time zone (America/Toronto, the
//! default): 2026-03-08 skips 02:00-03:00, 2026-11-01 repeats 01:00-02:00. Every day still
//! has 24 slots; the skipped hour is a zero slot; the repeated hour counts both.

use crate::harness;
use crate::harness_trs;

use harness::App;
use harness_trs::{get, ingest_ok, run};
use serde_json::{json, Value};

fn run_at(id: &str, time: &str, status: &str, mos: f64) -> Value {
    let mut r = run(id, 1, time, status);
    r["mosCqIn"] = json!(mos);
    r
}

fn slots(body: &Value) -> Vec<(String, u64, u64, u64)> {
    body["data"][0]["hourlyStatus"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| {
            (
                h["hourly"].as_str().unwrap().to_string(),
                h["successCount"].as_u64().unwrap(),
                h["warningCount"].as_u64().unwrap(),
                h["failureCount"].as_u64().unwrap(),
            )
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn hour_slots_across_dst_changes() {
    let app = App::new();
    let key = app.api_key("engine").await;
    let token = harness_trs::admin(&app).await.token;
    ingest_ok(
        &app,
        &key,
        &[
            // Spring forward, 2026-03-08 (EST = UTC-5 until 07:00Z, then EDT = UTC-4).
            run_at("s-prev", "2026-03-08T04:59:00Z", "pass", 4.0), // 03-07 23:59 local
            run_at("s0", "2026-03-08T05:30:00Z", "pass", 4.0),     // 00:30
            run_at("s1", "2026-03-08T06:30:00Z", "warn", 4.0),     // 01:30
            run_at("s3", "2026-03-08T07:30:00Z", "fail", 4.0),     // 03:30 (02:xx never happens)
            run_at("s3b", "2026-03-08T07:59:59Z", "stopped", 4.0), // 03:59:59
            run_at("s23", "2026-03-09T03:59:00Z", "pass", 4.0),    // 23:59
            run_at("s-next", "2026-03-09T04:00:00Z", "pass", 4.0), // 03-09 00:00
            // Fall back, 2026-11-01 (EDT = UTC-4 until 06:00Z, then EST = UTC-5).
            run_at("f0", "2026-11-01T04:00:00Z", "pass", 3.0), // 00:00
            run_at("f1a", "2026-11-01T05:30:00Z", "pass", 4.0), // 01:30 EDT
            run_at("f1b", "2026-11-01T06:30:00Z", "warn", 3.5), // 01:30 EST, again
            run_at("f2", "2026-11-01T07:30:00Z", "fail", 3.0), // 02:30 EST
            run_at("f23", "2026-11-02T04:59:00Z", "pass", 3.0), // 23:59 EST
            run_at("g1", "2026-11-02T06:30:00Z", "pass", 5.0), // 11-02 01:30
        ],
    )
    .await;
    let group = harness_trs::group(&app, "DST", "voice", &[1]).await;
    let metric = async |from: &str, to: &str| {
        let (status, body) = get(
            &app,
            &token,
            &format!(
                "/api/trs/v1/groups/{group}/metric?level=case&startDate={from}&endDate={to}&caseRunType=Schedule"
            ),
        ).await;
        assert_eq!(status, 200, "{body}");
        body
    };

    let spring = slots(&metric("2026-03-08", "2026-03-08").await);
    assert_eq!(spring.len(), 24);
    for (h, s) in spring.iter().enumerate() {
        assert_eq!(s.0, format!("2026-03-08T{h:02}:00:00"));
    }
    let counts: Vec<_> = spring.iter().map(|s| (s.1, s.2, s.3)).collect();
    let mut expect = vec![(0, 0, 0); 24];
    expect[0] = (1, 0, 0);
    expect[1] = (0, 1, 0);
    expect[3] = (0, 0, 2); // fail + stopped
    expect[23] = (1, 0, 0);
    assert_eq!(counts, expect);
    assert_eq!(counts[2], (0, 0, 0), "the skipped hour is a zero slot");

    let body = metric("2026-11-01", "2026-11-01").await;
    let e = &body["data"][0];
    assert_eq!(
        (e["periodStart"].as_str(), e["periodEnd"].as_str()),
        (Some("2026-11-01"), Some("2026-11-01"))
    );
    assert_eq!(
        (
            e["successCount"].as_u64(),
            e["warningCount"].as_u64(),
            e["failureCount"].as_u64()
        ),
        (Some(3), Some(1), Some(1))
    );
    let fall = slots(&body);
    assert_eq!(fall.len(), 24);
    assert_eq!((fall[0].1, fall[0].2, fall[0].3), (1, 0, 0));
    assert_eq!(
        (fall[1].1, fall[1].2, fall[1].3),
        (1, 1, 0),
        "both 01:30 runs in slot 1"
    );
    assert_eq!((fall[2].1, fall[2].2, fall[2].3), (0, 0, 1));
    assert_eq!((fall[23].1, fall[23].2, fall[23].3), (1, 0, 0));

    // Two days: each slot sums that hour of both days; labels use the first date.
    let two = slots(&metric("2026-11-01", "2026-11-02").await);
    assert_eq!(two[1], ("2026-11-01T01:00:00".to_string(), 2, 1, 0));
    assert_eq!(two.iter().map(|s| s.1 + s.2 + s.3).sum::<u64>(), 6);

    // MOS per hour: 24 rows, null where no run; the repeated hour has both runs.
    let (status, mos) = get(
        &app,
        &token,
        &format!("/api/trs/v1/groups/{group}/mos?startDate=2026-11-01&caseRunType=Schedule"),
    )
    .await;
    assert_eq!(status, 200, "{mos}");
    let rows = mos["data"].as_array().unwrap();
    assert_eq!(rows.len(), 24);
    assert_eq!(
        rows[1],
        json!({"hourly": "2026-11-01T01:00:00", "minMosCq": 3.5, "maxMosCq": 4.0,
               "avgMosCq": 3.8, "medianMosCq": 3.8, "runCount": 2})
    );
    assert_eq!(
        rows[5],
        json!({"hourly": "2026-11-01T05:00:00", "minMosCq": null, "maxMosCq": null,
               "avgMosCq": null, "medianMosCq": null, "runCount": 0})
    );

    // The run list of a local day covers exactly that day's runs (23 h in spring, 25 in fall).
    for (day, n) in [("2026-03-08", 5), ("2026-11-01", 5), ("2026-03-07", 1)] {
        let (status, body) = get(
            &app,
            &token,
            &format!("/api/trs/v1/testcases/1/runs?startDate={day}&pageNo=0"),
        )
        .await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(body["data"]["totalElements"], n, "{day}: {body}");
    }
}
