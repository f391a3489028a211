//! The runs behind a number and the test case group list, in-process: a group's runs of one
//! local hour and status (the dashboard bar), the run detail's groups as the caller may see
//! them, and the paged, searchable group list of the settings screen.

use crate::harness_trs;

use cxwatch::domain::caller::{AccessType, Role};
use harness_trs::{admin, get, group, ingest_ok, run};
use serde_json::Value;

const T: &str = "/api/trs/v1";

fn ids(page: &Value) -> Vec<i64> {
    page["data"]["content"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["runId"].as_i64().unwrap())
        .collect()
}

fn field(body: &Value) -> Vec<String> {
    body["fields"]
        .as_array()
        .map(|f| {
            f.iter()
                .map(|x| x["field"].as_str().unwrap().to_string())
                .collect()
        })
        .unwrap_or_default()
}

#[tokio::test]
async fn a_bars_runs_are_one_group_one_local_hour_one_status() {
    let (app, _dir) = harness_trs::app();
    let key = app.api_key("engine").await;
    // Toronto is UTC-5 in January: 14:xxZ is the 09 slot, 15:xxZ the 10 slot.
    ingest_ok(
        &app,
        &key,
        &[
            run("a", 1, "2026-01-15T14:05:00Z", "fail"),
            run("b", 2, "2026-01-15T14:40:00Z", "stopped"),
            run("c", 1, "2026-01-15T14:50:00Z", "pass"),
            run("d", 2, "2026-01-15T15:10:00Z", "fail"),
            run("e", 3, "2026-01-15T14:20:00Z", "fail"),
            run("f", 1, "2026-01-16T14:05:00Z", "fail"),
        ],
    )
    .await;
    let g = group(&app, "Retail", "voice", &[1, 2]).await;
    let boss = admin(&app).await;

    let (s, page) = get(
        &app,
        &boss.token,
        &format!("{T}/groups/{g}/runs?startDate=2026-01-15&hrSlot=9&status=failure"),
    )
    .await;
    assert_eq!(s, 200, "{page}");
    assert_eq!(page["data"]["totalElements"], 2, "{page}");
    let rows = page["data"]["content"].as_array().unwrap();
    // Newest first; stopped counts as failure; case 3 is not in the group.
    assert_eq!(rows[0]["testCaseName"], "Case 002");
    assert_eq!(rows[0]["runResult"], "stopped");
    assert_eq!(rows[0]["runStatusId"], 7);
    assert_eq!(rows[0]["runStatus"], "Failure");
    assert_eq!(rows[1]["testCaseName"], "Case 001");
    assert_eq!(rows[1]["runTime"], "2026-01-15T14:05:00Z");
    let listed = ids(&page);
    assert!(listed[0] != listed[1]);

    // Total of the hour, of the day, and paging.
    let (_, hour) = get(
        &app,
        &boss.token,
        &format!("{T}/groups/{g}/runs?startDate=2026-01-15&hrSlot=9&status=total"),
    )
    .await;
    assert_eq!(hour["data"]["totalElements"], 3);
    let (_, day) = get(
        &app,
        &boss.token,
        &format!("{T}/groups/{g}/runs?startDate=2026-01-15&status=failure&pageSize=1&pageNo=1"),
    )
    .await;
    assert_eq!(day["data"]["totalElements"], 3, "{day}");
    assert_eq!(day["data"]["content"].as_array().unwrap().len(), 1);
    assert_eq!(day["data"]["content"][0]["testCaseName"], "Case 002");
    assert_eq!(day["data"]["content"][0]["runResult"], "stopped");
    let (_, sched) = get(
        &app,
        &boss.token,
        &format!("{T}/groups/{g}/runs?startDate=2026-01-15&caseRunType=Manual"),
    )
    .await;
    assert_eq!(sched["data"]["totalElements"], 0);

    // Bad input: every problem named.
    let (s, bad) = get(
        &app,
        &boss.token,
        &format!("{T}/groups/{g}/runs?startDate=2026-01-15&endDate=2026-01-16&hrSlot=9"),
    )
    .await;
    assert_eq!(s, 400);
    assert_eq!(field(&bad), vec!["hrSlot"]);
    let (s, bad) = get(
        &app,
        &boss.token,
        &format!("{T}/groups/{g}/runs?startDate=2026-13-01&hrSlot=24&status=late"),
    )
    .await;
    assert_eq!(s, 400);
    let f = field(&bad);
    for want in ["startDate", "hrSlot", "status"] {
        assert!(f.contains(&want.to_string()), "{bad}");
    }

    // Scope: a restricted user without the group is told so, a missing group is 404.
    let other = group(&app, "Other", "voice", &[3]).await;
    let user = app
        .user("u@example.com", Role::User, AccessType::ReadOnly, &[other])
        .await;
    let (s, denied) = get(
        &app,
        &user.token,
        &format!("{T}/groups/{g}/runs?startDate=2026-01-15"),
    )
    .await;
    assert_eq!(s, 403);
    assert!(denied.get("data").is_none() || denied["data"].is_null());
    let (s, _) = get(
        &app,
        &user.token,
        &format!("{T}/groups/{other}/runs?startDate=2026-01-15"),
    )
    .await;
    assert_eq!(s, 200);
    let (s, _) = get(
        &app,
        &boss.token,
        &format!("{T}/groups/999/runs?startDate=2026-01-15"),
    )
    .await;
    assert_eq!(s, 404);
}

#[tokio::test]
async fn run_detail_names_the_groups_the_caller_sees() {
    let (app, _dir) = harness_trs::app();
    let key = app.api_key("engine").await;
    ingest_ok(&app, &key, &[run("a", 1, "2026-01-15T14:05:00Z", "fail")]).await;
    let zulu = group(&app, "Zulu", "voice", &[1]).await;
    let alpha = group(&app, "Alpha", "voice", &[1]).await;
    let boss = admin(&app).await;
    let (_, list) = get(
        &app,
        &boss.token,
        &format!("{T}/testcases/1/runs?startDate=2026-01-15"),
    )
    .await;
    // Without paging parameters: the spec's array.
    let id = list["data"][0]["runId"].as_i64().unwrap();

    let (s, d) = get(&app, &boss.token, &format!("{T}/testruns/{id}")).await;
    assert_eq!(s, 200);
    let names: Vec<&str> = d["data"]["groups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, vec!["Alpha", "Zulu"]);

    let user = app
        .user("z@example.com", Role::User, AccessType::ReadWrite, &[zulu])
        .await;
    let (s, d) = get(&app, &user.token, &format!("{T}/testruns/{id}")).await;
    assert_eq!(s, 200);
    assert_eq!(d["data"]["groups"].as_array().unwrap().len(), 1);
    assert_eq!(d["data"]["groups"][0]["id"], zulu);
    let _ = alpha;

    let stranger = app
        .user("s@example.com", Role::User, AccessType::ReadWrite, &[])
        .await;
    let (s, d) = get(&app, &stranger.token, &format!("{T}/testruns/{id}")).await;
    assert_eq!(s, 403);
    assert!(!d.to_string().contains("Case 001"), "{d}");
    let (s, _) = get(&app, &boss.token, &format!("{T}/testruns/{}", id + 1000)).await;
    assert_eq!(s, 404);
}

#[tokio::test]
async fn the_group_list_is_paged_searched_and_sorted_on_the_server() {
    let (app, _dir) = harness_trs::app();
    let key = app.api_key("engine").await;
    ingest_ok(
        &app,
        &key,
        &[
            run("a", 1, "2026-01-15T14:05:00Z", "pass"),
            run("b", 2, "2026-01-15T14:05:00Z", "pass"),
        ],
    )
    .await;
    let mut made = Vec::new();
    for i in 0..12 {
        let cases: &[i64] = if i % 2 == 0 { &[1, 2] } else { &[1] };
        made.push(group(&app, &format!("Group {i:02}"), "voice", cases).await);
    }
    let boss = admin(&app).await;

    let (s, p) = get(&app, &boss.token, &format!("{T}/groups/page")).await;
    assert_eq!(s, 200, "{p}");
    assert_eq!(p["data"]["totalElements"], 12);
    let content = p["data"]["content"].as_array().unwrap();
    assert_eq!(content.len(), 10);
    // Default: id, newest first.
    assert_eq!(content[0]["id"], made[11]);
    assert_eq!(content[0]["caseCount"], 1);
    assert_eq!(content[1]["caseCount"], 2);
    assert_eq!(content[1]["ivrCount"], 2);

    let (_, p) = get(
        &app,
        &boss.token,
        &format!("{T}/groups/page?pageNo=1&pageSize=10&sort=name,asc"),
    )
    .await;
    let names: Vec<&str> = p["data"]["content"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, vec!["Group 10", "Group 11"]);

    let (_, p) = get(
        &app,
        &boss.token,
        &format!("{T}/groups/page?search=GROUP%200"),
    )
    .await;
    assert_eq!(p["data"]["totalElements"], 10);
    let id = made[3];
    let (_, p) = get(&app, &boss.token, &format!("{T}/groups/page?search={id}")).await;
    assert!(p["data"]["content"]
        .as_array()
        .unwrap()
        .iter()
        .any(|g| g["id"] == id));

    let (s, bad) = get(
        &app,
        &boss.token,
        &format!("{T}/groups/page?pageSize=0&sort=colour,asc"),
    )
    .await;
    assert_eq!(s, 400);
    let f = field(&bad);
    assert!(
        f.contains(&"pageSize".to_string()) && f.contains(&"sort".to_string()),
        "{bad}"
    );

    let user = app
        .user(
            "u@example.com",
            Role::User,
            AccessType::ReadOnly,
            &[made[0], made[5]],
        )
        .await;
    let (_, p) = get(&app, &user.token, &format!("{T}/groups/page")).await;
    assert_eq!(p["data"]["totalElements"], 2);
}

#[tokio::test]
async fn a_run_is_compared_with_the_last_run_of_its_test_case_that_passed_before_it() {
    let (app, _dir) = harness_trs::app();
    let key = app.api_key("engine").await;
    ingest_ok(
        &app,
        &key,
        &[
            run("p1", 1, "2026-01-15T10:00:00Z", "pass"),
            run("p2", 1, "2026-01-15T11:00:00Z", "pass"),
            run("w", 1, "2026-01-15T11:30:00Z", "warn"),
            run("other", 2, "2026-01-15T11:45:00Z", "pass"),
            run("f1", 1, "2026-01-15T12:00:00Z", "fail"),
            run("p3", 1, "2026-01-15T13:00:00Z", "pass"),
            run("f0", 3, "2026-01-15T12:00:00Z", "fail"),
        ],
    )
    .await;
    let g = group(&app, "Retail", "voice", &[1, 2]).await;
    let lone = group(&app, "Lone", "voice", &[3]).await;
    let boss = admin(&app).await;
    let (_, page) = get(
        &app,
        &boss.token,
        &format!("{T}/testcases/1/runs?startDate=2026-01-15&pageNo=0&pageSize=100"),
    )
    .await;
    // Newest first: p3, f1, w, p2, p1.
    let case1 = ids(&page);
    assert_eq!(case1.len(), 5, "{page}");
    let (p3, f1, w, p2, p1) = (case1[0], case1[1], case1[2], case1[3], case1[4]);

    let last = |id: i64| {
        let token = boss.token.clone();
        let app = &app;
        async move { get(app, &token, &format!("{T}/testruns/{id}/lastPassing")).await }
    };
    // A failing run: the pass before the warning, not the other test case's later pass nor
    // the pass after it.
    let (s, body) = last(f1).await;
    assert_eq!(s, 200, "{body}");
    assert_eq!(body["data"]["runId"], p2, "{body}");
    assert_eq!(body["data"]["runTime"], "2026-01-15T11:00:00Z");
    // A passing run is compared with the pass before it; the first pass has none.
    assert_eq!(last(p3).await.1["data"]["runId"], p2);
    assert_eq!(last(w).await.1["data"]["runId"], p2);
    assert_eq!(last(p2).await.1["data"]["runId"], p1);
    let (s, none) = last(p1).await;
    assert_eq!(s, 200);
    assert!(none["data"]["runId"].is_null(), "{none}");
    assert!(none["data"]["runTime"].is_null(), "{none}");

    // Two runs at the same instant: the one stored first is before the other.
    let twins = ingest_ok(
        &app,
        &key,
        &[
            run("t1", 1, "2026-01-15T14:00:00Z", "pass"),
            run("t2", 1, "2026-01-15T14:00:00Z", "fail"),
        ],
    )
    .await;
    let (_, page) = get(
        &app,
        &boss.token,
        &format!("{T}/testcases/1/runs?startDate=2026-01-15&pageNo=0&pageSize=100&sort=runId,desc"),
    )
    .await;
    let newest = ids(&page);
    let (t2, t1) = (newest[0], newest[1]);
    assert_eq!(last(t2).await.1["data"]["runId"], t1, "{twins}");

    // Scope: a user without the test case's group is refused; a missing run is 404.
    let user = app
        .user("u@example.com", Role::User, AccessType::ReadOnly, &[lone])
        .await;
    let (s, _) = get(&app, &user.token, &format!("{T}/testruns/{f1}/lastPassing")).await;
    assert_eq!(s, 403);
    let mine = app
        .user("m@example.com", Role::User, AccessType::ReadOnly, &[g])
        .await;
    let (s, body) = get(&app, &mine.token, &format!("{T}/testruns/{f1}/lastPassing")).await;
    assert_eq!(s, 200);
    assert_eq!(body["data"]["runId"], p2);
    let (s, _) = get(
        &app,
        &boss.token,
        &format!("{T}/testruns/999999/lastPassing"),
    )
    .await;
    assert_eq!(s, 404);
}
