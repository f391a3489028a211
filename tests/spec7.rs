//! The embedded API answers every call of the spec's section 7 at the spec's path and
//! method, in the spec's shape, checked call by call on seeded data: status 200, lists as
//! plain arrays in `data` when asked without paging parameters (alert events paged with
//! `content` and `totalElements`), the section 3 fields of each entity, `code` on write
//! answers. The vendor's own console pointed at cxwatch's embedded API makes these calls.
//! On the in-process harness, so it runs on SQLite and on PostgreSQL.

use crate::harness;
use crate::jira_standin;

use cxwatch::config::JiraFlavour;
use cxwatch::domain::caller::{AccessType, Role};
use harness::{App, PASSWORD};
use jira_standin::StandIn;
use poem::http::Method;
use serde_json::{json, Value};

const DATE: &str = "2026-01-15";

fn wav() -> Vec<u8> {
    let mut w = b"RIFF\x24\x00\x00\x00WAVEfmt \x10\x00\x00\x00\x01\x00\x01\x00\x40\x1f\x00\x00\x80\x3e\x00\x00\x02\x00\x10\x00data\x00\x00\x00\x00".to_vec();
    w.extend_from_slice(&[0u8; 16]);
    w
}

fn run(id: &str, time: &str, status: &str, recording: &str) -> Value {
    json!({
        "engineRunId": id,
        "testCase": {"id": 1, "name": "Balance enquiry", "channel": "voice",
                     "ivr": {"id": 10, "name": "Retail IVR"}},
        "runTime": format!("{DATE}T{time}Z"),
        "runDuration": 42.5,
        "status": status,
        "runType": "Manual",
        "mosCqIn": 3.9,
        "recordingId": recording,
        "segments": [{"segmentId": 1, "segmentName": "Greeting", "steps": [
            {"stepId": 11, "stepType": "PROMPT", "typeDisplayText": "Prompt", "prompt": "Welcome",
             "testResult": {"status": status, "utterance": "Welcome", "latency": 900}}]}]
    })
}

/// The calls of one test, each checked as it is made.
struct Spec7 {
    app: App,
    token: String,
    /// Calls made, as `METHOD path` (for the failure message).
    made: Vec<String>,
}

impl Spec7 {
    async fn call(&mut self, method: Method, path: &str, body: Option<Value>) -> Value {
        let (status, answer) = self
            .app
            .call(method.clone(), path, Some(&self.token), body.as_ref())
            .await;
        self.made.push(format!("{method} {path}"));
        assert_eq!(status, 200, "{method} {path}: {answer}");
        if method != Method::GET {
            assert_eq!(answer["code"], "OK", "{method} {path}: no code: {answer}");
        }
        answer
    }

    async fn get(&mut self, path: &str) -> Value {
        self.call(Method::GET, path, None).await["data"].take()
    }

    /// A list: `data` is an array, not empty, each item with `fields`.
    async fn list(&mut self, path: &str, fields: &[&str]) -> Vec<Value> {
        let data = self.get(path).await;
        let items = data
            .as_array()
            .unwrap_or_else(|| panic!("GET {path}: data is not an array: {data}"))
            .clone();
        assert!(!items.is_empty(), "GET {path}: empty list");
        for item in &items {
            has(path, item, fields);
        }
        items
    }

    async fn raw_get(&mut self, path: &str) -> (u16, Vec<u8>) {
        self.made.push(format!("GET {path}"));
        let resp = self
            .app
            .client
            .get(path)
            .header("authorization", format!("Bearer {}", self.token))
            .send()
            .await;
        let status = resp.0.status().as_u16();
        let body = resp.0.into_body().into_vec().await.unwrap();
        (status, body)
    }

    async fn multipart(&mut self, method: Method, path: &str, data: Value) -> Value {
        self.made.push(format!("{method} {path}"));
        let body = format!(
            "--spec7\r\nContent-Disposition: form-data; name=\"data\"\r\n\r\n{data}\r\n--spec7--\r\n"
        );
        let resp = self
            .app
            .client
            .request(method.clone(), path)
            .header("authorization", format!("Bearer {}", self.token))
            .content_type("multipart/form-data; boundary=spec7")
            .body(body)
            .send()
            .await;
        let status = resp.0.status().as_u16();
        let bytes = resp.0.into_body().into_vec().await.unwrap();
        let answer: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
        assert_eq!(status, 200, "{method} {path}: {answer}");
        assert_eq!(answer["code"], "OK", "{method} {path}: {answer}");
        answer
    }
}

/// `item` has every field of `fields` (a present `null` counts: the field is there).
fn has(path: &str, item: &Value, fields: &[&str]) {
    for f in fields {
        assert!(
            item.get(*f).is_some(),
            "{path}: field {f} missing in {item}"
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn every_section_7_call_answers_at_the_specs_path_and_in_its_shape() {
    let jira = StandIn::start(JiraFlavour::Cloud);
    let jira_config = jira.config();
    let app = App::with_config(move |c| c.jira = jira_config);
    let admin = app
        .user("admin@spec7.test", Role::Admin, AccessType::ReadWrite, &[])
        .await;
    // Seed: a recording and runs through ingest (a failure opens the alert event below).
    let key = app.api_key("spec7").await;
    let resp = app
        .client
        .post("/api/ingest/v1/recordings")
        .header("x-api-key", key.clone())
        .content_type("audio/wav")
        .body(wav())
        .send()
        .await;
    assert_eq!(resp.0.status(), 200);
    let rec: Value = resp.json().await.value().deserialize();
    let rec = rec["data"]["id"].as_str().unwrap().to_string();
    let first = [run("spec7-1", "14:05:00", "pass", &rec)];
    let (s, out) = app
        .call_with(
            Method::POST,
            "/api/ingest/v1/runs",
            Some(("x-api-key", key.clone())),
            Some(&json!({"runs": first})),
        )
        .await;
    assert_eq!(s, 200, "{out}");
    let mut t = Spec7 {
        app,
        token: String::new(),
        made: Vec::new(),
    };

    // --- Authentication
    let (s, signed) = t
        .app
        .call(
            Method::POST,
            "/api/auth/signin",
            None,
            Some(&json!({"username": admin.username, "password": PASSWORD, "remember": false})),
        )
        .await;
    assert_eq!(s, 200, "{signed}");
    has(
        "signin",
        &signed["data"],
        &["accessToken", "id", "username", "roles", "accessType"],
    );
    t.token = signed["data"]["accessToken"].as_str().unwrap().to_string();

    // --- Groups and metrics (api/trs/v1)
    let tr = "/api/trs/v1";
    let created = t
        .call(
            Method::POST,
            &format!("{tr}/groups"),
            Some(json!({"name": "Retail", "channel": "voice", "testCases": [{"id": 1}]})),
        )
        .await;
    let g = created["data"]["id"].as_i64().unwrap();
    let spare = t
        .call(
            Method::POST,
            &format!("{tr}/groups"),
            Some(json!({"name": "Spare", "channel": "voice", "testCases": [{"id": 1}]})),
        )
        .await["data"]["id"]
        .as_i64()
        .unwrap();
    t.call(
        Method::PUT,
        &format!("{tr}/groups/{spare}"),
        Some(json!({"id": spare, "name": "Spare 2", "channel": "voice", "testCases": [{"id": 1}]})),
    )
    .await;
    t.list(
        &format!("{tr}/groups"),
        &["id", "name", "channel", "caseCount", "ivrCount"],
    )
    .await;
    let one = t.get(&format!("{tr}/groups/{g}")).await;
    has("groups/{id}", &one, &["id", "name", "channel", "testCases"]);
    has(
        "groups/{id} testCases",
        &one["testCases"][0],
        &["id", "ivrId", "name"],
    );
    t.list(&format!("{tr}/groups/channels"), &["id", "name"])
        .await;
    t.list(
        &format!("{tr}/ivrs"),
        &["id", "name", "channel", "testCases"],
    )
    .await;
    let health = t.get(&format!("{tr}/groups/health")).await;
    assert!(health.is_array(), "groups/health: {health}");
    let metric_fields = [
        "entityId",
        "entityName",
        "entityType",
        "channel",
        "periodStart",
        "periodEnd",
        "successCount",
        "warningCount",
        "failureCount",
        "hourlyStatus",
    ];
    t.list(
        &format!("{tr}/groups/{g}/metric?level=case&startDate={DATE}&caseRunType=Manual"),
        &metric_fields,
    )
    .await;
    let segments = t
        .list(
            &format!(
                "{tr}/groups/{g}/metric?level=segment&startDate={DATE}&endDate={DATE}&caseRunType=Manual"
            ),
            &metric_fields,
        )
        .await;
    has(
        "metric level=segment",
        &segments[0],
        &["segmentId", "segmentName"],
    );
    let mos = t
        .get(&format!(
            "{tr}/groups/{g}/mos?startDate={DATE}&endDate={DATE}&caseRunType=Manual"
        ))
        .await;
    assert!(!mos.is_null(), "mos: {mos}");

    // --- Reports
    let report = |name: &str, kind: i64| {
        json!({"name": name, "description": name, "reportTypeName": "", "reportTypeID": kind,
               "testCaseGroupName": "Retail", "testCaseGroupID": g, "timeframeName": "Custom",
               "runType": "Manual", "timeframeBegin": DATE, "timeframeEnd": DATE,
               "latencyWarn": if kind == 6 { 1 } else { 0 }, "latencyFail": if kind == 6 { 3 } else { 0 }})
    };
    let rep = t
        .call(Method::POST, "/api/reports", Some(report("Trend", 2)))
        .await["data"]["id"]
        .as_i64()
        .unwrap();
    let latency_rep = t
        .call(Method::POST, "/api/reports", Some(report("Latency", 6)))
        .await["data"]["id"]
        .as_i64()
        .unwrap();
    let gone = t
        .call(Method::POST, "/api/reports", Some(report("Gone", 2)))
        .await["data"]["id"]
        .as_i64()
        .unwrap();
    let mut changed = report("Trend 2", 2);
    changed["id"] = json!(rep);
    t.call(Method::PUT, &format!("/api/reports/{rep}"), Some(changed))
        .await;
    let report_fields = [
        "id",
        "name",
        "description",
        "reportTypeName",
        "reportTypeID",
        "latencyWarn",
        "latencyFail",
        "runType",
        "testCaseGroupName",
        "testCaseGroupID",
        "timeframeName",
        "timeframeBegin",
        "timeframeEnd",
        "lastModifiedTime",
        "jiraTicket",
    ];
    let reports = t.list("/api/reports", &report_fields).await;
    assert_eq!(reports.len(), 3, "every report, not a page");
    let one = t.get(&format!("/api/reports/{rep}")).await;
    has("reports/{id}", &one, &report_fields);
    t.list("/api/reports/types?channel=voice", &[]).await;
    t.list("/api/reports/timeframes", &[]).await;
    // The last bucket is open-ended: its uppperBound is absent (docs/api-reports.md).
    let buckets = t
        .list(
            "/api/reports/latencythresholds",
            &["id", "text", "lowerBound"],
        )
        .await;
    has("latencythresholds", &buckets[0], &["uppperBound"]);
    let latency = t.get(&format!("/api/reports/{latency_rep}/latency")).await;
    has(
        "reports/{id}/latency",
        &latency,
        &["segments", "latencyByHr"],
    );
    let (s, csv) = t.raw_get(&format!("/api/reports/{rep}/export")).await;
    assert_eq!(s, 200);
    assert!(!csv.is_empty());
    let run_fields = [
        "runId",
        "testCaseId",
        "testCaseName",
        "runTime",
        "runDuration",
        "runStatusId",
        "mosCqIn",
    ];
    for query in [
        format!("startDate={DATE}&endDate={DATE}&segmentId=1"),
        format!("startDate={DATE}&endDate={DATE}&segmentId=1&latencyThres=-1"),
        format!("hrSlot=9&perfStatus=success&startDate={DATE}&endDate={DATE}"),
        "latencyThres=-1&hrSlot=9".to_string(),
        format!("hrSlot=9&startDate={DATE}&endDate={DATE}&minMos=1&maxMos=5"),
    ] {
        t.list(&format!("/api/reports/{rep}/testruns?{query}"), &run_fields)
            .await;
    }
    // Both readings of the spec's ambiguous prefix: with and without trs/v1.
    let mut run_id = 0;
    for prefix in ["/api", "/api/trs/v1"] {
        let runs = t
            .list(
                &format!("{prefix}/testcases/1/runs?startDate={DATE}&endDate={DATE}"),
                &run_fields,
            )
            .await;
        run_id = runs[0]["runId"].as_i64().unwrap();
    }
    for prefix in ["/api", "/api/trs/v1"] {
        let detail = t.get(&format!("{prefix}/testruns/{run_id}")).await;
        assert!(
            detail.get("segmentRuns").is_some() || detail.get("segments").is_some(),
            "testruns/{{id}}: {detail}"
        );
    }

    // --- Distributions
    t.list("/api/distributions/types", &[]).await;
    let list = |name: &str| json!({"name": name, "contacts": [{"name": "Ops", "type": 1, "info": "ops@x.test"}]});
    let dist = t
        .call(Method::POST, "/api/distributions", Some(list("On call")))
        .await["data"]["id"]
        .as_i64()
        .unwrap();
    let dist_gone = t
        .call(Method::POST, "/api/distributions", Some(list("Gone")))
        .await["data"]["id"]
        .as_i64()
        .unwrap();
    let mut renamed = list("On call 2");
    renamed["id"] = json!(dist);
    t.call(
        Method::PUT,
        &format!("/api/distributions/{dist}"),
        Some(renamed),
    )
    .await;
    let dist_fields = ["id", "name", "label", "type", "email", "lastModifiedTime"];
    t.list("/api/distributions", &dist_fields).await;
    let one = t.get(&format!("/api/distributions/{dist}")).await;
    has("distributions/{id}", &one, &dist_fields);
    has(
        "distributions/{id} contacts",
        &one["contacts"][0],
        &["name", "type", "info"],
    );

    // --- Alerts: a setting, then a failing run opens an event.
    let setting = |name: &str| {
        json!({"name": name, "active": true, "testCaseGroupId": g, "distributionId": dist,
               "failureToAlert": 1, "emailSubject": "Down", "voiceMessage": "Down",
               "smsPrefix": "[cx]", "alertStatus": ["FAIL"], "notifyOnRecovery": false,
               "attachRecording": false, "attachJiraTicket": false,
               "schedule": [{"dayOfWeek": 4, "startTimeSlot": "00:00", "endTimeSlot": "24:00"}]})
    };
    let al = t
        .call(
            Method::POST,
            "/api/alerts/settings",
            Some(setting("Spec alert")),
        )
        .await["data"]["id"]
        .as_i64()
        .unwrap();
    let al_gone = t
        .call(Method::POST, "/api/alerts/settings", Some(setting("Gone")))
        .await["data"]["id"]
        .as_i64()
        .unwrap();
    let mut edited = setting("Spec alert 2");
    edited["id"] = json!(al);
    t.call(
        Method::PUT,
        &format!("/api/alerts/settings/{al}"),
        Some(edited),
    )
    .await;
    let (s, out) = t
        .app
        .call_with(
            Method::POST,
            "/api/ingest/v1/runs",
            Some(("x-api-key", key.clone())),
            Some(&json!({"runs": [run("spec7-2", "14:10:00", "fail", &rec)]})),
        )
        .await;
    assert_eq!(s, 200, "{out}");
    t.list(
        "/api/alerts/settings",
        &[
            "id",
            "name",
            "testCaseGroupName",
            "distributionName",
            "active",
        ],
    )
    .await;
    let one = t.get(&format!("/api/alerts/settings/{al}")).await;
    has(
        "alerts/settings/{id}",
        &one,
        &[
            "id",
            "name",
            "active",
            "testCaseGroupId",
            "distributionId",
            "testCaseGroupName",
            "distributionName",
            "emailSubject",
            "voiceMessage",
            "smsPrefix",
            "attachRecording",
            "attachJiraTicket",
            "failureToAlert",
            "notifyOnRecovery",
            "alertStatus",
            "schedule",
        ],
    );
    t.list(
        "/api/alerts/allStatus",
        &["id", "code", "text", "statusGroup", "supportChannel"],
    )
    .await;
    // Alert events: paged as section 7 says, even without paging parameters.
    for path in [
        "/api/alerts/events?pageNo=0&pageSize=10",
        "/api/alerts/events",
    ] {
        let page = t.get(path).await;
        has(path, &page, &["content", "totalElements"]);
        assert!(page["totalElements"].as_u64().unwrap() >= 1, "{page}");
        has(
            path,
            &page["content"][0],
            &[
                "alertId",
                "testCaseName",
                "alertTime",
                "distributionName",
                "testRunCount",
                "testRuns",
            ],
        );
        has(path, &page["content"][0]["testRuns"][0], &["runStatusId"]);
    }
    let events = t.get("/api/alerts/events?pageNo=0&pageSize=10").await;
    let alert = events["content"][0]["alertId"].as_i64().unwrap();
    let details_fields = [
        "alertId",
        "testCaseId",
        "testCaseName",
        "testRunCount",
        "distributionName",
        "jiraTicket",
        "testRuns",
    ];
    let details = t.get(&format!("/api/alerts/events/{alert}")).await;
    has("alerts/events/{id}", &details, &details_fields);
    has(
        "alerts/events/{id} testRuns",
        &details["testRuns"][0],
        &run_fields,
    );
    let updated = t
        .call(
            Method::PUT,
            &format!("/api/alerts/{alert}"),
            Some(json!({"comment": "Looked at", "jiraTicket": "CX-9"})),
        )
        .await;
    has("PUT alerts/{id}", &updated["data"], &details_fields);
    assert_eq!(updated["data"]["jiraTicket"], "CX-9");
    assert_eq!(updated["data"]["comment"], "Looked at");
    let autos = t.get(&format!("/api/alerts/autojiraticket/{al}")).await;
    assert!(autos.is_array(), "alerts/autojiraticket/{{id}}: {autos}");

    // --- Users
    let new_user = json!({"id": 0, "username": "new@spec7.test", "firstName": "New",
        "lastName": "User", "roles": ["ROLE_USER"], "accessType": "read-only",
        "testCaseGroups": [{"id": g, "name": "Retail"}], "password": "a long enough password"});
    let u = t
        .call(Method::POST, "/api/users", Some(new_user.clone()))
        .await["data"]["id"]
        .as_i64()
        .unwrap();
    let mut edited = new_user.clone();
    edited["id"] = json!(u);
    edited["firstName"] = json!("Newer");
    edited.as_object_mut().unwrap().remove("password");
    t.call(Method::PUT, &format!("/api/users/{u}"), Some(edited))
        .await;
    t.call(
        Method::PATCH,
        &format!("/api/users/{u}/overridePassword"),
        Some(json!({"newPassword": "another long password"})),
    )
    .await;
    let user_fields = [
        "id",
        "firstName",
        "lastName",
        "username",
        "roles",
        "accessType",
        "testCaseGroups",
    ];
    let users = t.list("/api/users", &user_fields).await;
    assert_eq!(users.len(), 2, "every user, not a page");
    let one = t.get(&format!("/api/users/{u}")).await;
    has("users/{id}", &one, &user_fields);

    // --- Files: the recording, at both readings of the prefix.
    for prefix in ["/api", "/api/trs/v1"] {
        let (s, bytes) = t
            .raw_get(&format!(
                "{prefix}/getContent?attachmentUrl=recordings/{rec}"
            ))
            .await;
        assert_eq!(s, 200, "{prefix}/getContent");
        assert!(bytes.starts_with(b"RIFF"));
    }

    // --- Issue-tracker calls (against the Jira stand-in)
    let jira_users = t
        .list("/api/jira/v1/users?username=", &["accountId", "name"])
        .await;
    let assignee = jira_users[0]["accountId"].clone();
    t.list("/api/jira/v1/projects?username=", &["key", "name"])
        .await;
    t.list("/api/jira/v1/issueStatus?username=", &[]).await;
    let created = t
        .multipart(
            Method::POST,
            "/api/jira/v1/issue",
            json!({"reportId": rep, "project": "CX", "summary": "Spec 7", "issueType": "Bug",
                   "assignee": assignee, "labels": [], "description": "From the section 7 test"}),
        )
        .await;
    let issue = created["data"]["key"].as_str().unwrap().to_string();
    let read = t
        .get(&format!("/api/jira/v1/issue?username=&issueId={issue}"))
        .await;
    has(
        "jira/v1/issue",
        &read,
        &[
            "labels",
            "summary",
            "assigneeId",
            "project",
            "status",
            "description",
        ],
    );
    t.multipart(
        Method::PUT,
        &format!("/api/jira/v1/issue?username=&issueId={issue}"),
        json!({"project": "CX", "summary": "Spec 7 edited", "issueType": "Bug", "labels": []}),
    )
    .await;

    // --- Deletes, last: each answers its code.
    t.call(Method::DELETE, &format!("/api/reports/{gone}"), None)
        .await;
    t.call(
        Method::DELETE,
        &format!("/api/alerts/settings/{al_gone}"),
        None,
    )
    .await;
    t.call(
        Method::DELETE,
        &format!("/api/distributions/{dist_gone}"),
        None,
    )
    .await;
    t.call(Method::DELETE, &format!("/api/users/{u}"), None)
        .await;
    let extra: Vec<i64> = {
        let mut ids = Vec::new();
        for name in ["Gone 1", "Gone 2", "Gone 3"] {
            let id = t
                .call(
                    Method::POST,
                    &format!("{tr}/groups"),
                    Some(json!({"name": name, "channel": "voice", "testCases": [{"id": 1}]})),
                )
                .await["data"]["id"]
                .as_i64()
                .unwrap();
            ids.push(id);
        }
        ids
    };
    t.call(Method::DELETE, &format!("{tr}/groups/{spare}"), None)
        .await;
    // The list delete: ids in the query, or a JSON array body.
    t.call(
        Method::DELETE,
        &format!("{tr}/groups?ids={},{}", extra[0], extra[1]),
        None,
    )
    .await;
    t.call(
        Method::DELETE,
        &format!("{tr}/groups"),
        Some(json!([extra[2]])),
    )
    .await;
    let left = t.list(&format!("{tr}/groups"), &["id"]).await;
    assert_eq!(left.len(), 1, "{left:?}");
    assert!(t.made.len() > 60, "{}", t.made.len());
}

#[tokio::test(flavor = "multi_thread")]
async fn lists_are_arrays_without_paging_parameters_and_pages_with_them() {
    let app = App::new();
    let admin = app
        .user("admin@spec7.test", Role::Admin, AccessType::ReadWrite, &[])
        .await;
    for i in 0..11 {
        app.user(
            &format!("user{i}@spec7.test"),
            Role::User,
            AccessType::ReadOnly,
            &[],
        )
        .await;
    }
    let get = |path: &'static str| {
        let app = &app;
        let token = admin.token.clone();
        async move {
            let (s, v) = app.call(Method::GET, path, Some(&token), None).await;
            assert_eq!(s, 200, "{path}: {v}");
            v
        }
    };
    // Twelve users: all of them without paging parameters (this answered 10 before).
    let all = get("/api/users").await;
    assert_eq!(all["data"].as_array().unwrap().len(), 12, "{all}");
    assert_eq!(all["messages"], json!([]));
    // Filters and sort still apply to the array.
    let some = get("/api/users?search=user1&sort=username,asc").await;
    let names: Vec<&str> = some["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u["username"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["user10@spec7.test", "user1@spec7.test"]);
    // With paging parameters: today's page.
    let page = get("/api/users?pageNo=1&pageSize=5").await;
    assert_eq!(page["data"]["totalElements"], 12);
    assert_eq!(page["data"]["content"].as_array().unwrap().len(), 5);
    let page = get("/api/users?pageNo=1").await;
    assert_eq!(page["data"]["content"].as_array().unwrap().len(), 2);
    let page = get("/api/users?pageSize=20").await;
    assert_eq!(page["data"]["content"].as_array().unwrap().len(), 12);
    // Bad paging is still refused.
    let (s, v) = app
        .call(
            Method::GET,
            "/api/users?pageSize=0",
            Some(&admin.token),
            None,
        )
        .await;
    assert_eq!(s, 400, "{v}");
    assert_eq!(v["fields"][0]["field"], "pageSize");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_openapi_document_says_both_list_shapes() {
    let doc: Value = serde_json::from_str(&cxwatch::api::openapi_json()).unwrap();
    let schema = |op_path: &str| -> Value {
        let op = &doc["paths"][op_path]["get"];
        let r = op["responses"]["200"]["content"]["application/json; charset=utf-8"]["schema"]
            ["$ref"]
            .as_str()
            .unwrap_or_else(|| panic!("{op_path}: {op}"))
            .trim_start_matches("#/components/schemas/")
            .to_string();
        doc["components"]["schemas"][&r].clone()
    };
    for path in [
        "/users",
        "/distributions",
        "/reports",
        "/alerts/settings",
        "/reports/{id}/testruns",
        "/trs/v1/testcases/{id}/runs",
        "/alerts/autojiraticket/{alertSettingId}",
    ] {
        let envelope = schema(path);
        let data = data_ref(&envelope)
            .unwrap_or_else(|| panic!("{path}: {envelope}"))
            .trim_start_matches("#/components/schemas/")
            .to_string();
        let listing = &doc["components"]["schemas"][&data];
        let one_of = listing["oneOf"]
            .as_array()
            .unwrap_or_else(|| panic!("{path}: {listing}"));
        assert_eq!(one_of.len(), 2, "{path}: {listing}");
        let text = listing.to_string();
        assert!(text.contains("\"array\""), "{path}: {listing}");
    }
    // Alert events stay paged (section 7).
    let envelope = schema("/alerts/events");
    let data = data_ref(&envelope).unwrap();
    assert!(data.contains("Page"), "{data}");
}

/// The schema `data` of an envelope refers to (directly or in an `allOf`).
fn data_ref(envelope: &Value) -> Option<String> {
    let data = &envelope["properties"]["data"];
    data["$ref"]
        .as_str()
        .or_else(|| data["allOf"][0]["$ref"].as_str())
        .map(str::to_string)
}

#[tokio::test(flavor = "multi_thread")]
async fn cors_is_off_by_default_and_for_the_configured_origins_only() {
    let plain = App::new();
    let resp = plain
        .client
        .get("/api/openapi.json")
        .header("origin", "https://console.vendor.test")
        .send()
        .await;
    assert_eq!(resp.0.status(), 200);
    assert!(resp
        .0
        .headers()
        .get("access-control-allow-origin")
        .is_none());

    let app =
        App::with_config(|c| c.server.cors_origins = vec!["https://console.vendor.test".into()]);
    let preflight = app
        .client
        .request(Method::OPTIONS, "/api/users")
        .header("origin", "https://console.vendor.test")
        .header("access-control-request-method", "GET")
        .header("access-control-request-headers", "authorization")
        .send()
        .await;
    let h = preflight.0.headers();
    assert!(
        preflight.0.status().is_success(),
        "{:?}",
        preflight.0.status()
    );
    assert_eq!(
        h.get("access-control-allow-origin").unwrap(),
        "https://console.vendor.test"
    );
    assert!(h
        .get("access-control-allow-headers")
        .unwrap()
        .to_str()
        .unwrap()
        .contains("authorization"));
    let resp = app
        .client
        .get("/api/users")
        .header("origin", "https://console.vendor.test")
        .send()
        .await;
    assert_eq!(resp.0.status(), 401);
    assert_eq!(
        resp.0.headers().get("access-control-allow-origin").unwrap(),
        "https://console.vendor.test"
    );
    // Another origin (the console's own pages send Origin too) is answered as without
    // CORS: no grant, and no refusal.
    let other = app
        .client
        .get("/api/openapi.json")
        .header("origin", "https://evil.test")
        .send()
        .await;
    assert_eq!(other.0.status(), 200);
    assert!(other
        .0
        .headers()
        .get("access-control-allow-origin")
        .is_none());
    // Only /api: the console's pages get no CORS headers.
    let page = app
        .client
        .get("/tenant-config?ac=x.test")
        .header("origin", "https://console.vendor.test")
        .send()
        .await;
    assert!(page
        .0
        .headers()
        .get("access-control-allow-origin")
        .is_none());
}
