//! Notification benchmark: prints figures, never fails on a time. See docs/benchmarks.md.
//!
//! ```text
//! cargo bench --bench notify [-- --count 2000 --concurrency 8]
//! ```
//!
//! Starts the test sinks (`ui/e2e/notify-sinks.mjs`: nodemailer's smtp-server with STARTTLS
//! and AUTH, and an HTTP gateway sink; needs `cd ui && npm ci`), queues notifications in
//! the outbox of a fresh store and lets the real sender deliver them: notifications per
//! second (e-mail, SMS, both), then the delay from an event (the commit that queues a
//! notification) to the message at the server, one at a time.

#[path = "../tests/sinks/mod.rs"]
mod sinks;

use std::time::{Duration, Instant};

use cxwatch::clock::now_ms;
use cxwatch::config::Config;
use cxwatch::domain::distribution::ContactType;
use cxwatch::domain::notify::NewNotification;
use cxwatch::notify::Notifier;
use cxwatch::store::{Store, StoreOptions};

fn arg(name: &str, default: usize) -> usize {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn note(key: String, channel: ContactType) -> NewNotification {
    NewNotification {
        recipient: match channel {
            ContactType::Email => format!("{key}@example.com"),
            _ => "+15145550100".into(),
        },
        key,
        channel,
        subject: "Billing IVR failed".into(),
        text: "Billing IVR failed 3 times in a row (step 4: no prompt).".into(),
        html: Some("<p>Billing IVR failed 3 times in a row (step 4: no prompt).</p>".into()),
        vars: Default::default(),
        attachments: Vec::new(),
        cause: "bench".into(),
    }
}

async fn wait_sent(store: &Store, total: i64) {
    loop {
        let c = store.outbox_counts().await.unwrap();
        assert_eq!(c.failed, 0, "failures: {c:?}");
        if c.sent >= total {
            return;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

#[tokio::main]
async fn main() {
    cxwatch::server::tls::install_crypto_provider();
    let count = arg("--count", 2000);
    let concurrency = arg("--concurrency", 8);
    let sinks = Sinks::start(&[]);
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path(), StoreOptions::default()).unwrap();
    let mut config = Config {
        data_dir: dir.path().to_path_buf(),
        ..Config::default()
    };
    sinks.configure(&mut config);
    config.notify.concurrency = concurrency;
    let notifier = Notifier::start(store.clone(), &config).unwrap();
    println!("notify benchmark: {count} notifications per run, concurrency {concurrency}");

    let mut sent = 0i64;
    for (what, channels) in [
        (
            "e-mail (SMTP, STARTTLS + AUTH, a connection each)",
            vec![ContactType::Email],
        ),
        ("SMS (HTTP gateway)", vec![ContactType::Sms]),
        (
            "both, half each",
            vec![ContactType::Email, ContactType::Sms],
        ),
    ] {
        let items: Vec<_> = (0..count)
            .map(|i| {
                note(
                    format!("{}-{i}", what.len() * 1000 + channels.len()),
                    channels[i % channels.len()],
                )
            })
            .collect();
        let t = Instant::now();
        store.enqueue(items).await.unwrap();
        notifier.wake();
        sent += count as i64;
        wait_sent(&store, sent).await;
        let secs = t.elapsed().as_secs_f64();
        println!(
            "  {what}: {count} in {secs:.2} s = {:.0} notifications/s",
            count as f64 / secs
        );
    }

    // Event to message: one notification at a time, from before its commit to the moment
    // the server has it (the sinks stamp each message on arrival).
    let mut delays = Vec::new();
    for (i, channel) in [ContactType::Email, ContactType::Sms]
        .into_iter()
        .cycle()
        .take(100)
        .enumerate()
    {
        let before = sinks.messages().await;
        let n_before =
            before["mail"].as_array().unwrap().len() + before["http"].as_array().unwrap().len();
        let t0 = now_ms();
        store
            .enqueue(vec![note(format!("delay-{i}"), channel)])
            .await
            .unwrap();
        notifier.wake();
        let m = sinks
            .wait_for(10, |m| {
                m["mail"].as_array().unwrap().len() + m["http"].as_array().unwrap().len() > n_before
            })
            .await;
        let list = if channel == ContactType::Email {
            &m["mail"]
        } else {
            &m["http"]
        };
        let at = list.as_array().unwrap().last().unwrap()["at"]
            .as_i64()
            .unwrap();
        delays.push(((at - t0) as f64, channel));
    }
    for (what, ch) in [("e-mail", ContactType::Email), ("SMS", ContactType::Sms)] {
        let mut d: Vec<f64> = delays.iter().filter(|x| x.1 == ch).map(|x| x.0).collect();
        d.sort_by(|a, b| a.partial_cmp(b).unwrap());
        let p = |q: f64| d[((d.len() - 1) as f64 * q).round() as usize];
        println!(
            "  event to message, {what} ({} one at a time): median {:.0} ms, p95 {:.0} ms, max {:.0} ms",
            d.len(),
            p(0.5),
            p(0.95),
            p(1.0)
        );
    }
}

use sinks::Sinks;
