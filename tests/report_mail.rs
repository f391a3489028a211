//! The report mail at a real SMTP server (`tests/sinks`): 'Send now' with no body at all
//! and with a language, the mail's words from the console's catalogs (singular and plural
//! in English and French), a report name with `<`, `&`, `'` and `"` escaped in the HTML and
//! kept in the text and subject, the copy's footer that does not claim the schedule, and the
//! inline chart, a PNG that decodes at its size.

use crate::harness;
use crate::harness_trs;
use crate::sinks;

use base64::Engine;
use harness::App;
use harness_trs::{admin, group, ingest_ok, run};
use poem::http::Method;
use serde_json::{json, Value};
use sinks::Sinks;

const NAME: &str = r#"Q&A <weekly> "it's""#;

/// The mails the sink got whose subject names the report.
async fn copies(sinks: &Sinks) -> Vec<Value> {
    sinks.messages().await["mail"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["subject"].as_str().unwrap_or("").contains(NAME))
        .cloned()
        .collect()
}

/// The chart attachment's bytes, decoded as PNG: width and height.
fn chart_size(mail: &Value) -> (u32, u32) {
    let att = mail["attachments"].as_array().unwrap();
    let png = att
        .iter()
        .find(|a| a["contentType"] == "image/png")
        .expect("a chart");
    assert_eq!(png["related"], true, "the chart is inline: {png}");
    assert_eq!(png["contentId"], "<chart@cxwatch>");
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(png["base64"].as_str().unwrap())
        .unwrap();
    let mut reader = png::Decoder::new(std::io::Cursor::new(bytes))
        .read_info()
        .expect("the chart is a PNG");
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).expect("its image decodes");
    (info.width, info.height)
}

#[tokio::test(flavor = "multi_thread")]
async fn send_now_mails_a_copy_in_the_consoles_words_with_no_body_needed() {
    let sinks = Sinks::start(&[]);
    let app = App::with_config(|c| sinks.configure(c));
    let a = admin(&app).await;
    let t = a.token.as_str();
    // One failed run of case 1 in the report's fixed period, and one run of case 2 that passed.
    let key = app.api_key("mail").await;
    ingest_ok(
        &app,
        &key,
        &[
            run("m1", 1, "2026-01-15T15:05:00Z", "fail"),
            run("m2", 2, "2026-01-15T16:05:00Z", "pass"),
        ],
    )
    .await;
    let g = group(&app, "Retail & <Co>", "voice", &[1, 2]).await;
    let (s, b) = app
        .call(
            Method::POST,
            "/api/reports?pageNo=0",
            Some(t),
            Some(&json!({"name": NAME, "description": "", "reportTypeID": 1,
                "testCaseGroupID": g, "timeframeName": "Custom",
                "timeframeBegin": "2026-01-15", "timeframeEnd": "2026-01-16",
                "runType": "Schedule", "latencyWarn": 1000, "latencyFail": 2000})),
        )
        .await;
    assert_eq!(s, 200, "{b}");
    let id = b["data"]["id"].as_i64().unwrap();

    // No body and no Content-Type: the copy goes out in the default language.
    let path = format!("/api/reports/{id}/schedule/send");
    let (s, b) = app.call(Method::POST, &path, Some(t), None).await;
    assert_eq!(s, 200, "{b}");
    assert_eq!(b["data"]["to"], a.username.as_str());
    let mails = copies(&sinks).await;
    assert_eq!(mails.len(), 1, "{mails:?}");
    let m = &mails[0];
    assert_eq!(
        m["subject"],
        format!("cxwatch report: {NAME} (2026-01-15 – 2026-01-16)")
    );
    let text = m["text"].as_str().unwrap();
    assert!(text.contains("Test runs: 2 (previous period: 0)"), "{text}");
    assert!(
        text.contains("Case 001 — 1 failure of 1 run (100.00%)"),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "— A copy sent now from the console at the request of {}.",
            a.username
        )),
        "{text}"
    );
    assert!(!text.contains("schedule"), "{text}");
    let html = m["html"].as_str().unwrap();
    assert!(
        html.contains("Q&#38;A &#60;weekly&#62; &#34;it&#39;s&#34;"),
        "{html}"
    );
    assert!(html.contains("Retail &#38; &#60;Co&#62;"), "{html}");
    assert!(
        !html.contains("<weekly>") && !html.contains("<Co>"),
        "{html}"
    );
    // The sink's parser (mailparser) puts the related chart in place of its `cid:` link.
    assert!(html.contains("src=\"data:image/png;base64,"), "{html}");
    assert_eq!(chart_size(m), (640, 240));

    // An empty JSON body and `null` are no body either; a language says the copy's.
    for body in [json!(null), json!({"language": "fr"})] {
        let (s, b) = app.call(Method::POST, &path, Some(t), Some(&body)).await;
        assert_eq!(s, 200, "{body}: {b}");
    }
    let mails = copies(&sinks).await;
    assert_eq!(mails.len(), 3);
    let fr = mails
        .iter()
        .find(|m| {
            m["subject"]
                .as_str()
                .unwrap()
                .starts_with("Rapport cxwatch")
        })
        .expect("the French copy");
    let text = fr["text"].as_str().unwrap();
    assert!(
        text.contains("Case 001 — 1 échec sur 1 exécution (100,00\u{202f}%)"),
        "{text}"
    );
    assert!(text.contains("Performance des cas de test"), "{text}");
    assert!(
        text.contains("Copie envoyée maintenant depuis la console à la demande de"),
        "{text}"
    );
    assert!(!text.contains("planification"), "{text}");
    assert_eq!(chart_size(fr), (640, 240));

    // A body that is not the request's shape is still refused, naming the problem.
    let (s, b) = app
        .call(
            Method::POST,
            &path,
            Some(t),
            Some(&json!({"language": "de"})),
        )
        .await;
    assert_eq!(s, 400, "{b}");
}
