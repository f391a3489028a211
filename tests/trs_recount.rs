//! Rollups equal a recount from the raw runs. Random batches (with retried runs and bad
//! items) go in through the ingest API across the 2026-11-01 DST change; then every stored
//! run is read back through the run list and run detail, the counts per test case / local
//! day / local hour / run type and the latency and MOS min, max, average and median are
//! recomputed here, independently, and compared with the rollup-backed metric and MOS
//! answers.

use crate::harness;
use crate::harness_trs;

use std::collections::BTreeMap;

use chrono::{DateTime, NaiveDate, Timelike, Utc};
use chrono_tz::America::Toronto;
use harness::App;
use harness_trs::{get, post_runs, run};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde_json::{json, Value};

const CASES: i64 = 5;
const DAYS: [&str; 3] = ["2026-10-31", "2026-11-01", "2026-11-02"];

/// Exact statistics of integer values, rounded half up the way docs/ingest.md says.
#[derive(Debug, Default, Clone)]
struct Values(Vec<u64>);

impl Values {
    /// (count, min, max, avg, median) with `div` raw units per shown step and `steps` shown
    /// steps per unit.
    fn shown(&self, div: u64, steps: f64) -> (u64, Value, Value, Value, Value) {
        if self.0.is_empty() {
            return (0, Value::Null, Value::Null, Value::Null, Value::Null);
        }
        let mut v = self.0.clone();
        v.sort_unstable();
        let n = v.len() as u64;
        let half_up = |num: u64, den: u64| (2 * num + den) / (2 * den);
        let sum: u64 = v.iter().sum();
        let median_x2 = v[(v.len() - 1) / 2] + v[v.len() / 2];
        let f = |q: u64| json!(q as f64 / steps);
        (
            n,
            f(half_up(v[0], div)),
            f(half_up(v[v.len() - 1], div)),
            f(half_up(sum, n * div)),
            f(half_up(median_x2, 2 * div)),
        )
    }
}

#[derive(Debug, Default, Clone)]
struct Expect {
    /// success, warning, failure per local hour.
    hours: [[u64; 3]; 24],
    latency: Values,
    mos: Values,
    mos_hours: Vec<Values>,
}

fn class(status: &str) -> usize {
    match status {
        "pass" => 0,
        "warn" => 1,
        _ => 2,
    }
}

fn random_run(rng: &mut StdRng, id: &str) -> Value {
    let statuses = ["pass", "warn", "fail", "stopped"];
    let start = DateTime::parse_from_rfc3339("2026-10-31T04:00:00Z")
        .unwrap()
        .timestamp();
    let t = start + rng.gen_range(0..3 * 86_400 + 3_600);
    let time = DateTime::from_timestamp(t, 0).unwrap().to_rfc3339();
    let mut r = run(
        id,
        rng.gen_range(1..=CASES),
        &time,
        statuses[rng.gen_range(0..4)],
    );
    r["runType"] = json!(if rng.gen_bool(0.3) {
        "Manual"
    } else {
        "Schedule"
    });
    r["mosCqIn"] = if rng.gen_bool(0.2) {
        Value::Null
    } else {
        json!(rng.gen_range(100..=500) as f64 / 100.0)
    };
    for (s, seg) in [(0, 0), (1, 0), (1, 1)] {
        let step = &mut r["segments"][s]["steps"][seg];
        step["testResult"]["latency"] = if rng.gen_bool(0.1) {
            Value::Null
        } else {
            json!(rng.gen_range(0..5_000))
        };
        step["testResult"]["status"] = json!(statuses[rng.gen_range(0..4)]);
    }
    r
}

#[tokio::test(flavor = "multi_thread")]
async fn rollups_equal_a_recount_of_raw_runs() {
    let app = App::new();
    let key = app.api_key("engine").await;
    let token = harness_trs::admin(&app).await.token;
    let mut rng = StdRng::seed_from_u64(20261101);
    let mut sent: Vec<Value> = Vec::new();
    let mut accepted = 0;
    for b in 0..12 {
        let mut batch: Vec<Value> = (0..40)
            .map(|i| random_run(&mut rng, &format!("r{b}-{i}")))
            .collect();
        // Retries of earlier runs and a few bad items.
        for _ in 0..5 {
            if !sent.is_empty() {
                batch.push(sent[rng.gen_range(0..sent.len())].clone());
            }
        }
        let mut bad = random_run(&mut rng, &format!("bad{b}"));
        bad["mosCqIn"] = json!(9);
        batch.push(bad);
        let (status, body) = post_runs(&app, &key, &batch).await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(
            body["data"]["rejected"].as_array().unwrap().len(),
            1,
            "{body}"
        );
        accepted += body["data"]["accepted"].as_u64().unwrap();
        sent.extend(batch.into_iter().take(40));
    }
    assert_eq!(accepted, 480);

    // One group per test case (MOS rows are per group), and one with every case.
    let mut groups: BTreeMap<i64, i64> = BTreeMap::new();
    for c in 1..=CASES {
        let id = harness_trs::group(&app, &format!("Case {c} only"), "voice", &[c]).await;
        groups.insert(c, id);
    }

    // Recount from the raw runs, read back through the API.
    type Key = (i64, NaiveDate, String); // case, local day, run type
    let mut cases: BTreeMap<Key, Expect> = BTreeMap::new();
    let mut segments: BTreeMap<(i64, NaiveDate, String, i64), Expect> = BTreeMap::new();
    let mut seen = 0;
    for case in 1..=CASES {
        let (status, list) = get(
            &app,
            &token,
            &format!(
                "/api/trs/v1/testcases/{case}/runs?startDate={}&endDate={}&pageSize=1000",
                DAYS[0], DAYS[2]
            ),
        )
        .await;
        assert_eq!(status, 200, "{list}");
        for r in list["data"]["content"].as_array().unwrap() {
            seen += 1;
            let id = r["runId"].as_i64().unwrap();
            let (_, detail) = get(&app, &token, &format!("/api/trs/v1/testruns/{id}")).await;
            let d = &detail["data"];
            let t: DateTime<Utc> = d["runTime"].as_str().unwrap().parse().unwrap();
            let local = t.with_timezone(&Toronto);
            let (day, hour) = (local.date_naive(), local.hour() as usize);
            let rt = d["runType"].as_str().unwrap().to_string();
            let e = cases
                .entry((case, day, rt.clone()))
                .or_insert_with(|| Expect {
                    mos_hours: vec![Values::default(); 24],
                    ..Default::default()
                });
            e.hours[hour][class(d["runResult"].as_str().unwrap())] += 1;
            if let Some(m) = d["mosCqIn"].as_f64() {
                let hundredths = (m * 100.0).round() as u64;
                e.mos.0.push(hundredths);
                e.mos_hours[hour].0.push(hundredths);
            }
            for seg in d["segments"].as_array().unwrap() {
                let steps = seg["steps"].as_array().unwrap();
                let lat: Vec<u64> = steps
                    .iter()
                    .filter_map(|s| s["testResult"]["latency"].as_u64())
                    .collect();
                e.latency.0.extend(&lat);
                let worst = steps
                    .iter()
                    .map(|s| match s["testResult"]["status"].as_str().unwrap() {
                        "pass" => 0,
                        "warn" => 1,
                        "fail" => 2,
                        _ => 3,
                    })
                    .max()
                    .unwrap();
                let se = segments
                    .entry((case, day, rt.clone(), seg["segmentId"].as_i64().unwrap()))
                    .or_default();
                se.hours[hour][worst.min(2)] += 1;
                se.latency.0.extend(&lat);
            }
        }
    }
    assert_eq!(seen, 480);

    // Compare, day by day and run type by run type.
    let mut compared = 0;
    for day in DAYS {
        let date: NaiveDate = day.parse().unwrap();
        for rt in ["Manual", "Schedule"] {
            for (&case, &group) in &groups {
                let (status, m) = get(
                    &app,
                    &token,
                    &format!("/api/trs/v1/groups/{group}/metric?level=case&startDate={day}&caseRunType={rt}"),
                ).await;
                assert_eq!(status, 200, "{m}");
                let e = cases
                    .get(&(case, date, rt.to_string()))
                    .cloned()
                    .unwrap_or(Expect {
                        mos_hours: vec![Values::default(); 24],
                        ..Default::default()
                    });
                let got = &m["data"][0];
                let hours: Vec<[u64; 3]> = got["hourlyStatus"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|h| {
                        [
                            h["successCount"].as_u64().unwrap(),
                            h["warningCount"].as_u64().unwrap(),
                            h["failureCount"].as_u64().unwrap(),
                        ]
                    })
                    .collect();
                assert_eq!(hours, e.hours.to_vec(), "case {case} {day} {rt}");
                let totals: [u64; 3] = [0, 1, 2].map(|i| e.hours.iter().map(|h| h[i]).sum());
                assert_eq!(
                    [
                        &got["successCount"],
                        &got["warningCount"],
                        &got["failureCount"]
                    ]
                    .map(|v| v.as_u64().unwrap()),
                    totals
                );
                let (n, min, max, avg, med) = e.latency.shown(10, 100.0);
                assert_eq!(
                    (
                        got["latencyCount"].as_u64().unwrap(),
                        &got["minLatency"],
                        &got["maxLatency"],
                        &got["avgLatency"],
                        &got["medianLatency"]
                    ),
                    (n, &min, &max, &avg, &med),
                    "latency of case {case} {day} {rt}"
                );
                let (n, min, max, avg, med) = e.mos.shown(10, 10.0);
                assert_eq!(
                    (
                        got["mosCount"].as_u64().unwrap(),
                        &got["minMosCq"],
                        &got["maxMosCq"],
                        &got["avgMosCq"],
                        &got["medianMosCq"]
                    ),
                    (n, &min, &max, &avg, &med),
                    "MOS of case {case} {day} {rt}"
                );
                let (_, mos) = get(
                    &app,
                    &token,
                    &format!("/api/trs/v1/groups/{group}/mos?startDate={day}&caseRunType={rt}"),
                )
                .await;
                for (h, row) in mos["data"].as_array().unwrap().iter().enumerate() {
                    let (n, min, max, avg, med) = e.mos_hours[h].shown(10, 10.0);
                    assert_eq!(
                        (
                            row["runCount"].as_u64().unwrap(),
                            &row["minMosCq"],
                            &row["maxMosCq"],
                            &row["avgMosCq"],
                            &row["medianMosCq"]
                        ),
                        (n, &min, &max, &avg, &med),
                        "MOS of case {case} {day} {rt} hour {h}"
                    );
                }
                // Segment level.
                let (_, sm) = get(
                    &app,
                    &token,
                    &format!("/api/trs/v1/groups/{group}/metric?level=segment&startDate={day}&caseRunType={rt}"),
                ).await;
                for s in sm["data"].as_array().unwrap() {
                    let seg = s["segmentId"].as_i64().unwrap();
                    let se = segments
                        .get(&(case, date, rt.to_string(), seg))
                        .unwrap_or_else(|| {
                            panic!("segment {seg} of case {case} {day} {rt} has no runs")
                        });
                    let hours: Vec<[u64; 3]> = s["hourlyStatus"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|h| {
                            [
                                h["successCount"].as_u64().unwrap(),
                                h["warningCount"].as_u64().unwrap(),
                                h["failureCount"].as_u64().unwrap(),
                            ]
                        })
                        .collect();
                    assert_eq!(
                        hours,
                        se.hours.to_vec(),
                        "segment {seg} case {case} {day} {rt}"
                    );
                    let (n, min, max, avg, med) = se.latency.shown(10, 100.0);
                    assert_eq!(
                        (
                            s["latencyCount"].as_u64().unwrap(),
                            &s["minLatency"],
                            &s["maxLatency"],
                            &s["avgLatency"],
                            &s["medianLatency"]
                        ),
                        (n, &min, &max, &avg, &med),
                        "latency of segment {seg} case {case} {day} {rt}"
                    );
                    compared += 1;
                }
                let expected_segments = segments
                    .keys()
                    .filter(|k| k.0 == case && k.1 == date && k.2 == rt)
                    .count();
                assert_eq!(sm["data"].as_array().unwrap().len(), expected_segments);
                compared += 1;
            }
        }
    }
    assert!(compared > 40, "{compared}");

    // The whole range at once: hour slots sum the same hour of every day.
    let all = harness_trs::group(&app, "All", "voice", &(1..=CASES).collect::<Vec<_>>()).await;
    let (_, m) = get(
        &app,
        &token,
        &format!(
            "/api/trs/v1/groups/{all}/metric?startDate={}&endDate={}&caseRunType=Schedule",
            DAYS[0], DAYS[2]
        ),
    )
    .await;
    for got in m["data"].as_array().unwrap() {
        let case = got["entityId"].as_i64().unwrap();
        let mut hours = vec![[0u64; 3]; 24];
        let mut lat = Values::default();
        for ((c, _, rt), e) in &cases {
            if *c == case && rt == "Schedule" {
                for (sum, add) in hours.iter_mut().zip(e.hours.iter()) {
                    for (x, y) in sum.iter_mut().zip(add) {
                        *x += y;
                    }
                }
                lat.0.extend(&e.latency.0);
            }
        }
        let got_hours: Vec<[u64; 3]> = got["hourlyStatus"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| {
                [
                    h["successCount"].as_u64().unwrap(),
                    h["warningCount"].as_u64().unwrap(),
                    h["failureCount"].as_u64().unwrap(),
                ]
            })
            .collect();
        assert_eq!(got_hours, hours, "case {case} over three days");
        assert_eq!(got["medianLatency"], lat.shown(10, 100.0).4);
    }
}
