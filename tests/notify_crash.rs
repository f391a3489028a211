//! A `kill -9` of cxwatch in the middle of sending loses nothing: the outbox is in the
//! database, leases of the killed process are taken back at the restart, and every queued
//! notification reaches the real SMTP server (at least once; its key is the Message-ID).

use crate::common;
use crate::sinks;

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use cxwatch::domain::distribution::ContactType;
use cxwatch::domain::notify::NewNotification;
use cxwatch::store::Store;
use sinks::Sinks;

const COUNT: usize = 120;

fn mail_ids(sinks: &Sinks) -> Vec<String> {
    sinks.messages_blocking()["mail"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["messageId"].as_str().unwrap_or("").to_string())
        .collect()
}

#[test]
fn kill_9_mid_send_loses_nothing() {
    let sinks = Sinks::start(&["--delay-ms", "40"]);
    let dir = tempfile::tempdir().unwrap();
    let store = common::store(dir.path());
    let items: Vec<NewNotification> = (0..COUNT)
        .map(|i| NewNotification {
            key: format!("crash-{i}"),
            channel: ContactType::Email,
            recipient: format!("ops{i}@example.com"),
            subject: format!("Alert {i}"),
            text: "Billing IVR failed".into(),
            html: None,
            vars: Default::default(),
            attachments: Vec::new(),
            cause: "crash".into(),
        })
        .collect();
    Store::block_on(store.enqueue(items)).unwrap();
    drop(store);

    let toml = sinks
        .toml()
        .replace("poll_ms = 100", "poll_ms = 100\nconcurrency = 2");
    let opts = common::Opts {
        toml,
        data_dir: Some(dir.path().to_path_buf()),
        plain_http: true,
        env: vec![("CXWATCH_LOG".into(), "error".into())],
        ..Default::default()
    };
    let mut server = common::start(opts.clone());
    let deadline = Instant::now() + Duration::from_secs(30);
    while mail_ids(&sinks).len() < 15 {
        assert!(Instant::now() < deadline, "nothing was sent");
        std::thread::sleep(Duration::from_millis(20));
    }
    server.kill();
    let before = mail_ids(&sinks).len();
    assert!(before < COUNT, "all {before} were sent before the kill");

    let _server = common::start(opts);
    let deadline = Instant::now() + Duration::from_secs(60);
    let want: BTreeSet<String> = (0..COUNT)
        .map(|i| format!("<crash-{i}@cxwatch.test>"))
        .collect();
    loop {
        let got: BTreeSet<String> = mail_ids(&sinks).into_iter().collect();
        if got == want {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "after the restart {} of {COUNT} arrived; missing: {:?}",
            got.len(),
            want.difference(&got).take(5).collect::<Vec<_>>()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    let store = common::store(dir.path());
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let counts = Store::block_on(store.outbox_counts()).unwrap();
        if counts.sent == COUNT as i64 {
            assert_eq!((counts.queued, counts.failed), (0, 0));
            break;
        }
        assert!(Instant::now() < deadline, "{counts:?}");
        std::thread::sleep(Duration::from_millis(50));
    }
    // At least once: a message the killed process had on the wire may come twice, never
    // more than the two it had in flight.
    let total = mail_ids(&sinks).len();
    assert!(total <= COUNT + 2, "{total} messages for {COUNT}");
    eprintln!("sent before the kill: {before}; messages received: {total} for {COUNT}");
}
