//! What the API fuzzer (`scripts/fuzz.sh`, schemathesis) holds the server to, checked
//! in-process so that a regression shows without the fuzzer: a 405 names the methods the
//! path has (`Allow`, RFC 9110 §15.5.6), in the envelope; a too long address or too large
//! headers get 414 and 431 in the envelope, not an empty body.

use crate::common;

use crate::harness;

use harness::App;
use poem::http::Method;
use serde_json::Value;

#[tokio::test(flavor = "multi_thread")]
async fn method_not_allowed_lists_the_paths_methods() {
    let app = App::new();
    for (method, path, allow) in [
        (Method::PATCH, "/api/users", "GET, POST"),
        (Method::TRACE, "/api/auth/getToken", "GET"),
        (Method::POST, "/api/users/7", "DELETE, GET, PUT"),
        (Method::DELETE, "/api/trs/v1/groups/channels", "GET"),
        (Method::GET, "/api/ingest/v1/runs", "POST"),
    ] {
        let resp = app.client.request(method.clone(), path).send().await;
        resp.assert_status(poem::http::StatusCode::METHOD_NOT_ALLOWED);
        resp.assert_header("allow", allow);
        let body = resp.json().await;
        body.value()
            .object()
            .get("code")
            .assert_string("METHOD_NOT_ALLOWED");
    }
}

#[test]
fn allowed_methods_come_from_the_document() {
    use cxwatch::api::allowed_methods;
    assert_eq!(
        allowed_methods("/users/{id}").as_deref(),
        Some("DELETE, GET, PUT")
    );
    assert_eq!(
        allowed_methods("/api/trs/v1/groups/3").as_deref(),
        Some("DELETE, GET, PUT")
    );
    assert_eq!(
        allowed_methods("/trs/v1/groups/health").as_deref(),
        Some("GET")
    );
    assert_eq!(allowed_methods("/nowhere"), None);
}

#[tokio::test(flavor = "multi_thread")]
async fn long_address_and_large_headers_get_the_envelope() {
    let app = App::new();
    let long = "a".repeat(cxwatch::server::limits::MAX_URI);
    let resp = app
        .client
        .get(format!("/api/users?search={long}"))
        .send()
        .await;
    resp.assert_status(poem::http::StatusCode::URI_TOO_LONG);
    resp.json()
        .await
        .value()
        .object()
        .get("code")
        .assert_string("URI_TOO_LONG");

    let big = "b".repeat(cxwatch::server::limits::MAX_HEADER_BYTES / 2);
    let resp = app
        .client
        .get("/api/users")
        .header("x-one", big.clone())
        .header("x-two", big)
        .send()
        .await;
    resp.assert_status(poem::http::StatusCode::REQUEST_HEADER_FIELDS_TOO_LARGE);
    resp.json()
        .await
        .value()
        .object()
        .get("code")
        .assert_string("REQUEST_HEADER_FIELDS_TOO_LARGE");

    // Below the limits: the usual answer (401 without a token).
    let resp = app.client.get("/api/users?search=ok").send().await;
    resp.assert_status(poem::http::StatusCode::UNAUTHORIZED);
}

/// A site with a day of the demo's history (runs with and without step timings, MOS and
/// recordings; reports, alerts, notifications, the audit of it all) in the app's store.
fn seed_demo(store: &cxwatch::store::Store) -> (chrono::DateTime<chrono::Utc>, String) {
    use cxwatch::demo::audio::ClipId;
    use cxwatch::demo::generator::Generator;
    use cxwatch::store::catalog::GroupDraft;
    use cxwatch::store::Store;
    use std::collections::HashMap;

    let store = store.clone();
    std::thread::spawn(move || {
        let config = cxwatch::config::Config::default();
        let tz = config.tz();
        let clips: HashMap<ClipId, String> = ClipId::ALL
            .iter()
            .map(|c| {
                let rec = Store::block_on(store.put_recording(c.wav().into(), "audio/wav"));
                (*c, rec.unwrap().id)
            })
            .collect();
        let clip = clips.values().next().unwrap().clone();
        let generator = std::sync::Arc::new(Generator::new(7, tz, common::now(), clips));
        let to = generator.anchor();
        let from = to - chrono::Duration::days(1);
        let g = generator.clone();
        cxwatch::demo::ingest_history(&store, &generator, tz, from, to, |store| {
            for group in &g.catalog().groups {
                Store::block_on(store.create_group(&GroupDraft {
                    name: group.name.to_string(),
                    channel: group.channel,
                    test_case_ids: group.cases.to_vec(),
                }))?;
            }
            Store::block_on(store.put_health(g.health_at(to)))?;
            cxwatch::demo::reports::seed_reports(store, tz, to)?;
            Ok(())
        })
        .unwrap();
        Store::block_on(cxwatch::demo::distributions::ensure(&store, &config)).unwrap();
        cxwatch::demo::alerts::ensure(&store, tz, from.timestamp_millis()).unwrap();
        (to, clip)
    })
    .join()
    .unwrap()
}

/// Errors of `value` against an OpenAPI 3.0 schema of `doc` (the subset poem-openapi
/// writes: `$ref`, `allOf`/`oneOf`/`anyOf`, `type`, `nullable`, `properties`, `required`,
/// `items`, `additionalProperties`, `enum`), each with its JSON path.
fn schema_errors(doc: &Value, schema: &Value, value: &Value, at: &str, out: &mut Vec<String>) {
    if let Some(r) = schema.get("$ref").and_then(Value::as_str) {
        let name = r.trim_start_matches("#/components/schemas/");
        return schema_errors(doc, &doc["components"]["schemas"][name], value, at, out);
    }
    if value.is_null() {
        if schema["nullable"] != Value::Bool(true) && schema_says_something(schema) {
            out.push(format!(
                "{at}: null, but the schema is not nullable: {schema}"
            ));
        }
        return;
    }
    if let Some(all) = schema.get("allOf").and_then(Value::as_array) {
        for s in all {
            schema_errors(doc, s, value, at, out);
        }
    }
    for key in ["oneOf", "anyOf"] {
        if let Some(any) = schema.get(key).and_then(Value::as_array) {
            let fits = any.iter().any(|s| {
                let mut e = Vec::new();
                schema_errors(doc, s, value, at, &mut e);
                e.is_empty()
            });
            if !fits {
                out.push(format!("{at}: fits none of {key}"));
            }
        }
    }
    if let Some(allowed) = schema.get("enum").and_then(Value::as_array) {
        if !allowed.contains(value) {
            out.push(format!("{at}: {value} is not one of {allowed:?}"));
        }
    }
    let fits = match schema.get("type").and_then(Value::as_str) {
        None => true,
        Some("object") => value.is_object(),
        Some("array") => value.is_array(),
        Some("string") => value.is_string(),
        Some("integer") => value.is_i64() || value.is_u64(),
        Some("number") => value.is_number(),
        Some("boolean") => value.is_boolean(),
        Some(other) => panic!("type {other} in the document"),
    };
    if !fits {
        out.push(format!("{at}: {value} is not a {}", schema["type"]));
        return;
    }
    if let Some(obj) = value.as_object() {
        for req in schema["required"].as_array().into_iter().flatten() {
            if !obj.contains_key(req.as_str().unwrap()) {
                out.push(format!("{at}: {req} is missing"));
            }
        }
        for (k, v) in obj {
            if let Some(s) = schema["properties"].get(k) {
                schema_errors(doc, s, v, &format!("{at}.{k}"), out);
            } else if let Some(s) = schema.get("additionalProperties").filter(|s| s.is_object()) {
                schema_errors(doc, s, v, &format!("{at}.{k}"), out);
            }
        }
    }
    if let (Some(items), Some(arr)) = (schema.get("items"), value.as_array()) {
        for (i, v) in arr.iter().enumerate() {
            schema_errors(doc, items, v, &format!("{at}[{i}]"), out);
        }
    }
}

/// Whether a schema restricts its value at all (`{}` allows null too).
fn schema_says_something(schema: &Value) -> bool {
    [
        "type",
        "allOf",
        "oneOf",
        "anyOf",
        "enum",
        "properties",
        "items",
    ]
    .iter()
    .any(|k| schema.get(k).is_some())
}

/// `text` without the indexes of its JSON paths: `a[12].b` is `a[].b`.
fn unindexed(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_index = false;
    for c in text.chars() {
        match c {
            '[' => in_index = true,
            ']' if in_index => in_index = false,
            c if in_index && c.is_ascii_digit() => continue,
            _ => {}
        }
        out.push(c);
    }
    out
}

/// The first `id` (an alert event's `alertId`) in a list answer's data (an array, or a
/// page's `content`).
fn first_id(answer: &Value) -> i64 {
    let data = &answer["data"];
    let items = data
        .as_array()
        .or_else(|| data["content"].as_array())
        .unwrap_or_else(|| panic!("not a list: {answer}"));
    items
        .iter()
        .find_map(|i| i["id"].as_i64().or_else(|| i["alertId"].as_i64()))
        .unwrap_or_else(|| panic!("no id in {answer}"))
}

/// Answers on real data carry what an empty database never shows (null timings, MOS and
/// latencies, reports without a ticket, recordings, CSV exports): every one must be what
/// the OpenAPI document says, body and content type, as the fuzzer (`scripts/fuzz.sh` on
/// the demo's data) checks them.
#[tokio::test(flavor = "multi_thread")]
async fn answers_on_demo_data_match_the_document() {
    use cxwatch::domain::caller::{AccessType, Role};

    let app = App::new();
    let (to, clip) = seed_demo(&app.store);
    let admin = app
        .user("admin@example.com", Role::Admin, AccessType::ReadWrite, &[])
        .await;
    let doc: Value = serde_json::from_str(&cxwatch::api::openapi_json()).unwrap();
    let day = to.format("%Y-%m-%d").to_string();
    let from = (to - chrono::Duration::days(1))
        .format("%Y-%m-%d")
        .to_string();
    let token = Some(admin.token.as_str());

    let mut errors = Vec::new();
    let mut checked = 0;
    let mut check = |template: &str, answer: &Value| {
        let content = &doc["paths"][template.trim_start_matches("/api")]["get"]["responses"]["200"]
            ["content"];
        let schema = content
            .as_object()
            .and_then(|c| c.iter().find(|(k, _)| k.starts_with("application/json")))
            .map(|(_, media)| &media["schema"])
            .unwrap_or_else(|| panic!("{template} has no JSON 200 answer"));
        schema_errors(&doc, schema, answer, template, &mut errors);
        checked += 1;
    };
    let get = async |path: String| {
        let (status, answer) = app.call(Method::GET, &path, token, None).await;
        assert_eq!(status, 200, "{path}: {answer}");
        answer
    };

    let groups = get("/api/trs/v1/groups".into()).await;
    let group = first_id(&groups);
    let runs = get(format!(
        "/api/trs/v1/groups/{group}/runs?startDate={from}&endDate={day}&pageSize=1000"
    ))
    .await;
    let run_ids: Vec<i64> = runs["data"]["content"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| r["runId"].as_i64())
        .take(40)
        .collect();
    assert!(!run_ids.is_empty(), "no runs");
    let reports = get("/api/reports".into()).await;
    let report = first_id(&reports);
    let events = get("/api/alerts/events".into()).await;

    for (template, path) in [
        ("/api/trs/v1/groups", "/api/trs/v1/groups".to_string()),
        (
            "/api/trs/v1/groups/health",
            "/api/trs/v1/groups/health".into(),
        ),
        (
            "/api/trs/v1/groups/recent",
            "/api/trs/v1/groups/recent".into(),
        ),
        (
            "/api/trs/v1/groups/hourly",
            format!("/api/trs/v1/groups/hourly?startDate={from}&endDate={day}"),
        ),
        (
            "/api/trs/v1/groups/{id}/metric",
            format!("/api/trs/v1/groups/{group}/metric?startDate={from}&endDate={day}"),
        ),
        (
            "/api/trs/v1/groups/{id}/metric",
            format!(
                "/api/trs/v1/groups/{group}/metric?level=segment&startDate={from}&endDate={day}"
            ),
        ),
        (
            "/api/trs/v1/groups/{id}/mos",
            format!("/api/trs/v1/groups/{group}/mos?startDate={from}&endDate={day}"),
        ),
        (
            "/api/trs/v1/groups/{id}/runs",
            format!("/api/trs/v1/groups/{group}/runs?startDate={from}&endDate={day}&pageSize=1000"),
        ),
        ("/api/reports", "/api/reports".into()),
        ("/api/reports/{id}", format!("/api/reports/{report}")),
        (
            "/api/reports/{id}/latency",
            format!("/api/reports/{report}/latency"),
        ),
        (
            "/api/reports/{id}/testruns",
            format!("/api/reports/{report}/testruns"),
        ),
        ("/api/alerts/events", "/api/alerts/events".into()),
        ("/api/notifications", "/api/notifications".into()),
        ("/api/audit", "/api/audit".into()),
    ] {
        let answer = get(path).await;
        check(template, &answer);
    }
    for id in &run_ids {
        let answer = get(format!("/api/trs/v1/testruns/{id}")).await;
        check("/api/trs/v1/testruns/{id}", &answer);
    }
    // A report's schedule, or `data: null` for a report without one.
    let report_ids: Vec<i64> = reports["data"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| r["id"].as_i64())
        .collect();
    let mut nulls = 0;
    for id in &report_ids {
        let answer = get(format!("/api/reports/{id}/schedule")).await;
        nulls += usize::from(answer["data"].is_null());
        check("/api/reports/{id}/schedule", &answer);
    }
    assert!(
        nulls > 0,
        "{nulls} of {} reports without a schedule",
        report_ids.len()
    );
    if events["data"]["content"]
        .as_array()
        .is_some_and(|e| !e.is_empty())
    {
        let id = first_id(&events);
        let answer = get(format!("/api/alerts/events/{id}")).await;
        check("/api/alerts/events/{id}", &answer);
    }
    // One line per field of an operation, whatever the item: `data[3].x` is `data[].x`.
    let distinct: std::collections::BTreeSet<String> =
        errors.iter().map(|e| unindexed(e)).collect();
    assert!(
        errors.is_empty(),
        "{checked} answers, {} errors in {} fields:\n{}",
        errors.len(),
        distinct.len(),
        distinct.into_iter().collect::<Vec<_>>().join("\n")
    );

    // Downloads: the content type sent is one the document names.
    for (template, path) in [
        (
            "/api/trs/v1/recordings/{id}",
            format!("/api/trs/v1/recordings/{clip}"),
        ),
        (
            "/api/trs/v1/getContent",
            format!("/api/trs/v1/getContent?attachmentUrl=recordings/{clip}"),
        ),
        (
            "/api/reports/{id}/export",
            format!("/api/reports/{report}/export"),
        ),
    ] {
        let resp = app
            .client
            .get(&path)
            .header("authorization", format!("Bearer {}", admin.token))
            .send()
            .await;
        resp.assert_status_is_ok();
        let sent = resp.0.headers()["content-type"]
            .to_str()
            .unwrap()
            .to_string();
        let essence = sent.split(';').next().unwrap().trim();
        let documented: Vec<&String> = doc["paths"][template.trim_start_matches("/api")]["get"]
            ["responses"]["200"]["content"]
            .as_object()
            .unwrap()
            .keys()
            .collect();
        assert!(
            documented
                .iter()
                .any(|d| d.split(';').next().unwrap().trim() == essence),
            "{path}: sent {sent}, documented {documented:?}"
        );
    }
}

/// The OpenAPI document, parsed.
fn document() -> Value {
    serde_json::from_str(&cxwatch::api::openapi_json()).unwrap()
}

/// Each operation of the document: (operationId, method, path, its error statuses).
fn operations(doc: &Value) -> Vec<(String, String, String, Vec<u16>)> {
    let mut out = Vec::new();
    for (path, ops) in doc["paths"].as_object().unwrap() {
        for (method, op) in ops.as_object().unwrap() {
            let errors = op["responses"]
                .as_object()
                .unwrap()
                .keys()
                .filter_map(|k| k.parse::<u16>().ok())
                .filter(|s| *s >= 400)
                .collect();
            out.push((
                op["operationId"].as_str().unwrap().to_string(),
                method.clone(),
                path.clone(),
                errors,
            ));
        }
    }
    out
}

/// Each operation lists the errors it can give, not one list for all: a public
/// call no 401 or 403 (sign-in's wrong credentials and kiosk refusal aside), a call without
/// a body no 413 or 415, no call every status; the statuses tests meet are held to these
/// lists by `tests/harness` (`documented_statuses`).
#[test]
fn each_operation_lists_only_its_errors() {
    let doc = document();
    let ops = operations(&doc);
    let of = |id: &str| {
        ops.iter()
            .find(|o| o.0 == id)
            .unwrap_or_else(|| panic!("no operation {id}"))
            .3
            .clone()
    };
    assert_eq!(of("getUser"), [400, 401, 403, 404, 500, 503, 507]);
    assert_eq!(of("listUsers"), [400, 401, 403, 500, 503, 507]);
    assert_eq!(
        of("createUser"),
        [400, 401, 403, 409, 413, 415, 500, 503, 507]
    );
    assert_eq!(of("signin"), [400, 401, 403, 413, 415, 429, 500, 503, 507]);
    assert_eq!(of("reportTimeframes"), [401, 500, 503, 507]);
    assert_eq!(of("listGroups"), [401, 500, 503, 507]);
    assert_eq!(of("ssoStart"), Vec::<u16>::new());
    for (id, method, path, errors) in &ops {
        let op = &doc["paths"][path][method];
        let public = op["security"].as_array().is_none_or(|s| s.is_empty());
        if public && !["signin", "getToken"].contains(&id.as_str()) {
            assert!(!errors.contains(&401), "{id} is public: no 401");
        }
        if public && id != "signin" {
            assert!(!errors.contains(&403), "{id} is public: no 403");
        }
        if op.get("requestBody").is_none() {
            assert!(
                !errors.contains(&413) && !errors.contains(&415),
                "{id} takes no body: no 413 or 415"
            );
        }
        if method == "get" {
            assert!(!errors.contains(&413), "{id}");
        }
        assert!(errors.len() < 12, "{id} lists every error: {errors:?}");
    }
    let distinct: std::collections::BTreeSet<&Vec<u16>> = ops.iter().map(|o| &o.3).collect();
    assert!(
        distinct.len() > 10,
        "{} distinct error lists",
        distinct.len()
    );
}

/// The save bodies declare the fields the server requires (spec §3, §5), with the spec's
/// names; the server still names a missing one in `fields` (tests/users.rs, trs_api.rs).
#[test]
fn save_bodies_declare_their_required_fields() {
    let doc = document();
    let required = |schema: &str| -> Vec<String> {
        let mut r: Vec<String> = doc["components"]["schemas"][schema]["required"]
            .as_array()
            .unwrap_or_else(|| panic!("{schema} declares no required field"))
            .iter()
            .map(|v| v.as_str().unwrap().to_string())
            .collect();
        r.sort();
        r
    };
    assert_eq!(
        required("UserSave"),
        ["accessType", "firstName", "lastName", "roles", "username"]
    );
    assert_eq!(required("PasswordChange"), ["newPassword"]);
    assert_eq!(required("SignInRequest"), ["password", "username"]);
    assert_eq!(
        required("ReportSave"),
        ["name", "reportTypeID", "testCaseGroupID"]
    );
    assert_eq!(
        required("AlertSettingSave"),
        [
            "alertStatus",
            "distributionId",
            "emailSubject",
            "failureToAlert",
            "name",
            "schedule",
            "smsPrefix",
            "testCaseGroupId",
            "voiceMessage"
        ]
    );
    assert_eq!(required("MaintenanceWindowSave"), ["kind", "reason"]);
    assert_eq!(
        required("ScheduleSave"),
        ["distributionID", "frequency", "time"]
    );
    assert_eq!(required("DistributionSave"), ["contacts", "name"]);
    assert_eq!(required("ContactSave"), ["info", "name", "type"]);
    assert_eq!(required("GroupSave"), ["channel", "name", "testCases"]);
}

/// Closed vocabularies are enums of the document, with the wire strings of the spec.
#[test]
fn closed_vocabularies_are_enums() {
    let doc = document();
    let values = |schema: &str| -> Vec<String> {
        doc["components"]["schemas"][schema]["enum"]
            .as_array()
            .unwrap_or_else(|| panic!("{schema} is not an enum"))
            .iter()
            .map(|v| v.as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(values("Role"), ["ROLE_ADMIN", "ROLE_USER"]);
    assert_eq!(values("AccessType"), ["read-write", "read-only"]);
    assert_eq!(values("Channel"), ["voice", "web"]);
    assert_eq!(values("RunType"), ["Manual", "Schedule"]);
    assert_eq!(values("RunStatus"), ["pass", "warn", "fail", "stopped"]);
    assert_eq!(values("NotificationState"), ["queued", "sent", "failed"]);
    assert_eq!(
        values("Timeframe"),
        [
            "Custom",
            "Today",
            "Yesterday",
            "Current Week",
            "Last Week",
            "Current Month",
            "Last Month",
            "Last Year"
        ]
    );
    let codes: Vec<&str> = cxwatch::api::envelope::ErrorCode::ALL
        .iter()
        .map(|c| c.as_str())
        .collect();
    assert_eq!(values("ErrorCode"), codes);
    // Where they are used: answers and inputs alike.
    let prop = |schema: &str, field: &str| {
        doc["components"]["schemas"][schema]["properties"][field].to_string()
    };
    assert!(prop("User", "roles").contains("#/components/schemas/Role"));
    assert!(prop("UserSave", "accessType").contains("#/components/schemas/AccessType"));
    assert!(prop("GroupSave", "channel").contains("#/components/schemas/Channel"));
    assert!(prop("RunItem", "runType").contains("#/components/schemas/RunType"));
}

/// The error codes are written once (`ErrorCode`'s table in `api/envelope.rs`):
/// `docs/api.md` lists the same codes with the same statuses, in the same order.
#[test]
fn the_error_code_table_of_the_docs_is_the_enum() {
    let text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/api.md")).unwrap();
    let documented: Vec<(u16, String)> = text
        .lines()
        .filter_map(|l| {
            let cells: Vec<&str> = l.split('|').map(str::trim).collect();
            let status = cells.get(1)?.parse::<u16>().ok()?;
            let code = cells.get(2)?.strip_prefix('`')?.strip_suffix('`')?;
            code.chars()
                .all(|c| c.is_ascii_uppercase() || c == '_')
                .then(|| (status, code.to_string()))
        })
        .collect();
    let table: Vec<(u16, String)> = cxwatch::api::envelope::ErrorCode::ALL
        .iter()
        .map(|c| (c.status().as_u16(), c.as_str().to_string()))
        .collect();
    assert_eq!(documented, table);
}

/// A field of an answer that may have no value is sent as `null`: the document marks every
/// `Option` field of an object `nullable`, unless it is left out when empty
/// (`skip_serializing_if_is_none`). Read from the source, so that a new field cannot forget.
#[test]
fn every_option_field_declares_null() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/src/api");
    let mut missing = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        let (mut object, mut in_struct, mut attrs) = (false, false, String::new());
        for (n, line) in text.lines().enumerate() {
            let l = line.trim();
            if l.starts_with("#[derive(") && l.contains("Object") {
                object = true;
            } else if object && l.starts_with("pub struct ") && l.ends_with('{') {
                (object, in_struct) = (false, true);
                attrs.clear();
            } else if in_struct && l == "}" {
                in_struct = false;
            } else if in_struct && (l.starts_with("#[") || l.starts_with("///")) {
                attrs.push_str(l);
            } else if in_struct {
                if l.starts_with("pub ")
                    && l.contains(": Option<")
                    && !attrs.contains("nullable")
                    && !attrs.contains("skip_serializing_if_is_none")
                {
                    missing.push(format!("{}:{}: {l}", path.display(), n + 1));
                }
                attrs.clear();
            }
        }
    }
    assert!(
        missing.is_empty(),
        "not declared nullable:\n{}",
        missing.join("\n")
    );
}

/// Rules of a single value are in the document, so that a client (and the fuzzer,
/// `scripts/fuzz.sh`) tells a valid request from its schema: closed lists of integers as
/// enums, dates and times as formats, sort orders and lists as patterns, ranges and lengths.
#[test]
fn single_value_rules_are_stated() {
    let doc = document();
    let param = |path: &str, name: &str| -> Value {
        let params = doc["paths"][path]["get"]["parameters"]
            .as_array()
            .unwrap_or_else(|| panic!("{path} has no parameters"));
        params
            .iter()
            .find(|p| p["name"] == name)
            .unwrap_or_else(|| panic!("{path} has no {name}"))["schema"]
            .clone()
    };
    let enum_of = |v: Value| v["enum"].clone();
    assert_eq!(
        enum_of(param("/alerts/events", "status")),
        serde_json::json!([3, 4, 7])
    );
    assert_eq!(
        enum_of(param("/distributions", "type")),
        serde_json::json!([1, 2, 4, 8, 16, 32, 64])
    );
    assert_eq!(
        enum_of(param("/reports/{id}/testruns", "latencyThres")),
        serde_json::json!([-1, 1, 2, 3, 4, 5, 6, 7, 8])
    );
    for (path, name) in [
        ("/trs/v1/groups/{id}/metric", "startDate"),
        ("/trs/v1/groups/{id}/mos", "endDate"),
        ("/trs/v1/groups/hourly", "startDate"),
        ("/trs/v1/testcases/{id}/runs", "startDate"),
        ("/trs/v1/groups/{id}/runs", "endDate"),
        ("/reports/{id}/testruns", "startDate"),
        ("/reports", "endDate"),
    ] {
        assert_eq!(param(path, name)["format"], "date", "{path} {name}");
    }
    for (path, name) in [
        ("/audit", "from"),
        ("/audit", "to"),
        ("/alerts/handover", "since"),
    ] {
        assert_eq!(param(path, name)["format"], "date-time", "{path} {name}");
    }
    for (path, column) in [
        ("/reports", "lastModifiedTime"),
        ("/alerts/settings", "distributionName"),
        ("/distributions", "lastModifiedTime"),
        ("/users", "username"),
        ("/trs/v1/groups/page", "caseCount"),
        ("/trs/v1/testcases/{id}/runs", "runDuration"),
    ] {
        let pattern = param(path, "sort")["pattern"].as_str().unwrap().to_string();
        assert!(pattern.contains(column), "{path}: {pattern}");
        assert!(pattern.ends_with(",(asc|desc))?$"), "{path}: {pattern}");
    }
    assert_eq!(param("/reports/{id}/testruns", "maxMos")["maximum"], 5.0);
    assert!(param("/reports", "timeframe")["pattern"]
        .as_str()
        .unwrap()
        .contains("Current Week"));
    assert!(param("/trs/v1/groups/{id}/metric", "level")
        .to_string()
        .contains("MetricLevel"));
    assert!(param("/alerts/incidents", "state")
        .to_string()
        .contains("IncidentStateFilter"));
    assert!(param("/trs/v1/getContent", "attachmentUrl")["pattern"]
        .as_str()
        .unwrap()
        .contains("[0-9a-f]{64}"));

    let prop = |schema: &str, field: &str| {
        doc["components"]["schemas"][schema]["properties"][field].clone()
    };
    assert_eq!(prop("ApiKeySave", "name")["maxLength"], 100);
    assert_eq!(prop("GroupSave", "name")["maxLength"], 200);
    assert!(prop("GroupSave", "name")["pattern"].is_string());
    assert_eq!(prop("SignInRequest", "username")["maxLength"], 254);
    assert_eq!(prop("AlertMute", "until")["format"], "date-time");
    assert!(prop("ScheduleSave", "frequency")
        .to_string()
        .contains("Frequency"));
    assert_eq!(prop("UserSave", "username")["maxLength"], 254);
    assert!(prop("UserSave", "username")["pattern"]
        .as_str()
        .unwrap()
        .contains('@'));
    assert_eq!(prop("UserSave", "password")["minLength"], 12);
    assert_eq!(prop("PasswordChange", "newPassword")["maxLength"], 128);
    assert_eq!(prop("UserSave", "roles")["minItems"], 1);
    assert_eq!(prop("GroupSave", "testCases")["minItems"], 1);
    assert_eq!(prop("DistributionSave", "contacts")["minItems"], 1);
    assert_eq!(prop("DistributionSave", "contacts")["maxItems"], 200);
    assert_eq!(
        prop("ContactSave", "type")["enum"],
        serde_json::json!([1, 2, 4, 8, 16, 32, 64])
    );
    assert_eq!(
        prop("ReportSave", "reportTypeID")["enum"],
        serde_json::json!([1, 2, 5, 6, 7])
    );
    assert_eq!(prop("ReportSave", "testCaseGroupID")["minimum"], 1.0);
    assert_eq!(prop("ReportSave", "timeframeBegin")["format"], "date");
    assert_eq!(
        prop("AlertSettingSave", "failureToAlert")["enum"],
        serde_json::json!([1, 2, 3, 5, 10])
    );
    assert_eq!(
        prop("AlertSettingSave", "escalationDelayMin")["maximum"],
        10080.0
    );
    assert_eq!(prop("ScheduleSlot", "dayOfWeek")["maximum"], 7.0);
    assert!(prop("ScheduleSlot", "endTimeSlot")["pattern"]
        .as_str()
        .unwrap()
        .contains("24:00"));
    assert_eq!(prop("ScheduleSave", "dayOfMonth")["maximum"], 31.0);
    assert_eq!(prop("MaintenanceWindowSave", "reason")["maxLength"], 500);
    assert_eq!(
        prop("MaintenanceWindowSave", "endTime")["format"],
        "date-time"
    );
    assert_eq!(prop("AlertChange", "comment")["maxLength"], 4000);
    assert!(prop("AlertChange", "jiraTicket")["pattern"].is_string());
    // Bodies read with unknown fields refused say so.
    for schema in ["RunBatchBody", "HealthBatchBody", "IngestClientApp"] {
        assert_eq!(
            doc["components"]["schemas"][schema]["additionalProperties"], false,
            "{schema}"
        );
    }
    // A report without a schedule answers `data: null`, and the document says so.
    assert!(prop("MaybeSchedule", "data")
        .to_string()
        .contains("\"nullable\":true"));
}

/// A name is a JSON string: `false` or `123` is refused, not stored as "false" or "123". An
/// empty value of a closed list (`state=`) is none of its values: 400 naming the parameter,
/// not the same as leaving the parameter out.
#[tokio::test(flavor = "multi_thread")]
async fn names_are_strings_and_empty_choices_are_refused() {
    use cxwatch::domain::caller::{AccessType, Role};
    use serde_json::json;

    let app = App::new();
    let admin = app
        .user("admin@example.com", Role::Admin, AccessType::ReadWrite, &[])
        .await;
    let token = Some(admin.token.as_str());
    for name in [json!(false), json!(123), json!(1.5), json!(["k"])] {
        let body = json!({ "name": name });
        let (status, answer) = app
            .call(Method::POST, "/api/site/apikeys", token, Some(&body))
            .await;
        assert_eq!(status, 400, "{body}: {answer}");
        assert_eq!(answer["code"], "BAD_REQUEST", "{answer}");
    }
    let (status, keys) = app
        .call(Method::GET, "/api/site/apikeys", token, None)
        .await;
    assert_eq!(status, 200, "{keys}");
    assert_eq!(keys["data"], json!([]), "{keys}");
    let body = json!({ "name": "engine-1" });
    let (status, answer) = app
        .call(Method::POST, "/api/site/apikeys", token, Some(&body))
        .await;
    assert_eq!(status, 200, "{answer}");
    assert_eq!(answer["data"]["name"], "engine-1");

    for (path, field) in [
        ("/api/alerts/events?state=", "state"),
        ("/api/alerts/incidents?state=", "state"),
        ("/api/users?role=", "role"),
        ("/api/reports/types?channel=", "channel"),
        (
            "/api/trs/v1/groups/hourly?startDate=2026-03-08&caseRunType=",
            "caseRunType",
        ),
        (
            "/api/trs/v1/groups/7/metric?startDate=2026-03-08&level=",
            "level",
        ),
        // A NUL character is in no stored text (PostgreSQL's text cannot hold one).
        ("/api/audit?action=create%00", "action"),
        ("/api/users?search=a%00", "search"),
        ("/api/trs/v1/groups/page?search=a%00", "search"),
    ] {
        let (status, answer) = app.call(Method::GET, path, token, None).await;
        assert_eq!(status, 400, "{path}: {answer}");
        assert_eq!(answer["fields"][0]["field"], field, "{path}: {answer}");
    }
    // Left out, the parameter takes its default.
    let (status, answer) = app
        .call(Method::GET, "/api/alerts/events", token, None)
        .await;
    assert_eq!(status, 200, "{answer}");
}
