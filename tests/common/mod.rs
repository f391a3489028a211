//! Starts the real `cxwatch` binary on a free port with a temporary data directory and
//! drives it over HTTPS. Shared by the integration tests.
//!
//! The binary's store follows the tests' backend: SQLite in the data directory, or, when
//! `TEST_POSTGRES_URL` names a PostgreSQL server (the README's test command runs every test
//! binary once without and once with it), a fresh database of the data directory's own,
//! named in the generated config, so that the server, the CLI on that config and
//! [`store`] all use it.
#![allow(dead_code)]

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use cxwatch::store::Store;

pub const BIN: &str = env!("CARGO_BIN_EXE_cxwatch");

pub struct Server {
    pub child: Child,
    pub port: u16,
    pub base: String,
    pub data_dir: PathBuf,
    _tmp: Option<tempfile::TempDir>,
}

pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// The instant the tests' clock starts at: `CXWATCH_TEST_NOW` (RFC 3339, read by the tests
/// only; the README's test command runs the clock's tests at pinned instants with it), else
/// None: the real clock. The first call pins this test process's clock
/// (`cxwatch::clock`), so that what the test computes as "now" and what the servers it
/// starts (the binary through `[clock] start`, the in-process app through its config) see
/// run together.
pub fn test_now() -> Option<chrono::DateTime<chrono::Utc>> {
    static PINNED: std::sync::OnceLock<Option<chrono::DateTime<chrono::Utc>>> =
        std::sync::OnceLock::new();
    *PINNED.get_or_init(|| {
        let start = std::env::var("CXWATCH_TEST_NOW")
            .ok()
            .filter(|s| !s.trim().is_empty())
            .map(|s| {
                cxwatch::clock::parse_start(&s)
                    .unwrap_or_else(|e| panic!("CXWATCH_TEST_NOW: {e}"))
                    .unwrap()
            });
        if start.is_some() {
            cxwatch::clock::pin(start);
        }
        start
    })
}

/// Now on the tests' clock (pinned by `CXWATCH_TEST_NOW`, else the real one).
pub fn now() -> chrono::DateTime<chrono::Utc> {
    test_now();
    cxwatch::clock::now()
}

/// [`now`] in milliseconds since the Unix epoch.
pub fn now_ms() -> i64 {
    now().timestamp_millis()
}

/// [`now`] in seconds since the Unix epoch.
pub fn now_secs() -> i64 {
    now().timestamp()
}

/// The `[clock]` section of a server started now: the tests' clock as it reads at this
/// moment (a server restarted later goes on from the later time, as a real one would),
/// or nothing on the real clock.
pub fn clock_toml() -> String {
    match test_now() {
        Some(_) => format!(
            "[clock]\nstart = {:?}\n",
            now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
        ),
        None => String::new(),
    }
}

/// Options for [`start`].
#[derive(Default, Clone)]
pub struct Opts {
    /// Extra TOML appended to the generated config.
    pub toml: String,
    /// Extra arguments after `serve`.
    pub args: Vec<String>,
    /// Extra environment variables.
    pub env: Vec<(String, String)>,
    /// Reuse this data directory instead of a fresh one.
    pub data_dir: Option<PathBuf>,
    /// Plain HTTP instead of TLS.
    pub plain_http: bool,
    /// SQLite whatever `TEST_POSTGRES_URL` says: for a test of SQLite's own file (backup
    /// and restore, durability of the file after `kill -9`).
    pub sqlite: bool,
}

/// Whether the tests run on PostgreSQL (`TEST_POSTGRES_URL` names a server).
pub fn on_postgres() -> bool {
    std::env::var("TEST_POSTGRES_URL").is_ok_and(|s| !s.is_empty())
}

/// A data directory's file naming the PostgreSQL database its binary uses (empty: SQLite),
/// so that a restart on the directory and the helpers here find the same store.
const PG_URL_FILE: &str = "test-postgres-url";

/// The PostgreSQL database of the binary on `data_dir` when the tests run on PostgreSQL
/// (made the first time it is asked for), else None: SQLite in `data_dir`.
pub fn store_url(data_dir: &Path) -> Option<String> {
    let base = std::env::var("TEST_POSTGRES_URL")
        .ok()
        .filter(|s| !s.is_empty())?;
    let file = data_dir.join(PG_URL_FILE);
    if let Ok(url) = std::fs::read_to_string(&file) {
        return Some(url).filter(|u| !u.is_empty());
    }
    let url = std::thread::spawn(move || {
        Store::block_on(cxwatch::store::pg::create_test_database(&base))
    })
    .join()
    .unwrap();
    std::fs::create_dir_all(data_dir).unwrap();
    std::fs::write(&file, &url).unwrap();
    Some(url)
}

/// Keeps the binary on `data_dir` on SQLite whatever `TEST_POSTGRES_URL` says.
fn pin_sqlite(data_dir: &Path) {
    let file = data_dir.join(PG_URL_FILE);
    if on_postgres() && !file.exists() {
        std::fs::write(file, "").unwrap();
    }
}

/// The store of the binary on `data_dir`, whichever backend: to seed or read it beside
/// the server, or to serve in process.
pub fn store(data_dir: &Path) -> Store {
    let config = cxwatch::config::StoreConfig {
        url: store_url(data_dir).unwrap_or_default(),
        ..Default::default()
    };
    // On a thread of its own: the caller may be on a current-thread runtime. The pool
    // makes new connections on the caller's runtime when first asked.
    let dir = data_dir.to_path_buf();
    std::thread::spawn(move || Store::block_on(Store::connect(&config, &dir)))
        .join()
        .unwrap()
        .unwrap()
}

/// The value (an integer or a text) in the first column of the first row a query answers
/// on the database of the binary on `data_dir`, whichever backend (SQL both accept).
pub fn query_one<T>(data_dir: &Path, sql: &str) -> T
where
    T: rusqlite::types::FromSql + for<'a> tokio_postgres::types::FromSql<'a> + Send + 'static,
{
    match store_url(data_dir) {
        Some(url) => {
            let sql = sql.to_string();
            std::thread::spawn(move || {
                Store::block_on(async {
                    let (client, conn) = tokio_postgres::connect(&url, tokio_postgres::NoTls)
                        .await
                        .unwrap();
                    tokio::spawn(conn);
                    client.query_one(&sql, &[]).await.unwrap().get(0)
                })
            })
            .join()
            .unwrap()
        }
        None => {
            let c = rusqlite::Connection::open(data_dir.join("cxwatch.db")).unwrap();
            c.busy_timeout(Duration::from_secs(10)).unwrap();
            c.query_row(sql, [], |r| r.get(0)).unwrap()
        }
    }
}

pub fn start(opts: Opts) -> Server {
    let tmp = if opts.data_dir.is_none() {
        Some(tempfile::tempdir().unwrap())
    } else {
        None
    };
    let data_dir = opts
        .data_dir
        .clone()
        .unwrap_or_else(|| tmp.as_ref().unwrap().path().to_path_buf());
    let port = free_port();
    let config = data_dir.join("config.toml");
    std::fs::create_dir_all(&data_dir).unwrap();
    // A test that names its store (`tests/postgres.rs`) keeps it.
    if opts.sqlite || opts.toml.contains("[store]") {
        pin_sqlite(&data_dir);
    }
    let store = match opts.toml.contains("[store]") {
        true => None,
        false => store_url(&data_dir),
    }
    .map(|url| format!("[store]\nurl = {url:?}\n"))
    .unwrap_or_default();
    let clock = match opts.toml.contains("[clock]") {
        true => String::new(),
        false => clock_toml(),
    };
    std::fs::write(
        &config,
        format!(
            "data_dir = {:?}\n[server]\nlisten = \"127.0.0.1:{port}\"\nplain_http = {}\n[log]\nformat = \"text\"\n{}\n{store}{clock}",
            data_dir.to_str().unwrap(),
            opts.plain_http,
            opts.toml
        ),
    )
    .unwrap();
    let mut cmd = Command::new(BIN);
    cmd.arg("--config")
        .arg(&config)
        .arg("serve")
        .args(&opts.args);
    for (k, v) in &opts.env {
        cmd.env(k, v);
    }
    let child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let scheme = if opts.plain_http { "http" } else { "https" };
    let server = Server {
        child,
        port,
        base: format!("{scheme}://127.0.0.1:{port}"),
        data_dir,
        _tmp: tmp,
    };
    server.wait_ready();
    server
}

pub fn config_path(dir: &Path) -> PathBuf {
    dir.join("config.toml")
}

impl Server {
    fn wait_ready(&self) {
        let client = client();
        let deadline = Instant::now() + Duration::from_secs(30);
        while Instant::now() < deadline {
            if let Ok(r) = client.get(format!("{}/healthz", self.base)).send() {
                if r.status().is_success() {
                    return;
                }
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        panic!("cxwatch did not become ready on {}", self.base);
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.base, path)
    }

    /// SIGKILL, no chance to clean up.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.kill();
    }
}

/// A blocking HTTPS client that accepts the self-signed certificate.
pub fn client() -> reqwest::blocking::Client {
    reqwest::blocking::Client::builder()
        .danger_accept_invalid_certs(true)
        .timeout(Duration::from_secs(60))
        .build()
        .unwrap()
}

/// Runs the binary with `args` (and standard input), returns (status, stdout, stderr).
pub fn run_cli(args: &[&str], stdin: &str) -> (i32, String, String) {
    use std::io::Write;
    let mut child = Command::new(BIN)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Written from a thread while the output is read, and a child that exits before
    // reading all of it (e.g. one that refuses its arguments) is not an error of the test:
    // its broken pipe is ignored.
    let mut input = child.stdin.take().unwrap();
    let data = stdin.as_bytes().to_vec();
    let writer = std::thread::spawn(move || match input.write_all(&data) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
        other => other.unwrap(),
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Like [`run_cli`] with extra environment variables and no standard input; the process is
/// killed after `timeout` (status -1 then). For commands expected to stop by themselves,
/// such as `serve` with a bad config.
pub fn run_cli_env(
    args: &[&str],
    env: &[(&str, &str)],
    timeout: Duration,
) -> (i32, String, String) {
    let mut cmd = Command::new(BIN);
    cmd.args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().unwrap();
    let deadline = Instant::now() + timeout;
    while child.try_wait().unwrap().is_none() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = child.kill();
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

impl Server {
    /// Sends SIGTERM and waits up to `within` for the process to exit. `None` if it did not.
    pub fn terminate(&mut self, within: Duration) -> Option<std::process::ExitStatus> {
        let status = Command::new("kill")
            .arg("-TERM")
            .arg(self.child.id().to_string())
            .status()
            .unwrap();
        assert!(status.success(), "kill -TERM failed");
        let deadline = Instant::now() + within;
        while Instant::now() < deadline {
            if let Some(status) = self.child.try_wait().unwrap() {
                return Some(status);
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        None
    }

    /// What the process wrote to standard error (after it exited).
    pub fn stderr(&mut self) -> String {
        use std::io::Read;
        let mut s = String::new();
        if let Some(mut e) = self.child.stderr.take() {
            let _ = e.read_to_string(&mut s);
        }
        s
    }
}
