//! `api/jira/v1` against the Jira stand-in (`ui/e2e/jira-standin.mjs`), for both flavours:
//! lookups, a ticket opened for a report with a CSV file and mentions (ADF on Cloud, wiki
//! markup on Server/DC), read back, edited and moved to another status; Jira's refusals as
//! messages; no Jira configured; who may ticket what.

use crate::harness;
use crate::harness_trs;
use crate::jira_standin;
use crate::private_ca;

use cxwatch::config::{JiraFlavour, Trust};
use cxwatch::domain::caller::{AccessType, Role};
use harness::App;
use harness_trs::{admin, get, group};
use jira_standin::StandIn;
use poem::http::Method;
use private_ca::PrivateCa;
use serde_json::{json, Value};

const ANN_CLOUD: &str = "5b10ac8d82e05b22cc7d4ef5";
const BOB_CLOUD: &str = "5b10a2844c20165700ede21g";
const CSV: &str = "runId,status\n101,fail\n102,fail\n";

fn app_with(standin: &StandIn) -> App {
    let cfg = standin.config();
    App::with_config(move |c| c.jira = cfg)
}

async fn report(app: &App, token: &str, group: i64) -> i64 {
    let body = json!({"name": "Journeys", "reportTypeID": 2, "testCaseGroupID": group,
        "timeframeName": "Custom", "timeframeBegin": "2026-01-15", "runType": "Manual"});
    let (s, r) = app
        .call(Method::POST, "/api/reports", Some(token), Some(&body))
        .await;
    assert_eq!(s, 200, "{r}");
    r["data"]["id"].as_i64().unwrap()
}

/// A multipart ticket form: `data` JSON and an optional file (name, content).
async fn form(
    app: &App,
    method: Method,
    path: &str,
    token: &str,
    data: &Value,
    file: Option<(&str, &str)>,
) -> (u16, Value) {
    let boundary = "cxwatch-test-boundary-7d1";
    let mut body = format!(
        "--{boundary}\r\nContent-Disposition: form-data; name=\"data\"\r\nContent-Type: application/json\r\n\r\n{data}\r\n"
    );
    if let Some((name, content)) = file {
        body.push_str(&format!(
            "--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{name}\"\r\nContent-Type: text/csv\r\n\r\n{content}\r\n"
        ));
    }
    body.push_str(&format!("--{boundary}--\r\n"));
    let resp = app
        .client
        .request(method, path)
        .header("authorization", format!("Bearer {token}"))
        .content_type(format!("multipart/form-data; boundary={boundary}"))
        .body(body)
        .send()
        .await;
    let status = resp.0.status().as_u16();
    let bytes = resp.0.into_body().into_bytes().await.unwrap_or_default();
    (
        status,
        serde_json::from_slice(&bytes).unwrap_or(Value::Null),
    )
}

fn names(v: &Value, key: &str) -> Vec<String> {
    v["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x[key].as_str().unwrap_or_default().to_string())
        .collect()
}

/// The round trip of both flavours; `assignee` and `bob` are how each names people.
async fn round_trip(flavour: JiraFlavour, assignee: &str, bob: &str) -> (StandIn, App, Value) {
    let standin = StandIn::start(flavour);
    let app = app_with(&standin);
    let a = admin(&app).await;
    let g = group(&app, "Retail", "voice", &[]).await;
    let rep = report(&app, &a.token, g).await;

    let (s, c) = get(&app, &a.token, "/api/jira/v1/config").await;
    assert_eq!(s, 200, "{c}");
    assert_eq!(
        c["data"],
        json!({"configured": true, "flavour": flavour.as_str()})
    );
    // People (Cloud's app accounts left out), projects and statuses.
    let (s, users) = get(&app, &a.token, "/api/jira/v1/users?username=").await;
    assert_eq!(s, 200, "{users}");
    assert_eq!(
        names(&users, "name"),
        ["Ann Lee", "Bob Stone", "Chloé Martin"]
    );
    let (_, ann) = get(&app, &a.token, "/api/jira/v1/users?username=ann").await;
    assert_eq!(
        ann["data"],
        json!([{"accountId": assignee, "name": "Ann Lee"}])
    );
    let (s, projects) = get(&app, &a.token, "/api/jira/v1/projects?username=x").await;
    assert_eq!(s, 200, "{projects}");
    assert_eq!(names(&projects, "key"), ["CX", "OPS"]);
    let (s, statuses) = get(&app, &a.token, "/api/jira/v1/issueStatus?username=x").await;
    assert_eq!(s, 200, "{statuses}");
    assert_eq!(
        statuses["data"],
        json!(["Open", "In Progress", "Resolved", "Closed"])
    );

    // Create: a Bug with a mention, a dropped null mention and the CSV file.
    let data = json!({"reportId": rep, "project": "CX", "summary": "IVR greeting fails",
        "issueType": "Task", "assignee": assignee, "labels": ["ivr", "prod"], "username": "ops",
        "description": format!("Calls fail.\nPlease look @[Bob Stone]({bob}) and @[Ghost](null)")});
    let (s, created) = form(
        &app,
        Method::POST,
        "/api/jira/v1/issue",
        &a.token,
        &data,
        Some(("runs.csv", CSV)),
    )
    .await;
    assert_eq!(s, 200, "{created}");
    assert_eq!(created["data"]["key"], "CX-1");
    let issue = standin.issue("CX-1").await;
    assert_eq!(issue["fields"]["issuetype"]["name"], "Bug");
    assert_eq!(issue["rawFields"]["labels"], json!(["ivr", "prod"]));
    assert_eq!(issue["attachments"][0]["filename"], "runs.csv");
    assert_eq!(issue["attachments"][0]["content"], CSV);
    // The key is on the report, and the change is in the audit log.
    let (_, r) = get(&app, &a.token, &format!("/api/reports/{rep}")).await;
    assert_eq!(r["data"]["jiraTicket"], "CX-1");
    let (_, log) = get(&app, &a.token, "/api/audit?kind=report").await;
    let rows: Vec<&Value> = log["data"]["content"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["action"] == "ticket")
        .collect();
    assert_eq!(rows.len(), 1, "{log}");
    assert_eq!(rows[0]["after"]["jira_ticket"], "CX-1", "{log}");
    // A second ticket for the same report is refused, and nothing is opened.
    let (s, again) = form(
        &app,
        Method::POST,
        "/api/jira/v1/issue",
        &a.token,
        &data,
        None,
    )
    .await;
    assert_eq!(s, 409, "{again}");
    assert_eq!(standin.issues().await.len(), 1);

    // Read back: the mention returns, the null one stayed text.
    let (s, read) = get(
        &app,
        &a.token,
        "/api/jira/v1/issue?username=ops&issueId=CX-1",
    )
    .await;
    assert_eq!(s, 200, "{read}");
    assert_eq!(read["data"]["summary"], "IVR greeting fails");
    assert_eq!(read["data"]["assigneeId"], assignee);
    assert_eq!(read["data"]["project"], "CX");
    assert_eq!(read["data"]["status"], "Open");
    assert_eq!(read["data"]["labels"], json!(["ivr", "prod"]));
    assert_eq!(read["data"]["reportId"], rep);

    // Edit: summary, labels, unassigned, moved to In Progress, a second file.
    let edit = json!({"project": "CX", "summary": "IVR greeting fails after 9:00",
        "assignee": "", "labels": ["ivr"], "description": "Fixed? @[Ann Lee](".to_string()
            + assignee + ")", "status": "In Progress", "isAutoJiraTicket": false});
    let (s, edited) = form(
        &app,
        Method::PUT,
        "/api/jira/v1/issue?username=ops&issueId=CX-1",
        &a.token,
        &edit,
        Some(("more.csv", "runId\n103\n")),
    )
    .await;
    assert_eq!(s, 200, "{edited}");
    assert_eq!(edited["data"]["key"], "CX-1");
    let after = standin.issue("CX-1").await;
    assert_eq!(after["status"], "In Progress");
    assert_eq!(after["fields"]["summary"], "IVR greeting fails after 9:00");
    assert_eq!(after["fields"]["assignee"], Value::Null);
    assert_eq!(after["fields"]["labels"], json!(["ivr"]));
    assert_eq!(after["attachments"].as_array().unwrap().len(), 2);
    let (_, read) = get(&app, &a.token, "/api/jira/v1/issue?issueId=CX-1").await;
    assert_eq!(read["data"]["status"], "In Progress");
    (standin, app, issue)
}

#[tokio::test(flavor = "multi_thread")]
async fn cloud_tickets_speak_rest_v3_and_adf() {
    let (standin, app, issue) = round_trip(JiraFlavour::Cloud, ANN_CLOUD, BOB_CLOUD).await;
    assert_eq!(
        issue["rawFields"]["assignee"],
        json!({"accountId": ANN_CLOUD})
    );
    assert_eq!(
        issue["rawFields"]["description"],
        json!({"type": "doc", "version": 1, "content": [
            {"type": "paragraph", "content": [{"type": "text", "text": "Calls fail."}]},
            {"type": "paragraph", "content": [
                {"type": "text", "text": "Please look "},
                {"type": "mention", "attrs": {"id": BOB_CLOUD, "text": "@Bob Stone"}},
                {"type": "text", "text": " and @Ghost"}]}]})
    );
    let a = admin(&app).await;
    let (_, read) = get(&app, &a.token, "/api/jira/v1/issue?issueId=CX-1").await;
    assert_eq!(
        read["data"]["description"],
        format!("Fixed? @[Ann Lee]({ANN_CLOUD})")
    );
    // Search on Cloud is the current endpoint; the removed one is refused by the stand-in.
    let jira = cxwatch::jira::Jira::new(&standin.config()).unwrap();
    assert_eq!(
        jira.search_keys("labels = \"ivr\"", 10).await.unwrap(),
        ["CX-1"]
    );
    assert!(jira
        .search_keys("labels = \"none\"", 10)
        .await
        .unwrap()
        .is_empty());
    let old = reqwest::Client::new()
        .get(format!("{}/rest/api/3/search?jql=x", standin.url))
        .basic_auth(&standin.email, Some(&standin.token))
        .send()
        .await
        .unwrap();
    assert_eq!(old.status(), 410);
}

#[tokio::test(flavor = "multi_thread")]
async fn server_tickets_speak_rest_v2_and_wiki_markup() {
    let (standin, app, issue) = round_trip(JiraFlavour::Server, "alee", "bstone").await;
    assert_eq!(issue["rawFields"]["assignee"], json!({"name": "alee"}));
    assert_eq!(
        issue["rawFields"]["description"],
        "Calls fail.\nPlease look [~bstone] and @Ghost"
    );
    let a = admin(&app).await;
    let (_, read) = get(&app, &a.token, "/api/jira/v1/issue?issueId=CX-1").await;
    // Wiki markup keeps only the username: the display name is looked up on read.
    assert_eq!(read["data"]["description"], "Fixed? @[Ann Lee](alee)");
    let jira = cxwatch::jira::Jira::new(&standin.config()).unwrap();
    assert_eq!(
        jira.search_keys("project = CX", 10).await.unwrap(),
        ["CX-1"]
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn jira_refusals_come_back_as_messages_and_nothing_is_stored() {
    let standin = StandIn::start(JiraFlavour::Cloud);
    let app = app_with(&standin);
    let a = admin(&app).await;
    let g = group(&app, "Retail", "voice", &[]).await;
    let rep = report(&app, &a.token, g).await;
    let post = |data: Value, file: Option<(&'static str, &'static str)>| {
        let app = &app;
        let token = a.token.clone();
        async move { form(app, Method::POST, "/api/jira/v1/issue", &token, &data, file).await }
    };
    let (s, e) = post(
        json!({"reportId": rep, "project": "NOPE", "summary": "", "assignee": "nobody",
               "labels": ["two words"]}),
        None,
    )
    .await;
    assert_eq!(s, 400, "{e}");
    let mut messages: Vec<String> = e["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap().to_string())
        .collect();
    messages.sort();
    assert_eq!(
        messages,
        [
            "assignee: Specified user does not exist or you do not have required permissions",
            "labels: The label 'two words' contains spaces which is invalid.",
            "project: valid project is required",
            "summary: You must specify a summary of the issue.",
        ]
    );
    // Not a CSV file: refused before Jira is asked.
    let (s, e) = post(
        json!({"reportId": rep, "project": "CX", "summary": "x"}),
        Some(("runs.txt", "a")),
    )
    .await;
    assert_eq!(s, 400, "{e}");
    assert_eq!(e["messages"], json!(["Please upload a CSV file"]));
    assert!(standin.issues().await.is_empty());
    let (_, r) = get(&app, &a.token, &format!("/api/reports/{rep}")).await;
    assert_eq!(r["data"]["jiraTicket"], Value::Null);
    // No report named: a field problem. A ticket no report holds: 404.
    let (s, e) = post(json!({"project": "CX", "summary": "x"}), None).await;
    assert_eq!(s, 400, "{e}");
    assert_eq!(e["fields"][0]["field"], "reportId");
    let (s, _) = get(&app, &a.token, "/api/jira/v1/issue?issueId=CX-99").await;
    assert_eq!(s, 404);

    // Wrong credentials and an outage: 502 with Jira's words.
    let mut wrong = standin.config();
    wrong.token = "expired".into();
    let bad = App::with_config(move |c| c.jira = wrong);
    let b = admin(&bad).await;
    let (s, e) = get(&bad, &b.token, "/api/jira/v1/projects").await;
    assert_eq!(s, 502, "{e}");
    assert_eq!(
        e["messages"],
        json!(["You are not authenticated. Authentication required to perform this operation."])
    );
    standin.down(true).await;
    let (s, e) = get(&app, &a.token, "/api/jira/v1/issueStatus").await;
    assert_eq!(s, 502, "{e}");
    assert_eq!(e["messages"], json!(["Service Unavailable"]));
}

#[tokio::test(flavor = "multi_thread")]
async fn without_jira_the_calls_name_the_missing_configuration() {
    let app = App::new();
    let a = admin(&app).await;
    let (s, c) = get(&app, &a.token, "/api/jira/v1/config").await;
    assert_eq!(s, 200);
    assert_eq!(c["data"], json!({"configured": false}));
    for path in [
        "/api/jira/v1/users?username=",
        "/api/jira/v1/projects",
        "/api/jira/v1/issueStatus",
        "/api/jira/v1/issue?issueId=CX-1",
    ] {
        let (s, e) = get(&app, &a.token, path).await;
        assert_eq!(s, 409, "{path}: {e}");
        let m = e["messages"][0].as_str().unwrap();
        assert!(
            m.contains("Jira is not configured") && m.contains("[jira]"),
            "{m}"
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn users_ticket_only_reports_of_their_groups_and_read_only_users_create_nothing() {
    let standin = StandIn::start(JiraFlavour::Server);
    let app = app_with(&standin);
    let a = admin(&app).await;
    let mine = group(&app, "Mine", "voice", &[]).await;
    let theirs = group(&app, "Theirs", "voice", &[]).await;
    let rep_mine = report(&app, &a.token, mine).await;
    let rep_theirs = report(&app, &a.token, theirs).await;
    let rw = app
        .user("rw@x.test", Role::User, AccessType::ReadWrite, &[mine])
        .await;
    let ro = app
        .user(
            "ro@x.test",
            Role::User,
            AccessType::ReadOnly,
            &[mine, theirs],
        )
        .await;
    let data = |rep: i64| json!({"reportId": rep, "project": "OPS", "summary": "Down"});
    let (s, e) = form(
        &app,
        Method::POST,
        "/api/jira/v1/issue",
        &rw.token,
        &data(rep_theirs),
        None,
    )
    .await;
    assert_eq!(s, 403, "{e}");
    let (s, e) = form(
        &app,
        Method::POST,
        "/api/jira/v1/issue",
        &ro.token,
        &data(rep_mine),
        None,
    )
    .await;
    assert_eq!(s, 403, "{e}");
    assert!(standin.issues().await.is_empty());
    let (s, e) = form(
        &app,
        Method::POST,
        "/api/jira/v1/issue",
        &rw.token,
        &data(rep_mine),
        None,
    )
    .await;
    assert_eq!(s, 200, "{e}");
    let (s, e) = form(
        &app,
        Method::POST,
        "/api/jira/v1/issue",
        &a.token,
        &data(rep_theirs),
        None,
    )
    .await;
    assert_eq!(s, 200, "{e}");
    // The other group's ticket: hidden from the user; read-only may read, not edit.
    let (s, _) = get(&app, &rw.token, "/api/jira/v1/issue?issueId=OPS-2").await;
    assert_eq!(s, 403);
    let (s, _) = get(&app, &ro.token, "/api/jira/v1/issue?issueId=OPS-2").await;
    assert_eq!(s, 200);
    let edit = json!({"summary": "Changed"});
    let (s, _) = form(
        &app,
        Method::PUT,
        "/api/jira/v1/issue?issueId=OPS-2",
        &rw.token,
        &edit,
        None,
    )
    .await;
    assert_eq!(s, 403);
    let (s, _) = form(
        &app,
        Method::PUT,
        "/api/jira/v1/issue?issueId=OPS-1",
        &ro.token,
        &edit,
        None,
    )
    .await;
    assert_eq!(s, 403);
    let (s, e) = form(
        &app,
        Method::PUT,
        "/api/jira/v1/issue?issueId=OPS-1",
        &rw.token,
        &edit,
        None,
    )
    .await;
    assert_eq!(s, 200, "{e}");
    assert_eq!(standin.issue("OPS-1").await["fields"]["summary"], "Changed");
}

/// Jira Data Center over HTTPS with a certificate from the site's own CA: not trusted (and
/// said so) with the compiled-in roots only; a ticket with its CSV file with `ca`, and with
/// `trust = "system"` when the CA is in the machine's trust store (here `SSL_CERT_FILE`).
#[tokio::test(flavor = "multi_thread")]
async fn jira_behind_the_sites_own_ca_is_trusted_through_ca_or_the_system_store() {
    let pki = PrivateCa::new();
    // This test's own process (nextest): nothing else reads the variable meanwhile.
    std::env::set_var("SSL_CERT_FILE", &pki.ca);
    std::env::remove_var("SSL_CERT_DIR");
    let standin = StandIn::start_https(JiraFlavour::Server, &pki);
    assert!(
        standin.url.starts_with("https://127.0.0.1:"),
        "{}",
        standin.url
    );

    let untrusted = app_with(&standin);
    let u = admin(&untrusted).await;
    let (s, e) = get(&untrusted, &u.token, "/api/jira/v1/projects?username=x").await;
    assert_eq!(s, 502, "{e}");
    let message = e["messages"][0].as_str().unwrap_or_default();
    assert!(
        message.starts_with("Jira's certificate not trusted (signed by an unknown issuer)"),
        "{e}"
    );

    let mut cfg = standin.config();
    cfg.ca = Some(pki.ca.clone());
    let app = App::with_config(move |c| c.jira = cfg);
    let a = admin(&app).await;
    let (s, projects) = get(&app, &a.token, "/api/jira/v1/projects?username=x").await;
    assert_eq!(s, 200, "{projects}");
    assert_eq!(names(&projects, "key"), ["CX", "OPS"]);
    let g = group(&app, "Retail", "voice", &[]).await;
    let rep = report(&app, &a.token, g).await;
    let data = json!({"reportId": rep, "project": "CX", "summary": "IVR greeting fails",
        "assignee": "alee", "labels": ["ivr"], "description": "Calls fail."});
    let (s, created) = form(
        &app,
        Method::POST,
        "/api/jira/v1/issue",
        &a.token,
        &data,
        Some(("runs.csv", CSV)),
    )
    .await;
    assert_eq!(s, 200, "{created}");
    let issue = standin.issue("CX-1").await;
    assert_eq!(issue["attachments"][0]["content"], CSV);

    let mut cfg = standin.config();
    cfg.trust = Trust::System;
    let system = App::with_config(move |c| c.jira = cfg);
    let b = admin(&system).await;
    let (s, statuses) = get(&system, &b.token, "/api/jira/v1/issueStatus?username=x").await;
    assert_eq!(s, 200, "{statuses}");
}

/// Cloud answers users 100 a page: a site with 250 accounts is read to its last page, for
/// a search too.
#[tokio::test(flavor = "multi_thread")]
async fn cloud_user_lists_page_past_one_hundred_accounts() {
    let standin = StandIn::start_args(JiraFlavour::Cloud, &["--people", "250"]);
    let jira = cxwatch::jira::Jira::new(&standin.config()).unwrap();
    let all = jira.users("").await.unwrap();
    assert_eq!(all.len(), 253, "three people and 250 agents, no app");
    assert_eq!(all.last().unwrap().name, "Agent 0250");
    let agents = jira.users("agent").await.unwrap();
    assert_eq!(agents.len(), 250);
}
