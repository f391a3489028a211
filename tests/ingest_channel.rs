//! A run cannot change the channel of its test case: a voice test case
//! in a voice group stays voice when a run says web; the item is refused with its reason
//! and the good items of the batch are stored.

use crate::harness_trs;

use harness_trs::{admin, app, group, post_runs, run};
use poem::http::Method;
use serde_json::{json, Value};

#[tokio::test(flavor = "multi_thread")]
async fn a_run_cannot_move_a_test_case_to_another_channel() {
    let (app, _dir) = app();
    let key = app.api_key("engine").await;
    let (status, body) =
        post_runs(&app, &key, &[run("v1", 12, "2026-07-15T14:05:00Z", "pass")]).await;
    assert_eq!(status, 200, "{body}");
    let group_id = group(&app, "Voice", "voice", &[12]).await;

    let mut web = run("w1", 12, "2026-07-15T15:05:00Z", "pass");
    web["testCase"]["channel"] = json!("web");
    // A new web test case on the voice test case's IVR application is refused too.
    let mut web_on_voice_ivr = run("w2", 14, "2026-07-15T15:05:00Z", "pass");
    web_on_voice_ivr["testCase"]["channel"] = json!("web");
    let good = run("v2", 12, "2026-07-15T16:05:00Z", "fail");
    let (status, body) = post_runs(&app, &key, &[web, good, web_on_voice_ivr]).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["data"]["accepted"], 1, "{body}");
    let rejected: &Vec<Value> = body["data"]["rejected"].as_array().unwrap();
    assert_eq!(rejected.len(), 2, "{body}");
    assert_eq!(rejected[0]["index"], 0);
    assert_eq!(
        rejected[0]["reason"],
        "testCase 12 is a voice test case; a run cannot change its channel to web"
    );
    assert_eq!(rejected[1]["index"], 2);
    assert!(
        rejected[1]["reason"]
            .as_str()
            .unwrap()
            .contains("is a voice IVR application"),
        "{body}"
    );
    assert_eq!(
        app.texts("SELECT channel FROM test_cases WHERE id = 12")
            .await,
        vec![Some("voice".to_string())]
    );

    // The unchanged group still saves.
    let admin = admin(&app).await;
    let body =
        json!({"id": group_id, "name": "Voice", "channel": "voice", "testCases": [{"id": 12}]});
    let (status, saved) = app
        .call(
            Method::PUT,
            &format!("/api/trs/v1/groups/{group_id}"),
            Some(&admin.token),
            Some(&body),
        )
        .await;
    assert_eq!(status, 200, "{saved}");
}
