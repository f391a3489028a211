//! Formula injection through CSV: a test engine names its test cases and
//! segments like spreadsheet formulas; no CSV the console hands out may hold a cell a
//! spreadsheet would evaluate: the report exports of every type, the CSV a person attaches
//! to a ticket, and the runs' CSV of an auto ticket (both through the Jira stand-in,
//! `ui/e2e/jira-standin.mjs`). Prints how many formula cells went out un-neutralised.

use crate::harness;
use crate::harness_trs;
use crate::jira_standin;

use std::time::Duration;

use cxwatch::config::JiraFlavour;
use cxwatch::domain::alert_setting::AlertSettingDraft;
use cxwatch::domain::caller::Scope;
use cxwatch::domain::csv::is_formula;
use cxwatch::domain::distribution::{Contact, ContactType, DistributionDraft};
use cxwatch::domain::schedule::Week;
use harness::App;
use harness_trs::{admin, group, ingest_ok, raw, run};
use jira_standin::StandIn;
use poem::http::Method;
use serde_json::{json, Value};

/// The names of the probe.
const HOSTILE: [&str; 4] = [
    "=HYPERLINK(\"http://x\",\"y\")",
    "+cmd|' /C calc'!A0",
    "@SUM(1+1)",
    "-2+3+cmd|' /C calc'!A0",
];

/// Cells of a CSV file (byte-order mark dropped): (formula cells, neutralised cells).
fn count(file: &[u8]) -> (usize, usize) {
    let body = file.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(file);
    let mut rdr = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(body);
    let (mut formulas, mut neutralised) = (0, 0);
    for record in rdr.byte_records() {
        for cell in record.expect("a CSV file").iter() {
            if is_formula(cell) {
                formulas += 1;
            } else if cell.first() == Some(&b'\'') && is_formula(&cell[1..]) {
                neutralised += 1;
            }
        }
    }
    (formulas, neutralised)
}

/// The runs: case `i + 1` named `HOSTILE[i]`, its segments named after the next two.
fn hostile_runs(status: &str, minute: u32) -> Vec<Value> {
    let mut runs = Vec::new();
    for (i, name) in HOSTILE.iter().enumerate() {
        let case = i as i64 + 1;
        let at = format!("2026-01-15T14:{minute:02}:00Z");
        let mut r = run(&format!("h{case}-{minute}"), case, &at, status);
        r["testCase"]["name"] = json!(name);
        r["segments"][0]["segmentName"] = json!(HOSTILE[(i + 1) % 4]);
        r["segments"][1]["segmentName"] = json!(HOSTILE[(i + 2) % 4]);
        runs.push(r);
    }
    runs
}

/// A multipart ticket form: `data` JSON and a CSV file.
async fn ticket(app: &App, token: &str, data: &Value, csv: &str) -> (u16, Value) {
    let boundary = "cxwatch-csv-boundary";
    let body = format!(
        "--{boundary}\r\nContent-Disposition: form-data; name=\"data\"\r\nContent-Type: application/json\r\n\r\n{data}\r\n\
         --{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"runs.csv\"\r\nContent-Type: text/csv\r\n\r\n{csv}\r\n\
         --{boundary}--\r\n"
    );
    let resp = app
        .client
        .post("/api/jira/v1/issue")
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_csv_the_console_hands_out_holds_a_formula() {
    let standin = StandIn::start(JiraFlavour::Cloud);
    let cfg = standin.config();
    let app = App::with_config(|c| {
        c.jira = cfg;
        c.notify.poll_ms = 100;
        c.notify.retry_first_secs = 1;
        c.notify.retry_max_secs = 1;
    });
    let a = admin(&app).await;
    let key = app.api_key("engine").await;
    ingest_ok(&app, &key, &hostile_runs("pass", 5)).await;
    let g = group(&app, "Hostile", "voice", &[1, 2, 3, 4]).await;
    // An alert setting with attach ticket on the group: the failing runs open an event whose
    // Jira issue carries the runs' CSV.
    let list = app
        .store
        .create_distribution(&DistributionDraft {
            name: "On call".into(),
            contacts: vec![Contact {
                name: "Ops".into(),
                kind: ContactType::Email,
                info: "ops@example.com".into(),
            }],
        })
        .await
        .unwrap();
    app.store
        .create_alert_setting(
            Scope::All,
            &AlertSettingDraft {
                name: "=cmd|' /C calc'!A0".into(),
                active: true,
                group_id: g,
                distribution_id: list,
                attach_jira_ticket: true,
                failure_to_alert: 1,
                statuses: vec!["FAIL".into()],
                week: Week::from_masks((1..=7).map(|d| (d, (1u64 << 48) - 1))),
                jira_assignee: Some("5b10ac8d82e05b22cc7d4ef5".into()),
                jira_project: Some("CX".into()),
                jira_username: Some("ann".into()),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    ingest_ok(&app, &key, &hostile_runs("fail", 10)).await;

    let mut formulas = Vec::new();
    let mut neutralised = 0;
    // Report exports of every type.
    let mut export = Vec::new();
    let mut first_report = 0;
    for ty in [1, 2, 5, 6, 7] {
        let body = json!({"name": format!("Type {ty}"), "reportTypeID": ty, "testCaseGroupID": g,
            "timeframeName": "Custom", "timeframeBegin": "2026-01-15",
            "timeframeEnd": "2026-01-16", "runType": "Schedule",
            "latencyWarn": 1000, "latencyFail": 2000});
        let (s, rep) = app
            .call(Method::POST, "/api/reports", Some(&a.token), Some(&body))
            .await;
        assert_eq!(s, 200, "{rep}");
        let id = rep["data"]["id"].as_i64().unwrap();
        if first_report == 0 {
            first_report = id;
        }
        let out = raw(app
            .client
            .get(format!("/api/reports/{id}/export"))
            .header("authorization", format!("Bearer {}", a.token)))
        .await;
        assert_eq!(out.status, 200);
        let (f, n) = count(&out.body);
        formulas.push((format!("report type {ty}"), f));
        neutralised += n;
        if ty == 5 {
            export = out.body;
        }
    }

    // A ticket's attached CSV: a file made before the fix, names as they were.
    let mut file = String::from("Test case,Segment,Runs\r\n");
    for (i, name) in HOSTILE.iter().enumerate() {
        let q = |s: &str| format!("\"{}\"", s.replace('"', "\"\""));
        file.push_str(&format!("{},{},-{i}\r\n", q(name), q(HOSTILE[(i + 1) % 4])));
    }
    let data = json!({"reportId": first_report, "project": "CX", "summary": "Hostile names"});
    let (s, created) = ticket(&app, &a.token, &data, &file).await;
    assert_eq!(s, 200, "{created}");
    let issue = standin
        .issue(created["data"]["key"].as_str().unwrap())
        .await;
    let content = issue["attachments"][0]["content"].as_str().unwrap();
    let (f, n) = count(content.as_bytes());
    formulas.push(("ticket attachment".into(), f));
    neutralised += n;
    let ticket_content = content.to_string();

    // The auto ticket's runs CSV.
    let mut auto = None;
    for _ in 0..200 {
        let with_label = standin.issues().await.into_iter().find(|i| {
            i["rawFields"]["labels"].as_array().is_some_and(|l| {
                l.iter()
                    .any(|l| l.as_str().unwrap_or("").starts_with("cxwatch-alert-"))
            }) && !i["attachments"].as_array().is_none_or(|a| a.is_empty())
        });
        if with_label.is_some() {
            auto = with_label;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let auto = auto.expect("the alert opened an auto ticket with its runs' CSV");
    let csv = auto["attachments"][0]["content"].as_str().unwrap();
    assert!(csv.starts_with("runId,runTime,status"), "{csv}");
    let (f, n) = count(csv.as_bytes());
    formulas.push(("auto ticket runs".into(), f));
    neutralised += n;

    let total: usize = formulas.iter().map(|(_, f)| f).sum();
    println!(
        "formula cells exported un-neutralised: {total} {formulas:?}; neutralised: {neutralised}"
    );
    assert_eq!(total, 0, "formula cells went out: {formulas:?}");
    // Segment performance names every case and segment: 4 cases and 2 segments each.
    let (_, n) = count(&export);
    assert!(
        n >= 12,
        "each hostile name is in the export, neutralised: {n}"
    );
    // Plain negative numbers stay numbers.
    assert!(ticket_content.contains(",-1\r\n"), "{ticket_content}");
}
