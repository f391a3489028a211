//! `cxwatch store copy`: a SQLite site (demo data: users, groups, runs, rollups,
//! recordings, reports, distribution lists, alert settings and events, the audit log)
//! copied into a fresh PostgreSQL database has every row; an interrupted copy resumes; a
//! second run copies nothing; a target holding another site is refused; and the API answers
//! the same on the copy as on the original.
//!
//! The PostgreSQL tests run when `TEST_POSTGRES_URL` names a server
//! (`postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable`); otherwise they return.

use crate::common;

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use chrono::{Duration, Utc};
use common::now_secs;
use cxwatch::config::{Config, StoreConfig};
use cxwatch::demo::audio::ClipId;
use cxwatch::demo::generator::Generator;
use cxwatch::store::catalog::GroupDraft;
use cxwatch::store::copy::{copy, CopyOptions, CopyReport, Outcome, Progress};
use cxwatch::store::{Store, StoreOptions};
use poem::http::Method;
use poem::test::TestClient;
use serde_json::Value;

const SEED: u64 = 4242;

fn pg_base() -> Option<String> {
    std::env::var("TEST_POSTGRES_URL")
        .ok()
        .filter(|s| !s.is_empty())
}

/// A SQLite site in a temporary directory.
struct Site {
    dir: tempfile::TempDir,
    config: Config,
    /// The first day of its history (site time zone), for the API's date filters.
    from: chrono::DateTime<Utc>,
    to: chrono::DateTime<Utc>,
}

impl Site {
    fn db(&self) -> PathBuf {
        self.dir.path().join(cxwatch::store::DB_FILE)
    }

    fn store(&self) -> Store {
        Store::open(self.dir.path(), StoreOptions::default()).unwrap()
    }
}

/// A demo site with `days` of history: the demo's accounts, recordings, groups, health,
/// reports, distribution lists, alert settings and the engine's events over the runs.
fn demo_site(days: i64) -> Site {
    std::thread::spawn(move || {
        let dir = tempfile::tempdir().unwrap();
        let config = Config {
            data_dir: dir.path().to_path_buf(),
            ..Config::default()
        };
        let tz = config.tz();
        let store = Store::open(dir.path(), StoreOptions::default()).unwrap();
        cxwatch::demo_accounts::ensure_demo_accounts(&store).unwrap();
        let clips: HashMap<ClipId, String> = ClipId::ALL
            .iter()
            .map(|c| {
                let rec = Store::block_on(store.put_recording(c.wav().into(), "audio/wav"));
                (*c, rec.unwrap().id)
            })
            .collect();
        let generator = Arc::new(Generator::new(SEED, tz, common::now(), clips));
        let to = generator.anchor();
        let from = to - Duration::days(days);
        let g = generator.clone();
        cxwatch::demo::ingest_history(&store, &generator, tz, from, to, |store| {
            for group in &g.catalog().groups {
                Store::block_on(store.create_group(&GroupDraft {
                    name: group.name.to_string(),
                    channel: group.channel,
                    test_case_ids: group.cases.to_vec(),
                }))?;
            }
            Store::block_on(store.put_health(g.health_at(to)))?;
            cxwatch::demo::reports::seed_reports(store, tz, to)?;
            Ok(())
        })
        .unwrap();
        let viewer = Store::block_on(store.user_by_username(cxwatch::demo_accounts::DEMO_VIEWER))
            .unwrap()
            .unwrap();
        cxwatch::demo::assign_demo_viewer_groups(&store, viewer.id).unwrap();
        Store::block_on(cxwatch::demo::distributions::ensure(&store, &config)).unwrap();
        Store::block_on(cxwatch::demo_accounts::ensure_demo_team(&store)).unwrap();
        cxwatch::demo::alerts::ensure(&store, tz, from.timestamp_millis()).unwrap();
        drop(store);
        Site {
            dir,
            config,
            from,
            to,
        }
    })
    .join()
    .unwrap()
}

/// A site with one user and nothing else.
fn tiny_site(username: &str) -> Site {
    let username = username.to_string();
    std::thread::spawn(move || {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path(), StoreOptions::default()).unwrap();
        let hash = cxwatch::auth::password::hash_password("correct horse battery").unwrap();
        Store::block_on(store.create_user(
            &cxwatch::domain::user::UserDraft {
                username,
                first_name: "T".into(),
                last_name: "T".into(),
                role: cxwatch::domain::caller::Role::Admin,
                access: cxwatch::domain::caller::AccessType::ReadWrite,
                group_ids: vec![],
            },
            &hash,
        ))
        .unwrap();
        let config = Config {
            data_dir: dir.path().to_path_buf(),
            ..Config::default()
        };
        Site {
            dir,
            config,
            from: common::now(),
            to: common::now(),
        }
    })
    .join()
    .unwrap()
}

fn options(from: &Path, url: &str) -> CopyOptions {
    CopyOptions {
        progress: Progress::Quiet,
        ..CopyOptions::new(
            from,
            StoreConfig {
                url: url.to_string(),
                ..StoreConfig::default()
            },
        )
    }
}

async fn pg(url: &str) -> tokio_postgres::Client {
    let (client, conn) = tokio_postgres::connect(url, tokio_postgres::NoTls)
        .await
        .unwrap();
    tokio::spawn(conn);
    client
}

fn sqlite(site: &Site) -> rusqlite::Connection {
    rusqlite::Connection::open(site.db()).unwrap()
}

fn sqlite_int(site: &Site, sql: &str) -> i64 {
    sqlite(site).query_row(sql, [], |r| r.get(0)).unwrap()
}

fn assert_counts_equal(report: &CopyReport) {
    assert!(
        report.mismatches().is_empty(),
        "counts differ:\n{}",
        report.render()
    );
}

fn rows(report: &CopyReport, table: &str) -> i64 {
    report
        .tables
        .iter()
        .find(|t| t.table == table)
        .unwrap_or_else(|| panic!("no table {table} in\n{}", report.render()))
        .target
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_site_is_copied_whole_and_a_second_run_copies_nothing() {
    let Some(base) = pg_base() else { return };
    // Five days: the Card Services outage of four days ago opened alert events.
    let site = demo_site(5);
    let url = cxwatch::store::pg::create_test_database(&base).await;

    let report = copy(&options(&site.db(), &url)).await.unwrap();
    assert_eq!(report.outcome, Outcome::Copied);
    assert_counts_equal(&report);
    for table in [
        "users",
        "user_groups",
        "test_runs",
        "rollup_hour",
        "run_keys",
        "recordings",
        "recording_cases",
        "segments",
        "reports",
        "distribution_lists",
        "distribution_contacts",
        "alert_settings",
        "alert_events",
        "alert_event_runs",
        "audit_log",
        "client_apps",
        "channels",
        "alert_statuses",
    ] {
        assert!(
            rows(&report, table) > 0,
            "{table} empty:\n{}",
            report.render()
        );
    }
    assert!(!report.tables.iter().any(|t| t.table == "schema_version"));
    assert!(!report
        .tables
        .iter()
        .any(|t| t.table.starts_with("store_copy")));
    // Parents before children.
    let at = |t: &str| report.tables.iter().position(|x| x.table == t).unwrap();
    assert!(at("users") < at("tokens"));
    assert!(at("test_cases") < at("test_runs"));
    assert!(at("alert_events") < at("alert_event_runs"));

    let c = pg(&url).await;
    // The recordings' bytes are in the database, each the file's (its SHA-256 is its id).
    for r in c
        .query("SELECT sha256, data, size FROM recordings", &[])
        .await
        .unwrap()
    {
        let (sha, data, size): (String, Vec<u8>, i64) = (r.get(0), r.get(1), r.get(2));
        use sha2::Digest;
        assert_eq!(hex::encode(sha2::Sha256::digest(&data)), sha);
        assert_eq!(data.len() as i64, size);
    }
    // Flags became booleans, the same ones.
    let pg_int = |sql: &'static str| {
        let c = &c;
        async move { c.query_one(sql, &[]).await.unwrap().get::<_, i64>(0) }
    };
    assert_eq!(
        pg_int("SELECT count(*) FROM alert_settings WHERE active").await,
        sqlite_int(&site, "SELECT count(*) FROM alert_settings WHERE active")
    );
    assert_eq!(
        pg_int("SELECT count(*) FROM alert_events WHERE open").await,
        sqlite_int(&site, "SELECT count(*) FROM alert_events WHERE open")
    );
    // Sums of a few columns of every kind agree.
    for (pg_sql, lite_sql) in [
        (
            "SELECT sum(id + duration_ms + status + run_type + coalesce(mos, 0))::BIGINT FROM test_runs",
            "SELECT sum(id + duration_ms + status + run_type + coalesce(mos, 0)) FROM test_runs",
        ),
        (
            "SELECT sum(length(results))::BIGINT FROM test_runs",
            "SELECT sum(length(results)) FROM test_runs",
        ),
        (
            "SELECT sum(day + hour + pass + fail + lat_sum)::BIGINT FROM rollup_hour",
            "SELECT sum(day + hour + pass + fail + lat_sum) FROM rollup_hour",
        ),
    ] {
        assert_eq!(pg_int(pg_sql).await, sqlite_int(&site, lite_sql), "{pg_sql}");
    }
    // The identity sequences are past the largest ids.
    for table in [
        "users",
        "test_runs",
        "audit_log",
        "alert_events",
        "recordings",
    ] {
        let next: i64 = c
            .query_one(
                &format!("SELECT nextval(pg_get_serial_sequence('{table}', 'id'))"),
                &[],
            )
            .await
            .unwrap()
            .get(0);
        let max = sqlite_int(&site, &format!("SELECT max(id) FROM {table}"));
        assert!(next > max, "{table}: next id {next}, largest {max}");
    }

    assert!(report.warnings.is_empty(), "{:?}", report.warnings);

    // Again: nothing to copy, and it says so (and warns of a server running on the source).
    let _server = cxwatch::store::sqlite::backup::DataDirLock::shared(site.dir.path()).unwrap();
    let again = copy(&options(&site.db(), &url)).await.unwrap();
    assert_eq!(again.outcome, Outcome::AlreadyComplete);
    assert_eq!(again.copied(), 0);
    assert_eq!(again.chunks, 0);
    assert_counts_equal(&again);
    assert!(
        again
            .warnings
            .iter()
            .any(|w| w.contains("server is running")),
        "{:?}",
        again.warnings
    );
    // The data directory names the database too.
    let by_dir = copy(&options(site.dir.path(), &url)).await.unwrap();
    assert_eq!(by_dir.outcome, Outcome::AlreadyComplete);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_interrupted_copy_resumes_where_it_stopped() {
    let Some(base) = pg_base() else { return };
    let site = demo_site(1);
    let url = cxwatch::store::pg::create_test_database(&base).await;
    let mut opts = options(&site.db(), &url);
    opts.chunk_rows = 97;

    opts.stop_after_chunks = Some(5);
    let first = copy(&opts).await.unwrap();
    assert_eq!(first.outcome, Outcome::Stopped);
    assert_eq!(first.chunks, 5);
    let copied_first = first.copied();
    assert!(copied_first > 0);
    assert_eq!(
        first.tables.iter().map(|t| t.target).sum::<i64>() as u64,
        copied_first,
        "{}",
        first.render()
    );

    // Stopped again, in the middle of the table of most chunks, wherever the demo's data puts
    // it: the chunks before it (97 rows each, in the copy's order), half of its own, less the
    // five the first run copied.
    let chunks = |t: &cxwatch::store::copy::TableCount| (t.source.max(0) as u64).div_ceil(97);
    let biggest = first.tables.iter().max_by_key(|t| chunks(t)).unwrap();
    let before: u64 = first
        .tables
        .iter()
        .take_while(|t| t.table != biggest.table)
        .map(chunks)
        .sum();
    assert!(chunks(biggest) >= 4, "{}", first.render());
    opts.stop_after_chunks = Some((before + chunks(biggest) / 2).saturating_sub(5));
    let second = copy(&opts).await.unwrap();
    assert_eq!(second.outcome, Outcome::Stopped);
    let partial: Vec<_> = second
        .tables
        .iter()
        .filter(|t| t.target > 0 && t.target < t.source)
        .collect();
    assert_eq!(partial.len(), 1, "{}", second.render());

    opts.stop_after_chunks = None;
    let last = copy(&opts).await.unwrap();
    assert_eq!(last.outcome, Outcome::Resumed);
    assert_counts_equal(&last);
    // Every row copied once: this run copied what the first two did not.
    let total: i64 = last.tables.iter().map(|t| t.source).sum();
    assert_eq!(
        copied_first + second.copied() + last.copied(),
        total as u64,
        "{}",
        last.render()
    );
    // The same rows: the run keys (a BLOB primary key) and the rollups (a composite one).
    let c = pg(&url).await;
    let pg_keys: i64 = c
        .query_one("SELECT count(DISTINCT engine_key) FROM run_keys", &[])
        .await
        .unwrap()
        .get(0);
    assert_eq!(pg_keys, sqlite_int(&site, "SELECT count(*) FROM run_keys"));
    let pg_sum: i64 = c
        .query_one(
            "SELECT sum(test_case_id * 100000 + day * 24 + hour)::BIGINT FROM rollup_hour",
            &[],
        )
        .await
        .unwrap()
        .get(0);
    assert_eq!(
        pg_sum,
        sqlite_int(
            &site,
            "SELECT sum(test_case_id * 100000 + day * 24 + hour) FROM rollup_hour"
        )
    );
    let again = copy(&opts).await.unwrap();
    assert_eq!(again.outcome, Outcome::AlreadyComplete);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_target_holding_another_site_is_refused() {
    let Some(base) = pg_base() else { return };
    let site = tiny_site("ann@a.test");

    // A database some site already uses (a user, no record of a copy).
    let url = cxwatch::store::pg::create_test_database(&base).await;
    let dir = tempfile::tempdir().unwrap();
    let config = StoreConfig {
        url: url.clone(),
        ..StoreConfig::default()
    };
    drop(
        cxwatch::store::pg::Postgres::connect(&config, dir.path())
            .await
            .unwrap(),
    );
    pg(&url)
        .await
        .batch_execute(
            "INSERT INTO users (username, password_hash, roles, access_type, created_at)
             VALUES ('bob@b.test', 'x', 'ROLE_ADMIN', 'read-write', 1)",
        )
        .await
        .unwrap();
    let err = copy(&options(&site.db(), &url)).await.unwrap_err();
    let msg = err.to_string();
    assert!(msg.contains("refusing to mix two sites"), "{msg}");
    assert!(msg.contains("1 users"), "{msg}");
    let users: i64 = pg(&url)
        .await
        .query_one("SELECT count(*) FROM users", &[])
        .await
        .unwrap()
        .get(0);
    assert_eq!(users, 1, "nothing copied");

    // A database holding another site's copy.
    let url = cxwatch::store::pg::create_test_database(&base).await;
    let done = copy(&options(&site.db(), &url)).await.unwrap();
    assert_eq!(done.outcome, Outcome::Copied);
    let other = tiny_site("carl@c.test");
    let err = copy(&options(&other.db(), &url)).await.unwrap_err();
    assert!(err.to_string().contains("another SQLite database"), "{err}");
}

/// Refused before any database is reached: these run on SQLite alone.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_source_of_another_schema_version_or_none_is_refused() {
    let url = "postgres://nobody@127.0.0.1:1/none";
    let err = copy(&options(Path::new("/nonexistent/cxwatch.db"), url))
        .await
        .unwrap_err();
    assert!(err.to_string().contains("no SQLite database"), "{err}");

    let site = tiny_site("ann@a.test");
    sqlite(&site)
        .execute_batch("PRAGMA user_version = 3")
        .unwrap();
    let err = copy(&options(&site.db(), url)).await.unwrap_err();
    assert!(err.to_string().contains("upgrade it first"), "{err}");
    sqlite(&site)
        .execute_batch("PRAGMA user_version = 999")
        .unwrap();
    let err = copy(&options(&site.db(), url)).await.unwrap_err();
    assert!(err.to_string().contains("newer"), "{err}");
}

/// The API on `store`, and a signed-in token of each demo account.
struct Api {
    client: TestClient<poem::endpoint::BoxEndpoint<'static>>,
    tokens: Vec<(String, String)>,
}

impl Api {
    async fn new(config: &Config, store: Store) -> Api {
        let mut tokens = Vec::new();
        for name in [
            cxwatch::demo_accounts::DEMO_ADMIN,
            cxwatch::demo_accounts::DEMO_VIEWER,
        ] {
            let user = store.user_by_username(name).await.unwrap().unwrap();
            let token = store
                .start_session(user.id, false, now_secs(), now_secs() + 3600)
                .await
                .unwrap();
            tokens.push((name.to_string(), token));
        }
        let app = cxwatch::server::app(Arc::new(config.clone()), Some(store)).unwrap();
        Api {
            client: TestClient::new(app),
            tokens,
        }
    }

    /// Status, content type and the SHA-256 of the body.
    async fn get_bytes(&self, token: &str, path: &str) -> (u16, String, String) {
        use sha2::Digest;
        let resp = self
            .client
            .request(Method::GET, path)
            .header("authorization", format!("Bearer {token}"))
            .send()
            .await;
        let status = resp.0.status().as_u16();
        let content_type = resp
            .0
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_string();
        let bytes = resp.0.into_body().into_bytes().await.unwrap_or_default();
        (
            status,
            content_type,
            hex::encode(sha2::Sha256::digest(&bytes)),
        )
    }

    async fn get(&self, token: &str, path: &str) -> (u16, Value) {
        let resp = self
            .client
            .request(Method::GET, path)
            .header("authorization", format!("Bearer {token}"))
            .send()
            .await;
        let status = resp.0.status().as_u16();
        let bytes = resp.0.into_body().into_bytes().await.unwrap_or_default();
        let json = serde_json::from_slice(&bytes)
            .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&bytes).into()));
        (status, json)
    }
}

/// An answer with the time of its `sign_in` audit records blanked, and the last sign-in of
/// the users the test `signed_in`.
fn signed_in_at_blank((status, mut v): (u16, Value), signed_in: &[&str]) -> (u16, Value) {
    if let Some(items) = v.pointer_mut("/data/content").and_then(Value::as_array_mut) {
        for item in items {
            if item["kind"] == "session" && item["action"] == "sign_in" {
                item["at"] = Value::Null;
            }
            let user = item["username"].as_str().unwrap_or_default();
            if signed_in.contains(&user) {
                item["lastSignInTime"] = Value::Null;
            }
        }
    }
    (status, v)
}

/// The numbers under `key` anywhere in `v`, first seen first, at most `n`.
fn ids(v: &Value, key: &str, n: usize) -> Vec<i64> {
    fn walk(v: &Value, key: &str, out: &mut Vec<i64>) {
        match v {
            Value::Object(o) => {
                for (k, x) in o {
                    if k == key {
                        if let Some(i) = x.as_i64() {
                            if !out.contains(&i) {
                                out.push(i);
                            }
                        }
                    }
                    walk(x, key, out);
                }
            }
            Value::Array(a) => a.iter().for_each(|x| walk(x, key, out)),
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(v, key, &mut out);
    out.truncate(n);
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_api_answers_the_same_on_the_copy() {
    let Some(base) = pg_base() else { return };
    let site = demo_site(5);
    let url = cxwatch::store::pg::create_test_database(&base).await;
    let report = copy(&options(&site.db(), &url)).await.unwrap();
    assert_counts_equal(&report);

    let lite = Api::new(&site.config, site.store()).await;
    let mut pg_config = site.config.clone();
    pg_config.store.url = url.clone();
    let pg_dir = tempfile::tempdir().unwrap();
    pg_config.data_dir = pg_dir.path().to_path_buf();
    let pg_store = Store::connect(&pg_config.store, pg_dir.path())
        .await
        .unwrap();
    let pg_api = Api::new(&pg_config, pg_store).await;

    let tz = site.config.tz();
    let d1 = site.from.with_timezone(&tz).date_naive();
    let d2 = site.to.with_timezone(&tz).date_naive();
    let dates = format!("startDate={d1}&endDate={d2}");
    let (mut compared, mut ok) = (0, 0);
    let mut differ = Vec::new();
    let signed_in: Vec<&str> = lite.tokens.iter().map(|(who, _)| who.as_str()).collect();
    for ((who, lite_token), (_, pg_token)) in lite.tokens.iter().zip(&pg_api.tokens) {
        let mut paths: Vec<String> = [
            "/api/users?pageSize=100",
            "/api/trs/v1/groups",
            "/api/trs/v1/groups/health",
            "/api/trs/v1/groups/channels",
            "/api/reports?pageSize=100",
            "/api/reports/timeframes",
            "/api/alerts/events?pageSize=100",
            "/api/alerts/events/open",
            "/api/alerts/settings?pageSize=100",
            "/api/alerts/allStatus",
            "/api/distributions?pageSize=100",
            "/api/notifications",
            "/api/audit?pageSize=100",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let mut seen = BTreeSet::new();
        let mut i = 0;
        while i < paths.len() {
            let path = paths[i].clone();
            i += 1;
            if !seen.insert(path.clone()) {
                continue;
            }
            let a = lite.get(lite_token, &path).await;
            let b = pg_api.get(pg_token, &path).await;
            // The sign-ins of this test are recorded on each site when it signs in, so their
            // second may differ: the copied records' times are compared, theirs (and the
            // users' last sign-in, which they move) are not.
            let (a, b) = (
                signed_in_at_blank(a, &signed_in),
                signed_in_at_blank(b, &signed_in),
            );
            compared += 1;
            if a.0 == 200 {
                ok += 1;
            } else {
                eprintln!("{who} GET {path}: {} {}", a.0, truncate(&a.1));
            }
            if a != b {
                differ.push(format!(
                    "{who} GET {path}:\n  sqlite     {} {}\n  postgresql {} {}",
                    a.0,
                    truncate(&a.1),
                    b.0,
                    truncate(&b.1)
                ));
            }
            // Follow the answers to the items they list.
            let body = &a.1;
            if path == "/api/trs/v1/groups" {
                for g in ids(body, "id", 4) {
                    paths.push(format!("/api/trs/v1/groups/{g}"));
                    paths.push(format!(
                        "/api/trs/v1/groups/{g}/metric?{dates}&caseRunType=Schedule"
                    ));
                    paths.push(format!(
                        "/api/trs/v1/groups/{g}/metric?level=case&{dates}&caseRunType=Schedule"
                    ));
                    paths.push(format!(
                        "/api/trs/v1/groups/{g}/mos?{dates}&caseRunType=Schedule"
                    ));
                }
            }
            if path.contains("/metric?level=case") {
                for tc in ids(body, "testCaseId", 2) {
                    paths.push(format!(
                        "/api/trs/v1/testcases/{tc}/runs?{dates}&pageSize=50"
                    ));
                }
            }
            if path.contains("/runs?") {
                for run in ids(body, "runId", 2) {
                    paths.push(format!("/api/trs/v1/testruns/{run}"));
                }
            }
            if path.starts_with("/api/reports?") {
                for r in ids(body, "id", 4) {
                    paths.push(format!("/api/reports/{r}"));
                    paths.push(format!("/api/reports/{r}/testruns"));
                    paths.push(format!("/api/reports/{r}/latency"));
                }
            }
            if path.starts_with("/api/alerts/events?") {
                for e in ids(body, "alertId", 4) {
                    paths.push(format!("/api/alerts/events/{e}"));
                }
            }
            if path.starts_with("/api/alerts/settings?") {
                for s in ids(body, "id", 2) {
                    paths.push(format!("/api/alerts/settings/{s}"));
                }
            }
            if path.starts_with("/api/distributions?") {
                for d in ids(body, "id", 2) {
                    paths.push(format!("/api/distributions/{d}"));
                }
            }
        }
    }
    // The recordings, served from the files on SQLite and from the database on PostgreSQL.
    let shas: Vec<String> = {
        let c = sqlite(&site);
        let mut stmt = c
            .prepare("SELECT sha256 FROM recordings ORDER BY id LIMIT 5")
            .unwrap();
        let rows = stmt.query_map([], |r| r.get(0)).unwrap();
        rows.map(Result::unwrap).collect()
    };
    assert!(!shas.is_empty());
    for sha in shas {
        let path = format!("/api/trs/v1/recordings/{sha}");
        let a = lite.get_bytes(&lite.tokens[0].1, &path).await;
        let b = pg_api.get_bytes(&pg_api.tokens[0].1, &path).await;
        assert_eq!(a.0, 200, "{path}");
        assert_eq!(a.2, sha, "{path}: the file's bytes");
        compared += 1;
        ok += 1;
        if a != b {
            differ.push(format!("GET {path}: sqlite {a:?}, postgresql {b:?}"));
        }
    }
    eprintln!(
        "compared {compared} answers ({ok} of them 200), {} differ",
        differ.len()
    );
    assert!(compared > 60, "{compared}");
    assert!(ok * 10 >= compared * 9, "{ok} of {compared} answered 200");
    assert!(differ.is_empty(), "{}", differ.join("\n"));
}

fn truncate(v: &Value) -> String {
    let s = v.to_string();
    if s.len() > 600 {
        format!("{}…", &s[..s.floor_char_boundary_compat(600)])
    } else {
        s
    }
}

trait FloorCharBoundary {
    fn floor_char_boundary_compat(&self, i: usize) -> usize;
}

impl FloorCharBoundary for str {
    fn floor_char_boundary_compat(&self, mut i: usize) -> usize {
        while !self.is_char_boundary(i) {
            i -= 1;
        }
        i
    }
}

/// `cxwatch store copy` itself: the password from the environment (never printed), one line
/// per table when stderr is no terminal, the table of counts, a second run that copies
/// nothing, and a failing exit status when the counts differ.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_command_copies_reports_and_fails_on_a_difference() {
    let Some(base) = pg_base() else { return };
    let site = demo_site(1);
    let url = cxwatch::store::pg::create_test_database(&base).await;
    let etc = tempfile::tempdir().unwrap();
    let config = etc.path().join("config.toml");
    std::fs::write(&config, "[log]\nlevel = \"warn\"\nformat = \"text\"\n").unwrap();
    let secret = etc.path().join("db-password");
    std::fs::write(&secret, "pw-not-to-be-printed\n").unwrap();
    let run = |args: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_cxwatch"))
            .arg("--config")
            .arg(&config)
            .arg("--data-dir")
            .arg(site.dir.path())
            .args(["store", "copy", "--to", &url])
            .args(args)
            .env("CXWATCH_STORE__PASSWORD_FILE", &secret)
            .env_remove("CXWATCH_LOG")
            .env_remove("TEST_POSTGRES_URL")
            .output()
            .unwrap();
        let (stdout, stderr) = (
            String::from_utf8_lossy(&out.stdout).to_string(),
            String::from_utf8_lossy(&out.stderr).to_string(),
        );
        assert!(
            !stdout.contains("pw-not-to-be-printed") && !stderr.contains("pw-not-to-be-printed"),
            "{stdout}{stderr}"
        );
        (out.status.code(), stdout, stderr)
    };

    let (code, stdout, stderr) = run(&["--chunk-rows", "1000"]);
    assert_eq!(code, Some(0), "{stdout}\n{stderr}");
    assert!(stdout.contains("every table's count matches"), "{stdout}");
    let runs = sqlite_int(&site, "SELECT count(*) FROM test_runs");
    assert!(
        stderr.contains(&format!("test_runs: {runs} rows copied")),
        "{stderr}"
    );
    assert!(stdout.contains("test_runs"), "{stdout}");

    let (code, stdout, stderr) = run(&[]);
    assert_eq!(code, Some(0), "{stdout}\n{stderr}");
    assert!(stdout.contains("already complete"), "{stdout}");

    pg(&url)
        .await
        .batch_execute(
            "DELETE FROM user_groups WHERE group_id = (SELECT min(group_id) FROM user_groups)",
        )
        .await
        .unwrap();
    let (code, stdout, stderr) = run(&[]);
    assert_eq!(code, Some(1), "{stdout}\n{stderr}");
    assert!(stdout.contains("<- differs"), "{stdout}");
    assert!(
        stderr.contains("the counts differ in user_groups"),
        "{stderr}"
    );
}

/// A recording whose file is missing stops the copy with its name; with the file back, the
/// copy goes on from there and ends complete.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missing_recording_file_is_named_and_the_copy_goes_on_once_it_is_back() {
    let Some(base) = pg_base() else { return };
    let site = tiny_site("ann@a.test");
    let rec = {
        let store = site.store();
        let wav = ClipId::ALL[0].wav();
        std::thread::spawn(move || {
            Store::block_on(store.put_recording(wav.into(), "audio/wav")).unwrap()
        })
        .join()
        .unwrap()
    };
    let kept = site.dir.path().join("kept.wav");
    std::fs::rename(&rec.path, &kept).unwrap();
    let url = cxwatch::store::pg::create_test_database(&base).await;
    let err = copy(&options(&site.db(), &url)).await.unwrap_err();
    assert!(
        err.to_string().contains(&format!("recording {}", rec.id)),
        "{err}"
    );
    std::fs::rename(&kept, &rec.path).unwrap();
    let done = copy(&options(&site.db(), &url)).await.unwrap();
    assert_eq!(done.outcome, Outcome::Resumed);
    assert_counts_equal(&done);
    assert_eq!(rows(&done, "recordings"), 1);
}
