//! Faults of the store an on-prem site meets, against the real binary:
//! - PostgreSQL stops while cxwatch runs (a private server this test starts and stops): every
//!   call that needs the database answers 503 with `Retry-After`, never 401/403/404, the first
//!   one included; `/healthz` says why; ingest comes back when the database does.
//! - The data directory's volume fills up (a small tmpfs in a private mount namespace): ingest
//!   is refused with 507 once free space falls under `store.min_free_mb` (or the volume is
//!   really full), nothing acknowledged is lost, and ingest comes back by itself when space
//!   is freed, without a restart.
//! - A read-only command on a mistyped data directory fails and makes no database.
//!
//! The outage lasts `TEST_OUTAGE_SECS` seconds (3 unless set; docs/benchmarks.md runs it
//! for 30; not a `CXWATCH_` name, which the server would refuse as an unknown config key)
//! and the statuses seen are printed.

use crate::common;
use crate::harness_trs::run;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use cxwatch::domain::caller::{AccessType, Role};
use cxwatch::domain::user::UserDraft;
use cxwatch::store::Store;
use serde_json::{json, Value};

const PASSWORD: &str = "correct horse battery";

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

/// Where `program` is on the PATH.
fn which(program: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|d| d.join(program))
        .find(|p| p.is_file())
}

/// A PostgreSQL program run as the `postgres` user when this test runs as root (initdb
/// refuses root), else as the test's own user.
fn as_pg_user(program: &str) -> Command {
    let path = which(program).unwrap_or_else(|| program.into());
    if is_root() {
        let mut c = Command::new("runuser");
        c.args(["-u", "postgres", "--"]).arg(path);
        c
    } else {
        Command::new(path)
    }
}

/// A PostgreSQL server of this test's own, in a temporary directory on a free port of
/// 127.0.0.1, so that the test may stop and start it.
struct PrivatePg {
    dir: tempfile::TempDir,
    port: u16,
}

impl PrivatePg {
    /// A new server, started; None (the test is skipped) when this machine has no initdb.
    fn start() -> Option<PrivatePg> {
        if which("initdb").is_none() || which("pg_ctl").is_none() {
            eprintln!("no initdb on this machine: the outage test is skipped");
            return None;
        }
        let dir = tempfile::tempdir().unwrap();
        if is_root() {
            let out = Command::new("chown")
                .arg("postgres:")
                .arg(dir.path())
                .output()
                .unwrap();
            assert!(out.status.success(), "chown: {out:?}");
        }
        let data = dir.path().join("data");
        let out = as_pg_user("initdb")
            .arg("-D")
            .arg(&data)
            .args(["-U", "postgres", "-A", "trust", "--no-sync", "-E", "UTF8"])
            .args(["--locale", "C"])
            .output()
            .unwrap();
        assert!(out.status.success(), "initdb: {out:?}");
        let pg = PrivatePg {
            dir,
            port: common::free_port(),
        };
        pg.pg_ctl_start();
        Some(pg)
    }

    fn pg_ctl_start(&self) {
        let dir = self.dir.path();
        let out = as_pg_user("pg_ctl")
            .arg("-D")
            .arg(dir.join("data"))
            .arg("-l")
            .arg(dir.join("log"))
            .arg("-o")
            .arg(format!(
                "-p {} -k {} -c listen_addresses=127.0.0.1 -c fsync=off",
                self.port,
                dir.display()
            ))
            .args(["-w", "-t", "30", "start"])
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert!(out.status.success(), "pg_ctl start: {out:?}");
    }

    /// Stops the server as an operator does (`pg_ctl stop`, fast: sessions are ended).
    fn stop(&self, mode: &str) {
        let out = as_pg_user("pg_ctl")
            .arg("-D")
            .arg(self.dir.path().join("data"))
            .args(["-m", mode, "-w", "-t", "30", "stop"])
            .output()
            .unwrap();
        assert!(out.status.success(), "pg_ctl stop: {out:?}");
    }

    fn url(&self) -> String {
        format!(
            "postgres://postgres@127.0.0.1:{}/postgres?sslmode=disable",
            self.port
        )
    }
}

impl Drop for PrivatePg {
    fn drop(&mut self) {
        let _ = as_pg_user("pg_ctl")
            .arg("-D")
            .arg(self.dir.path().join("data"))
            .args(["-m", "immediate", "-w", "stop"])
            .output();
    }
}

/// Keeps reading a server's standard error, so that its log never fills the pipe and
/// stops it while the test sends many failing calls.
fn drain_stderr(server: &mut common::Server) -> std::thread::JoinHandle<String> {
    use std::io::Read;
    let mut err = server.child.stderr.take().unwrap();
    std::thread::spawn(move || {
        let mut s = String::new();
        let _ = err.read_to_string(&mut s);
        s
    })
}

/// One answer: its status, `Retry-After` and body.
#[derive(Debug)]
struct Answer {
    status: u16,
    retry_after: Option<String>,
    body: Value,
    text: String,
}

fn answer(sent: reqwest::Result<reqwest::blocking::Response>, what: &str) -> Answer {
    let r = sent.unwrap_or_else(|e| panic!("{what}: no answer: {e}"));
    let status = r.status().as_u16();
    let retry_after = r
        .headers()
        .get("retry-after")
        .map(|v| v.to_str().unwrap().to_string());
    let text = r.text().unwrap_or_default();
    Answer {
        status,
        retry_after,
        body: serde_json::from_str(&text).unwrap_or(Value::Null),
        text,
    }
}

fn runs_body(prefix: &str, n: usize) -> Value {
    let time = common::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    let runs: Vec<Value> = (0..n)
        .map(|i| run(&format!("{prefix}-{i}"), 1 + (i % 50) as i64, &time, "pass"))
        .collect();
    json!({ "runs": runs })
}

fn client(timeout: Duration) -> reqwest::blocking::Client {
    reqwest::blocking::Client::builder()
        .timeout(timeout)
        .build()
        .unwrap()
}

/// PostgreSQL stops while cxwatch runs: ingest with the key in either header, a console
/// read and `/healthz` all answer 503 (ingest and the console with `Retry-After` and code
/// `UNAVAILABLE`), from the first call on; nothing answers 401 although key and token are
/// good; and ingest is taken again once the database is back.
#[test]
fn a_database_outage_answers_503_with_retry_after_and_never_401() {
    // It starts a PostgreSQL of its own: the pass of the tests on PostgreSQL adds nothing.
    if common::on_postgres() {
        return;
    }
    let Some(pg) = PrivatePg::start() else {
        return;
    };
    let outage = Duration::from_secs(
        std::env::var("TEST_OUTAGE_SECS")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(3),
    );
    let rt = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let config = cxwatch::config::StoreConfig {
        url: pg.url(),
        ..Default::default()
    };
    let (key, user_id) = rt.block_on(async {
        let store = Store::connect(&config, dir.path()).await.unwrap();
        let hash = cxwatch::auth::password::hash_password(PASSWORD).unwrap();
        let draft = UserDraft {
            username: "ada@example.com".into(),
            first_name: "Ada".into(),
            last_name: "Lovelace".into(),
            role: Role::Admin,
            access: AccessType::ReadWrite,
            group_ids: vec![],
        };
        let id = store.create_user(&draft, &hash).await.unwrap();
        (store.add_api_key("engine").await.unwrap(), id)
    });
    let mut server = common::start(common::Opts {
        toml: format!("[store]\nurl = {:?}\n", pg.url()),
        plain_http: true,
        ..Default::default()
    });
    let log = drain_stderr(&mut server);
    let c = client(Duration::from_secs(30));
    let signed_in = answer(
        c.post(server.url("/api/auth/signin"))
            .json(&json!({"username": "ada@example.com", "password": PASSWORD, "remember": false}))
            .send(),
        "sign-in",
    );
    assert_eq!(signed_in.status, 200, "{}", signed_in.text);
    let token = signed_in.body["data"]["accessToken"]
        .as_str()
        .unwrap()
        .to_string();
    let console = format!("/api/users/{user_id}");
    let ingest = |header: &str, value: String, batch: &Value| {
        answer(
            c.post(server.url("/api/ingest/v1/runs"))
                .header(header, value)
                .json(batch)
                .send(),
            "ingest",
        )
    };
    let by_key = |batch: &Value| ingest("X-API-Key", key.clone(), batch);
    let by_bearer = |batch: &Value| ingest("Authorization", format!("Bearer {key}"), batch);
    let read = || {
        answer(
            c.get(server.url(&console)).bearer_auth(&token).send(),
            "read",
        )
    };
    let health = || answer(c.get(server.url("/healthz")).send(), "healthz");

    let a = by_key(&runs_body("before", 5));
    assert_eq!(a.status, 200, "{}", a.text);
    assert_eq!(read().status, 200);
    assert_eq!(health().status, 200);

    pg.stop("fast");
    let mut seen: BTreeMap<(&str, u16), u32> = BTreeMap::new();
    let batch = runs_body("during", 5);
    let started = Instant::now();
    let mut first = true;
    while first || started.elapsed() < outage {
        for (what, a) in [
            ("ingest X-API-Key", by_key(&batch)),
            ("ingest Bearer", by_bearer(&batch)),
            ("console read", read()),
        ] {
            *seen.entry((what, a.status)).or_default() += 1;
            assert_eq!(
                a.status,
                503,
                "{what}{}: {}",
                if first { " (first)" } else { "" },
                a.text
            );
            assert_eq!(a.body["code"], "UNAVAILABLE", "{what}: {}", a.text);
            assert_eq!(a.retry_after.as_deref(), Some("5"), "{what}");
        }
        let h = health();
        *seen.entry(("/healthz", h.status)).or_default() += 1;
        assert_eq!(h.status, 503, "{}", h.text);
        assert!(h.text.starts_with("database unavailable"), "{}", h.text);
        first = false;
        std::thread::sleep(Duration::from_millis(100));
    }
    println!(
        "statuses during a {:.0} s database outage:",
        outage.as_secs_f64()
    );
    for ((what, status), n) in &seen {
        println!("  {what:<18} {status} x{n}");
    }

    pg.pg_ctl_start();
    let back = Instant::now();
    loop {
        let a = by_key(&batch);
        if a.status == 200 {
            assert_eq!(a.body["data"]["accepted"], 5, "{}", a.text);
            break;
        }
        assert_eq!(a.status, 503, "{}", a.text);
        assert!(
            back.elapsed() < Duration::from_secs(60),
            "ingest did not come back"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    println!(
        "ingest took runs again {:.2} s after PostgreSQL was started",
        back.elapsed().as_secs_f64()
    );
    assert_eq!(read().status, 200);
    assert_eq!(health().status, 200);
    server.kill();
    let log = log.join().unwrap();
    assert!(log.contains("database unavailable"), "{log}");
}

/// A cxwatch binary whose data directory is a tmpfs of `size_mb` MiB mounted in a private
/// mount namespace (as root; otherwise in a user namespace of its own), reached by the
/// test through `/proc/<pid>/root`.
struct OnSmallVolume {
    child: std::process::Child,
    base: String,
    /// The data directory as the server sees it.
    data_dir: PathBuf,
    log: Option<std::thread::JoinHandle<String>>,
    /// The API key the CLI made on the volume before the server started.
    key: String,
    _tmp: tempfile::TempDir,
}

impl OnSmallVolume {
    /// The server started, or None (the test is skipped) when this machine allows no
    /// private mount namespace.
    fn start(size_mb: u64, min_free_mb: u64) -> Option<OnSmallVolume> {
        let tmp = tempfile::tempdir().unwrap();
        let data_dir = tmp.path().join("data");
        std::fs::create_dir(&data_dir).unwrap();
        let port = common::free_port();
        let config = tmp.path().join("config.toml");
        std::fs::write(
            &config,
            format!(
                "data_dir = {:?}\n[server]\nlisten = \"127.0.0.1:{port}\"\nplain_http = true\n\
                 [log]\nformat = \"text\"\n[store]\nmin_free_mb = {min_free_mb}\n\
                 [metrics]\ntoken = \"scrape\"\n{}",
                data_dir.to_str().unwrap(),
                common::clock_toml()
            ),
        )
        .unwrap();
        let key_file = tmp.path().join("key");
        let probe = Command::new("unshare")
            .args(Self::unshare_args())
            .args(["sh", "-c", "mount -t tmpfs -o size=1m tmpfs \"$1\"", "sh"])
            .arg(&data_dir)
            .output();
        match probe {
            Ok(out) if out.status.success() => {}
            other => {
                eprintln!("no private mount namespace here ({other:?}): the test is skipped");
                return None;
            }
        }
        let mut child = Command::new("unshare")
            .args(Self::unshare_args())
            .args([
                "sh",
                "-c",
                // The key is made inside the namespace, on the volume, before the server
                // opens the database: from outside, the volume is out of reach.
                &format!(
                    "mount -t tmpfs -o size={size_mb}m tmpfs \"$1\" \
                     && \"$2\" --config \"$3\" apikey add --name engine > \"$4\" \
                     && exec \"$2\" --config \"$3\" serve"
                ),
                "sh",
            ])
            .arg(&data_dir)
            .arg(common::BIN)
            .arg(&config)
            .arg(&key_file)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut err = child.stderr.take().unwrap();
        let log = std::thread::spawn(move || {
            use std::io::Read;
            let mut s = String::new();
            let _ = err.read_to_string(&mut s);
            s
        });
        let mut server = OnSmallVolume {
            child,
            base: format!("http://127.0.0.1:{port}"),
            data_dir,
            log: Some(log),
            key: String::new(),
            _tmp: tmp,
        };
        let c = client(Duration::from_secs(5));
        let deadline = Instant::now() + Duration::from_secs(30);
        while c
            .get(server.url("/healthz"))
            .send()
            .map_or(true, |r| !r.status().is_success())
        {
            assert!(Instant::now() < deadline, "cxwatch did not start");
            std::thread::sleep(Duration::from_millis(50));
        }
        server.key = std::fs::read_to_string(&key_file)
            .unwrap()
            .trim()
            .to_string();
        assert!(!server.key.is_empty(), "no API key made");
        Some(server)
    }

    fn unshare_args() -> &'static [&'static str] {
        if is_root() {
            &["--mount", "--propagation", "private"]
        } else {
            &["--map-root-user", "--mount", "--propagation", "private"]
        }
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// A path inside the data directory as this test reaches it: through the server's
    /// own mount namespace.
    fn inside(&self, name: &str) -> PathBuf {
        Path::new(&format!("/proc/{}/root", self.child.id()))
            .join(self.data_dir.strip_prefix("/").unwrap())
            .join(name)
    }

    /// Free bytes on the volume, from statvfs on the path (the kernel follows /proc/<pid>/root
    /// into the server's namespace; `df` would look the path up in this one's mounts).
    fn free(&self) -> u64 {
        use std::os::unix::ffi::OsStrExt;
        let path = std::ffi::CString::new(self.inside("").as_os_str().as_bytes()).unwrap();
        // SAFETY: a NUL-terminated path and a statvfs the call fills.
        let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
        assert_eq!(
            unsafe { libc::statvfs(path.as_ptr(), &mut st) },
            0,
            "statvfs"
        );
        st.f_bavail as u64 * st.f_frsize as u64
    }

    /// Grows the file `filler` until the volume has at most `leave` bytes free (0: full).
    fn fill(&self, leave: u64) {
        use std::io::Write;
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.inside("filler"))
            .unwrap();
        let chunk = vec![0xa5u8; 64 * 1024];
        loop {
            let free = self.free();
            if free <= leave {
                break;
            }
            let n = ((free - leave) as usize).min(chunk.len());
            match f.write_all(&chunk[..n]) {
                Ok(()) => {}
                Err(e) if e.raw_os_error() == Some(libc::ENOSPC) => break,
                Err(e) => panic!("filler: {e}"),
            }
        }
        f.sync_all().ok();
    }

    /// Runs in the database, counted inside the server's mount namespace: SQLite resolves
    /// the symbolic link /proc/<pid>/root to `/` and would open the host's path instead.
    fn runs_stored(&self) -> i64 {
        let pid = self.child.id().to_string();
        let mut args = vec!["--target", pid.as_str()];
        if !is_root() {
            args.push("--user");
        }
        args.push("--mount");
        let out = Command::new("nsenter")
            .args(args)
            .args([
                "python3",
                "-c",
                "import sqlite3, sys; c = sqlite3.connect(sys.argv[1], timeout=10); \
                 print(c.execute('SELECT count(*) FROM test_runs').fetchone()[0])",
            ])
            .arg(self.data_dir.join("cxwatch.db"))
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "counting runs: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).trim().parse().unwrap()
    }
}

impl Drop for OnSmallVolume {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        if let Some(log) = self.log.take() {
            let log = log.join().unwrap_or_default();
            if std::thread::panicking() {
                eprintln!("cxwatch's log:\n{log}");
            }
        }
    }
}

/// Posts batches until one is refused; answers the runs acknowledged and the refusal.
fn ingest_until_refused(
    server: &OnSmallVolume,
    key: &str,
    round: &str,
    per_batch: usize,
) -> (i64, Answer) {
    let c = client(Duration::from_secs(60));
    let mut acknowledged = 0;
    for i in 0..10_000 {
        let a = answer(
            c.post(server.url("/api/ingest/v1/runs"))
                .header("X-API-Key", key)
                .json(&runs_body(&format!("{round}-{i}"), per_batch))
                .send(),
            "ingest",
        );
        if a.status != 200 {
            return (acknowledged, a);
        }
        acknowledged += a.body["data"]["accepted"].as_i64().unwrap();
    }
    panic!("the volume never filled");
}

/// Posts one batch every 100 ms until one is taken; answers the seconds that took.
fn seconds_until_taken(server: &OnSmallVolume, key: &str, round: &str) -> f64 {
    let c = client(Duration::from_secs(60));
    let started = Instant::now();
    loop {
        let a = answer(
            c.post(server.url("/api/ingest/v1/runs"))
                .header("X-API-Key", key)
                .json(&runs_body(round, 5))
                .send(),
            "ingest",
        );
        if a.status == 200 {
            assert_eq!(a.body["data"]["accepted"], 5, "{}", a.text);
            return started.elapsed().as_secs_f64();
        }
        assert_eq!(a.status, 507, "{}", a.text);
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "ingest did not come back once space was freed: {}",
            a.text
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// With a reserve: ingest is refused with 507 and a reason once the volume's free space is
/// under `store.min_free_mb`, `/healthz` and the metrics say so, and ingest comes back by
/// itself when space is freed; every acknowledged run is there.
#[test]
fn low_disk_space_refuses_ingest_with_507_and_it_comes_back_without_a_restart() {
    // SQLite's own file on a volume of its own: the pass on PostgreSQL adds nothing.
    if common::on_postgres() {
        return;
    }
    // A reserve above the most the write-ahead log holds (32 MiB), as the default is.
    const MIB: u64 = 1024 * 1024;
    let Some(server) = OnSmallVolume::start(128, 40) else {
        return;
    };
    let key = server.key.clone();
    let c = client(Duration::from_secs(30));
    // The engine's batches fill the volume until the reserve is reached: some 24 MiB.
    server.fill(64 * MIB);
    let (acknowledged, refused) = ingest_until_refused(&server, &key, "fill", 200);
    assert_eq!(refused.status, 507, "{}", refused.text);
    assert_eq!(refused.body["code"], "INSUFFICIENT_STORAGE");
    assert_eq!(refused.retry_after.as_deref(), Some("30"));
    let reason = refused.body["messages"][0].as_str().unwrap();
    assert!(reason.contains("store.min_free_mb"), "{reason}");
    assert!(server.free() < 40 * MIB, "{} bytes free", server.free());
    let h = answer(c.get(server.url("/healthz")).send(), "healthz");
    assert_eq!(h.status, 503);
    assert!(h.text.starts_with("disk space low:"), "{}", h.text);
    let m = answer(
        c.get(server.url("/metrics")).bearer_auth("scrape").send(),
        "metrics",
    );
    let gauge = |name: &str| -> u64 {
        m.text
            .lines()
            .find_map(|l| l.strip_prefix(&format!("{name} ")))
            .unwrap_or_else(|| panic!("{name} missing: {}", m.text))
            .parse()
            .unwrap()
    };
    assert_eq!(gauge("cxwatch_data_dir_min_free_bytes"), 40 * MIB);
    assert!(gauge("cxwatch_data_dir_free_bytes") < 40 * MIB);
    // The write-ahead log was folded into the database as it grew (every 16 MiB), not left
    // to hold all that was ingested.
    let wal = std::fs::metadata(server.inside("cxwatch.db-wal")).map_or(0, |m| m.len());
    assert!(wal <= 20 * MIB, "WAL of {wal} bytes");

    std::fs::remove_file(server.inside("filler")).unwrap();
    let took = seconds_until_taken(&server, &key, "after");
    println!("ingest took runs again {took:.2} s after space was freed (reserve 40 MiB)");
    assert_eq!(server.runs_stored(), acknowledged + 5);
    let h = answer(c.get(server.url("/healthz")).send(), "healthz");
    assert_eq!(h.status, 200, "{}", h.text);
}

/// Without a reserve the volume fills for real: ingest answers 507 (the database's own
/// 'disk full'), never loses an acknowledged run, and comes back by itself once space is
/// freed, the write-ahead log folded in.
#[test]
fn a_full_disk_answers_507_and_ingest_comes_back_when_space_returns() {
    if common::on_postgres() {
        return;
    }
    let Some(server) = OnSmallVolume::start(48, 0) else {
        return;
    };
    let key = server.key.clone();
    let warm = ingest_taken(&server, &key, "warm", 200, 3);
    server.fill(6 * 1024 * 1024);
    let (acknowledged, refused) = ingest_until_refused(&server, &key, "fill", 200);
    assert_eq!(refused.status, 507, "{}", refused.text);
    assert_eq!(refused.body["code"], "INSUFFICIENT_STORAGE");
    assert_eq!(refused.retry_after.as_deref(), Some("30"));
    // Completely full now: still refused, still no 500.
    server.fill(0);
    let c = client(Duration::from_secs(60));
    let a = answer(
        c.post(server.url("/api/ingest/v1/runs"))
            .header("X-API-Key", &key)
            .json(&runs_body("full", 200))
            .send(),
        "ingest",
    );
    assert_eq!(a.status, 507, "{}", a.text);

    // A third of the volume back (less than the write-ahead log may hold).
    let f = std::fs::OpenOptions::new()
        .write(true)
        .open(server.inside("filler"))
        .unwrap();
    let len = f.metadata().unwrap().len();
    f.set_len(len.saturating_sub(16 * 1024 * 1024)).unwrap();
    drop(f);
    let took = seconds_until_taken(&server, &key, "after");
    println!("ingest took runs again {took:.2} s after a third of a full volume was freed");
    assert_eq!(server.runs_stored(), warm + acknowledged + 5);
}

/// Posts `batches` batches of `per_batch` runs, each of which must be taken.
fn ingest_taken(
    server: &OnSmallVolume,
    key: &str,
    round: &str,
    per_batch: usize,
    batches: usize,
) -> i64 {
    let c = client(Duration::from_secs(60));
    let mut acknowledged = 0;
    for i in 0..batches {
        let a = answer(
            c.post(server.url("/api/ingest/v1/runs"))
                .header("X-API-Key", key)
                .json(&runs_body(&format!("{round}-{i}"), per_batch))
                .send(),
            "ingest",
        );
        assert_eq!(a.status, 200, "{}", a.text);
        acknowledged += a.body["data"]["accepted"].as_i64().unwrap();
    }
    acknowledged
}

/// `user list`, `apikey list` and `audit` on a data directory without a database (a typo)
/// fail with a message naming it, and leave no database (nor directory) behind.
#[test]
fn read_only_commands_on_a_missing_database_fail_and_create_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let typo = tmp.path().join("cxwach");
    for args in [
        vec!["user", "list"],
        vec!["apikey", "list"],
        vec!["audit"],
        vec!["user", "remove", "--username", "ada@example.com"],
    ] {
        let mut all = vec!["--data-dir", typo.to_str().unwrap()];
        all.extend(&args);
        let (code, out, err) =
            common::run_cli_env(&all, &[("CXWATCH_STORE__URL", "")], Duration::from_secs(30));
        assert_ne!(code, 0, "{args:?}: {out}");
        assert!(
            err.contains("there is no database at") && err.contains("cxwach"),
            "{args:?}: {err}"
        );
        assert!(!typo.exists(), "{args:?} made {}", typo.display());
    }
    // An existing one is read as before.
    let dir = tmp.path().join("data");
    drop(Store::open(&dir, Default::default()).unwrap());
    let (code, out, err) =
        common::run_cli(&["--data-dir", dir.to_str().unwrap(), "user", "list"], "");
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("id\tusername"), "{out}");
}
