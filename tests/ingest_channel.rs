//! A run cannot change the channel of its test case (issue 17 item 3): a voice test case
//! in a voice group stays voice when a run says web; the item is refused with its reason
//! and the good items of the batch are stored.

mod common;
#[path = "common/trs.rs"]
mod trs;

use common::{start, Opts};
use serde_json::{json, Value};
use trs::{api_key, create_group, post_runs, run};

fn case_channel(dir: &std::path::Path, id: i64) -> String {
    trs::db(dir)
        .query_row("SELECT channel FROM test_cases WHERE id = ?1", [id], |r| {
            r.get(0)
        })
        .unwrap()
}

#[test]
fn a_run_cannot_move_a_test_case_to_another_channel() {
    let server = start(Opts::default());
    let key = api_key(&server, "engine");
    let (status, body) = post_runs(
        &server,
        &key,
        &[run("v1", 12, "2026-07-15T14:05:00Z", "pass")],
    );
    assert_eq!(status, 200, "{body}");
    let group = create_group(&server, "Voice", "voice", &[12]);

    let mut web = run("w1", 12, "2026-07-15T15:05:00Z", "pass");
    web["testCase"]["channel"] = json!("web");
    // A new web test case on the voice test case's IVR application is refused too.
    let mut web_on_voice_ivr = run("w2", 14, "2026-07-15T15:05:00Z", "pass");
    web_on_voice_ivr["testCase"]["channel"] = json!("web");
    let good = run("v2", 12, "2026-07-15T16:05:00Z", "fail");
    let (status, body) = post_runs(&server, &key, &[web, good, web_on_voice_ivr]);
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
    assert_eq!(case_channel(&server.data_dir, 12), "voice");

    // The unchanged group still saves.
    let store = cxwatch::store::Store::open(&server.data_dir).unwrap();
    store
        .write_blocking(|tx| {
            cxwatch::store::catalog::update_group(
                tx,
                group,
                "Voice",
                cxwatch::ingest::Channel::Voice,
                &[12],
            )
        })
        .unwrap();
}
