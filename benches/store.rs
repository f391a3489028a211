//! Store benchmarks: they print figures, they never fail on a time. See docs/benchmarks.md.
//!
//! ```text
//! cargo bench --bench store -- ingest [--runs 200000]        ingest rate, store::runs::ingest
//! cargo bench --bench store -- ingest-http [--runs 100000]   ingest rate over HTTP (plain)
//! cargo bench --bench store -- build --db DIR --runs N       make a database of N runs over a year
//! cargo bench --bench store -- query --db DIR                metric latencies, bytes per run
//! cargo bench --bench store -- serve --db DIR                HTTP latencies and the server's memory
//! ```
//!
//! Synthetic site: 500 test cases (400 voice, 100 web) in 20 groups of 25; every run has
//! 3 segments and 5 steps; runs come in batches of 500, one run per test case and time slot.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use chrono::{DateTime, NaiveDate, TimeZone, Utc};
use chrono_tz::Tz;
use cxwatch::domain::buckets;
use cxwatch::ingest::{
    Channel, IngestIvr, IngestRun, IngestSegment, IngestStep, IngestTestCase, IngestTestResult,
    RunStatus, RunType,
};
use cxwatch::store::{catalog, metrics, runs, Store};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

const CASES: i64 = 500;
const GROUPS: i64 = 20;
const BATCH: usize = 500;
const TZ: Tz = chrono_tz::America::Toronto;

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
    match cmd {
        "ingest" => ingest(num("--runs", 200_000), opt("--autocheckpoint")),
        "ingest-http" => ingest_http(num("--runs", 100_000)),
        "build" => build(&db(), num("--runs", 1_000_000)),
        "query" => query(&db(), num("--iters", 300)),
        "serve" => serve(&db(), num("--iters", 300)),
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

fn run_count(store: &Store) -> u64 {
    store
        .read_blocking(|c| {
            Ok(c.query_row("SELECT max(id) FROM test_runs", [], |r| {
                r.get::<_, Option<i64>>(0)
            })?)
        })
        .unwrap()
        .unwrap_or(0) as u64
}

fn checkpoint(store: &Store) {
    store.write_blocking(|_| Ok(())).unwrap();
    store
        .read_blocking(|c| {
            c.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))?;
            Ok(())
        })
        .unwrap();
}

/// Creates the 20 groups of 25 test cases when missing.
fn ensure_groups(store: &Store) {
    let have: i64 = store
        .read_blocking(|c| {
            Ok(c.query_row("SELECT count(*) FROM test_case_groups", [], |r| r.get(0))?)
        })
        .unwrap();
    if have > 0 {
        return;
    }
    store
        .write_blocking(|tx| {
            for g in 0..GROUPS {
                let cases: Vec<i64> = (g * 25 + 1..=g * 25 + 25).collect();
                catalog::create_group(
                    tx,
                    &format!("Group {:02}", g + 1),
                    case_channel(cases[0]),
                    &cases,
                )?;
            }
            Ok(())
        })
        .unwrap();
}

// ---------------------------------------------------------------------------------------
// Commands

fn ingest(total: u64, autocheckpoint: Option<String>) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    if let Some(n) = autocheckpoint {
        let n: u32 = n.parse().expect("--autocheckpoint PAGES");
        store
            .write_blocking(|tx| {
                tx.execute_batch(&format!("PRAGMA wal_autocheckpoint = {n}"))?;
                Ok(())
            })
            .unwrap();
        println!("wal_autocheckpoint = {n} pages");
    }
    let mut rng = StdRng::seed_from_u64(1);
    let batches = total.div_ceil(BATCH as u64);
    let interval = 5 * 60_000; // every 5 minutes, like the site
    println!(
        "ingest: {batches} batches of {BATCH} runs (5 steps each) through store::runs::ingest"
    );
    let mut gen_time = Duration::ZERO;
    let mut ingest_time = Duration::ZERO;
    let mut cpu = 0.0;
    let mut per_batch = Vec::new();
    for slot in 0..batches {
        let t0 = Instant::now();
        let batch = synth_batch(&mut rng, year_start(), interval, slot);
        gen_time += t0.elapsed();
        let c0 = thread_cpu();
        let t1 = Instant::now();
        let out = store
            .write_blocking(|tx| runs::ingest(tx, TZ, &batch))
            .unwrap();
        let dt = t1.elapsed();
        cpu += thread_cpu() - c0;
        assert_eq!(out.accepted, batch.len());
        ingest_time += dt;
        per_batch.push(dt.as_secs_f64() * 1000.0);
    }
    let n = batches * BATCH as u64;
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
    summary("batch of 500 (one commit)", per_batch);
    // Pages one more batch writes to the WAL (what a commit costs in I/O).
    store
        .write_blocking(|tx| {
            tx.execute_batch("PRAGMA wal_autocheckpoint = 0")?;
            Ok(())
        })
        .unwrap();
    checkpoint(&store);
    let batch = synth_batch(&mut rng, year_start(), interval, batches);
    store
        .write_blocking(|tx| runs::ingest(tx, TZ, &batch))
        .unwrap();
    let frames: i64 = store
        .read_blocking(|c| Ok(c.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |r| r.get(1))?))
        .unwrap();
    println!(
        "one batch of 500 wrote {frames} pages to the WAL ({:.1} KiB per run)",
        frames as f64 * 4.0 / 500.0
    );
    store
        .write_blocking(|tx| {
            tx.execute_batch("PRAGMA wal_autocheckpoint = 1000")?;
            Ok(())
        })
        .unwrap();
    // A retry of the last batch: all duplicates, nothing written.
    let mut rng = StdRng::seed_from_u64(1);
    let mut last = Vec::new();
    for slot in 0..batches {
        last = synth_batch(&mut rng, year_start(), interval, slot);
    }
    let t = Instant::now();
    let out = store
        .write_blocking(|tx| runs::ingest(tx, TZ, &last))
        .unwrap();
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

fn build(dir: &Path, total: u64) {
    let store = Store::open(dir).unwrap();
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
        store
            .write_blocking(|tx| runs::ingest(tx, TZ, &batch))
            .unwrap();
        busy += t.elapsed();
        done += batch.len() as u64;
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
    println!(
        "database {}: {n} runs, {} bytes, {:.0} bytes per run",
        dir.display(),
        dir_bytes(dir),
        dir_bytes(dir) as f64 / n as f64
    );
    table_sizes(&store, n);
}

fn table_sizes(store: &Store, runs: u64) {
    let sizes = store.read_blocking(|c| {
        let mut stmt = c.prepare(
            "SELECT name, sum(pgsize) FROM dbstat GROUP BY name ORDER BY 2 DESC LIMIT 12",
        )?;
        let rows = stmt
            .query_map([], |r| Ok((r.get::<_, String>(0)?, r.get::<_, i64>(1)?)))?
            .collect::<Result<Vec<_>, _>>()?;
        Ok(rows)
    });
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
    let (lo, hi): (i64, i64) = store
        .read_blocking(|c| {
            Ok(c.query_row(
                "SELECT min(run_time), max(run_time) FROM test_runs",
                [],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )?)
        })
        .unwrap();
    let d = |ms| buckets::day_date(buckets::local_slot(TZ, ms).0);
    (d(lo), d(hi))
}

fn query(dir: &Path, iters: u64) {
    let store = Store::open(dir).unwrap();
    ensure_groups(&store);
    let n = run_count(&store);
    let (first, last) = days_of(&store);
    let span = (last - first).num_days();
    println!(
        "query: {n} runs from {first} to {last}; {iters} iterations each, random group and day"
    );
    let mut rng = StdRng::seed_from_u64(9);
    let metric = |group: i64, level, from: NaiveDate, days: i64| {
        let q = metrics::MetricQuery {
            group_id: group,
            level,
            from,
            to: from + chrono::Duration::days(days - 1),
            run_type: RunType::Schedule,
        };
        let t = Instant::now();
        let m = store
            .read_blocking(|c| metrics::group_metric(c, &q))
            .unwrap();
        std::hint::black_box(m);
        t.elapsed().as_secs_f64() * 1000.0
    };
    let day = |rng: &mut StdRng| first + chrono::Duration::days(rng.gen_range(0..=span));
    let mut v = Vec::new();
    for _ in 0..iters {
        let d = day(&mut rng);
        v.push(metric(
            rng.gen_range(1..=GROUPS),
            metrics::Level::Case,
            d,
            1,
        ));
    }
    summary("group metric, 1 day, level=case", v);
    let mut v = Vec::new();
    for _ in 0..iters {
        let d = day(&mut rng);
        v.push(metric(
            rng.gen_range(1..=GROUPS),
            metrics::Level::Segment,
            d,
            1,
        ));
    }
    summary("group metric, 1 day, level=segment", v);
    let mut v = Vec::new();
    for _ in 0..iters {
        let d = day(&mut rng);
        let g = rng.gen_range(1..=16);
        let t = Instant::now();
        let m = store
            .read_blocking(|c| metrics::group_mos(c, g, d, d, RunType::Schedule))
            .unwrap();
        std::hint::black_box(m);
        v.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    summary("group MOS, 1 day", v);
    let mut v = Vec::new();
    for _ in 0..(iters / 10).max(10) {
        let d = first + chrono::Duration::days(rng.gen_range(0..=(span - 29).max(0)));
        let t = Instant::now();
        for g in 1..=GROUPS {
            std::hint::black_box(metric(g, metrics::Level::Case, d, 30));
        }
        v.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    summary("all 20 groups, 30 days, level=case", v);
    let mut v = Vec::new();
    for _ in 0..(iters / 10).max(10) {
        let d = first + chrono::Duration::days(rng.gen_range(0..=(span - 29).max(0)));
        let t = Instant::now();
        for g in 1..=GROUPS {
            std::hint::black_box(metric(g, metrics::Level::Segment, d, 30));
        }
        v.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    summary("all 20 groups, 30 days, level=segment", v);
    let mut v = Vec::new();
    for _ in 0..iters {
        let d = first + chrono::Duration::days(rng.gen_range(0..=(span - 29).max(0)));
        let (from_ms, to_ms) = buckets::local_range_ms(TZ, d, d + chrono::Duration::days(29));
        let f = runs::RunFilter {
            test_case_id: rng.gen_range(1..=CASES),
            from_ms,
            to_ms,
            status: (0, 3),
            run_type: (0, 1),
        };
        let page = rng.gen_range(0..5);
        let t = Instant::now();
        let r = store
            .read_blocking(|c| runs::list(c, &f, page, 100))
            .unwrap();
        std::hint::black_box(r);
        v.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    summary("run list, 30 days, page of 100 (+ count)", v);
    let mut v = Vec::new();
    for _ in 0..iters {
        let id = rng.gen_range(1..=n as i64);
        let t = Instant::now();
        let r = store.read_blocking(|c| runs::get(c, id)).unwrap();
        std::hint::black_box(r);
        v.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    summary("run detail", v);
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
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let config = dir.join("bench-config.toml");
    std::fs::write(
        &config,
        format!(
            "data_dir = {:?}\n[server]\nlisten = \"127.0.0.1:{port}\"\nplain_http = true\n[log]\nformat = \"text\"\nlevel = \"warn\"\n",
            dir.to_str().unwrap()
        ),
    )
    .unwrap();
    let child = Command::new(env!("CARGO_BIN_EXE_cxwatch"))
        .arg("--config")
        .arg(&config)
        .arg("serve")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let served = Served {
        child,
        base: format!("http://127.0.0.1:{port}"),
    };
    let client = reqwest::blocking::Client::new();
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
        "INSERT INTO tokens (token_hash, user_id, remember, created_at, expires_at) VALUES (?1, ?2, 0, 0, 4102444800)",
        rusqlite::params![cxwatch::store::auth::hash_secret(&token), uid],
    )
    .unwrap();
    token
}

fn api_key(dir: &Path) -> String {
    let store = Store::open(dir).unwrap();
    store
        .write_blocking(|tx| {
            cxwatch::store::api_keys::add(tx, &format!("bench-{}", rand::random::<u32>()))
        })
        .unwrap()
}

fn ingest_http(total: u64) {
    let dir = tempfile::tempdir().unwrap();
    drop(Store::open(dir.path()).unwrap());
    let key = api_key(dir.path());
    let server = start_server(dir.path());
    let client = reqwest::blocking::Client::new();
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
        "ingest-http: {batches} batches of {BATCH} runs, {:.0} KiB of JSON per batch, one client",
        bytes as f64 / batches as f64 / 1024.0
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
    println!(
        "server memory: VmRSS {}, VmHWM {}",
        vm(server.child.id(), "VmRSS"),
        vm(server.child.id(), "VmHWM")
    );
}

fn serve(dir: &Path, iters: u64) {
    {
        let store = Store::open(dir).unwrap();
        ensure_groups(&store);
    }
    let (first, last) = days_of(&Store::open(dir).unwrap());
    let span = (last - first).num_days();
    let token = admin_token(dir);
    let server = start_server(dir);
    let pid = server.child.id();
    println!(
        "serve: cxwatch pid {pid} on {}; after start VmRSS {}",
        dir.display(),
        vm(pid, "VmRSS")
    );
    let client = reqwest::blocking::Client::new();
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
