//! `api/reports` in-process: create, read, update, delete and the list (filters, paging,
//! sort, scope), the form's validation order and words, the lookups, the latency heat map,
//! the runs behind a cell (every spec §7 variant) and the CSV export.

use crate::harness;
use crate::harness_trs;

use cxwatch::domain::caller::{AccessType, Role};
use harness::App;
use harness_trs::{admin, get, group, ingest_ok, raw, run};
use poem::http::Method;
use serde_json::{json, Value};

fn report(name: &str, ty: i64, group: i64) -> Value {
    json!({"name": name, "description": name, "reportTypeID": ty, "testCaseGroupID": group,
           "timeframeName": "Custom", "timeframeBegin": "2026-01-15",
           "timeframeEnd": "2026-01-16", "runType": "Schedule",
           "latencyWarn": 1000, "latencyFail": 2000})
}

async fn create(app: &App, token: &str, body: &Value) -> (u16, Value) {
    app.call(
        Method::POST,
        "/api/reports?pageNo=0",
        Some(token),
        Some(body),
    )
    .await
}

/// Runs of cases 1 and 2 on 2026-01-15, 14:xx UTC (09:xx in Toronto) and one failure at
/// 15:xx UTC (10:xx), with latencies 900, 1200 and 400 ms (run::harness_trs::run).
async fn seed(app: &App) -> (i64, i64) {
    let key = app.api_key("reports").await;
    let mut runs = vec![
        run("r1", 1, "2026-01-15T14:05:00Z", "pass"),
        run("r2", 2, "2026-01-15T14:10:00Z", "pass"),
        run("r3", 1, "2026-01-15T15:05:00Z", "fail"),
        run("r4", 2, "2026-01-16T15:05:00Z", "warn"),
    ];
    // A slow greeting on r4 (3.5 s), a low MOS on r3.
    runs[3]["segments"][0]["steps"][0]["testResult"]["latency"] = json!(3500);
    runs[2]["mosCqIn"] = json!(2.1);
    ingest_ok(app, &key, &runs).await;
    let voice = group(app, "Retail", "voice", &[1, 2]).await;
    let web = group(app, "Web", "web", &[]).await;
    (voice, web)
}

#[tokio::test(flavor = "multi_thread")]
async fn crud_round_trip() {
    let app = App::new();
    let a = admin(&app).await;
    let (voice, _) = seed(&app).await;
    let (s, body) = create(&app, &a.token, &report("Weekly trend", 2, voice)).await;
    assert_eq!(s, 200, "{body}");
    assert_eq!(body["code"], "OK");
    let r = &body["data"];
    let id = r["id"].as_i64().unwrap();
    assert_eq!(r["name"], "Weekly trend");
    assert_eq!(r["description"], "Weekly trend");
    assert_eq!(r["reportTypeID"], 2);
    assert_eq!(r["reportTypeName"], "Trend");
    assert_eq!(r["testCaseGroupID"], voice);
    assert_eq!(r["testCaseGroupName"], "Retail");
    assert_eq!(r["timeframeBegin"], "2026-01-15");
    assert_eq!(r["timeframeEnd"], "2026-01-16");
    assert_eq!(r["runType"], "Schedule");
    // Thresholds only for type 6.
    assert_eq!(
        (r["latencyWarn"].clone(), r["latencyFail"].clone()),
        (json!(0), json!(0))
    );
    assert!(r["lastModifiedTime"].as_str().unwrap().ends_with('Z'));

    let (s, got) = get(&app, &a.token, &format!("/api/reports/{id}")).await;
    assert_eq!(s, 200);
    assert_eq!(got["data"], body["data"]);

    let mut change = report("Latency", 6, voice);
    change["id"] = json!(id);
    change["timeframeName"] = json!("Last Week");
    let (s, up) = app
        .call(
            Method::PUT,
            &format!("/api/reports/{id}"),
            Some(&a.token),
            Some(&change),
        )
        .await;
    assert_eq!(s, 200, "{up}");
    assert_eq!(up["data"]["reportTypeName"], "Test Script Latency by Hour");
    assert_eq!(up["data"]["latencyWarn"], 1000);
    assert_eq!(up["data"]["latencyFail"], 2000);
    assert_eq!(up["data"]["timeframeName"], "Last Week");
    assert_ne!(up["data"]["timeframeBegin"], "2026-01-15");

    // The id of the body must be the path's.
    change["id"] = json!(id + 1);
    let (s, bad) = app
        .call(
            Method::PUT,
            &format!("/api/reports/{id}"),
            Some(&a.token),
            Some(&change),
        )
        .await;
    assert_eq!(s, 400, "{bad}");

    let (s, _) = app
        .call(
            Method::DELETE,
            &format!("/api/reports/{id}"),
            Some(&a.token),
            None,
        )
        .await;
    assert_eq!(s, 200);
    let (s, gone) = get(&app, &a.token, &format!("/api/reports/{id}")).await;
    assert_eq!(s, 404, "{gone}");
    assert_eq!(gone["messages"][0], format!("Report {id} does not exist."));
}

#[tokio::test(flavor = "multi_thread")]
async fn validation_follows_the_form_order_and_words() {
    let app = App::new();
    let a = admin(&app).await;
    let (voice, web) = seed(&app).await;
    let (s, body) = create(&app, &a.token, &json!({})).await;
    assert_eq!(s, 400, "{body}");
    let msgs: Vec<&str> = body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap())
        .collect();
    assert_eq!(
        msgs[..3],
        [
            "Please enter a name",
            "Please select type",
            "Please select group"
        ]
    );
    let fields: Vec<&str> = body["fields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["field"].as_str().unwrap())
        .collect();
    assert_eq!(fields[..3], ["name", "reportTypeID", "testCaseGroupID"]);

    let (s, body) = create(
        &app,
        &a.token,
        &json!({"name": "L", "reportTypeID": 6, "testCaseGroupID": voice,
                "timeframeName": "Today"}),
    )
    .await;
    assert_eq!(s, 400);
    assert_eq!(
        body["messages"],
        json!([
            "Please select threshold warning",
            "Please select threshold failure"
        ])
    );

    // MOS is for voice groups only; an unknown group is named; nothing is stored.
    let (s, body) = create(&app, &a.token, &report("M", 7, web)).await;
    assert_eq!(s, 400, "{body}");
    assert_eq!(body["fields"][0]["field"], "reportTypeID");
    let (s, body) = create(&app, &a.token, &report("M", 7, 999)).await;
    assert_eq!(s, 400, "{body}");
    assert_eq!(body["fields"][0]["field"], "testCaseGroupID");
    let (s, body) = create(
        &app,
        &a.token,
        &json!({"name": "C", "reportTypeID": 2, "testCaseGroupID": voice,
                "timeframeName": "Custom", "timeframeBegin": "2026-02-01",
                "timeframeEnd": "2026-01-01"}),
    )
    .await;
    assert_eq!(s, 400);
    assert_eq!(body["fields"][0]["field"], "timeframeEnd");
    let (_, list) = get(&app, &a.token, "/api/reports?pageNo=0").await;
    assert_eq!(list["data"]["totalElements"], 0);

    // A custom range without an end uses the start.
    let (s, body) = create(
        &app,
        &a.token,
        &json!({"name": "C", "reportTypeID": 2, "testCaseGroupID": voice,
                "timeframeName": "Custom", "timeframeBegin": "2026-02-01"}),
    )
    .await;
    assert_eq!(s, 200, "{body}");
    assert_eq!(body["data"]["timeframeEnd"], "2026-02-01");
}

#[tokio::test(flavor = "multi_thread")]
async fn list_filters_pages_sorts_and_scopes() {
    let app = App::new();
    let a = admin(&app).await;
    let (voice, web) = seed(&app).await;
    let other = group(&app, "Claims", "voice", &[1]).await;
    for i in 0..12 {
        let (g, ty) = match i % 3 {
            0 => (voice, 2),
            1 => (web, 5),
            _ => (other, 1),
        };
        let (s, b) = create(&app, &a.token, &report(&format!("Report {i:02}"), ty, g)).await;
        assert_eq!(s, 200, "{b}");
    }
    // Without paging parameters: every report, as the spec's array.
    let (_, all) = get(&app, &a.token, "/api/reports").await;
    assert_eq!(all["data"].as_array().unwrap().len(), 12);
    let (_, page) = get(&app, &a.token, "/api/reports?pageNo=0").await;
    let d = &page["data"];
    assert_eq!(d["totalElements"], 12);
    assert_eq!(d["content"].as_array().unwrap().len(), 10);
    assert_eq!(
        d["content"][0]["name"], "Report 11",
        "id descending by default"
    );
    let (_, p2) = get(&app, &a.token, "/api/reports?pageNo=1&pageSize=10").await;
    assert_eq!(p2["data"]["content"].as_array().unwrap().len(), 2);
    let (_, asc) = get(&app, &a.token, "/api/reports?sort=name,asc&pageSize=3").await;
    assert_eq!(asc["data"]["content"][0]["name"], "Report 00");

    let (_, s) = get(&app, &a.token, "/api/reports?search=rePORT%2007&pageNo=0").await;
    assert_eq!(s["data"]["totalElements"], 1);
    let id = s["data"]["content"][0]["id"].as_i64().unwrap();
    let (_, by_id) = get(
        &app,
        &a.token,
        &format!("/api/reports?search={id}&pageNo=0"),
    )
    .await;
    assert!(by_id["data"]["content"]
        .as_array()
        .unwrap()
        .iter()
        .any(|r| r["id"] == id));
    let (_, t) = get(&app, &a.token, "/api/reports?reportType=5,1&pageNo=0").await;
    assert_eq!(t["data"]["totalElements"], 8);
    let (_, g) = get(&app, &a.token, "/api/reports?groupName=retail,Web&pageNo=0").await;
    assert_eq!(g["data"]["totalElements"], 8);
    let (_, tf) = get(&app, &a.token, "/api/reports?timeframe=Today&pageNo=0").await;
    assert_eq!(tf["data"]["totalElements"], 0);
    let (_, d1) = get(
        &app,
        &a.token,
        "/api/reports?startDate=2026-01-15&endDate=2026-01-16&pageNo=0",
    )
    .await;
    assert_eq!(d1["data"]["totalElements"], 12);
    let (_, d2) = get(&app, &a.token, "/api/reports?startDate=2026-01-16&pageNo=0").await;
    assert_eq!(d2["data"]["totalElements"], 0);
    let (s, bad) = get(
        &app,
        &a.token,
        "/api/reports?reportType=3&startDate=x&sort=nope&pageNo=0",
    )
    .await;
    assert_eq!(s, 400);
    let fields: Vec<&str> = bad["fields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["field"].as_str().unwrap())
        .collect();
    assert_eq!(fields, ["sort", "reportType", "startDate"]);

    // A ROLE_USER sees and changes only the reports of their groups.
    let u = app
        .user("u@x.test", Role::User, AccessType::ReadWrite, &[voice])
        .await;
    let (_, mine) = get(&app, &u.token, "/api/reports?pageSize=100").await;
    assert_eq!(mine["data"]["totalElements"], 4);
    let theirs = t["data"]["content"][0]["id"].as_i64().unwrap();
    let (s, _) = get(&app, &u.token, &format!("/api/reports/{theirs}")).await;
    assert_eq!(s, 403);
    let (s, _) = app
        .call(
            Method::DELETE,
            &format!("/api/reports/{theirs}"),
            Some(&u.token),
            None,
        )
        .await;
    assert_eq!(s, 403);
    let (s, b) = create(&app, &u.token, &report("Not mine", 2, other)).await;
    assert_eq!(s, 400, "{b}");
    assert_eq!(b["fields"][0]["field"], "testCaseGroupID");
    let ro = app
        .user("ro@x.test", Role::User, AccessType::ReadOnly, &[voice])
        .await;
    let (s, _) = create(&app, &ro.token, &report("Read only", 2, voice)).await;
    assert_eq!(s, 403);
}

#[tokio::test(flavor = "multi_thread")]
async fn lookups() {
    let app = App::new();
    let a = admin(&app).await;
    let (_, types) = get(&app, &a.token, "/api/reports/types?channel=web").await;
    let ids: Vec<i64> = types["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["id"].as_i64().unwrap())
        .collect();
    assert_eq!(ids, [2, 5, 6, 1], "no MOS for web");
    let (_, types) = get(&app, &a.token, "/api/reports/types?channel=voice").await;
    assert_eq!(types["data"].as_array().unwrap().len(), 5);
    let (s, _) = get(&app, &a.token, "/api/reports/types?channel=fax").await;
    assert_eq!(s, 400);
    let (_, tf) = get(&app, &a.token, "/api/reports/timeframes").await;
    assert_eq!(
        tf["data"],
        json!([
            "Custom",
            "Today",
            "Yesterday",
            "Current Week",
            "Last Week",
            "Current Month",
            "Last Month",
            "Last Year"
        ])
    );
    let (_, th) = get(&app, &a.token, "/api/reports/latencythresholds").await;
    assert_eq!(
        th["data"][1],
        json!({"id": 2, "text": "0.5 - 1 sec", "lowerBound": 500, "uppperBound": 1000})
    );
    assert!(th["data"][7].get("uppperBound").is_none(), "{th}");
}

#[tokio::test(flavor = "multi_thread")]
async fn latency_heat_map_reads_the_rollups() {
    let app = App::new();
    let a = admin(&app).await;
    let (voice, _) = seed(&app).await;
    let (_, r) = create(&app, &a.token, &report("Latency", 6, voice)).await;
    let id = r["data"]["id"].as_i64().unwrap();
    let (s, l) = get(&app, &a.token, &format!("/api/reports/{id}/latency")).await;
    assert_eq!(s, 200, "{l}");
    let d = &l["data"];
    assert_eq!(d["periodStart"], "2026-01-15");
    assert_eq!(d["buckets"][0]["colour"], "green");
    assert_eq!(
        d["buckets"][1]["colour"], "orange",
        "upper bound 1000 is not below 1000"
    );
    assert_eq!(d["buckets"][3]["colour"], "red");
    let hrs = d["latencyByHr"].as_array().unwrap();
    assert_eq!(hrs.len(), 24);
    // 09:xx Toronto: runs r1, r2, 3 latencies each: 900, 1200, 400.
    assert_eq!(hrs[9]["runCount"], 2);
    assert_eq!(hrs[9]["latencyCount"], 6);
    assert_eq!(hrs[9]["bucketCounts"], json!([2, 2, 2, 0, 0, 0, 0, 0]));
    assert_eq!(hrs[9]["latency"], 0.83);
    // 10:xx: r3 (900, 1200, 400) and r4 (3500, 1200, 400).
    assert_eq!(hrs[10]["bucketCounts"], json!([2, 1, 2, 0, 0, 1, 0, 0]));
    assert_eq!(hrs[0]["latency"], Value::Null);
    let segs = d["segments"].as_array().unwrap();
    assert_eq!(segs.len(), 4, "two segments of two cases");
    assert_eq!(segs[0]["testCaseName"], "Case 001");
    assert_eq!(segs[0]["segmentName"], "Greeting");
    assert_eq!(segs[3]["latencyByHr"][10]["runCount"], 1);
    // The day as well as the hour: 2026-01-15 has r1, r2 at 09:xx and r3
    // at 10:xx; 2026-01-16 has r4 (the 3.5 s greeting) at 10:xx.
    let days = d["latencyByDay"].as_array().unwrap();
    let dates: Vec<&str> = days.iter().map(|x| x["date"].as_str().unwrap()).collect();
    assert_eq!(dates, ["2026-01-15", "2026-01-16"]);
    assert_eq!(days[0]["latencyByHr"].as_array().unwrap().len(), 24);
    assert_eq!(days[0]["latencyByHr"][9]["runCount"], 2);
    assert_eq!(
        days[0]["latencyByHr"][10]["bucketCounts"],
        json!([1, 1, 1, 0, 0, 0, 0, 0])
    );
    assert_eq!(
        days[1]["latencyByHr"][10]["bucketCounts"],
        json!([1, 0, 1, 0, 0, 1, 0, 0])
    );
}

/// The `latency` of each run and every value of `field` of a list of runs.
async fn column(app: &App, token: &str, path: &str, field: &str) -> Vec<Value> {
    let (s, b) = get(app, token, path).await;
    assert_eq!(s, 200, "{path}: {b}");
    let data = &b["data"];
    let items = data
        .as_array()
        .or_else(|| data["content"].as_array())
        .unwrap();
    items.iter().map(|r| r[field].clone()).collect()
}

/// Every run list sorts by its columns: the report's runs (the MOS drill
/// worst first, the latency drill slowest first), a test case's and a group's hour's.
#[tokio::test(flavor = "multi_thread")]
async fn run_lists_sort_by_their_columns() {
    let app = App::new();
    let a = admin(&app).await;
    let (voice, _) = seed(&app).await;
    // A shorter run without a MOS.
    let mut r5 = run("r5", 1, "2026-01-16T16:05:00Z", "pass");
    r5["mosCqIn"] = Value::Null;
    r5["runDuration"] = json!(30.5);
    ingest_ok(&app, &app.api_key("sorted").await, &[r5]).await;
    let (_, r) = create(&app, &a.token, &report("Sorted", 7, voice)).await;
    let id = r["data"]["id"].as_i64().unwrap();
    let base = format!("/api/reports/{id}/testruns");
    // Newest first without a sort; worst MOS first with one, runs without a MOS last.
    let newest = column(&app, &a.token, &base, "runTime").await;
    assert_eq!(newest[0], "2026-01-16T16:05:00Z");
    let mos = column(
        &app,
        &a.token,
        &format!("{base}?sort=mosCqIn,asc"),
        "mosCqIn",
    )
    .await;
    assert_eq!(mos[0], json!(2.1), "the worst call first: {mos:?}");
    let numbers: Vec<f64> = mos.iter().filter_map(Value::as_f64).collect();
    assert!(numbers.windows(2).all(|w| w[0] <= w[1]), "{mos:?}");
    assert_eq!(mos.last(), Some(&Value::Null), "no MOS last: {mos:?}");
    let down = column(
        &app,
        &a.token,
        &format!("{base}?sort=mosCqIn,desc&pageSize=10"),
        "mosCqIn",
    )
    .await;
    assert_eq!(down[0], json!(4.2));
    assert_eq!(
        down.last(),
        Some(&Value::Null),
        "no MOS last either way: {down:?}"
    );
    // The slowest run first, each with its slowest step.
    let slow = column(
        &app,
        &a.token,
        &format!("{base}?sort=latency,desc"),
        "latency",
    )
    .await;
    assert_eq!(slow[0], json!(3500), "{slow:?}");
    let ms: Vec<i64> = slow.iter().filter_map(Value::as_i64).collect();
    assert!(ms.windows(2).all(|w| w[0] >= w[1]), "{slow:?}");
    let ids = column(
        &app,
        &a.token,
        &format!("{base}?sort=latency,desc&pageSize=1&pageNo=1"),
        "latency",
    )
    .await;
    assert_eq!(ids, [slow[1].clone()], "paged after the sort");
    // Within a latency bucket, the latency is the step's in it.
    let bucket = column(
        &app,
        &a.token,
        &format!("{base}?latencyThres=3&hrSlot=10"),
        "latency",
    )
    .await;
    assert!(bucket.iter().all(|l| l == &json!(1200)), "{bucket:?}");
    let names = column(
        &app,
        &a.token,
        &format!("{base}?sort=testCaseName,desc"),
        "testCaseName",
    )
    .await;
    assert_eq!(names[0], "Case 002");
    let durations = column(
        &app,
        &a.token,
        &format!("{base}?sort=runDuration,asc"),
        "runDuration",
    )
    .await;
    assert_eq!(durations[0], json!(30.5), "{durations:?}");
    // A test case's runs and a group's.
    let case = column(
        &app,
        &a.token,
        "/api/trs/v1/testcases/1/runs?startDate=2026-01-15&endDate=2026-01-16&pageSize=10&sort=runStatus,desc",
        "runStatusId",
    )
    .await;
    assert_eq!(case, [json!(7), json!(3), json!(3)], "failure before pass");
    let grp = column(
        &app,
        &a.token,
        &format!("/api/trs/v1/groups/{voice}/runs?startDate=2026-01-15&endDate=2026-01-16&pageSize=10&sort=runTime,asc"),
        "runTime",
    )
    .await;
    assert_eq!(grp[0], "2026-01-15T14:05:00Z", "oldest first");
    // An unknown column or direction is named.
    for bad in ["nope,asc", "runId,up"] {
        let (s, b) = get(&app, &a.token, &format!("{base}?sort={bad}")).await;
        assert_eq!(s, 400, "{bad}: {b}");
        assert_eq!(b["fields"][0]["field"], "sort");
    }
}

async fn run_ids(app: &App, token: &str, path: &str) -> (Vec<String>, u64) {
    let (s, b) = get(app, token, path).await;
    assert_eq!(s, 200, "{path}: {b}");
    // Without paging parameters the runs come as an array; with them, as a page.
    let data = &b["data"];
    let items = data
        .as_array()
        .or_else(|| data["content"].as_array())
        .unwrap();
    let total = data["totalElements"].as_u64().unwrap_or(items.len() as u64);
    let ids = items
        .iter()
        .map(|r| {
            r["testCaseName"].as_str().unwrap().to_string() + "@" + r["runTime"].as_str().unwrap()
        })
        .collect();
    (ids, total)
}

#[tokio::test(flavor = "multi_thread")]
async fn runs_behind_every_view() {
    let app = App::new();
    let a = admin(&app).await;
    let (voice, _) = seed(&app).await;
    let (_, r) = create(&app, &a.token, &report("Runs", 5, voice)).await;
    let id = r["data"]["id"].as_i64().unwrap();
    let base = format!("/api/reports/{id}/testruns");
    let (all, n) = run_ids(&app, &a.token, &base).await;
    assert_eq!(n, 4);
    assert_eq!(all[0], "Case 002@2026-01-16T15:05:00Z", "newest first");
    // Segment (variant 1), with a latency bucket: the 3.5 s greeting.
    let (_, n) = run_ids(
        &app,
        &a.token,
        &format!("{base}?startDate=2026-01-15&endDate=2026-01-16&segmentId=1"),
    )
    .await;
    assert_eq!(n, 4);
    let (ids, n) = run_ids(
        &app,
        &a.token,
        &format!("{base}?segmentId=1&latencyThres=6"),
    )
    .await;
    assert_eq!(
        (ids, n),
        (vec!["Case 002@2026-01-16T15:05:00Z".to_string()], 1)
    );
    let (_, n) = run_ids(
        &app,
        &a.token,
        &format!("{base}?segmentId=2&latencyThres=6"),
    )
    .await;
    assert_eq!(n, 0);
    // Hour slot with status (variant 2): 10:xx Toronto, failures.
    let (ids, n) = run_ids(
        &app,
        &a.token,
        &format!("{base}?hrSlot=10&perfStatus=failure&startDate=2026-01-15&endDate=2026-01-16"),
    )
    .await;
    assert_eq!(
        (ids, n),
        (vec!["Case 001@2026-01-15T15:05:00Z".to_string()], 1)
    );
    let (_, n) = run_ids(
        &app,
        &a.token,
        &format!("{base}?hrSlot=9&perfStatus=success"),
    )
    .await;
    assert_eq!(n, 2);
    // Latency bucket and hour slot (variant 3): 0.5-1 s at 09:xx.
    let (_, n) = run_ids(&app, &a.token, &format!("{base}?latencyThres=2&hrSlot=9")).await;
    assert_eq!(n, 2);
    let (_, n) = run_ids(
        &app,
        &a.token,
        &format!("{base}?latencyThres=-1&hrSlot=9&pageSize=1"),
    )
    .await;
    assert_eq!(n, 2);
    let (ids, n) = run_ids(
        &app,
        &a.token,
        &format!("{base}?latencyThres=3&hrSlot=10&pageSize=1&pageNo=1"),
    )
    .await;
    assert_eq!((ids.len(), n), (1, 2), "paged after the latency filter");
    // MOS range with hour (variant 4).
    let (ids, n) = run_ids(
        &app,
        &a.token,
        &format!("{base}?hrSlot=10&startDate=2026-01-15&endDate=2026-01-15&minMos=1&maxMos=3"),
    )
    .await;
    assert_eq!(
        (ids, n),
        (vec!["Case 001@2026-01-15T15:05:00Z".to_string()], 1)
    );
    let (_, n) = run_ids(&app, &a.token, &format!("{base}?hrSlot=10&minMos=4")).await;
    assert_eq!(n, 1);
    // Bad parameters are named.
    let (s, b) = get(
        &app,
        &a.token,
        &format!("{base}?hrSlot=24&latencyThres=9&minMos=7"),
    )
    .await;
    assert_eq!(s, 400);
    let fields: Vec<&str> = b["fields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["field"].as_str().unwrap())
        .collect();
    assert_eq!(fields, ["hrSlot", "latencyThres", "minMos"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn export_is_csv_with_bom_quotes_and_local_hours() {
    let app = App::new();
    let a = admin(&app).await;
    let key = app.api_key("csv").await;
    let mut r = run("q1", 7, "2026-01-15T14:05:00Z", "pass");
    r["testCase"]["name"] = json!("Billing, \"main\" menu");
    ingest_ok(&app, &key, &[r]).await;
    let g = group(&app, "Quoted", "voice", &[7]).await;
    let (_, rep) = create(&app, &a.token, &report("Daily: quality/ä", 1, g)).await;
    let id = rep["data"]["id"].as_i64().unwrap();
    let out = raw(app
        .client
        .get(format!("/api/reports/{id}/export"))
        .header("authorization", format!("Bearer {}", a.token)))
    .await;
    assert_eq!(out.status, 200);
    assert_eq!(out.header("content-type"), "text/csv; charset=utf-8");
    assert_eq!(
        out.header("content-disposition"),
        format!("attachment; filename=\"report-{id}-daily-quality-2026-01-15-2026-01-16.csv\"")
    );
    let text = String::from_utf8(out.body).unwrap();
    assert!(text.starts_with('\u{feff}'));
    let lines: Vec<&str> = text.trim_start_matches('\u{feff}').split("\r\n").collect();
    assert_eq!(lines[0], cxwatch::api::reports::CSV_HEADER.trim_end());
    assert_eq!(
        lines[1],
        "2026-01-15,09,2026-01-15T09:00:00-05:00,7,\"Billing, \"\"main\"\" menu\",,,1,1,0,0,100.00,0.00,0.00,0.83,4.2"
    );
    assert_eq!(lines.len(), 3, "one row and the final line break");

    // Segment performance: one line per segment.
    let (_, rep) = create(&app, &a.token, &report("Segments", 5, g)).await;
    let id = rep["data"]["id"].as_i64().unwrap();
    let out = raw(app
        .client
        .get(format!("/api/reports/{id}/export"))
        .header("authorization", format!("Bearer {}", a.token)))
    .await;
    let text = String::from_utf8(out.body).unwrap();
    assert!(
        text.contains(",1,Greeting,1,1,0,0,100.00,0.00,0.00,0.90,\r\n"),
        "{text}"
    );
    assert!(text.contains(",2,Main menu,1,1,0,0,"), "{text}");
}
