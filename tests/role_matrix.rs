//! The role matrix: every operation of the OpenAPI document against the five callers of the
//! spec (anonymous, ROLE_USER read-only and read-write, ROLE_ADMIN read-only and read-write)
//! and an ingest API key, each cell the status the server must answer. An operation added
//! to the API without a row here fails `every_operation_has_a_row`.

use crate::common;

use crate::harness;

use std::collections::BTreeSet;

use cxwatch::domain::caller::{AccessType, Role};
use harness::{App, Who, PASSWORD};
use poem::http::Method;
use serde_json::{json, Value};

const CALLERS: [&str; 6] = [
    "anonymous",
    "user ro",
    "user rw",
    "admin ro",
    "admin rw",
    "ingest key",
];

enum Body {
    None,
    Json(Value),
    Raw(&'static str, Vec<u8>),
    /// A GET answering an endless stream (server-sent events): a 200's body is not read.
    Stream,
}

struct Row {
    op: &'static str,
    method: Method,
    path: String,
    body: Body,
    /// Expected status per caller, in the order of [`CALLERS`].
    want: [u16; 6],
}

const DATE: &str = "2026-01-15";

fn wav() -> Vec<u8> {
    let mut w = b"RIFF\x24\x00\x00\x00WAVEfmt \x10\x00\x00\x00\x01\x00\x01\x00\x40\x1f\x00\x00\x80\x3e\x00\x00\x02\x00\x10\x00data\x00\x00\x00\x00".to_vec();
    w.extend_from_slice(&[0u8; 16]);
    w
}

fn run(recording: &str) -> Value {
    json!({
        "engineRunId": "matrix-1",
        "testCase": {"id": 1, "name": "Balance enquiry", "channel": "voice",
                     "ivr": {"id": 10, "name": "Retail IVR"}},
        "runTime": format!("{DATE}T14:05:00Z"),
        "runDuration": 42.5,
        "status": "fail",
        "runType": "Manual",
        "mosCqIn": 3.9,
        "recordingId": recording,
        "segments": [{"segmentId": 1, "segmentName": "Greeting", "steps": [
            {"stepId": 11, "stepType": "PROMPT", "typeDisplayText": "Prompt", "prompt": "Welcome",
             "testResult": {"status": "fail", "utterance": "Welcome", "latency": 900}}]}]
    })
}

struct World {
    app: App,
    callers: Vec<Option<(&'static str, String)>>,
    rows: Vec<Row>,
}

async fn world() -> World {
    let app = App::new();
    let admin_rw = app
        .user("admin.rw@x.test", Role::Admin, AccessType::ReadWrite, &[])
        .await;
    let key = app.api_key("matrix").await;
    // A key for the site page's revoke row.
    app.api_key("matrix-spare").await;
    let bearer = |t: &str| ("authorization", format!("Bearer {t}"));
    // Data through the API itself: a recording, a run that uses it, a group holding it.
    let (s, rec) = raw(
        &app,
        "/api/ingest/v1/recordings",
        ("x-api-key", key.clone()),
        "audio/wav",
        wav(),
    )
    .await;
    assert_eq!(s, 200, "{rec}");
    let rec = rec["data"]["id"].as_str().unwrap().to_string();
    let (s, out) = app
        .call_with(
            Method::POST,
            "/api/ingest/v1/runs",
            Some(("x-api-key", key.clone())),
            Some(&json!({"runs": [run(&rec)]})),
        )
        .await;
    assert_eq!(s, 200, "{out}");
    let group = |name: &str| json!({"name": name, "channel": "voice", "testCases": [{"id": 1}]});
    let (s, g) = app
        .call(
            Method::POST,
            "/api/trs/v1/groups",
            Some(&admin_rw.token),
            Some(&group("Retail")),
        )
        .await;
    assert_eq!(s, 200, "{g}");
    let g = g["data"]["id"].as_i64().unwrap();
    let (_, g2) = app
        .call(
            Method::POST,
            "/api/trs/v1/groups",
            Some(&admin_rw.token),
            Some(&group("Spare")),
        )
        .await;
    let g2 = g2["data"]["id"].as_i64().unwrap();
    let (_, g3) = app
        .call(
            Method::POST,
            "/api/trs/v1/groups",
            Some(&admin_rw.token),
            Some(&group("Reports only")),
        )
        .await;
    let g3 = g3["data"]["id"].as_i64().unwrap();
    let (_, g4) = app
        .call(
            Method::POST,
            "/api/trs/v1/groups",
            Some(&admin_rw.token),
            Some(&group("Spare for the list delete")),
        )
        .await;
    let g4 = g4["data"]["id"].as_i64().unwrap();
    let report = |group: i64| {
        json!({"name": "Matrix report", "reportTypeID": 2, "testCaseGroupID": group,
               "timeframeName": "Custom", "timeframeBegin": DATE, "runType": "Manual"})
    };
    let mut report_ids = Vec::new();
    for grp in [g, g3] {
        let (s, rep) = app
            .call(
                Method::POST,
                "/api/reports",
                Some(&admin_rw.token),
                Some(&report(grp)),
            )
            .await;
        assert_eq!(s, 200, "{rep}");
        report_ids.push(rep["data"]["id"].as_i64().unwrap());
    }
    let (rep, rep_other) = (report_ids[0], report_ids[1]);
    let (s, runs) = app
        .call(
            Method::GET,
            &format!("/api/trs/v1/testcases/1/runs?startDate={DATE}"),
            Some(&admin_rw.token),
            None,
        )
        .await;
    assert_eq!(s, 200, "{runs}");
    // Asked without paging parameters: the spec's array.
    let run_id = runs["data"][0]["runId"].as_i64().unwrap();

    let user_ro = app
        .user("user.ro@x.test", Role::User, AccessType::ReadOnly, &[g])
        .await;
    let user_rw = app
        .user("user.rw@x.test", Role::User, AccessType::ReadWrite, &[g])
        .await;
    let admin_ro = app
        .user("admin.ro@x.test", Role::Admin, AccessType::ReadOnly, &[])
        .await;
    let victim: Who = app
        .user("victim@x.test", Role::User, AccessType::ReadOnly, &[])
        .await;
    // A distribution list to read, update and delete, and a notification to read.
    // Names are unique (without case): each list its own.
    let named = |name: &str| json!({"name": name, "contacts": [{"name": "Ops", "type": 1, "info": "ops@x.test"}]});
    let list = named("On call");
    let mut dist_ids = Vec::new();
    for name in ["On call", "On call, to delete"] {
        let (s, d) = app
            .call(
                Method::POST,
                "/api/distributions",
                Some(&admin_rw.token),
                Some(&named(name)),
            )
            .await;
        assert_eq!(s, 200, "{d}");
        dist_ids.push(d["data"]["id"].as_i64().unwrap());
    }
    let (dist, dist_gone) = (dist_ids[0], dist_ids[1]);
    // Alert settings on a group of the ROLE_USER callers and on one that is not theirs.
    let setting = |group: i64| {
        json!({"name": "Matrix alert", "testCaseGroupId": group, "distributionId": dist,
               "failureToAlert": 1, "emailSubject": "Down", "voiceMessage": "Down",
               "smsPrefix": "[cx]", "alertStatus": ["FAIL"],
               "schedule": [{"dayOfWeek": 1, "startTimeSlot": "00:00", "endTimeSlot": "24:00"}]})
    };
    let mut setting_ids = Vec::new();
    for grp in [g, g3] {
        let (s, a) = app
            .call(
                Method::POST,
                "/api/alerts/settings",
                Some(&admin_rw.token),
                Some(&setting(grp)),
            )
            .await;
        assert_eq!(s, 200, "{a}");
        setting_ids.push(a["data"]["id"].as_i64().unwrap());
    }
    let (al, al_other) = (setting_ids[0], setting_ids[1]);
    let note = app
        .store
        .enqueue_list(
            dist,
            cxwatch::domain::notify::Message::default(),
            "matrix".into(),
            "matrix".into(),
        )
        .await
        .unwrap()[0];
    // An alert event: a setting on the Retail group (written with SQL; one failure opens),
    // then a failing run.
    // SQL both backends take (FALSE: SQLite reads it as 0).
    app.exec(&format!(
        "INSERT INTO alert_settings (id, name, group_id, distribution_id, email_subject,
                voice_message, sms_prefix, failure_to_alert, modified_at)
         VALUES (900, 'Matrix', {g}, {dist}, 'Down', 'Down', '', 1, 0);
         INSERT INTO alert_setting_statuses VALUES (900, 7);
         INSERT INTO alert_setting_schedule VALUES (900, 4, {});
         INSERT INTO alert_settings (id, name, group_id, distribution_id, email_subject,
                voice_message, sms_prefix, failure_to_alert, active, modified_at)
         VALUES (901, 'Matrix other', {g3}, {dist}, 'Down', 'Down', '', 1, FALSE, 0);",
        (1i64 << 48) - 1
    ))
    .await;
    let mut second = run(&rec);
    second["engineRunId"] = json!("matrix-2");
    second["runTime"] = json!(format!("{DATE}T14:10:00Z"));
    let (s, out) = app
        .call_with(
            Method::POST,
            "/api/ingest/v1/runs",
            Some(("x-api-key", key.clone())),
            Some(&json!({"runs": [second]})),
        )
        .await;
    assert_eq!(s, 200, "{out}");
    let (_, events) = app
        .call(
            Method::GET,
            "/api/alerts/events",
            Some(&admin_rw.token),
            None,
        )
        .await;
    let alert = events["data"]["content"][0]["alertId"].as_i64().unwrap();
    let incident = events["data"]["content"][0]["incidentId"].as_i64().unwrap();
    // A maintenance window on the Retail group, written with SQL.
    app.exec(&format!(
        "INSERT INTO maintenance_windows (id, reason, weekly, start_ms, end_ms, created_by,
                created_ms)
         VALUES (900, 'Matrix release', FALSE, 0, 4102444800000, 'matrix', 0);
         INSERT INTO maintenance_window_groups VALUES (900, {g});"
    ))
    .await;
    let in_an_hour = (common::now() + chrono::Duration::hours(1)).to_rfc3339();
    let window = json!({"reason": "Release", "kind": "once",
        "startTime": common::now().to_rfc3339(), "endTime": in_an_hour,
        "testCaseGroups": [{"id": g}]});
    let callers = vec![
        None,
        Some(bearer(&user_ro.token)),
        Some(bearer(&user_rw.token)),
        Some(bearer(&admin_ro.token)),
        Some(bearer(&admin_rw.token)),
        Some(("x-api-key", key.clone())),
    ];

    use Method as M;
    let r = |op, method, path: String, body, want| Row {
        op,
        method,
        path,
        body,
        want,
    };
    let read = [401, 200, 200, 200, 200, 401];
    let admin_read = [401, 403, 403, 200, 200, 401];
    let admin_write = [401, 403, 403, 403, 200, 401];
    let ingest = [401, 401, 401, 401, 401, 200];
    let t = "/api/trs/v1";
    let v = victim.id;
    let new_user = json!({"username": "new@x.test", "firstName": "New", "lastName": "User",
        "roles": ["ROLE_USER"], "accessType": "read-only", "testCaseGroups": [{"id": g}],
        "password": "a long enough password"});
    let rows = vec![
        r(
            "signin",
            M::POST,
            "/api/auth/signin".into(),
            Body::Json(json!({"username": admin_rw.username, "password": PASSWORD})),
            [200; 6],
        ),
        r(
            "getToken",
            M::GET,
            "/api/auth/getToken?id=unknown".into(),
            Body::None,
            [401; 6],
        ),
        // Single sign-on: browser navigations, always a redirect (here, without SSO for the
        // host, back to /login with the reason).
        r(
            "ssoStart",
            M::GET,
            "/api/auth/sso/start".into(),
            Body::None,
            [302; 6],
        ),
        r(
            "ssoCallback",
            M::GET,
            "/api/auth/sso/callback?code=c&state=unknown".into(),
            Body::None,
            [302; 6],
        ),
        r(
            "ssoLogout",
            M::GET,
            "/api/auth/sso/logout".into(),
            Body::None,
            [302; 6],
        ),
        r(
            "listUsers",
            M::GET,
            "/api/users".into(),
            Body::None,
            admin_read,
        ),
        r(
            "getUser",
            M::GET,
            format!("/api/users/{}", admin_rw.id),
            Body::None,
            admin_read,
        ),
        r(
            "createUser",
            M::POST,
            "/api/users".into(),
            Body::Json(new_user),
            admin_write,
        ),
        r(
            "updateUser",
            M::PUT,
            format!("/api/users/{v}"),
            Body::Json(json!({"id": v,
            "username": "victim@x.test", "firstName": "V", "lastName": "Ictim",
            "roles": ["ROLE_USER"], "accessType": "read-write", "testCaseGroups": []})),
            admin_write,
        ),
        r(
            "overridePassword",
            M::PATCH,
            format!("/api/users/{v}/overridePassword"),
            Body::Json(json!({"newPassword": "another long password"})),
            admin_write,
        ),
        r(
            "deleteUser",
            M::DELETE,
            format!("/api/users/{v}"),
            Body::None,
            admin_write,
        ),
        r(
            "listGroups",
            M::GET,
            format!("{t}/groups"),
            Body::None,
            read,
        ),
        r(
            "listChannels",
            M::GET,
            format!("{t}/groups/channels"),
            Body::None,
            read,
        ),
        r("listIvrs", M::GET, format!("{t}/ivrs"), Body::None, read),
        r(
            "groupsRecent",
            M::GET,
            format!("{t}/groups/recent"),
            Body::None,
            read,
        ),
        r(
            "groupsHourly",
            M::GET,
            format!("{t}/groups/hourly?startDate={DATE}"),
            Body::None,
            read,
        ),
        r(
            "groupsHealth",
            M::GET,
            format!("{t}/groups/health"),
            Body::None,
            read,
        ),
        r(
            "getGroup",
            M::GET,
            format!("{t}/groups/{g}"),
            Body::None,
            read,
        ),
        r(
            "createGroup",
            M::POST,
            format!("{t}/groups"),
            Body::Json(json!({"name": "Matrix",
            "channel": "voice", "testCases": [{"id": 1}]})),
            admin_write,
        ),
        r(
            "updateGroup",
            M::PUT,
            format!("{t}/groups/{g2}"),
            Body::Json(json!({"id": g2,
            "name": "Spare 2", "channel": "voice", "testCases": [{"id": 1}]})),
            admin_write,
        ),
        // What deleting a group takes (cxwatch's addition), asked before a delete.
        r(
            "getGroupDependents",
            M::GET,
            format!("{t}/groups/{g}/dependents"),
            Body::None,
            admin_read,
        ),
        r(
            "deleteGroup",
            M::DELETE,
            format!("{t}/groups/{g2}"),
            Body::None,
            admin_write,
        ),
        r(
            "deleteGroups",
            M::DELETE,
            format!("{t}/groups?ids={g4}"),
            Body::None,
            admin_write,
        ),
        r(
            "groupMetric",
            M::GET,
            format!("{t}/groups/{g}/metric?level=case&startDate={DATE}"),
            Body::None,
            read,
        ),
        r(
            "groupMos",
            M::GET,
            format!("{t}/groups/{g}/mos?startDate={DATE}"),
            Body::None,
            read,
        ),
        r(
            "testCaseRuns",
            M::GET,
            format!("{t}/testcases/1/runs?startDate={DATE}"),
            Body::None,
            read,
        ),
        r(
            "groupRuns",
            M::GET,
            format!("{t}/groups/{g}/runs?startDate={DATE}&hrSlot=9&status=failure"),
            Body::None,
            read,
        ),
        r(
            "pageGroups",
            M::GET,
            format!("{t}/groups/page"),
            Body::None,
            read,
        ),
        r(
            "testRun",
            M::GET,
            format!("{t}/testruns/{run_id}"),
            Body::None,
            read,
        ),
        r(
            "lastPassingRun",
            M::GET,
            format!("{t}/testruns/{run_id}/lastPassing"),
            Body::None,
            read,
        ),
        r(
            "getRecording",
            M::GET,
            format!("{t}/recordings/{rec}"),
            Body::None,
            read,
        ),
        r(
            "getContent",
            M::GET,
            format!("{t}/getContent?attachmentUrl=recordings/{rec}"),
            Body::None,
            read,
        ),
        r(
            "listReports",
            M::GET,
            "/api/reports?reportType=2&timeframe=Custom".into(),
            Body::None,
            read,
        ),
        r(
            "reportTypes",
            M::GET,
            "/api/reports/types?channel=voice".into(),
            Body::None,
            read,
        ),
        r(
            "reportTimeframes",
            M::GET,
            "/api/reports/timeframes".into(),
            Body::None,
            read,
        ),
        r(
            "reportLatencyThresholds",
            M::GET,
            "/api/reports/latencythresholds".into(),
            Body::None,
            read,
        ),
        r(
            "getReport",
            M::GET,
            format!("/api/reports/{rep}"),
            Body::None,
            read,
        ),
        r(
            "reportLatency",
            M::GET,
            format!("/api/reports/{rep}/latency"),
            Body::None,
            read,
        ),
        r(
            "exportReport",
            M::GET,
            format!("/api/reports/{rep}/export"),
            Body::None,
            read,
        ),
        r(
            "reportTestRuns",
            M::GET,
            format!("/api/reports/{rep}/testruns?hrSlot=9&perfStatus=failure"),
            Body::None,
            read,
        ),
        // Scheduled report mail (cxwatch's addition): read with the report, set and removed
        // by administrators with read-write access (it mails their distribution lists), a
        // copy sent now by read-write callers (no mail server in this world: 409).
        r(
            "setReportSchedule",
            M::PUT,
            format!("/api/reports/{rep}/schedule"),
            Body::Json(
                json!({"frequency": "weekly", "time": "08:00", "dayOfWeek": 1,
                              "distributionID": dist, "language": "fr"}),
            ),
            [401, 403, 403, 403, 200, 401],
        ),
        r(
            "getReportSchedule",
            M::GET,
            format!("/api/reports/{rep}/schedule"),
            Body::None,
            read,
        ),
        r(
            "sendReportNow",
            M::POST,
            format!("/api/reports/{rep}/schedule/send"),
            Body::Json(json!({})),
            [401, 403, 409, 403, 409, 401],
        ),
        r(
            "deleteReportSchedule",
            M::DELETE,
            format!("/api/reports/{rep}/schedule"),
            Body::None,
            [401, 403, 403, 403, 200, 401],
        ),
        // A ROLE_USER reads only the reports of their groups.
        r(
            "getReport",
            M::GET,
            format!("/api/reports/{rep_other}"),
            Body::None,
            [401, 403, 403, 200, 200, 401],
        ),
        r(
            "createReport",
            M::POST,
            "/api/reports".into(),
            Body::Json(report(g)),
            [401, 403, 200, 403, 200, 401],
        ),
        r(
            "createReport",
            M::POST,
            "/api/reports".into(),
            Body::Json(report(g3)),
            [401, 403, 400, 403, 200, 401],
        ),
        r(
            "updateReport",
            M::PUT,
            format!("/api/reports/{rep}"),
            Body::Json(report(g)),
            [401, 403, 200, 403, 200, 401],
        ),
        r(
            "updateReport",
            M::PUT,
            format!("/api/reports/{rep_other}"),
            Body::Json(report(g3)),
            [401, 403, 403, 403, 200, 401],
        ),
        r(
            "deleteReport",
            M::DELETE,
            format!("/api/reports/{rep_other}"),
            Body::None,
            [401, 403, 403, 403, 200, 401],
        ),
        // The user with read-write access deletes it first: it is gone for the administrator.
        r(
            "deleteReport",
            M::DELETE,
            format!("/api/reports/{rep}"),
            Body::None,
            [401, 403, 200, 403, 404, 401],
        ),
        r(
            "listAlertSettings",
            M::GET,
            "/api/alerts/settings?search=matrix".into(),
            Body::None,
            read,
        ),
        r(
            "getAlertSetting",
            M::GET,
            format!("/api/alerts/settings/{al}"),
            Body::None,
            read,
        ),
        // A ROLE_USER reads only the settings of their groups.
        r(
            "getAlertSetting",
            M::GET,
            format!("/api/alerts/settings/{al_other}"),
            Body::None,
            [401, 403, 403, 200, 200, 401],
        ),
        r(
            "createAlertSetting",
            M::POST,
            "/api/alerts/settings".into(),
            Body::Json(setting(g)),
            [401, 403, 200, 403, 200, 401],
        ),
        r(
            "createAlertSetting",
            M::POST,
            "/api/alerts/settings".into(),
            Body::Json(setting(g3)),
            [401, 403, 400, 403, 200, 401],
        ),
        r(
            "updateAlertSetting",
            M::PUT,
            format!("/api/alerts/settings/{al}"),
            Body::Json(setting(g)),
            [401, 403, 200, 403, 200, 401],
        ),
        r(
            "updateAlertSetting",
            M::PUT,
            format!("/api/alerts/settings/{al_other}"),
            Body::Json(setting(g3)),
            [401, 403, 403, 403, 200, 401],
        ),
        r(
            "deleteAlertSetting",
            M::DELETE,
            format!("/api/alerts/settings/{al_other}"),
            Body::None,
            [401, 403, 403, 403, 200, 401],
        ),
        // The user with read-write access deletes it first: it is gone for the administrator.
        r(
            "deleteAlertSetting",
            M::DELETE,
            format!("/api/alerts/settings/{al}"),
            Body::None,
            [401, 403, 200, 403, 404, 401],
        ),
        r(
            "listAlertStatuses",
            M::GET,
            "/api/alerts/allStatus".into(),
            Body::None,
            read,
        ),
        r(
            "listContactGroups",
            M::GET,
            "/api/alerts/contactGroups".into(),
            Body::None,
            read,
        ),
        r(
            "listAudit",
            M::GET,
            "/api/audit".into(),
            Body::None,
            admin_write,
        ),
        // The site page (cxwatch's addition).
        r(
            "siteChecklist",
            M::GET,
            "/api/site/checklist".into(),
            Body::None,
            admin_read,
        ),
        r(
            "listApiKeys",
            M::GET,
            "/api/site/apikeys".into(),
            Body::None,
            admin_read,
        ),
        r(
            "createApiKey",
            M::POST,
            "/api/site/apikeys".into(),
            Body::Json(json!({"name": "engine-matrix"})),
            admin_write,
        ),
        r(
            "revokeApiKey",
            M::DELETE,
            "/api/site/apikeys/matrix-spare".into(),
            Body::None,
            admin_write,
        ),
        r(
            "listSiteChannels",
            M::GET,
            "/api/site/channels".into(),
            Body::None,
            admin_read,
        ),
        // No mail server in the harness: the read-write administrator is told so.
        r(
            "testSiteChannel",
            M::POST,
            "/api/site/channels/email/test".into(),
            Body::Json(json!({})),
            [401, 403, 403, 403, 409, 401],
        ),
        r(
            "liveUpdates",
            M::GET,
            "/api/live".into(),
            Body::Stream,
            read,
        ),
        r(
            "ingestRuns",
            M::POST,
            "/api/ingest/v1/runs".into(),
            Body::Json(json!({"runs": []})),
            ingest,
        ),
        r(
            "ingestRecording",
            M::POST,
            "/api/ingest/v1/recordings".into(),
            Body::Raw("audio/wav", wav()),
            ingest,
        ),
        r(
            "ingestHealth",
            M::POST,
            "/api/ingest/v1/health".into(),
            Body::Json(json!({"clientApps": []})),
            ingest,
        ),
        r(
            "listDistributionTypes",
            M::GET,
            "/api/distributions/types".into(),
            Body::None,
            admin_read,
        ),
        r(
            "listDistributions",
            M::GET,
            "/api/distributions?type=1".into(),
            Body::None,
            admin_read,
        ),
        r(
            "getDistribution",
            M::GET,
            format!("/api/distributions/{dist}"),
            Body::None,
            admin_read,
        ),
        // What uses a list (cxwatch's addition), asked before a delete: administrators.
        r(
            "getDistributionDependents",
            M::GET,
            format!("/api/distributions/{dist}/dependents"),
            Body::None,
            admin_read,
        ),
        r(
            "createDistribution",
            M::POST,
            "/api/distributions".into(),
            Body::Json(named("On call, new")),
            admin_write,
        ),
        r(
            "updateDistribution",
            M::PUT,
            format!("/api/distributions/{dist}"),
            Body::Json(list.clone()),
            admin_write,
        ),
        r(
            "deleteDistribution",
            M::DELETE,
            format!("/api/distributions/{dist_gone}"),
            Body::None,
            admin_write,
        ),
        // No mail server in this world: nothing failed upstream, the answer says that no
        // mail server is configured (409 NOT_CONFIGURED).
        r(
            "testContact",
            M::POST,
            "/api/distributions/testContact?email=ops@x.test".into(),
            Body::None,
            [401, 403, 403, 403, 409, 401],
        ),
        r(
            "listAlertEvents",
            M::GET,
            "/api/alerts/events?status=7".into(),
            Body::None,
            read,
        ),
        r(
            "countOpenAlertEvents",
            M::GET,
            "/api/alerts/events/open".into(),
            Body::None,
            read,
        ),
        r(
            "getAlertEvent",
            M::GET,
            format!("/api/alerts/events/{alert}"),
            Body::None,
            read,
        ),
        r(
            "updateAlert",
            M::PUT,
            format!("/api/alerts/{alert}"),
            Body::Json(json!({"comment": "Seen by the matrix"})),
            [401, 403, 200, 403, 200, 401],
        ),
        r(
            "muteAlert",
            M::POST,
            format!("/api/alerts/{alert}/mute"),
            Body::Json(json!({"until": in_an_hour})),
            [401, 403, 200, 403, 200, 401],
        ),
        r(
            "alertHandover",
            M::GET,
            "/api/alerts/handover".into(),
            Body::None,
            read,
        ),
        r(
            "listMaintenanceWindows",
            M::GET,
            "/api/maintenance/windows".into(),
            Body::None,
            read,
        ),
        r(
            "maintenanceNow",
            M::GET,
            "/api/maintenance/now".into(),
            Body::None,
            read,
        ),
        r(
            "getMaintenanceWindow",
            M::GET,
            "/api/maintenance/windows/900".into(),
            Body::None,
            read,
        ),
        r(
            "createMaintenanceWindow",
            M::POST,
            "/api/maintenance/windows".into(),
            Body::Json(window.clone()),
            [401, 403, 200, 403, 200, 401],
        ),
        r(
            "updateMaintenanceWindow",
            M::PUT,
            "/api/maintenance/windows/900".into(),
            Body::Json(window.clone()),
            [401, 403, 200, 403, 200, 401],
        ),
        r(
            "endMaintenanceWindow",
            M::POST,
            "/api/maintenance/windows/900/end".into(),
            Body::None,
            [401, 403, 200, 403, 200, 401],
        ),
        r(
            "acknowledgeAlert",
            M::POST,
            format!("/api/alerts/{alert}/acknowledge"),
            Body::None,
            [401, 403, 200, 403, 200, 401],
        ),
        r(
            "listIncidents",
            M::GET,
            "/api/alerts/incidents?state=open".into(),
            Body::None,
            read,
        ),
        r(
            "getIncident",
            M::GET,
            format!("/api/alerts/incidents/{incident}"),
            Body::None,
            read,
        ),
        r(
            "acknowledgeIncident",
            M::POST,
            format!("/api/alerts/incidents/{incident}/acknowledge"),
            Body::None,
            [401, 403, 200, 403, 200, 401],
        ),
        r(
            "muteIncident",
            M::POST,
            format!("/api/alerts/incidents/{incident}/mute"),
            Body::Json(json!({"until": in_an_hour})),
            [401, 403, 200, 403, 200, 401],
        ),
        r(
            "listNotifications",
            M::GET,
            "/api/notifications?state=queued".into(),
            Body::None,
            admin_read,
        ),
        r(
            "getNotification",
            M::GET,
            format!("/api/notifications/{note}"),
            Body::None,
            admin_read,
        ),
        // No Jira in this world: the ticket calls answer 409 naming the configuration to
        // those who may make them (tests/jira.rs has them against the stand-in).
        r(
            "jiraConfig",
            M::GET,
            "/api/jira/v1/config".into(),
            Body::None,
            read,
        ),
        r(
            "jiraUsers",
            M::GET,
            "/api/jira/v1/users?username=".into(),
            Body::None,
            [401, 409, 409, 409, 409, 401],
        ),
        r(
            "jiraProjects",
            M::GET,
            "/api/jira/v1/projects?username=x".into(),
            Body::None,
            [401, 409, 409, 409, 409, 401],
        ),
        r(
            "jiraIssueStatuses",
            M::GET,
            "/api/jira/v1/issueStatus?username=x".into(),
            Body::None,
            [401, 409, 409, 409, 409, 401],
        ),
        r(
            "getJiraIssue",
            M::GET,
            "/api/jira/v1/issue?username=x&issueId=CX-1".into(),
            Body::None,
            [401, 409, 409, 409, 409, 401],
        ),
        r(
            "createJiraIssue",
            M::POST,
            "/api/jira/v1/issue".into(),
            Body::Raw(TICKET_FORM_TYPE, ticket_form(rep)),
            [401, 403, 409, 403, 409, 401],
        ),
        r(
            "updateJiraIssue",
            M::PUT,
            "/api/jira/v1/issue?username=x&issueId=CX-1".into(),
            Body::Raw(TICKET_FORM_TYPE, ticket_form(rep)),
            [401, 403, 409, 403, 409, 401],
        ),
        // Auto tickets: listed for a setting of the caller's groups (900; 403 for 901, of
        // another group); edited by those who may write, once Jira is configured (409 here).
        r(
            "listAutoTickets",
            M::GET,
            "/api/alerts/autojiraticket/900?pageNo=0&pageSize=10".into(),
            Body::None,
            read,
        ),
        r(
            "listAutoTickets",
            M::GET,
            "/api/alerts/autojiraticket/901".into(),
            Body::None,
            [401, 403, 403, 200, 200, 401],
        ),
        r(
            "listWaitingAutoTickets",
            M::GET,
            "/api/alerts/autojiraticket/900/waiting".into(),
            Body::None,
            read,
        ),
        r(
            "listWaitingAutoTickets",
            M::GET,
            "/api/alerts/autojiraticket/901/waiting".into(),
            Body::None,
            [401, 403, 403, 200, 200, 401],
        ),
        r(
            "updateAutoTicket",
            M::PUT,
            "/api/autojiraticket/1".into(),
            Body::Raw(TICKET_FORM_TYPE, ticket_form(rep)),
            [401, 403, 409, 403, 409, 401],
        ),
        // Last: it ends the callers' sessions.
        r(
            "signout",
            M::POST,
            "/api/auth/signout".into(),
            Body::None,
            [401, 200, 200, 200, 200, 401],
        ),
    ];
    World { app, callers, rows }
}

const TICKET_FORM_TYPE: &str = "multipart/form-data; boundary=matrix-boundary";

/// A ticket form (`data` part only) for report `rep`.
fn ticket_form(rep: i64) -> Vec<u8> {
    format!(
        "--matrix-boundary\r\nContent-Disposition: form-data; name=\"data\"\r\n\r\n{}\r\n--matrix-boundary--\r\n",
        json!({"reportId": rep, "project": "CX", "summary": "Matrix"})
    )
    .into_bytes()
}

async fn raw(
    app: &App,
    path: &str,
    header: (&str, String),
    ct: &str,
    bytes: Vec<u8>,
) -> (u16, Value) {
    raw_with(app, Method::POST, path, header, ct, bytes).await
}

async fn raw_with(
    app: &App,
    method: Method,
    path: &str,
    header: (&str, String),
    ct: &str,
    bytes: Vec<u8>,
) -> (u16, Value) {
    let resp = app
        .client
        .request(method, path)
        .header(header.0, header.1)
        .content_type(ct)
        .body(bytes)
        .send()
        .await;
    let status = resp.0.status().as_u16();
    let body = resp.0.into_body().into_bytes().await.unwrap_or_default();
    (status, serde_json::from_slice(&body).unwrap_or(Value::Null))
}

fn operations() -> BTreeSet<String> {
    let doc: Value = serde_json::from_str(&cxwatch::api::openapi_json()).unwrap();
    let mut ops = BTreeSet::new();
    for (_, item) in doc["paths"].as_object().unwrap() {
        for (_, op) in item.as_object().unwrap() {
            if let Some(id) = op["operationId"].as_str() {
                ops.insert(id.to_string());
            }
        }
    }
    ops
}

#[tokio::test(flavor = "multi_thread")]
async fn every_operation_has_a_row() {
    let w = world().await;
    let rows: BTreeSet<String> = w.rows.iter().map(|r| r.op.to_string()).collect();
    let ops = operations();
    let missing: Vec<_> = ops.difference(&rows).collect();
    let stale: Vec<_> = rows.difference(&ops).collect();
    assert!(
        missing.is_empty(),
        "operations without a row in the role matrix: {missing:?}"
    );
    assert!(
        stale.is_empty(),
        "rows for operations that do not exist: {stale:?}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn each_caller_gets_what_the_matrix_says() {
    let w = world().await;
    let mut wrong = Vec::new();
    for row in &w.rows {
        for (i, caller) in w.callers.iter().enumerate() {
            let (status, body) = match &row.body {
                Body::Raw(ct, bytes) => match caller {
                    Some(h) => {
                        raw_with(
                            &w.app,
                            row.method.clone(),
                            &row.path,
                            h.clone(),
                            ct,
                            bytes.clone(),
                        )
                        .await
                    }
                    None => {
                        raw_with(
                            &w.app,
                            row.method.clone(),
                            &row.path,
                            ("x-none", String::new()),
                            ct,
                            bytes.clone(),
                        )
                        .await
                    }
                },
                Body::Stream => stream_status(&w.app, &row.path, caller.clone()).await,
                Body::Json(b) => {
                    w.app
                        .call_with(row.method.clone(), &row.path, caller.clone(), Some(b))
                        .await
                }
                Body::None => {
                    w.app
                        .call_with(row.method.clone(), &row.path, caller.clone(), None)
                        .await
                }
            };
            if status != row.want[i] {
                wrong.push(format!(
                    "{} as {}: {status}, expected {} ({body})",
                    row.op, CALLERS[i], row.want[i]
                ));
            }
            if status >= 400 {
                assert!(
                    body["code"].is_string() && body["messages"].is_array(),
                    "{} as {}: error outside the envelope: {body}",
                    row.op,
                    CALLERS[i]
                );
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "role matrix mismatches:\n{}",
        wrong.join("\n")
    );
}

/// Status of a GET whose 200 answer is an endless stream; an error's JSON body is read.
async fn stream_status(app: &App, path: &str, header: Option<(&str, String)>) -> (u16, Value) {
    let mut req = app.client.get(path);
    if let Some((k, v)) = header {
        req = req.header(k, v);
    }
    let resp = req.send().await.0;
    let status = resp.status().as_u16();
    if status == 200 {
        return (status, Value::Null);
    }
    let bytes = resp.into_body().into_bytes().await.unwrap_or_default();
    (
        status,
        serde_json::from_slice(&bytes).unwrap_or(Value::Null),
    )
}

/// One's own profile: every signed-in caller on their own user. A read-only
/// account reads its profile and changes its password; its username and names only an
/// account with read-write access changes, and its role, access or groups only an
/// administrator with read-write access (the last one keeps read-write: 409).
#[tokio::test(flavor = "multi_thread")]
async fn own_profile_matrix() {
    let app = App::new();
    let users = [
        app.user("own.user.ro@x.test", Role::User, AccessType::ReadOnly, &[])
            .await,
        app.user("own.user.rw@x.test", Role::User, AccessType::ReadWrite, &[])
            .await,
        app.user(
            "own.admin.ro@x.test",
            Role::Admin,
            AccessType::ReadOnly,
            &[],
        )
        .await,
        app.user(
            "own.admin.rw@x.test",
            Role::Admin,
            AccessType::ReadWrite,
            &[],
        )
        .await,
    ];
    let roles = ["ROLE_USER", "ROLE_USER", "ROLE_ADMIN", "ROLE_ADMIN"];
    let access = ["read-only", "read-write", "read-only", "read-write"];
    let profile = |i: usize, username: String, first: &str, role: &str, acc: &str| {
        json!({"id": users[i].id, "username": username, "firstName": first, "lastName": "Own",
               "roles": [role], "accessType": acc, "testCaseGroups": []})
    };
    // (operation, what, body per caller, expected per caller: user ro, user rw, admin ro,
    // admin rw). The password change comes last: it ends the caller's sessions.
    type Case<'a> = (
        &'static str,
        &'static str,
        Box<dyn Fn(usize) -> (Method, String, Value) + 'a>,
        [u16; 4],
    );
    let cases: Vec<Case<'_>> = vec![
        (
            "getUser",
            "read own profile",
            Box::new(|i| {
                (
                    Method::GET,
                    format!("/api/users/{}", users[i].id),
                    Value::Null,
                )
            }),
            [200, 200, 200, 200],
        ),
        (
            "updateUser",
            "own names",
            Box::new(|i| {
                let b = profile(i, users[i].username.clone(), "Renamed", roles[i], access[i]);
                (Method::PUT, format!("/api/users/{}", users[i].id), b)
            }),
            [403, 200, 403, 200],
        ),
        (
            "updateUser",
            "own username",
            Box::new(|i| {
                let b = profile(
                    i,
                    format!("new.{}", users[i].username),
                    "Renamed",
                    roles[i],
                    access[i],
                );
                (Method::PUT, format!("/api/users/{}", users[i].id), b)
            }),
            [403, 200, 403, 200],
        ),
        (
            "updateUser",
            "own role raised to ROLE_ADMIN",
            Box::new(|i| {
                let b = profile(
                    i,
                    format!("new.{}", users[i].username),
                    "Renamed",
                    "ROLE_ADMIN",
                    access[i],
                );
                (Method::PUT, format!("/api/users/{}", users[i].id), b)
            }),
            [403, 400, 403, 200],
        ),
        (
            "updateUser",
            "own access changed",
            Box::new(|i| {
                let other = if access[i] == "read-only" {
                    "read-write"
                } else {
                    "read-only"
                };
                let b = profile(
                    i,
                    format!("new.{}", users[i].username),
                    "Renamed",
                    roles[i],
                    other,
                );
                (Method::PUT, format!("/api/users/{}", users[i].id), b)
            }),
            [403, 400, 403, 409],
        ),
        (
            "overridePassword",
            "own password",
            Box::new(|i| {
                (
                    Method::PATCH,
                    format!("/api/users/{}/overridePassword", users[i].id),
                    json!({"oldPassword": PASSWORD, "newPassword": "violet tundra sparrow"}),
                )
            }),
            [200, 200, 200, 200],
        ),
    ];
    let mut wrong = Vec::new();
    for (op, what, req, want) in &cases {
        for (i, who) in users.iter().enumerate() {
            let (method, path, body) = req(i);
            let body = (!body.is_null()).then_some(&body);
            let (status, answer) = app.call(method, &path, Some(&who.token), body).await;
            if status != want[i] {
                wrong.push(format!(
                    "{op} ({what}) as {}: {status}, expected {} ({answer})",
                    CALLERS[i + 1],
                    want[i]
                ));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "own profile mismatches:\n{}",
        wrong.join("\n")
    );
}
