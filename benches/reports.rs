//! Report benchmarks: they print figures, they never fail on a time. See docs/benchmarks.md
//! ('Reports'). They read a database made by `cargo bench --bench store -- build`.
//!
//! ```text
//! cargo bench --bench reports -- --db DIR [--iters 200]
//! ```
//!
//! - the server time of each report view over 30 days of a 25-test-case group (random group
//!   and start day): the store call each view's API makes (group metric by case or segment,
//!   MOS per hour, the latency heat map, the first page of runs behind a cell);
//! - the CSV export of a year of a 50-test-case group: rows per second and the peak resident
//!   memory of the process while it runs (the export streams in batches of 1,000 rows);
//! - with `--mail`: the scheduled report mail of a 30-day report of a 25-test-case group,
//!   rendered (`notify::reports::render`: export, previous period, summary, PNG chart, CSV)
//!   and mailed to a real SMTP server (`ui/e2e/notify-sinks.mjs`: STARTTLS, AUTH), each
//!   draw timed from the first query to the server's acceptance.

use std::path::PathBuf;
use std::time::Instant;

use chrono::{DateTime, Duration, NaiveDate, Utc};
use chrono_tz::Tz;
use cxwatch::domain::buckets;
use cxwatch::domain::caller::{Scope, Visibility};
use cxwatch::domain::page::PageRequest;
use cxwatch::domain::report::{Report, ReportType, Timeframe};
use cxwatch::domain::run::{Channel, RunType};
use cxwatch::store::catalog::GroupDraft;
use cxwatch::store::metrics::{Level, MetricQuery, MosQuery};
use cxwatch::store::reports::{ExportRow, ReportRunQuery};
use cxwatch::store::{Store, StoreOptions};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

const TZ: Tz = chrono_tz::America::Toronto;

fn wait<F: std::future::Future>(f: F) -> F::Output {
    static RT: std::sync::OnceLock<tokio::runtime::Runtime> = std::sync::OnceLock::new();
    RT.get_or_init(|| {
        tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()
            .expect("a tokio runtime")
    })
    .block_on(f)
}

fn visible<T>(v: Visibility<T>) -> T {
    match v {
        Visibility::Visible(t) => t,
        _ => panic!("not visible to an administrator"),
    }
}

fn pct(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

fn summary(name: &str, mut ms: Vec<f64>) {
    ms.sort_by(|a, b| a.partial_cmp(b).unwrap());
    println!(
        "{name:<52} n={:<4} p50 {:>8.2} ms  p99 {:>8.2} ms  max {:>8.2} ms",
        ms.len(),
        pct(&ms, 0.5),
        pct(&ms, 0.99),
        ms.last().copied().unwrap_or(f64::NAN)
    );
}

/// A /proc/self/status field in KiB.
fn status_kib(field: &str) -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .unwrap_or_default()
        .lines()
        .find(|l| l.starts_with(field))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

fn report(group_id: i64, t: ReportType, from: NaiveDate, to: NaiveDate) -> Report {
    Report {
        id: 1,
        name: "bench".into(),
        report_type: t,
        group_id,
        group_name: String::new(),
        channel: Channel::Voice,
        timeframe: Timeframe::Custom,
        custom: (Some(from), Some(to)),
        run_type: RunType::Schedule,
        latency_warn: 2000,
        latency_fail: 3000,
        jira_ticket: None,
        modified_at: 0,
    }
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    let opt = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1).cloned())
    };
    let Some(dir) = opt("--db").map(PathBuf::from) else {
        eprintln!("usage: cargo bench --bench reports -- --db DIR [--iters N]");
        return;
    };
    let iters: usize = opt("--iters").map(|v| v.parse().unwrap()).unwrap_or(200);
    let store = Store::open(&dir, StoreOptions::default()).unwrap();
    let extent = wait(store.run_extent()).unwrap();
    let day = |t: Option<DateTime<Utc>>| {
        buckets::day_date(buckets::local_slot(TZ, t.map(|t| t.timestamp_millis()).unwrap_or(0)).0)
    };
    let (first, last) = (day(extent.first), day(extent.last));
    println!(
        "reports: {} runs from {first} to {last}; views over 30 days of a random group of 25 \
         test cases ('first' pass: SQLite cache of a fresh process; 'again': warm)",
        extent.runs
    );
    let span = (last - first).num_days();
    for pass in ["first", "again"] {
        let mut rng = StdRng::seed_from_u64(7);
        let mut pick = || {
            let g = rng.gen_range(1..=16); // the voice groups (MOS)
            let d = first + Duration::days(rng.gen_range(0..=(span - 30).max(0)));
            (g, d, d + Duration::days(29), rng.gen_range(0..24u8))
        };
        let (mut case, mut seg, mut mos, mut lat, mut runs) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for _ in 0..iters {
            let (g, from, to, hour) = pick();
            let q = |level| MetricQuery {
                group_id: g,
                level,
                from,
                to,
                run_type: RunType::Schedule,
            };
            let t = Instant::now();
            std::hint::black_box(visible(
                wait(store.group_metric(Scope::All, q(Level::Case))).unwrap(),
            ));
            case.push(t.elapsed().as_secs_f64() * 1000.0);
            let t = Instant::now();
            std::hint::black_box(visible(
                wait(store.group_metric(Scope::All, q(Level::Segment))).unwrap(),
            ));
            seg.push(t.elapsed().as_secs_f64() * 1000.0);
            let t = Instant::now();
            let mq = MosQuery {
                group_id: g,
                from,
                to,
                run_type: RunType::Schedule,
            };
            std::hint::black_box(visible(wait(store.group_mos(Scope::All, mq)).unwrap()));
            mos.push(t.elapsed().as_secs_f64() * 1000.0);
            let t = Instant::now();
            let r = report(g, ReportType::LatencyByHour, from, to);
            std::hint::black_box(wait(store.report_latency(r, from, to)).unwrap());
            lat.push(t.elapsed().as_secs_f64() * 1000.0);
            let (from_ms, to_ms) = buckets::local_range_ms(TZ, from, to);
            let rq = ReportRunQuery {
                group_id: g,
                tz: TZ,
                from_ms,
                to_ms,
                run_type: RunType::Schedule,
                status: (2, 3),
                segment_id: None,
                hour: Some(hour),
                latency: None,
                mos: None,
                sort: None,
            };
            let t = Instant::now();
            std::hint::black_box(
                wait(store.report_runs(rq, PageRequest { no: 0, size: 100 })).unwrap(),
            );
            runs.push(t.elapsed().as_secs_f64() * 1000.0);
        }
        summary(
            &format!("trend / test case view: metric by case ({pass})"),
            case,
        );
        summary(&format!("segment view: metric by segment ({pass})"), seg);
        summary(&format!("MOS view: MOS per hour ({pass})"), mos);
        summary(&format!("latency view: heat map ({pass})"), lat);
        summary(
            &format!("runs of an hour slot, failures, page 1 ({pass})"),
            runs,
        );
    }

    if args.iter().any(|a| a == "--mail") {
        mail(&store, first, last, iters.min(20));
    }

    // A group of 50 test cases (two of the benchmark's groups of 25, voice).
    let groups = wait(store.list_groups(Scope::All)).unwrap();
    let g50 = match groups.iter().find(|g| g.name == "Reports 50") {
        Some(g) => g.id,
        None => {
            wait(store.create_group(&GroupDraft {
                name: "Reports 50".into(),
                channel: Channel::Voice,
                test_case_ids: (1..=50).collect(),
            }))
            .unwrap()
            .group
            .id
        }
    };
    let (from, to) = (last - Duration::days(364), last);
    for (name, t) in [
        (
            "test case performance (one row per case and hour)",
            ReportType::TestCasePerformance,
        ),
        (
            "segment performance (one row per segment and hour)",
            ReportType::SegmentPerformance,
        ),
    ] {
        // Reset the process's peak RSS so VmHWM is this export's.
        let _ = std::fs::write("/proc/self/clear_refs", "5");
        let before = status_kib("VmRSS:");
        let r = report(g50, t, from, to);
        let (tx, mut rx) = tokio::sync::mpsc::channel::<Vec<ExportRow>>(4);
        let started = Instant::now();
        let s = store.clone();
        let producer = std::thread::spawn(move || wait(s.export_report(r, from, to, tx)));
        let mut rows = 0u64;
        let mut bytes = 0u64;
        while let Some(batch) = rx.blocking_recv() {
            let mut out = cxwatch::domain::csv::CsvWriter::with_capacity(batch.len() * 120);
            for row in &batch {
                cxwatch::api::reports::csv_line(&mut out, TZ, row);
            }
            rows += batch.len() as u64;
            bytes += out.into_bytes().len() as u64;
        }
        producer.join().unwrap().unwrap();
        let secs = started.elapsed().as_secs_f64();
        println!(
            "export, a year of 50 test cases, {name}: {rows} rows, {:.1} MB of CSV in {secs:.2} s = \
             {:.0} rows/s; VmRSS before {} MiB, peak during {} MiB",
            bytes as f64 / 1e6,
            rows as f64 / secs,
            before / 1024,
            status_kib("VmHWM:") / 1024
        );
    }
}

/// Renders and mails `n` scheduled report mails (30 days of a random voice group of 25 test
/// cases, test case performance) to the SMTP sink, timing each.
fn mail(store: &Store, first: NaiveDate, last: NaiveDate, n: usize) {
    use std::io::BufRead;
    let ui = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("ui");
    let mut sink = std::process::Command::new("node")
        .arg("e2e/notify-sinks.mjs")
        .current_dir(&ui)
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("node runs ui/e2e/notify-sinks.mjs");
    let mut line = String::new();
    std::io::BufReader::new(sink.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let info: serde_json::Value = serde_json::from_str(&line).unwrap();
    let mut config = cxwatch::config::Config::default();
    config.notify.public_url = "https://console.cxwatch.test".into();
    config.site.timezone = TZ.name().into();
    let c = &mut config.notify.smtp;
    c.host = "127.0.0.1".into();
    c.port = info["smtp"].as_u64().unwrap() as u16;
    c.username = info["user"].as_str().unwrap().into();
    c.password = info["pass"].as_str().unwrap().into();
    c.ca = Some(PathBuf::from(info["ca"].as_str().unwrap()));
    c.from = "cxwatch <reports@cxwatch.test>".into();
    let smtp = cxwatch::notify::smtp::Smtp::from_config(&config.notify.smtp)
        .unwrap()
        .unwrap();
    let mut rng = StdRng::seed_from_u64(11);
    let (mut render_ms, mut send_ms, mut total_ms) = (Vec::new(), Vec::new(), Vec::new());
    let (mut png, mut csv) = (0usize, 0usize);
    let span = (last - first).num_days();
    for i in 0..n {
        let g = rng.gen_range(1..=16);
        let to = first + Duration::days(rng.gen_range(29..=span.max(29)));
        let from = to - Duration::days(29);
        let mut r = report(g, ReportType::TestCasePerformance, from, to);
        r.name = format!("Group {g} last 30 days");
        let t = Instant::now();
        let msg = wait(cxwatch::notify::reports::render(
            store,
            &config,
            &r,
            to,
            cxwatch::domain::report_schedule::Language::En,
            &cxwatch::domain::report_mail::Origin::Schedule,
        ))
        .unwrap();
        let rendered = t.elapsed().as_secs_f64() * 1000.0;
        png = msg.attachments[0].data.len();
        csv = msg.attachments[1].data.len();
        let item = cxwatch::store::outbox::Claimed {
            notification: cxwatch::domain::notify::Notification {
                id: i as i64,
                key: format!("bench-report-{i}"),
                channel: cxwatch::domain::distribution::ContactType::Email,
                recipient: "managers@example.com".into(),
                subject: msg.subject,
                text: msg.text,
                html: msg.html,
                vars: Default::default(),
                cause: "bench".into(),
                state: cxwatch::domain::notify::NotificationState::Queued,
                attempts: 1,
                reason: None,
                reason_code: None,
                created_ms: 0,
                next_ms: 0,
                sent_ms: None,
            },
            attachments: msg.attachments,
            dest: "smtp".into(),
        };
        let s = Instant::now();
        wait(smtp.send(&item)).unwrap();
        send_ms.push(s.elapsed().as_secs_f64() * 1000.0);
        render_ms.push(rendered);
        total_ms.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    println!(
        "scheduled report mail, 30 days of a group of 25 test cases (PNG {png} B, CSV {csv} B):"
    );
    summary(
        "  render (export, previous period, summary, chart, CSV)",
        render_ms,
    );
    summary("  mail (SMTP STARTTLS + AUTH, accepted)", send_ms);
    summary("  render and mail", total_ms);
    let _ = sink.kill();
    let _ = sink.wait();
}
