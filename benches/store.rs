//! Store benchmarks: they print figures, they never fail on a time. See docs/benchmarks.md.
//!
//! ```text
//! cargo bench --bench store -- ingest [--runs 200000]        ingest rate, RunStore::ingest_runs
//! cargo bench --bench store -- ingest-http [--runs 100000]   ingest rate over HTTP (plain;
//!                                                             HTTPS with --tls) and the raw
//!                                                             ceiling beside it
//! cargo bench --bench store -- alerts [--runs 50000] [--pg URL] ingest with the alert engine on
//!                                                             and off (200 settings), and a
//!                                                             run's arrival to its event read
//! cargo bench --bench store -- alerts-http [--pg URL] [--clients 1] [--rounds 6] [--batches 10]
//!                                           [--quiet]         the engine as an engine sees it:
//!                                                             two served cxwatch, 200 settings
//!                                                             and none, fed in turns over HTTP
//!                                                             (--quiet: settings that never
//!                                                             open an event, a usual day)
//! cargo bench --bench store -- build --db DIR --runs N       make a database of N runs over a year
//! cargo bench --bench store -- query --db DIR                metric latencies, bytes per run
//! cargo bench --bench store -- serve --db DIR                HTTP latencies and the server's memory
//! cargo bench --bench store -- proxy [--connections 16] [--nginx /usr/sbin/nginx]
//!                                                             requests/s straight to a cxwatch and
//!                                                             through a cxwatch in proxy mode
//!                                                             (and nginx), side by side, the
//!                                                             CPU of each and the host's steal
//! ```
//!
//! cargo bench --bench store -- compare --pg URL [--runs N]  SQLite and PostgreSQL side by
//!                                                             side: ingest rate, group-day
//!                                                             metric, a report view, memory
//! ```
//!
//! Each takes the store's settings too: `--synchronous normal|full`, `--cache-mib N`; and
//! `--pg URL` runs `ingest`, `alerts`, `build` and `query` on PostgreSQL instead (`ingest`,
//! `alerts`: a fresh database on that server; `build`/`query`: the database the URL names,
//! made if missing).
//!
//! ```text
//!
//! Synthetic site: 500 test cases (400 voice, 100 web) in 20 groups of 25; every run has
//! 3 segments and 5 steps; runs come in batches of 500, one run per test case and time slot.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use chrono::{DateTime, NaiveDate, TimeZone, Utc};
use chrono_tz::Tz;
use cxwatch::config::Synchronous;
use cxwatch::domain::buckets;
use cxwatch::domain::caller::{Scope, Visibility};
use cxwatch::domain::ingest::{
    IngestIvr, IngestRun, IngestSegment, IngestStep, IngestTestCase, IngestTestResult,
};
use cxwatch::domain::page::PageRequest;
use cxwatch::domain::run::{Channel, RunStatus, RunType};
use cxwatch::store::catalog::GroupDraft;
use cxwatch::store::{metrics, runs, Store, StoreOptions};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

const CASES: i64 = 500;
const GROUPS: i64 = 20;
const BATCH: usize = 500;
const TZ: Tz = chrono_tz::America::Toronto;

static OPTIONS: std::sync::OnceLock<StoreOptions> = std::sync::OnceLock::new();
/// `--pg URL`: the PostgreSQL server or database to use instead of SQLite.
static PG: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
/// `--tls`: the served cxwatch speaks HTTPS (its self-signed certificate) instead of HTTP.
static TLS: std::sync::OnceLock<bool> = std::sync::OnceLock::new();

fn tls() -> bool {
    TLS.get().copied().unwrap_or(false)
}

/// An HTTP client for a served cxwatch (its self-signed certificate accepted with `--tls`).
fn http_client() -> reqwest::blocking::Client {
    reqwest::blocking::Client::builder()
        .danger_accept_invalid_certs(true)
        .build()
        .unwrap()
}

fn pg_url() -> Option<String> {
    PG.get().cloned().flatten()
}

/// The store the commands use: SQLite in `dir`, or PostgreSQL with `--pg` (`fresh`: a new
/// database on the server; else the database of the URL, made when missing).
fn open_store(dir: &Path, fresh: bool) -> Store {
    let Some(url) = pg_url() else {
        return Store::open(dir, options()).unwrap();
    };
    let url = if fresh {
        wait(cxwatch::store::pg::create_test_database(&url))
    } else {
        ensure_database(&url);
        url
    };
    let config = cxwatch::config::StoreConfig {
        url,
        pool_size: 8,
        ..Default::default()
    };
    wait(Store::connect(&config, dir)).unwrap()
}

/// Creates the database a PostgreSQL URL names when it does not exist.
fn ensure_database(url: &str) {
    let mut admin = reqwest::Url::parse(url).unwrap();
    let name = admin.path().trim_start_matches('/').to_string();
    admin.set_path("/postgres");
    wait(async {
        let (c, conn) = tokio_postgres::connect(admin.as_str(), tokio_postgres::NoTls)
            .await
            .unwrap();
        tokio::spawn(conn);
        let exists = c
            .query_opt("SELECT 1 FROM pg_database WHERE datname = $1", &[&name])
            .await
            .unwrap()
            .is_some();
        if !exists {
            c.batch_execute(&format!("CREATE DATABASE \"{name}\""))
                .await
                .unwrap();
        }
    });
}

/// The backend's name for the figures.
fn backend() -> &'static str {
    if pg_url().is_some() {
        "PostgreSQL"
    } else {
        "SQLite"
    }
}

/// Peak resident memory of this process (VmHWM), KiB.
fn peak_rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

/// The store settings given on the command line (also handed to a served cxwatch).
fn options() -> StoreOptions {
    OPTIONS.get().copied().unwrap_or_default()
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    let cmd = args.first().map(String::as_str).unwrap_or("help");
    let opt = |name: &str| -> Option<String> {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1).cloned())
    };
    let num = |name: &str, default: u64| -> u64 {
        opt(name)
            .map(|v| v.replace('_', "").parse().expect("a number"))
            .unwrap_or(default)
    };
    let db = || PathBuf::from(opt("--db").expect("--db DIR is required"));
    // The store's settings (config [store]): --synchronous normal|full, --cache-mib N.
    let mut store = StoreOptions::default();
    match opt("--synchronous").as_deref() {
        None | Some("normal") => {}
        Some("full") => store.synchronous = Synchronous::Full,
        Some(other) => panic!("--synchronous {other}: normal or full"),
    }
    store.cache_mib = num("--cache-mib", u64::from(store.cache_mib)) as u32;
    OPTIONS.set(store).unwrap();
    PG.set(opt("--pg")).unwrap();
    TLS.set(args.iter().any(|a| a == "--tls")).unwrap();
    println!(
        "store: synchronous {:?}, cache {} MiB in all",
        store.synchronous, store.cache_mib
    );
    match cmd {
        "ingest" => ingest(num("--runs", 200_000)),
        "ingest-http" => ingest_http(num("--runs", 100_000)),
        "alerts" => alerts(num("--runs", 50_000), num("--windows", 0) as usize),
        "alerts-http" => alerts_http(
            num("--clients", 1) as usize,
            num("--rounds", 6) as usize,
            num("--batches", 10) as usize,
            args.iter().any(|a| a == "--quiet"),
        ),
        "build" => build(&db(), num("--runs", 1_000_000)),
        "query" => query(
            &db(),
            num("--iters", 300),
            args.iter().any(|a| a == "--cold"),
        ),
        "serve" => serve(&db(), num("--iters", 300)),
        "compare" => compare(num("--runs", 200_000), &opt("--pg").expect("--pg URL")),
        "proxy" => proxy(
            num("--connections", 16) as usize,
            num("--secs", 3),
            num("--rounds", 3),
            opt("--nginx"),
        ),
        _ => {
            eprintln!(
                "usage: cargo bench --bench store -- ingest [--runs N] | ingest-http [--runs N] | \
                 build --db DIR --runs N | query --db DIR [--iters N] | serve --db DIR [--iters N]"
            );
        }
    }
}

// ---------------------------------------------------------------------------------------
// Synthetic runs

const UTTERANCES: [&str; 5] = [
    "Thank you for calling Acme Bank. Calls may be recorded for quality purposes.",
    "Please say or enter your account number, followed by the pound key.",
    "For billing press 1. For technical support press 2. For anything else press 0.",
    "Please hold while we transfer your call to the next available agent.",
    "Your current balance is two hundred and twelve dollars and forty cents.",
];

fn case_channel(case: i64) -> Channel {
    if case <= 400 {
        Channel::Voice
    } else {
        Channel::Web
    }
}

/// One run of `case` at `time`.
fn synth_run(rng: &mut StdRng, case: i64, time: DateTime<Utc>) -> IngestRun {
    let channel = case_channel(case);
    let roll: u32 = rng.gen_range(0..100);
    let status = match roll {
        0..=89 => RunStatus::Pass,
        90..=94 => RunStatus::Warn,
        95..=98 => RunStatus::Fail,
        _ => RunStatus::Stopped,
    };
    let mut step_no = 0;
    let mut step = |rng: &mut StdRng, kind: &str, display: &str, prompt: usize| {
        step_no += 1;
        let start = time + chrono::Duration::milliseconds(step_no * 4_000);
        let recognized = rng.gen_range(0..20) != 0;
        IngestStep {
            step_id: step_no,
            step_type: kind.into(),
            type_display_text: display.into(),
            prompt: Some(UTTERANCES[prompt].into()),
            prompt_latency_min: Some(200),
            prompt_latency_max: Some(3_000),
            incomplete_timeout: Some(1_500),
            complete_timeout: Some(800),
            barge_in_time: None,
            recording_id: None,
            test_result: IngestTestResult {
                status: if step_no == 5 {
                    status
                } else {
                    RunStatus::Pass
                },
                utterance: recognized.then(|| UTTERANCES[prompt].to_string()),
                latency: Some(rng.gen_range(200..3_000)),
                confidence: Some(rng.gen_range(6_000..10_000) as f64 / 10_000.0),
                recording_duration: Some(rng.gen_range(1_000..6_000) as f64 / 1000.0),
                start_time: Some(start),
                end_time: Some(start + chrono::Duration::milliseconds(rng.gen_range(500..3_500))),
            },
            extra: None,
        }
    };
    let segments = vec![
        IngestSegment {
            segment_id: 1,
            segment_name: "Greeting".into(),
            steps: vec![
                step(rng, "PROMPT", "Prompt", 0),
                step(rng, "SPEECH", "Speech", 1),
            ],
        },
        IngestSegment {
            segment_id: 2,
            segment_name: "Main menu".into(),
            steps: vec![
                step(rng, "PROMPT", "Prompt", 2),
                step(rng, "DTMF", "Key press", 3),
            ],
        },
        IngestSegment {
            segment_id: 3,
            segment_name: "Balance".into(),
            steps: vec![step(rng, "PROMPT", "Prompt", 4)],
        },
    ];
    IngestRun {
        engine_run_id: format!(
            "{:08x}-{:04x}-{:04x}-{:04x}-{:012x}",
            rng.gen::<u32>(),
            rng.gen::<u16>(),
            rng.gen::<u16>(),
            rng.gen::<u16>(),
            rng.gen::<u64>() & 0xffff_ffff_ffff
        ),
        test_case: IngestTestCase {
            id: case,
            name: format!(
                "TC{case:03} {} journey",
                if case % 2 == 0 { "Billing" } else { "Support" }
            ),
            channel,
            ivr: IngestIvr {
                id: 1 + (case - 1) / 25,
                name: format!("{} app {}", channel.label(), 1 + (case - 1) / 25),
            },
        },
        run_time: time,
        run_duration: rng.gen_range(20_000..90_000) as f64 / 1000.0,
        status,
        run_type: if rng.gen_range(0..20) == 0 {
            RunType::Manual
        } else {
            RunType::Schedule
        },
        mos_cq_in: (channel == Channel::Voice).then(|| rng.gen_range(250..=480) as f64 / 100.0),
        recording_id: None,
        segments,
    }
}

/// Batch `slot` of a run stream: one run per test case, `interval` apart.
fn synth_batch(
    rng: &mut StdRng,
    start: DateTime<Utc>,
    interval_ms: i64,
    slot: u64,
) -> Vec<IngestRun> {
    let t = start + chrono::Duration::milliseconds(interval_ms * slot as i64);
    (1..=CASES)
        .map(|case| synth_run(rng, case, t + chrono::Duration::milliseconds(case * 211)))
        .collect()
}

fn year_start() -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2025, 11, 20, 5, 0, 0).unwrap()
}

// ---------------------------------------------------------------------------------------
// Helpers

/// CPU seconds (user + system) the calling thread has used so far.
fn thread_cpu() -> f64 {
    let stat = std::fs::read_to_string("/proc/thread-self/stat").unwrap_or_default();
    let after = stat.rsplit(')').next().unwrap_or("");
    let f: Vec<&str> = after.split_whitespace().collect();
    let ticks = |i: usize| f.get(i).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0);
    // Fields 14 and 15 (utime, stime) are the 12th and 13th after the command name.
    (ticks(11) + ticks(12)) / 100.0
}

/// CPU seconds (user + system) of a process from its /proc stat file.
fn proc_cpu(stat_path: &str) -> f64 {
    let stat = std::fs::read_to_string(stat_path).unwrap_or_default();
    let after = stat.rsplit(')').next().unwrap_or("");
    let f: Vec<&str> = after.split_whitespace().collect();
    let ticks = |i: usize| f.get(i).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0);
    (ticks(11) + ticks(12)) / 100.0
}

/// CPU seconds of this process (every thread) and of the PostgreSQL server's processes on
/// this machine (0 when there are none).
fn cpu_split() -> (f64, f64) {
    let mut server = 0.0;
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let pid = entry.file_name().to_string_lossy().to_string();
        if !pid.bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        let comm = std::fs::read_to_string(format!("/proc/{pid}/comm")).unwrap_or_default();
        if comm.trim() == "postgres" {
            server += proc_cpu(&format!("/proc/{pid}/stat"));
        }
    }
    (proc_cpu("/proc/self/stat"), server)
}

/// CPU time of the calling thread in ms (precise, unlike /proc's ticks).
fn thread_cpu_ms() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes into the timespec we own.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    ts.tv_sec as f64 * 1000.0 + ts.tv_nsec as f64 / 1_000_000.0
}

/// Wall and CPU ms of the calling thread for `f`.
#[derive(Default)]
struct Samples {
    wall: Vec<f64>,
    cpu: Vec<f64>,
}

impl Samples {
    fn time<T>(&mut self, f: impl FnOnce() -> T) -> T {
        let (c, t) = (thread_cpu_ms(), Instant::now());
        let out = f();
        self.wall.push(t.elapsed().as_secs_f64() * 1000.0);
        self.cpu.push(thread_cpu_ms() - c);
        out
    }

    fn print(mut self, name: &str) {
        let sort = |v: &mut Vec<f64>| v.sort_by(|a, b| a.partial_cmp(b).unwrap());
        sort(&mut self.wall);
        sort(&mut self.cpu);
        println!(
            "{name:<46} n={:<4} wall p50 {:>8.3} p99 {:>8.3} ms | CPU p50 {:>8.3} p99 {:>8.3} ms",
            self.wall.len(),
            pct(&self.wall, 0.5),
            pct(&self.wall, 0.99),
            pct(&self.cpu, 0.5),
            pct(&self.cpu, 0.99),
        );
    }
}

fn pct(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i]
}

fn summary(name: &str, mut ms: Vec<f64>) {
    ms.sort_by(|a, b| a.partial_cmp(b).unwrap());
    println!(
        "{name:<44} n={:<5} p50 {:>9.3} ms   p99 {:>9.3} ms   max {:>9.3} ms",
        ms.len(),
        pct(&ms, 0.5),
        pct(&ms, 0.99),
        ms.last().copied().unwrap_or(f64::NAN)
    );
}

fn dir_bytes(dir: &Path) -> u64 {
    ["cxwatch.db", "cxwatch.db-wal"]
        .iter()
        .filter_map(|f| std::fs::metadata(dir.join(f)).ok())
        .map(|m| m.len())
        .sum()
}

/// Runs a store call to its end on the benchmark's runtime.
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

fn run_count(store: &Store) -> u64 {
    wait(store.run_extent()).unwrap().runs
}

/// Empties the WAL into the database file; returns the pages it held.
fn checkpoint(store: &Store) -> u64 {
    wait(store.checkpoint()).unwrap()
}

/// Creates the 20 groups of 25 test cases when missing.
fn ensure_groups(store: &Store) {
    if !wait(store.list_groups(Scope::All)).unwrap().is_empty() {
        return;
    }
    for g in 0..GROUPS {
        let cases: Vec<i64> = (g * 25 + 1..=g * 25 + 25).collect();
        let draft = GroupDraft {
            name: format!("Group {:02}", g + 1),
            channel: case_channel(cases[0]),
            test_case_ids: cases,
        };
        wait(store.create_group(&draft)).unwrap();
    }
}

// ---------------------------------------------------------------------------------------
// Commands

fn ingest(total: u64) {
    let dir = tempfile::tempdir().unwrap();
    let store = open_store(dir.path(), true);
    println!("backend: {}", backend());
    let mut rng = StdRng::seed_from_u64(1);
    let batches = total.div_ceil(BATCH as u64);
    let interval = 5 * 60_000; // every 5 minutes, like the site
    println!(
        "ingest: {batches} batches of {BATCH} runs (5 steps each) through RunStore::ingest_runs"
    );
    let mut gen_time = Duration::ZERO;
    let mut ingest_time = Duration::ZERO;
    let mut cpu = 0.0;
    let mut per_batch = Vec::new();
    let cpu_before = cpu_split();
    for slot in 0..batches {
        let t0 = Instant::now();
        let batch = synth_batch(&mut rng, year_start(), interval, slot);
        gen_time += t0.elapsed();
        let c0 = thread_cpu();
        let t1 = Instant::now();
        let len = batch.len();
        let out = wait(store.ingest_runs(TZ, batch)).unwrap();
        let dt = t1.elapsed();
        cpu += thread_cpu() - c0;
        assert_eq!(out.accepted, len);
        ingest_time += dt;
        per_batch.push(dt.as_secs_f64() * 1000.0);
    }
    let cpu_after = cpu_split();
    let n = batches * BATCH as u64;
    let (own_cpu, server_cpu) = (cpu_after.0 - cpu_before.0, cpu_after.1 - cpu_before.1);
    println!(
        "CPU over the ingest: this process {own_cpu:.2} s ({:.2} ms per batch of 500), PostgreSQL's \
         processes {server_cpu:.2} s ({:.2} ms per batch); two cores give {:.0} runs/s at that CPU cost",
        own_cpu * 1000.0 / batches as f64,
        server_cpu * 1000.0 / batches as f64,
        2.0 * n as f64 / (own_cpu + server_cpu).max(0.001)
    );
    println!(
        "ingested {n} runs in {:.2} s: {:.0} runs/s (generating the runs took {:.2} s more)",
        ingest_time.as_secs_f64(),
        n as f64 / ingest_time.as_secs_f64(),
        gen_time.as_secs_f64()
    );
    println!(
        "CPU time of the ingesting thread: {cpu:.2} s = {:.0} runs per CPU second; machine load average {}",
        n as f64 / cpu.max(0.01),
        std::fs::read_to_string("/proc/loadavg").unwrap_or_default().split_whitespace().take(3).collect::<Vec<_>>().join(" ")
    );
    let mut sorted = per_batch.clone();
    sorted.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let (p50, p99) = (pct(&sorted, 0.5), pct(&sorted, 0.99));
    summary("batch of 500 (one commit)", per_batch);
    let rate = n as f64 / ingest_time.as_secs_f64();
    let (metric, report) = read_figures(&store);
    println!(
        "RESULT {}",
        serde_json::json!({"backend": backend(), "runs": n, "runs_per_s": rate,
                           "batch_p50_ms": p50, "batch_p99_ms": p99,
                           "metric_p50_ms": metric.0, "metric_p99_ms": metric.1,
                           "report_p50_ms": report.0, "report_p99_ms": report.1,
                           "peak_rss_kib": peak_rss_kib(),
                           "cpu_ms_per_batch_cxwatch": (cpu_after.0 - cpu_before.0) * 1000.0 / batches as f64,
                           "cpu_ms_per_batch_postgres": (cpu_after.1 - cpu_before.1) * 1000.0 / batches as f64})
    );
    if pg_url().is_some() {
        println!(
            "database: {} bytes, {:.0} bytes per run",
            wait(store.database_size()).unwrap(),
            wait(store.database_size()).unwrap() as f64 / n as f64
        );
        return;
    }
    // Pages one more batch writes to the WAL (what a commit costs in I/O): far below the
    // automatic checkpoint's 10,000 pages, so the log holds them all.
    checkpoint(&store);
    let batch = synth_batch(&mut rng, year_start(), interval, batches);
    wait(store.ingest_runs(TZ, batch)).unwrap();
    let frames = checkpoint(&store);
    println!(
        "one batch of 500 wrote {frames} pages to the WAL ({:.1} KiB per run)",
        frames as f64 * 4.0 / 500.0
    );
    // A retry of the last batch: all duplicates, nothing written.
    let mut rng = StdRng::seed_from_u64(1);
    let mut last = Vec::new();
    for slot in 0..batches {
        last = synth_batch(&mut rng, year_start(), interval, slot);
    }
    let t = Instant::now();
    let out = wait(store.ingest_runs(TZ, last)).unwrap();
    println!(
        "retried batch: {} duplicates in {:.1} ms",
        out.duplicates,
        t.elapsed().as_secs_f64() * 1000.0
    );
    checkpoint(&store);
    println!(
        "database: {} bytes, {:.0} bytes per run",
        dir_bytes(dir.path()),
        dir_bytes(dir.path()) as f64 / n as f64
    );
}

/// The warm read figures after an ingest (p50, p99 in ms): the group-day metric (a random
/// group's test cases over one day) and a report view (the trend of a group over 30 days).
fn read_figures(store: &Store) -> ((f64, f64), (f64, f64)) {
    ensure_groups(store);
    let (first, last) = days_of(store);
    let span = (last - first).num_days().max(0);
    let mut rng = StdRng::seed_from_u64(7);
    let mut draw = |days: i64| {
        (
            rng.gen_range(1..=GROUPS),
            first + chrono::Duration::days(rng.gen_range(0..=(span - days + 1).max(0))),
        )
    };
    let mut times = |days: i64, level| {
        let mut ms = Vec::new();
        for _ in 0..300 {
            let (group, from) = draw(days);
            let q = metrics::MetricQuery {
                group_id: group,
                level,
                from,
                to: from + chrono::Duration::days(days - 1),
                run_type: RunType::Schedule,
            };
            let t = Instant::now();
            std::hint::black_box(visible(wait(store.group_metric(Scope::All, q)).unwrap()));
            ms.push(t.elapsed().as_secs_f64() * 1000.0);
        }
        ms.sort_by(|a, b| a.partial_cmp(b).unwrap());
        (pct(&ms, 0.5), pct(&ms, 0.99))
    };
    let metric = times(1, metrics::Level::Case);
    // The segment performance report's view: the group metric by segment over 30 days.
    let report = times(30.min(span + 1), metrics::Level::Segment);
    (metric, report)
}

/// SQLite and PostgreSQL side by side in one run: each backend's `ingest` in a process of
/// its own (so that each one's peak memory is its own), then the table.
fn compare(total: u64, pg: &str) {
    let me = std::env::current_exe().unwrap();
    let mut results = Vec::new();
    for with_pg in [false, true] {
        let mut cmd = Command::new(&me);
        cmd.args(["ingest", "--runs", &total.to_string()]);
        if with_pg {
            cmd.args(["--pg", pg]);
        }
        let out = cmd.stderr(Stdio::inherit()).output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout).to_string();
        print!("{text}");
        let line = text
            .lines()
            .find_map(|l| l.strip_prefix("RESULT "))
            .expect("a RESULT line");
        results.push(serde_json::from_str::<serde_json::Value>(line).unwrap());
    }
    println!(
        "\n{:<48} {:>14} {:>14}",
        "figure",
        results[0]["backend"].as_str().unwrap(),
        results[1]["backend"].as_str().unwrap()
    );
    for (name, key, unit) in [
        (
            "ingest rate, batches of 500 runs of 5 steps",
            "runs_per_s",
            "runs/s",
        ),
        ("batch of 500, p50", "batch_p50_ms", "ms"),
        ("batch of 500, p99", "batch_p99_ms", "ms"),
        ("group-day metric (case), p50", "metric_p50_ms", "ms"),
        ("group-day metric (case), p99", "metric_p99_ms", "ms"),
        (
            "report view (segment perf., 30 days), p50",
            "report_p50_ms",
            "ms",
        ),
        (
            "report view (segment perf., 30 days), p99",
            "report_p99_ms",
            "ms",
        ),
        ("peak memory of the process", "peak_rss_kib", "KiB"),
        (
            "CPU per batch, cxwatch (all threads)",
            "cpu_ms_per_batch_cxwatch",
            "ms",
        ),
        (
            "CPU per batch, PostgreSQL server",
            "cpu_ms_per_batch_postgres",
            "ms",
        ),
    ] {
        let v = |r: &serde_json::Value| r[key].as_f64().unwrap_or(f64::NAN);
        println!(
            "{name:<48} {:>10.1} {unit:<4}{:>10.1} {unit}",
            v(&results[0]),
            v(&results[1])
        );
    }
    println!(
        "machine load average {}",
        std::fs::read_to_string("/proc/loadavg").unwrap_or_default()
    );
}

/// A store with the synthetic site for the alert engine ([`alert_site`], with the settings).
fn alert_store(dir: &Path, engine: bool) -> Store {
    use cxwatch::store::alerts::AlertOptions;
    // `--pg URL`: a fresh database on that server, as `ingest`.
    let store = open_store(dir, true);
    store.configure_alerts(AlertOptions {
        enabled: engine,
        ..AlertOptions::default()
    });
    alert_site(&store, Settings::Bench);
    store
}

/// The alert settings of the bench's site.
#[derive(Clone, Copy, PartialEq)]
enum Settings {
    None,
    /// 200 settings whose thresholds the runs reach: events open and close at a high rate.
    Bench,
    /// The same 200 settings at 10 failures in a row, which the bench's runs (4 % failed, at
    /// random) never reach: every run is evaluated, no event opens (a site's usual day).
    Quiet,
}

/// The synthetic groups, a distribution list and, with `settings`, 200 active alert settings
/// (10 per group: thresholds 1, 2, 3, 5, 10, failures or failures and warnings, every slot).
fn alert_site(store: &Store, settings: Settings) {
    use cxwatch::domain::alert_setting::AlertSettingDraft;
    use cxwatch::domain::distribution::{Contact, ContactType, DistributionDraft};
    // The test cases exist once a run of each is stored (before the groups).
    let mut rng = StdRng::seed_from_u64(7);
    let first = synth_batch(&mut rng, year_start() - chrono::Duration::days(1), 0, 0);
    wait(store.ingest_runs(TZ, first)).unwrap();
    ensure_groups(store);
    let list = wait(store.create_distribution(&DistributionDraft {
        name: "Bench on call".into(),
        contacts: vec![
            Contact {
                name: "Ops".into(),
                kind: ContactType::Email,
                info: "ops@example.com".into(),
            },
            Contact {
                name: "Phone".into(),
                kind: ContactType::Sms,
                info: "+15145550100".into(),
            },
        ],
    }))
    .unwrap();
    if settings == Settings::None {
        return;
    }
    let groups = wait(store.list_groups(Scope::All)).unwrap();
    let thresholds = [1, 2, 3, 5, 10];
    for g in &groups {
        for i in 0..10 {
            wait(store.create_alert_setting(
                Scope::All,
                &AlertSettingDraft {
                    name: format!("{} #{i}", g.name),
                    active: true,
                    group_id: g.id,
                    distribution_id: list,
                    email_subject: "Bench alert".into(),
                    voice_message: "Bench alert".into(),
                    sms_prefix: "[bench]".into(),
                    failure_to_alert: if settings == Settings::Quiet {
                        10
                    } else {
                        thresholds[i % 5]
                    },
                    notify_on_recovery: i % 2 == 0,
                    statuses: if i < 5 {
                        vec!["FAIL".into()]
                    } else {
                        vec!["FAIL".into(), "WARN".into()]
                    },
                    week: cxwatch::domain::schedule::Week::all(),
                    ..Default::default()
                },
            ))
            .unwrap();
        }
    }
}

/// `windows` maintenance windows, live through the whole run: weekly, each on one
/// of the bench's groups (round robin) for a different half hour of the week, so that every
/// run is checked against them and about `windows`/336 of the runs are marked.
fn add_windows(store: &Store, windows: usize) {
    use cxwatch::store::maintenance::WindowDraft;
    let groups = wait(store.list_groups(Scope::All)).unwrap();
    for i in 0..windows {
        let day = 1 + (i % 7) as u8;
        let slot = (i / 7 * 2) as u8;
        let week = cxwatch::domain::schedule::Week::from_masks([(day, 1u64 << slot)]);
        wait(store.create_window(
            Scope::All,
            TZ,
            WindowDraft {
                reason: format!("Bench window {i}"),
                weekly: true,
                start_ms: 0,
                end_ms: None,
                week,
                group_ids: vec![groups[i % groups.len()].id],
                case_ids: Vec::new(),
                event_id: None,
            },
            "bench".into(),
            0,
        ))
        .unwrap();
    }
}

fn alerts(total: u64, windows: usize) {
    let batches = total.div_ceil(BATCH as u64);
    let interval = 5 * 60_000;
    let mut rates = Vec::new();
    let runs_of = |engine: bool| -> Vec<(bool, usize)> {
        if engine && windows > 0 {
            vec![(true, 0), (true, windows)]
        } else {
            vec![(engine, 0)]
        }
    };
    for (engine, windows) in [false, true].into_iter().flat_map(runs_of) {
        let dir = tempfile::tempdir().unwrap();
        let store = alert_store(dir.path(), engine);
        add_windows(&store, windows);
        let mut rng = StdRng::seed_from_u64(1);
        let mut took = Duration::ZERO;
        let (mut opened, mut closed, mut queued) = (0, 0, 0);
        for slot in 0..batches {
            let batch = synth_batch(&mut rng, year_start(), interval, slot);
            let t = Instant::now();
            let out = wait(store.ingest_runs(TZ, batch)).unwrap();
            took += t.elapsed();
            opened += out.alerts.opened;
            closed += out.alerts.closed;
            queued += out.alerts.queued;
        }
        let n = batches * BATCH as u64;
        let rate = n as f64 / took.as_secs_f64();
        println!(
            "alerts: engine {}, {windows} maintenance windows: {n} runs in {:.2} s = {rate:.0} runs/s; events opened {opened}, closed {closed}, notifications queued {queued}",
            if engine { "on " } else { "off" },
            took.as_secs_f64()
        );
        rates.push(rate);
        if windows > 0 {
            println!(
                "alerts: ingest rate with {windows} windows / without = {:.3}",
                rate / rates[1]
            );
            continue;
        }
        if engine {
            // Arrival to readable: a batch of 500 goes in; the newest event is read back the
            // way GET alerts/events reads it. Only batches that opened an event count.
            let mut ms = Vec::new();
            let page = PageRequest { no: 0, size: 10 };
            for slot in batches..batches + 200 {
                let batch = synth_batch(&mut rng, year_start(), interval, slot);
                let t = Instant::now();
                let out = wait(store.ingest_runs(TZ, batch)).unwrap();
                let events =
                    wait(store.list_alert_events(Scope::All, page, Default::default())).unwrap();
                let dt = t.elapsed();
                if out.alerts.opened > 0 {
                    assert!(!events.items.is_empty());
                    ms.push(dt.as_secs_f64() * 1000.0);
                }
            }
            summary("arrival of a batch of 500 to its events read (ms)", ms);
        }
    }
    println!(
        "alerts: ingest rate with the engine on / off = {:.2} (200 active settings)",
        rates[1] / rates[0]
    );
    println!(
        "machine load average {}",
        std::fs::read_to_string("/proc/loadavg")
            .unwrap_or_default()
            .split_whitespace()
            .take(3)
            .collect::<Vec<_>>()
            .join(" ")
    );
}

fn build(dir: &Path, total: u64) {
    let store = open_store(dir, false);
    println!("backend: {}", backend());
    let have = run_count(&store);
    let slots = total.div_ceil(CASES as u64);
    let interval = 365 * 86_400_000 / slots as i64;
    let first = have / CASES as u64;
    println!(
        "build: {total} runs over a year = {slots} slots of {CASES} runs every {:.1} min; {have} runs there already",
        interval as f64 / 60_000.0
    );
    let mut rng = StdRng::seed_from_u64(42);
    let started = Instant::now();
    let mut busy = Duration::ZERO;
    let mut done = 0u64;
    for slot in first..slots {
        let batch = synth_batch(&mut rng, year_start(), interval, slot);
        let t = Instant::now();
        let len = batch.len() as u64;
        wait(store.ingest_runs(TZ, batch)).unwrap();
        busy += t.elapsed();
        done += len;
        if slot % 200 == 0 || slot + 1 == slots {
            println!(
                "  {:>10} runs stored, {:>7.0} runs/s ingest, {:.0} s elapsed",
                have + done,
                done as f64 / busy.as_secs_f64(),
                started.elapsed().as_secs_f64()
            );
        }
    }
    ensure_groups(&store);
    checkpoint(&store);
    let n = run_count(&store);
    let bytes = match pg_url() {
        Some(_) => wait(store.database_size()).unwrap() as u64,
        None => dir_bytes(dir),
    };
    println!(
        "database {}: {n} runs, {bytes} bytes, {:.0} bytes per run",
        pg_url().unwrap_or_else(|| dir.display().to_string()),
        bytes as f64 / n as f64
    );
    table_sizes(&store, n);
}

fn table_sizes(store: &Store, runs: u64) {
    let sizes = wait(store.table_sizes()).map(|rows| rows.into_iter().take(12).collect::<Vec<_>>());
    match sizes {
        Ok(rows) => {
            for (name, bytes) in rows {
                println!(
                    "  {name:<32} {:>14} bytes  {:>7.1} bytes/run",
                    bytes,
                    bytes as f64 / runs.max(1) as f64
                );
            }
        }
        Err(e) => println!("  (no per-table sizes: {e})"),
    }
}

fn days_of(store: &Store) -> (NaiveDate, NaiveDate) {
    let extent = wait(store.run_extent()).unwrap();
    let ms = |t: Option<DateTime<Utc>>| t.map(|t| t.timestamp_millis()).unwrap_or(0);
    let (lo, hi) = (ms(extent.first), ms(extent.last));
    let d = |ms| buckets::day_date(buckets::local_slot(TZ, ms).0);
    (d(lo), d(hi))
}

/// Drops the database file's pages from the OS page cache (this file only).
fn evict(dir: &Path) {
    use std::os::fd::AsRawFd;
    for name in ["cxwatch.db", "cxwatch.db-wal"] {
        if let Ok(f) = std::fs::File::open(dir.join(name)) {
            // SAFETY: advisory call on a descriptor we own.
            unsafe { libc::posix_fadvise(f.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
        }
    }
}

fn query(dir: &Path, iters: u64, cold: bool) {
    if cold {
        evict(dir);
        println!("(database file evicted from the OS page cache first: 'first' reads from disk)");
    }
    let store = open_store(dir, false);
    println!("backend: {}", backend());
    ensure_groups(&store);
    let n = run_count(&store);
    let (first, last) = days_of(&store);
    let span = (last - first).num_days();
    println!(
        "query: {n} runs from {first} to {last}; random group and day; each set twice with the same \
         days: 'first' = SQLite cache of a fresh process (the OS page cache may hold the file), \
         'again' = warm"
    );
    let metric = |group: i64, level, from: NaiveDate, days: i64| {
        let q = metrics::MetricQuery {
            group_id: group,
            level,
            from,
            to: from + chrono::Duration::days(days - 1),
            run_type: RunType::Schedule,
        };
        std::hint::black_box(visible(wait(store.group_metric(Scope::All, q)).unwrap()));
    };
    let day = |rng: &mut StdRng, len: i64| {
        first + chrono::Duration::days(rng.gen_range(0..=(span - len + 1).max(0)))
    };
    for (seed, pass) in [(1u64, "first"), (1, "again")] {
        let mut rng = StdRng::seed_from_u64(seed);
        let mut s = Samples::default();
        for _ in 0..iters {
            let (g, d) = (rng.gen_range(1..=GROUPS), day(&mut rng, 1));
            s.time(|| metric(g, metrics::Level::Case, d, 1));
        }
        s.print(&format!("group metric, 1 day, case ({pass})"));
        let mut s = Samples::default();
        for _ in 0..iters {
            let (g, d) = (rng.gen_range(1..=GROUPS), day(&mut rng, 1));
            s.time(|| metric(g, metrics::Level::Segment, d, 1));
        }
        s.print(&format!("group metric, 1 day, segment ({pass})"));
        let mut s = Samples::default();
        for _ in 0..iters {
            let (g, d) = (rng.gen_range(1..=16), day(&mut rng, 1));
            s.time(|| {
                let q = metrics::MosQuery {
                    group_id: g,
                    from: d,
                    to: d,
                    run_type: RunType::Schedule,
                };
                std::hint::black_box(visible(wait(store.group_mos(Scope::All, q)).unwrap()))
            });
        }
        s.print(&format!("group MOS, 1 day ({pass})"));
        let mut s = Samples::default();
        for _ in 0..(iters / 10).max(10) {
            let d = day(&mut rng, 30);
            s.time(|| {
                for g in 1..=GROUPS {
                    metric(g, metrics::Level::Case, d, 30);
                }
            });
        }
        s.print(&format!("all 20 groups, 30 days, case ({pass})"));
        let mut s = Samples::default();
        for _ in 0..(iters / 10).max(10) {
            let d = day(&mut rng, 30);
            s.time(|| {
                for g in 1..=GROUPS {
                    metric(g, metrics::Level::Segment, d, 30);
                }
            });
        }
        s.print(&format!("all 20 groups, 30 days, segment ({pass})"));
        let mut s = Samples::default();
        for _ in 0..iters {
            let d = day(&mut rng, 30);
            let (from_ms, to_ms) = buckets::local_range_ms(TZ, d, d + chrono::Duration::days(29));
            let f = runs::RunFilter {
                test_case_id: rng.gen_range(1..=CASES),
                from_ms,
                to_ms,
                status: (0, 3),
                run_type: (0, 1),
                sort: None,
            };
            let page = rng.gen_range(0..5);
            s.time(|| {
                let page = PageRequest {
                    no: page,
                    size: 100,
                };
                std::hint::black_box(visible(wait(store.case_runs(Scope::All, f, page)).unwrap()))
            });
        }
        s.print(&format!("run list, 30 days, page of 100 ({pass})"));
        let mut s = Samples::default();
        for _ in 0..iters {
            let id = rng.gen_range(1..=n as i64);
            s.time(|| std::hint::black_box(visible(wait(store.run(Scope::All, id)).unwrap())));
        }
        s.print(&format!("run detail ({pass})"));
    }
    println!(
        "database: {} bytes, {:.0} bytes per run",
        dir_bytes(dir),
        dir_bytes(dir) as f64 / n.max(1) as f64
    );
}

// ---------------------------------------------------------------------------------------
// HTTP

struct Served {
    child: Child,
    base: String,
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start_server(dir: &Path) -> Served {
    start_server_on(dir, None)
}

/// A served cxwatch on the data directory `dir` and, with `pg`, on that PostgreSQL database.
fn start_server_on(dir: &Path, pg: Option<&str>) -> Served {
    start_server_full(dir, pg, "")
}

/// A cxwatch serving from `dir`, `extra` appended to its config file.
fn start_server_with(dir: &Path, extra: &str) -> Served {
    start_server_full(dir, None, extra)
}

/// A port free on 127.0.0.1 now.
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn start_server_full(dir: &Path, pg: Option<&str>, extra: &str) -> Served {
    let port = free_port();
    let config = dir.join("bench-config.toml");
    std::fs::write(
        &config,
        format!(
            "data_dir = {:?}\n[server]\nlisten = \"127.0.0.1:{port}\"\nplain_http = {}\n[log]\nformat = \"text\"\nlevel = \"warn\"\n[store]\nurl = {:?}\nsynchronous = \"{}\"\ncache_mib = {}\n",
            dir.to_str().unwrap(),
            !tls(),
            pg.unwrap_or(""),
            match options().synchronous {
                Synchronous::Normal => "normal",
                Synchronous::Full => "full",
            },
            options().cache_mib
        ) + extra,
    )
    .unwrap();
    // BENCH_CXWATCH_BIN: another build of cxwatch to measure (before and after a change);
    // not CXWATCH_*, which cxwatch reads as its configuration.
    let bin = std::env::var("BENCH_CXWATCH_BIN")
        .unwrap_or_else(|_| env!("CARGO_BIN_EXE_cxwatch").to_string());
    let child = Command::new(bin)
        .arg("--config")
        .arg(&config)
        .arg("serve")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let served = Served {
        child,
        base: format!(
            "{}://127.0.0.1:{port}",
            if tls() { "https" } else { "http" }
        ),
    };
    let client = http_client();
    for _ in 0..600 {
        if client
            .get(format!("{}/healthz", served.base))
            .send()
            .map(|r| r.status().is_success())
            .unwrap_or(false)
        {
            return served;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    panic!("cxwatch did not start");
}

fn vm(pid: u32, field: &str) -> String {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap_or_default()
        .lines()
        .find(|l| l.starts_with(field))
        .map(|l| l[field.len() + 1..].trim().to_string())
        .unwrap_or_default()
}

fn admin_token(dir: &Path) -> String {
    let c = rusqlite::Connection::open(dir.join("cxwatch.db")).unwrap();
    c.busy_timeout(Duration::from_secs(10)).unwrap();
    c.execute(
        "INSERT OR IGNORE INTO users (username, password_hash, roles, access_type, created_at)
         VALUES ('bench@example.com', 'x', 'ROLE_ADMIN', 'read-only', 0)",
        [],
    )
    .unwrap();
    let uid: i64 = c
        .query_row(
            "SELECT id FROM users WHERE username = 'bench@example.com'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    let token = format!("bench-{}", rand::random::<u64>());
    c.execute(
        "INSERT INTO tokens (token_hash, user_id, remember, created_at, expires_at, last_used_at)
         VALUES (?1, ?2, 0, 0, 4102444800, ?3)",
        rusqlite::params![
            cxwatch::store::auth::hash_secret(&token),
            uid,
            chrono::Utc::now().timestamp()
        ],
    )
    .unwrap();
    token
}

fn api_key(dir: &Path) -> String {
    let store = Store::open(dir, options()).unwrap();
    wait(store.add_api_key(&format!("bench-{}", rand::random::<u32>()))).unwrap()
}

fn ingest_http(total: u64) {
    let dir = tempfile::tempdir().unwrap();
    drop(Store::open(dir.path(), options()).unwrap());
    let key = api_key(dir.path());
    let server = start_server(dir.path());
    let client = http_client();
    let mut rng = StdRng::seed_from_u64(3);
    let batches = total.div_ceil(BATCH as u64);
    let bodies: Vec<String> = (0..batches)
        .map(|slot| {
            let b = synth_batch(&mut rng, year_start(), 300_000, slot);
            serde_json::to_string(&serde_json::json!({ "runs": b })).unwrap()
        })
        .collect();
    let bytes: usize = bodies.iter().map(String::len).sum();
    println!(
        "ingest-http: {batches} batches of {BATCH} runs, {:.0} KiB of JSON per batch, one client, {}",
        bytes as f64 / batches as f64 / 1024.0,
        if tls() { "HTTPS" } else { "plain HTTP" }
    );
    let mut per = Vec::new();
    let t = Instant::now();
    for body in bodies {
        let t1 = Instant::now();
        let r = client
            .post(format!("{}/api/ingest/v1/runs", server.base))
            .header("X-API-Key", &key)
            .header("Content-Type", "application/json")
            .body(body)
            .send()
            .unwrap();
        assert!(r.status().is_success(), "{}", r.text().unwrap_or_default());
        per.push(t1.elapsed().as_secs_f64() * 1000.0);
    }
    let secs = t.elapsed().as_secs_f64();
    println!(
        "ingested {} runs over HTTP in {secs:.2} s: {:.0} runs/s",
        batches * BATCH as u64,
        (batches * BATCH as u64) as f64 / secs
    );
    summary("POST /api/ingest/v1/runs (500 runs)", per);
    let cpu = proc_cpu(&format!("/proc/{}/stat", server.child.id()));
    println!(
        "server CPU over the run: {cpu:.2} s, {:.2} ms per batch of {BATCH}",
        cpu * 1000.0 / batches as f64
    );
    println!(
        "server memory: VmRSS {}, VmHWM {}",
        vm(server.child.id(), "VmRSS"),
        vm(server.child.id(), "VmHWM")
    );
    drop(server);
    let http_rate = (batches * BATCH as u64) as f64 / secs;
    let raw = raw_ceiling(dir.path());
    println!(
        "raw ceiling (the same rows into the same tables and indexes, {BATCH} a transaction, no \
         JSON, no HTTP, no rollups): {raw:.0} rows/s; HTTP ingest is {:.2} of it",
        http_rate / raw
    );
}

/// The raw ceiling of one engine's ingest: the runs (and their keys) that the server stored
/// in `served`, read back and inserted as they are into a fresh database of the same schema
/// and settings, 500 runs a transaction: what SQLite itself allows for these rows and
/// indexes, without parsing, checking, rollups or HTTP. Rows per second.
fn raw_ceiling(served: &Path) -> f64 {
    type Row = (
        i64,
        i64,
        i64,
        i64,
        i64,
        Option<i64>,
        Option<i64>,
        i64,
        Vec<u8>,
        Vec<u8>,
    );
    let src = rusqlite::Connection::open(served.join("cxwatch.db")).unwrap();
    let rows: Vec<Row> = src
        .prepare(
            "SELECT r.test_case_id, r.run_time, r.duration_ms, r.status, r.run_type, r.mos,
                    r.recording_id, r.script_id, r.results, k.engine_key
               FROM test_runs r JOIN run_keys k ON k.run_id = r.id ORDER BY r.id",
        )
        .unwrap()
        .query_map([], |r| {
            Ok((
                r.get(0)?,
                r.get(1)?,
                r.get(2)?,
                r.get(3)?,
                r.get(4)?,
                r.get(5)?,
                r.get(6)?,
                r.get(7)?,
                r.get(8)?,
                r.get(9)?,
            ))
        })
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    drop(src);
    let dir = tempfile::tempdir().unwrap();
    drop(Store::open(dir.path(), options()).unwrap());
    let mut c = rusqlite::Connection::open(dir.path().join("cxwatch.db")).unwrap();
    c.execute_batch(&format!(
        "PRAGMA journal_mode = WAL; PRAGMA synchronous = {}; PRAGMA wal_autocheckpoint = 10000;
         PRAGMA cache_size = -{}; PRAGMA foreign_keys = OFF;",
        match options().synchronous {
            Synchronous::Normal => "NORMAL",
            Synchronous::Full => "FULL",
        },
        options().cache_mib as u64 * 1024 / 4
    ))
    .unwrap();
    let t = Instant::now();
    for chunk in rows.chunks(BATCH) {
        let tx = c.transaction().unwrap();
        {
            let mut run = tx
                .prepare_cached(
                    "INSERT INTO test_runs (test_case_id, run_time, duration_ms, status, run_type,
                            mos, recording_id, script_id, results)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
                )
                .unwrap();
            let mut key = tx
                .prepare_cached("INSERT INTO run_keys (engine_key, run_id) VALUES (?1, ?2)")
                .unwrap();
            for r in chunk {
                run.execute(rusqlite::params![
                    r.0, r.1, r.2, r.3, r.4, r.5, r.6, r.7, r.8
                ])
                .unwrap();
                key.execute(rusqlite::params![r.9, tx.last_insert_rowid()])
                    .unwrap();
            }
        }
        tx.commit().unwrap();
    }
    rows.len() as f64 / t.elapsed().as_secs_f64()
}

fn serve(dir: &Path, iters: u64) {
    {
        let store = Store::open(dir, options()).unwrap();
        ensure_groups(&store);
    }
    let (first, last) = days_of(&Store::open(dir, options()).unwrap());
    let span = (last - first).num_days();
    let token = admin_token(dir);
    let server = start_server(dir);
    let pid = server.child.id();
    println!(
        "serve: cxwatch pid {pid} on {}; after start VmRSS {}",
        dir.display(),
        vm(pid, "VmRSS")
    );
    let client = http_client();
    let get = |path: String| {
        let t = Instant::now();
        let r = client
            .get(format!("{}{path}", server.base))
            .bearer_auth(&token)
            .send()
            .unwrap();
        assert!(r.status().is_success(), "{path}: {}", r.status());
        std::hint::black_box(r.bytes().unwrap());
        t.elapsed().as_secs_f64() * 1000.0
    };
    let mut rng = StdRng::seed_from_u64(11);
    let day = |rng: &mut StdRng, len: i64| {
        first + chrono::Duration::days(rng.gen_range(0..=(span - len + 1).max(0)))
    };
    let mut v = Vec::new();
    for _ in 0..iters {
        let d = day(&mut rng, 1);
        v.push(get(format!(
            "/api/trs/v1/groups/{}/metric?level=case&startDate={d}&caseRunType=Schedule",
            rng.gen_range(1..=GROUPS)
        )));
    }
    summary("HTTP group metric, 1 day, level=case", v);
    let mut v = Vec::new();
    for _ in 0..iters {
        let d = day(&mut rng, 1);
        v.push(get(format!(
            "/api/trs/v1/groups/{}/mos?startDate={d}&caseRunType=Schedule",
            rng.gen_range(1..=16)
        )));
    }
    summary("HTTP group MOS, 1 day", v);
    let mut v = Vec::new();
    for _ in 0..(iters / 10).max(10) {
        let d = day(&mut rng, 30);
        let e = d + chrono::Duration::days(29);
        let t = Instant::now();
        for g in 1..=GROUPS {
            get(format!(
                "/api/trs/v1/groups/{g}/metric?level=case&startDate={d}&endDate={e}&caseRunType=Schedule"
            ));
        }
        v.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    summary("HTTP all 20 groups, 30 days, level=case", v);
    let mut v = Vec::new();
    for _ in 0..iters {
        let d = day(&mut rng, 30);
        let e = d + chrono::Duration::days(29);
        v.push(get(format!(
            "/api/trs/v1/testcases/{}/runs?startDate={d}&endDate={e}&pageNo={}&pageSize=100",
            rng.gen_range(1..=CASES),
            rng.gen_range(0..5)
        )));
    }
    summary("HTTP run list, 30 days, page of 100", v);
    println!(
        "server memory while serving: VmRSS {}, peak VmHWM {}",
        vm(pid, "VmRSS"),
        vm(pid, "VmHWM")
    );
    let _ = std::fs::remove_file(dir.join("bench-config.toml"));
}

// ---------------------------------------------------------------------------------------
// The alert engine over HTTP

/// A served cxwatch of `alerts-http`: its data directory and, with `--pg`, its own database.
struct AlertServer {
    served: Served,
    key: String,
    dir: tempfile::TempDir,
    /// (server URL, database name) of the bench's database, dropped at the end.
    pg: Option<(String, String)>,
}

/// A PostgreSQL database of the bench's own (`cxbench_…`, not a test's `cxwt_…`, which test
/// runs drop), made empty.
fn bench_database(base: &str, name: &str) -> String {
    let mut url = reqwest::Url::parse(base).unwrap();
    url.set_path(&format!("/{name}"));
    drop_database(base, name);
    ensure_database(url.as_str());
    url.to_string()
}

fn drop_database(base: &str, name: &str) {
    let mut admin = reqwest::Url::parse(base).unwrap();
    admin.set_path("/postgres");
    wait(async {
        let (c, conn) = tokio_postgres::connect(admin.as_str(), tokio_postgres::NoTls)
            .await
            .unwrap();
        tokio::spawn(conn);
        c.batch_execute(&format!("DROP DATABASE IF EXISTS \"{name}\" WITH (FORCE)"))
            .await
            .unwrap();
    });
}

fn alert_server(settings: Settings) -> AlertServer {
    let dir = tempfile::tempdir().unwrap();
    let pg = pg_url().map(|base| {
        let name = format!(
            "cxbench_{}_{}",
            if settings == Settings::None {
                "off"
            } else {
                "on"
            },
            rand::random::<u32>()
        );
        (base, name)
    });
    let url = pg.as_ref().map(|(base, name)| bench_database(base, name));
    let store = match &url {
        None => Store::open(dir.path(), options()).unwrap(),
        Some(u) => wait(Store::connect(
            &cxwatch::config::StoreConfig {
                url: u.clone(),
                pool_size: 2,
                ..Default::default()
            },
            dir.path(),
        ))
        .unwrap(),
    };
    alert_site(&store, settings);
    let key = wait(store.add_api_key(&format!("bench-{}", rand::random::<u32>()))).unwrap();
    drop(store);
    let served = start_server_on(dir.path(), url.as_deref());
    AlertServer {
        served,
        key,
        dir,
        pg,
    }
}

/// CPU seconds of the PostgreSQL server processes serving database `name` (its
/// connections, from `pg_stat_activity`), by process id.
fn pg_backend_cpu(base: &str, name: &str) -> std::collections::HashMap<i32, f64> {
    let mut admin = reqwest::Url::parse(base).unwrap();
    admin.set_path("/postgres");
    let pids: Vec<i32> = wait(async {
        let (c, conn) = tokio_postgres::connect(admin.as_str(), tokio_postgres::NoTls)
            .await
            .unwrap();
        tokio::spawn(conn);
        c.query(
            "SELECT pid FROM pg_stat_activity WHERE datname = $1",
            &[&name],
        )
        .await
        .unwrap()
        .iter()
        .map(|r| r.get(0))
        .collect()
    });
    pids.into_iter()
        .map(|p| (p, proc_cpu(&format!("/proc/{p}/stat"))))
        .collect()
}

/// What one turn of one server measured.
#[derive(Default, Clone, Copy)]
struct Turn {
    runs_per_s: f64,
    cxwatch_cpu_ms_per_batch: f64,
    postgres_cpu_ms_per_batch: f64,
}

/// Posts `bodies` to the server with `clients` clients at once; the rate and the CPU.
fn turn(server: &AlertServer, bodies: &[String], clients: usize) -> Turn {
    let pid = server.served.child.id();
    let cpu0 = proc_cpu(&format!("/proc/{pid}/stat"));
    let pg0 = server
        .pg
        .as_ref()
        .map(|(b, n)| pg_backend_cpu(b, n))
        .unwrap_or_default();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let t = Instant::now();
    std::thread::scope(|scope| {
        for _ in 0..clients {
            scope.spawn(|| {
                let client = reqwest::blocking::Client::new();
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(body) = bodies.get(i) else {
                        return;
                    };
                    let r = client
                        .post(format!("{}/api/ingest/v1/runs", server.served.base))
                        .header("X-API-Key", &server.key)
                        .header("Content-Type", "application/json")
                        .body(body.clone())
                        .send()
                        .unwrap();
                    assert!(r.status().is_success(), "{}", r.text().unwrap_or_default());
                }
            });
        }
    });
    let secs = t.elapsed().as_secs_f64();
    let cpu = proc_cpu(&format!("/proc/{pid}/stat")) - cpu0;
    let pg = server
        .pg
        .as_ref()
        .map(|(b, n)| {
            pg_backend_cpu(b, n)
                .iter()
                .map(|(p, c)| c - pg0.get(p).copied().unwrap_or(0.0))
                .sum::<f64>()
        })
        .unwrap_or(0.0);
    let batches = bodies.len() as f64;
    Turn {
        runs_per_s: batches * BATCH as f64 / secs,
        cxwatch_cpu_ms_per_batch: cpu * 1000.0 / batches,
        postgres_cpu_ms_per_batch: pg * 1000.0 / batches,
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    pct(&v, 0.5)
}

/// Ingest with the alert engine's 200 settings against none, as an engine sees it: two
/// served cxwatch (the release binary, the notification sender running, no channel
/// configured so that every notification is recorded failed at once), one with the bench's
/// 200 settings and one without, fed the same batches of 500 runs over HTTP in turns
/// (`batches` batches a turn, the order switched each round), `clients` clients at once.
/// The ratio of each round is on/off; the median and the range of the rounds are printed.
fn alerts_http(clients: usize, rounds: usize, per_turn: usize, quiet: bool) {
    println!(
        "alerts-http: backend {}, {clients} client(s), {rounds} rounds (and one not counted) of \
         {per_turn} batches of {BATCH} runs per server{}",
        backend(),
        if quiet {
            "; quiet settings (10 failures in a row)"
        } else {
            ""
        }
    );
    let on = alert_server(if quiet {
        Settings::Quiet
    } else {
        Settings::Bench
    });
    let off = alert_server(Settings::None);
    let mut rng = StdRng::seed_from_u64(1);
    let total = (rounds + 1) * per_turn;
    let bodies: Vec<String> = (0..total as u64)
        .map(|slot| {
            let b = synth_batch(&mut rng, year_start(), 5 * 60_000, slot);
            serde_json::to_string(&serde_json::json!({ "runs": b })).unwrap()
        })
        .collect();
    let (mut ratios, mut quiet_ratios) = (Vec::new(), Vec::new());
    let (mut on_turns, mut off_turns) = (Vec::new(), Vec::new());
    for round in 0..=rounds {
        let slice = &bodies[round * per_turn..(round + 1) * per_turn];
        let s0 = cpu_ticks();
        let (a, b) = if round % 2 == 0 {
            (turn(&on, slice, clients), turn(&off, slice, clients))
        } else {
            let b = turn(&off, slice, clients);
            (turn(&on, slice, clients), b)
        };
        if round == 0 {
            continue; // warm-up
        }
        let steal = stolen_since(s0);
        println!(
            "round {round}: on {:>6.0} runs/s (cxwatch {:>5.1} ms, PostgreSQL {:>5.1} ms CPU a batch) | \
             off {:>6.0} runs/s ({:>5.1} ms, {:>5.1} ms) | on/off {:.2} | steal {:.0} %",
            a.runs_per_s,
            a.cxwatch_cpu_ms_per_batch,
            a.postgres_cpu_ms_per_batch,
            b.runs_per_s,
            b.cxwatch_cpu_ms_per_batch,
            b.postgres_cpu_ms_per_batch,
            a.runs_per_s / b.runs_per_s,
            steal * 100.0
        );
        if steal < QUIET_STEAL {
            quiet_ratios.push(a.runs_per_s / b.runs_per_s);
        }
        ratios.push(a.runs_per_s / b.runs_per_s);
        on_turns.push(a);
        off_turns.push(b);
    }
    let m = |t: &[Turn], f: fn(&Turn) -> f64| median(t.iter().map(f).collect());
    let mut sorted = ratios.clone();
    sorted.sort_by(|a, b| a.partial_cmp(b).unwrap());
    println!(
        "engine on  (200 settings): median {:.0} runs/s, CPU a batch: cxwatch {:.1} ms, PostgreSQL {:.1} ms",
        m(&on_turns, |t| t.runs_per_s),
        m(&on_turns, |t| t.cxwatch_cpu_ms_per_batch),
        m(&on_turns, |t| t.postgres_cpu_ms_per_batch)
    );
    println!(
        "engine off (no settings):  median {:.0} runs/s, CPU a batch: cxwatch {:.1} ms, PostgreSQL {:.1} ms",
        m(&off_turns, |t| t.runs_per_s),
        m(&off_turns, |t| t.cxwatch_cpu_ms_per_batch),
        m(&off_turns, |t| t.postgres_cpu_ms_per_batch)
    );
    println!(
        "on/off per round: median {:.2}, range {:.2}–{:.2} ({} rounds)",
        median(ratios),
        sorted[0],
        sorted[sorted.len() - 1],
        sorted.len()
    );
    if quiet_ratios.is_empty() {
        no_quiet_round();
    } else {
        println!(
            "on/off over the {} rounds with under {:.0} % steal: median {:.2}",
            quiet_ratios.len(),
            QUIET_STEAL * 100.0,
            median(quiet_ratios)
        );
    }
    // What the engine did: the server stopped, the store read directly.
    let AlertServer {
        served: off_served,
        pg: off_pg,
        ..
    } = off;
    drop(off_served);
    let AlertServer {
        served, dir, pg, ..
    } = on;
    drop(served);
    let store = match &pg {
        None => Store::open(dir.path(), options()).unwrap(),
        Some((base, name)) => {
            let mut url = reqwest::Url::parse(base).unwrap();
            url.set_path(&format!("/{name}"));
            wait(Store::connect(
                &cxwatch::config::StoreConfig {
                    url: url.to_string(),
                    pool_size: 2,
                    ..Default::default()
                },
                dir.path(),
            ))
            .unwrap()
        }
    };
    let events = wait(store.list_alert_events(
        Scope::All,
        PageRequest { no: 0, size: 1 },
        Default::default(),
    ))
    .unwrap()
    .total;
    let outbox = wait(store.outbox_counts()).unwrap();
    println!(
        "engine on: {events} events opened over {} runs; outbox: {} recorded failed (no channel \
         configured), {} sent, {} still queued",
        total * BATCH,
        outbox.failed,
        outbox.sent,
        outbox.queued
    );
    drop(store);
    for p in [pg, off_pg].into_iter().flatten() {
        drop_database(&p.0, &p.1);
    }
    println!(
        "machine load average {}",
        std::fs::read_to_string("/proc/loadavg").unwrap_or_default()
    );
}
// Proxy mode

/// Requests/s of `GET /api/trs/v1/groups` (a signed-in administrator, 20 groups) from
/// `conns` connections, straight to an embedded cxwatch and through a second cxwatch in
/// proxy mode in front of it, alternated `rounds` times `secs` seconds each; with the CPU
/// each process spent per request. Plain HTTP on 127.0.0.1 both hops: what is measured is
/// the proxy's forwarding, not TLS.
fn proxy(conns: usize, secs: u64, rounds: u64, nginx: Option<String>) {
    assert!(
        !tls(),
        "proxy: plain HTTP only (the load generator speaks HTTP/1.1)"
    );
    let dir = tempfile::tempdir().unwrap();
    {
        let store = Store::open(dir.path(), options()).unwrap();
        let mut rng = StdRng::seed_from_u64(5);
        wait(store.ingest_runs(TZ, synth_batch(&mut rng, year_start(), 300_000, 0))).unwrap();
        ensure_groups(&store);
    }
    let token = admin_token(dir.path());
    let upstream = start_server(dir.path());
    let proxy_dir = tempfile::tempdir().unwrap();
    let proxied = start_server_with(
        proxy_dir.path(),
        &format!(
            "[api]\nmode = \"proxy\"\n[[tenants]]\nname = \"bench\"\nhosts = [\"127.0.0.1\"]\nupstream = \"{}\"\n",
            upstream.base
        ),
    );
    let path = "/api/trs/v1/groups";
    // `--nginx BIN`: the same two hops through nginx beside, the anchor a proxy is held to.
    let nginx = nginx.map(|bin| Nginx::start(&bin, &upstream.base));
    let (up_pid, px_pid) = (upstream.child.id(), proxied.child.id());
    let cpu = |pid: u32| proc_cpu(&format!("/proc/{pid}/stat"));
    println!(
        "proxy: GET {path} from {conns} connections (HTTP/1.1 keep-alive), {rounds} rounds of \
         {secs} s each way; load average {}",
        std::fs::read_to_string("/proc/loadavg")
            .unwrap_or_default()
            .trim()
    );
    // Warm-up: connections, caches, the proxy's pool.
    load(
        &upstream.base,
        path,
        &token,
        conns,
        Duration::from_millis(500),
    );
    load(
        &proxied.base,
        path,
        &token,
        conns,
        Duration::from_millis(500),
    );
    if let Some(n) = &nginx {
        load(&n.base, path, &token, conns, Duration::from_millis(500));
    }
    let (mut by_nginx, mut nginx_cpu) = (Vec::new(), Vec::new());
    let (mut direct, mut through, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
    let (mut up_direct, mut up_proxied, mut px_cpu) = (Vec::new(), Vec::new(), Vec::new());
    // Per round: whether both the proxy's and nginx's windows were left alone by the host.
    let mut quiet = Vec::new();
    for round in 0..rounds {
        let c0 = cpu(up_pid);
        let (n, wall) = load(
            &upstream.base,
            path,
            &token,
            conns,
            Duration::from_secs(secs),
        );
        let d = n as f64 / wall;
        up_direct.push((cpu(up_pid) - c0) * 1e6 / n as f64);
        let (c0, p0, s0) = (cpu(up_pid), cpu(px_pid), cpu_ticks());
        let (n, wall) = load(
            &proxied.base,
            path,
            &token,
            conns,
            Duration::from_secs(secs),
        );
        let p = n as f64 / wall;
        up_proxied.push((cpu(up_pid) - c0) * 1e6 / n as f64);
        px_cpu.push((cpu(px_pid) - p0) * 1e6 / n as f64);
        let px_steal = stolen_since(s0);
        println!(
            "round {}: direct {d:.0} req/s, proxied {p:.0} req/s, ratio {:.2}; CPU per request: \
             upstream {:.0} µs (direct) / {:.0} µs (proxied), proxy {:.0} µs; steal {:.0} %",
            round + 1,
            p / d,
            up_direct[round as usize],
            up_proxied[round as usize],
            px_cpu[round as usize],
            px_steal * 100.0
        );
        if let Some(ng) = &nginx {
            let (c0, s0) = (ng.cpu(), cpu_ticks());
            let (n, wall) = load(&ng.base, path, &token, conns, Duration::from_secs(secs));
            let r = n as f64 / wall;
            nginx_cpu.push((ng.cpu() - c0) * 1e6 / n as f64);
            by_nginx.push(r);
            let ng_steal = stolen_since(s0);
            quiet.push(px_steal < QUIET_STEAL && ng_steal < QUIET_STEAL);
            println!(
                "round {}: nginx {r:.0} req/s, ratio {:.2} of direct; cxwatch/nginx: \
                 throughput {:.2}, proxy CPU per request {:.2} ({:.0} µs against {:.0} µs); \
                 steal {:.0} %",
                round + 1,
                r / d,
                p / r,
                px_cpu[round as usize] / nginx_cpu[round as usize],
                px_cpu[round as usize],
                nginx_cpu[round as usize],
                ng_steal * 100.0
            );
        }
        direct.push(d);
        through.push(p);
        ratios.push(p / d);
    }
    let median = |mut v: Vec<f64>| {
        v.sort_by(|a, b| a.partial_cmp(b).unwrap());
        v[v.len() / 2]
    };
    println!(
        "median: direct {:.0} req/s, proxied {:.0} req/s, ratio {:.2}; CPU per request: upstream \
         {:.0} µs, proxy {:.0} µs",
        median(direct),
        median(through.clone()),
        median(ratios),
        median(up_proxied),
        median(px_cpu.clone())
    );
    if !by_nginx.is_empty() {
        let ratio = |a: &[f64], b: &[f64]| median(a.iter().zip(b).map(|(x, y)| x / y).collect());
        println!(
            "median: nginx {:.0} req/s, CPU per request {:.0} µs; cxwatch/nginx per round: \
             throughput {:.2}, proxy CPU per request {:.2}",
            median(by_nginx.clone()),
            median(nginx_cpu.clone()),
            ratio(&through, &by_nginx),
            ratio(&px_cpu, &nginx_cpu)
        );
        let pick = |v: &[f64]| -> Vec<f64> {
            v.iter()
                .zip(&quiet)
                .filter(|(_, q)| **q)
                .map(|(x, _)| *x)
                .collect()
        };
        let n = quiet.iter().filter(|q| **q).count();
        if n > 0 {
            println!(
                "median of the {n} of {rounds} rounds with under {:.0} % steal in both windows: \
                 cxwatch/nginx throughput {:.2}, proxy CPU per request {:.2}",
                QUIET_STEAL * 100.0,
                ratio(&pick(&through), &pick(&by_nginx)),
                ratio(&pick(&px_cpu), &pick(&nginx_cpu))
            );
        } else {
            no_quiet_round();
        }
    }
    println!(
        "proxy memory: VmRSS {}, VmHWM {}",
        vm(px_pid, "VmRSS"),
        vm(px_pid, "VmHWM")
    );
}

/// The machine's CPU time (all cores, in ticks) and the part of it the hypervisor gave to
/// other guests (`steal`), from `/proc/stat`.
fn cpu_ticks() -> (f64, f64) {
    let stat = std::fs::read_to_string("/proc/stat").unwrap_or_default();
    let f: Vec<f64> = stat
        .lines()
        .next()
        .unwrap_or_default()
        .split_whitespace()
        .skip(1)
        .take(8)
        .filter_map(|v| v.parse().ok())
        .collect();
    (f.iter().sum(), f.get(7).copied().unwrap_or(0.0))
}

/// The share of the machine's time stolen by the hypervisor since `from` (a [`cpu_ticks`]).
/// A guest kernel without steal-time accounting charges that time to whichever task was
/// running, so a window with much of it inflates a process's CPU by the host's load.
fn stolen_since(from: (f64, f64)) -> f64 {
    let now = cpu_ticks();
    let total = now.0 - from.0;
    if total > 0.0 {
        (now.1 - from.1) / total
    } else {
        0.0
    }
}

/// Rounds whose windows lost less than this share to steal count in the quiet median.
const QUIET_STEAL: f64 = 0.03;

fn no_quiet_round() {
    println!(
        "no round had under {:.0} % steal: the host's load is in every figure above",
        QUIET_STEAL * 100.0
    );
}

/// nginx as a reverse proxy to `upstream` (plain HTTP both hops, as the bench's cxwatch
/// proxy), one worker per core, keep-alive connections to the upstream, no access log.
struct Nginx {
    child: std::process::Child,
    base: String,
    _dir: tempfile::TempDir,
}

impl Nginx {
    fn start(bin: &str, upstream: &str) -> Nginx {
        let dir = tempfile::tempdir().unwrap();
        let port = free_port();
        let up = upstream.trim_start_matches("http://");
        let d = dir.path().display();
        std::fs::write(
            dir.path().join("nginx.conf"),
            format!(
                "daemon off;\nworker_processes auto;\npid {d}/nginx.pid;\nerror_log {d}/error.log warn;\n\
                 events {{ worker_connections 1024; }}\n\
                 http {{\n  access_log off;\n  client_body_temp_path {d};\n  proxy_temp_path {d};\n\
                   upstream cx {{ server {up}; keepalive 64; }}\n\
                   server {{\n    listen 127.0.0.1:{port};\n    keepalive_requests 1000000;\n    location / {{\n\
                       proxy_pass http://cx;\n      proxy_http_version 1.1;\n\
                       proxy_set_header Connection \"\";\n      proxy_set_header Host $host;\n\
                       proxy_set_header X-Forwarded-For $remote_addr;\n    }}\n  }}\n}}\n"
            ),
        )
        .unwrap();
        let child = Command::new(bin)
            .arg("-p")
            .arg(dir.path())
            .arg("-c")
            .arg(dir.path().join("nginx.conf"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let base = format!("http://127.0.0.1:{port}");
        for _ in 0..100 {
            if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
                break;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        Nginx {
            child,
            base,
            _dir: dir,
        }
    }

    /// CPU seconds of the master and its workers.
    fn cpu(&self) -> f64 {
        let master = self.child.id();
        let children = std::fs::read_to_string(format!("/proc/{master}/task/{master}/children"))
            .unwrap_or_default();
        std::iter::once(master)
            .chain(children.split_whitespace().filter_map(|p| p.parse().ok()))
            .map(|p: u32| proc_cpu(&format!("/proc/{p}/stat")))
            .sum()
    }
}

impl Drop for Nginx {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `conns` HTTP/1.1 connections to `base`, each sending `GET path` as soon as the last
/// answer is read, for `dur`: (answers, seconds). One thread, so that the load generator
/// takes the same CPU in both set-ups.
fn load(base: &str, path: &str, token: &str, conns: usize, dur: Duration) -> (u64, f64) {
    let addr = base.trim_start_matches("http://").to_string();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let start = Instant::now();
        let until = start + dur;
        let mut tasks = Vec::new();
        for _ in 0..conns {
            let (addr, path, token) = (addr.clone(), path.to_string(), token.to_string());
            tasks.push(tokio::spawn(async move {
                let stream = tokio::net::TcpStream::connect(&addr).await.unwrap();
                stream.set_nodelay(true).unwrap();
                let (mut send, conn) = hyper::client::conn::http1::handshake::<_, String>(
                    hyper_util::rt::TokioIo::new(stream),
                )
                .await
                .unwrap();
                tokio::spawn(conn);
                let mut n = 0u64;
                while Instant::now() < until {
                    let req = hyper::Request::get(path.as_str())
                        .header("host", addr.as_str())
                        .header("authorization", format!("Bearer {token}"))
                        .body(String::new())
                        .unwrap();
                    let resp = send.send_request(req).await.unwrap();
                    assert!(resp.status().is_success(), "{}", resp.status());
                    let mut body = resp.into_body();
                    let mut bytes = 0;
                    while let Some(frame) = futures_util::future::poll_fn(|cx| {
                        hyper::body::Body::poll_frame(std::pin::Pin::new(&mut body), cx)
                    })
                    .await
                    {
                        if let Some(d) = frame.unwrap().data_ref() {
                            bytes += d.len();
                        }
                    }
                    assert!(bytes > 0);
                    n += 1;
                }
                n
            }));
        }
        let mut total = 0;
        for t in tasks {
            total += t.await.unwrap();
        }
        (total, start.elapsed().as_secs_f64())
    })
}
