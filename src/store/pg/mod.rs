//! The PostgreSQL backend, for big sites and for several cxwatch instances on one database
//! (docs/postgres.md). It implements the same resource traits as [`super::Sqlite`], one
//! file per resource here with PostgreSQL's SQL: multi-row inserts and `COPY` for ingest,
//! `ON CONFLICT` upserts, partial indexes, row locks (`FOR UPDATE SKIP LOCKED`) for the
//! queues, and advisory locks for the work one instance does at a time.
//!
//! Connections come from a deadpool pool of tokio-postgres clients; TLS is rustls (the web
//! roots plus `store.ca_file`) as `sslmode` in the URL asks. The schema is upgraded at
//! start-up by `pg/migrations/` (the same numbers as SQLite's; the rules are `store::schema`'s),
//! under an advisory lock so instances starting together do not race, and a database from a
//! newer cxwatch is refused.
//!
//! The pure pieces (run encoding, rollup merging, the alert engine's rules) are shared with
//! SQLite from the sibling modules and `domain`; only the SQL differs.

pub mod alerts;
pub mod leases;
pub mod metrics;
pub mod reports;
pub mod runs;
pub mod throttle;

use std::path::{Path, PathBuf};
use std::str::FromStr;

use deadpool_postgres::{Manager, ManagerConfig, Pool, RecyclingMethod};
use include_dir::{include_dir, Dir};
use tokio_postgres::error::SqlState;

use super::{StoreError, StoreResult};
use crate::config::StoreConfig;

static MIGRATIONS: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/src/store/pg/migrations");

/// The advisory lock key held while migrating. Keys of our own, one per purpose:
/// 0x6378_7761_7463_68NN ("cxwatch" and a number): 01 migrations, 02 ingest and the alert
/// engine (`INGEST_LOCK`), 03 changes counting administrators (`users`), 04 `store
/// copy`. Leases take keys hashed from their names (`leases.rs`).
const MIGRATE_LOCK: i64 = 0x6378_7761_7463_6801;

/// The advisory lock (transaction-scoped) that serializes what changes stored runs and
/// their rollups: ingest batches and rollup rebuilds, and the alert engine that runs in a
/// batch (`alerts::ENGINE_LOCK`).
pub(crate) const INGEST_LOCK: i64 = 0x6378_7761_7463_6802;

/// A pooled connection.
pub type Client = deadpool_postgres::Object;
/// A transaction on a pooled connection.
pub type Tx<'a> = deadpool_postgres::Transaction<'a>;

/// The PostgreSQL backend: a pool of connections to the site's database.
pub struct Postgres {
    pub(crate) pool: Pool,
    /// Where this instance keeps files of its own (none of the data: that is all in the
    /// database, so every instance sees the same).
    pub(crate) data_dir: PathBuf,
    /// How the alert engine works (`AlertEventStore::configure_alerts`).
    pub(crate) alerting: std::sync::RwLock<super::alerts::AlertOptions>,
    /// The engine's settings between batches.
    pub(crate) engine_view: super::alerts::ViewCache,
    /// The database's name and server, for messages (never the password).
    pub(crate) describe: String,
    /// How to open a connection of its own, outside the pool (a lease's).
    pub(crate) pg_config: tokio_postgres::Config,
    pub(crate) tls: tokio_postgres_rustls::MakeRustlsConnect,
}

impl Postgres {
    /// Connects to `config.url`, checks the schema version and applies pending migrations.
    pub async fn connect(config: &StoreConfig, data_dir: &Path) -> StoreResult<Postgres> {
        let mut pg = tokio_postgres::Config::from_str(config.url.trim())
            .map_err(|e| StoreError::Invalid(format!("store.url: {e}")))?;
        if !config.password.is_empty() {
            pg.password(config.password.as_bytes());
        }
        if pg.get_application_name().is_none() {
            pg.application_name("cxwatch");
        }
        if pg.get_connect_timeout().is_none() {
            pg.connect_timeout(std::time::Duration::from_secs(10));
        }
        let describe = describe(&pg);
        let tls = tokio_postgres_rustls::MakeRustlsConnect::new(tls_config(config)?);
        let manager = Manager::from_config(
            pg.clone(),
            tls.clone(),
            ManagerConfig {
                recycling_method: RecyclingMethod::Fast,
            },
        );
        let pool = Pool::builder(manager)
            .max_size(config.pool_size.max(1) as usize)
            .wait_timeout(Some(std::time::Duration::from_secs(30)))
            .create_timeout(Some(std::time::Duration::from_secs(10)))
            .runtime(deadpool_postgres::Runtime::Tokio1)
            .build()
            .map_err(|e| StoreError::Invalid(format!("store.url: {e}")))?;
        let store = Postgres {
            pool,
            data_dir: data_dir.to_path_buf(),
            alerting: Default::default(),
            engine_view: Default::default(),
            describe,
            pg_config: pg,
            tls,
        };
        store.migrate().await?;
        Ok(store)
    }

    /// A connection from the pool.
    pub(crate) async fn client(&self) -> StoreResult<Client> {
        self.pool
            .get()
            .await
            .map_err(|e| StoreError::Unavailable(format!("database {}: {e}", self.describe)))
    }

    /// The schema version (the highest migration number applied) and the one this cxwatch
    /// knows (its highest migration number).
    pub async fn schema_version(&self) -> StoreResult<(i64, i64)> {
        let c = self.client().await?;
        Ok((version(&c).await?, super::schema::latest(&migrations())))
    }

    /// Applies every migration the database has not recorded, one transaction each, under
    /// an advisory lock, after checking the recorded ones (`store::schema`);
    /// `schema_version` holds the highest number applied. A database versioned by count
    /// (before numbered versions) is first given its numbers, once. A database from a
    /// newer cxwatch is refused.
    async fn migrate(&self) -> StoreResult<()> {
        let mut c = self.client().await?;
        let all = migrations();
        let db = PathBuf::from(&self.describe);
        c.batch_execute(
            "CREATE TABLE IF NOT EXISTS schema_version (
                 only_row BOOLEAN PRIMARY KEY DEFAULT TRUE CHECK (only_row),
                 version  BIGINT NOT NULL)",
        )
        .await
        .or_else(ignore_race)?;
        {
            let tx = c.transaction().await?;
            tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATE_LOCK])
                .await?;
            let recorded: bool = tx
                .query_one("SELECT to_regclass('schema_migrations') IS NOT NULL", &[])
                .await?
                .get(0);
            if !recorded {
                let count = version(&tx).await?;
                let Some(done) = super::schema::counted(&all, count) else {
                    return Err(super::schema::too_new(&db, count, &all));
                };
                tx.batch_execute(
                    "CREATE TABLE schema_migrations (
                         version    BIGINT PRIMARY KEY,
                         name       TEXT NOT NULL,
                         checksum   TEXT NOT NULL,
                         applied_at BIGINT NOT NULL)",
                )
                .await?;
                for m in done {
                    record(&tx, m).await?;
                }
                if let Some(last) = done.last() {
                    set_version(&tx, last.version).await?;
                    tracing::info!(
                        files = count,
                        version = last.version,
                        "database schema versioned by migration number"
                    );
                }
            }
            tx.commit().await?;
        }
        loop {
            let tx = c.transaction().await?;
            tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATE_LOCK])
                .await?;
            let applied: Vec<super::schema::Applied> = tx
                .query(
                    "SELECT version, name, checksum FROM schema_migrations ORDER BY version",
                    &[],
                )
                .await?
                .iter()
                .map(|r| super::schema::Applied {
                    version: r.get("version"),
                    name: r.get("name"),
                    checksum: r.get("checksum"),
                })
                .collect();
            let found = version(&tx).await?;
            let Some(m) = super::schema::pending(&db, &all, &applied, found)?
                .first()
                .copied()
            else {
                return Ok(());
            };
            tx.batch_execute(m.sql).await.map_err(|e| {
                StoreError::Invalid(format!("migration {}: {}", m.name, message(&e)))
            })?;
            record(&tx, m).await?;
            set_version(&tx, m.version).await?;
            tx.commit().await?;
            tracing::info!(migration = m.name, "database schema upgraded");
        }
    }
}

/// Records `m` as applied.
async fn record(tx: &Tx<'_>, m: &super::schema::Migration) -> StoreResult<()> {
    tx.execute(
        "INSERT INTO schema_migrations (version, name, checksum, applied_at)
         VALUES ($1, $2, $3, $4)",
        &[&m.version, &m.name, &m.checksum(), &super::now_secs()],
    )
    .await?;
    Ok(())
}

async fn set_version(tx: &Tx<'_>, version: i64) -> StoreResult<()> {
    tx.execute(
        "INSERT INTO schema_version (version) VALUES ($1)
         ON CONFLICT (only_row) DO UPDATE SET version = EXCLUDED.version",
        &[&version],
    )
    .await?;
    Ok(())
}

/// `CREATE TABLE IF NOT EXISTS` run by two instances at once can still meet a unique
/// violation on the catalog; the table exists then.
fn ignore_race(e: tokio_postgres::Error) -> Result<(), tokio_postgres::Error> {
    match e.code() {
        Some(c) if *c == SqlState::UNIQUE_VIOLATION => Ok(()),
        _ => Err(e),
    }
}

async fn version(c: &impl deadpool_postgres::GenericClient) -> StoreResult<i64> {
    Ok(c.query_opt("SELECT version FROM schema_version", &[])
        .await?
        .map(|r| r.get("version"))
        .unwrap_or(0))
}

/// PostgreSQL's migrations compiled in, in number order.
pub(crate) fn migrations() -> Vec<super::schema::Migration> {
    super::schema::migrations(&MIGRATIONS)
}

/// `nocase("g.name")` is the SQL of SQLite's `g.name COLLATE NOCASE`: ASCII letters
/// lowered (`lower` under the "C" collation folds only those) and compared bytewise
/// (`sql::Exec::nocase` for the queries written once).
pub(crate) fn nocase(column: &str) -> String {
    format!("lower({column} COLLATE \"C\")")
}

/// `db@host:port` for messages.
fn describe(pg: &tokio_postgres::Config) -> String {
    let host = pg
        .get_hosts()
        .first()
        .map(|h| match h {
            tokio_postgres::config::Host::Tcp(h) => h.clone(),
            #[cfg(unix)]
            tokio_postgres::config::Host::Unix(p) => p.display().to_string(),
        })
        .unwrap_or_else(|| "localhost".into());
    let port = pg.get_ports().first().copied().unwrap_or(5432);
    format!(
        "{}@{host}:{port}",
        pg.get_dbname().or(pg.get_user()).unwrap_or("postgres")
    )
}

/// rustls for the connection: the roots of `store.trust` plus the site's CA (`store.ca_file`).
fn tls_config(config: &StoreConfig) -> StoreResult<rustls::ClientConfig> {
    crate::trust::client_config(crate::trust::Roots {
        section: "store",
        trust_key: "trust",
        trust: config.trust,
        ca_key: "ca_file",
        ca: config.ca_file.as_deref(),
    })
    .map_err(StoreError::Invalid)
}

/// PostgreSQL's own message of an error (its `DETAIL` included), else the driver's.
pub(crate) fn message(e: &tokio_postgres::Error) -> String {
    match e.as_db_error() {
        Some(db) => match db.detail() {
            Some(d) => format!("{} ({d})", db.message()),
            None => db.message().to_string(),
        },
        None => e.to_string(),
    }
}

/// Whether `e` says the server cannot be reached or is going away rather than that a
/// statement failed: the connection closed or broke, or the server refuses connections or
/// ended them (class 08, connection exception; 57P01-57P03, shutting down or starting up).
pub(crate) fn is_unreachable(e: &tokio_postgres::Error) -> bool {
    if e.is_closed() {
        return true;
    }
    match e.as_db_error() {
        Some(db) => {
            let code = db.code().code();
            code.starts_with("08") || matches!(code, "57P01" | "57P02" | "57P03")
        }
        // No answer from the server: an I/O error (refused, reset) or a timeout.
        None => {
            std::error::Error::source(e).is_some_and(|s| s.is::<std::io::Error>())
                || e.to_string().contains("timeout")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Run with `TEST_POSTGRES_URL` set (the README's test command does).
    #[tokio::test]
    async fn fresh_database_gets_every_migration_and_a_newer_one_is_refused() {
        let Some(url) = testdb::fresh().await else {
            return;
        };
        let config = StoreConfig {
            url,
            ..StoreConfig::default()
        };
        let dir = tempfile::tempdir().unwrap();
        let pg = Postgres::connect(&config, dir.path()).await.unwrap();
        let (found, known) = pg.schema_version().await.unwrap();
        assert_eq!(found, known);
        assert_eq!(known, migrations().last().unwrap().version);
        // Connecting again applies nothing.
        drop(pg);
        let pg = Postgres::connect(&config, dir.path()).await.unwrap();
        pg.client()
            .await
            .unwrap()
            .execute("UPDATE schema_version SET version = 999", &[])
            .await
            .unwrap();
        drop(pg);
        let err = Postgres::connect(&config, dir.path()).await.err().unwrap();
        assert!(err.to_string().contains("newer"), "{err}");
    }

    async fn raw(url: &str) -> tokio_postgres::Client {
        let (client, conn) = tokio_postgres::connect(url, tokio_postgres::NoTls)
            .await
            .unwrap();
        tokio::spawn(conn);
        client
    }

    async fn recorded(c: &tokio_postgres::Client) -> Vec<(i64, String, String)> {
        c.query(
            "SELECT version, name, checksum FROM schema_migrations ORDER BY version",
            &[],
        )
        .await
        .unwrap()
        .iter()
        .map(|r| (r.get("version"), r.get("name"), r.get("checksum")))
        .collect()
    }

    /// A database of a cxwatch before numbered versions: the first `count` files applied
    /// and `schema_version` their count, no `schema_migrations`.
    async fn counted_database(url: &str, count: usize) {
        let c = raw(url).await;
        c.batch_execute(
            "CREATE TABLE schema_version (
                 only_row BOOLEAN PRIMARY KEY DEFAULT TRUE CHECK (only_row),
                 version  BIGINT NOT NULL)",
        )
        .await
        .unwrap();
        for m in migrations().iter().take(count) {
            c.batch_execute(m.sql).await.unwrap();
        }
        c.execute(
            "INSERT INTO schema_version (version) VALUES ($1)",
            &[&(count as i64)],
        )
        .await
        .unwrap();
        c.batch_execute("INSERT INTO meta (key, value) VALUES ('kept', 'yes')")
            .await
            .unwrap();
    }

    #[tokio::test]
    async fn a_database_versioned_by_count_gets_numbers_once_without_rerunning() {
        let all = migrations();
        let dir = tempfile::tempdir().unwrap();
        for count in [all.len(), all.len() - 1] {
            let Some(url) = testdb::fresh().await else {
                return;
            };
            counted_database(&url, count).await;
            let pg = testdb::connect(&url, dir.path()).await;
            let (found, known) = pg.schema_version().await.unwrap();
            let latest = all.last().unwrap().version;
            assert_eq!((found, known), (latest, latest));
            let c = raw(&url).await;
            let kept: String = c
                .query_one("SELECT value FROM meta WHERE key = 'kept'", &[])
                .await
                .unwrap()
                .get(0);
            assert_eq!(kept, "yes", "nothing ran again");
            let rows = recorded(&c).await;
            let expected: Vec<(i64, String, String)> = all
                .iter()
                .map(|m| (m.version, m.name.to_string(), m.checksum()))
                .collect();
            assert_eq!(
                rows, expected,
                "{count} files: every file recorded, gaps and all"
            );
            drop(pg);
            // Once: the next start finds the numbers and changes nothing.
            let pg = testdb::connect(&url, dir.path()).await;
            assert_eq!(pg.schema_version().await.unwrap(), (latest, latest));
            assert_eq!(recorded(&c).await, rows);
        }
    }

    #[tokio::test]
    async fn a_migration_changed_after_it_was_applied_stops_start_up() {
        let Some(url) = testdb::fresh().await else {
            return;
        };
        let dir = tempfile::tempdir().unwrap();
        drop(testdb::connect(&url, dir.path()).await);
        let before = super::super::schema::checksum("-- 0013 as it was\n");
        raw(&url)
            .await
            .execute(
                "UPDATE schema_migrations SET checksum = $1 WHERE version = 13",
                &[&before],
            )
            .await
            .unwrap();
        let config = StoreConfig {
            url,
            ..StoreConfig::default()
        };
        let err = Postgres::connect(&config, dir.path()).await.err().unwrap();
        assert!(matches!(err, StoreError::Migration(_)), "{err}");
        let now = migrations()
            .into_iter()
            .find(|m| m.version == 13)
            .unwrap()
            .checksum();
        let message = err.to_string();
        assert!(
            message.contains(
                "migration 0013_signin_throttle.sql was changed after it was applied to this database"
            ) && message.contains(&format!("checksum {now}, recorded {before}")),
            "{message}"
        );
    }
}

#[cfg(test)]
mod tls_tests {
    use super::*;

    /// Debian's PostgreSQL serves TLS with the machine's self-signed "snakeoil" certificate
    /// (CN localhost): trusted through `ca_file`, refused without it.
    #[tokio::test]
    async fn tls_with_the_sites_ca_and_refused_without() {
        let Some(url) = testdb::fresh().await else {
            return;
        };
        let snakeoil = PathBuf::from("/etc/ssl/certs/ssl-cert-snakeoil.pem");
        if !snakeoil.exists() {
            eprintln!("no snakeoil certificate here: TLS not tested");
            return;
        }
        let mut tls_url = reqwest::Url::parse(&url).unwrap();
        tls_url.set_host(Some("localhost")).unwrap();
        tls_url.set_query(Some("sslmode=require"));
        let dir = tempfile::tempdir().unwrap();
        let config = StoreConfig {
            url: tls_url.to_string(),
            ca_file: Some(snakeoil),
            ..StoreConfig::default()
        };
        let pg = Postgres::connect(&config, dir.path()).await.unwrap();
        let ssl: bool = pg
            .client()
            .await
            .unwrap()
            .query_one(
                "SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()",
                &[],
            )
            .await
            .unwrap()
            .get(0);
        assert!(ssl, "the connection is encrypted");
        let untrusted = StoreConfig {
            ca_file: None,
            ..config
        };
        let err = Postgres::connect(&untrusted, dir.path())
            .await
            .err()
            .unwrap();
        assert!(
            err.to_string().contains("TLS") || err.to_string().contains("certificate"),
            "{err}"
        );
    }
}

#[cfg(test)]
pub(crate) mod testdb {
    //! A fresh database on the test machine's PostgreSQL for a unit test, when
    //! `TEST_POSTGRES_URL` gives the server (`postgres://postgres@127.0.0.1:5432/postgres`).

    /// The URL of a new, empty database, or None when no server is given.
    pub async fn fresh() -> Option<String> {
        let base = std::env::var("TEST_POSTGRES_URL").ok()?;
        Some(crate::store::pg::create_test_database(&base).await)
    }

    /// A store on the database `url` (its schema made), with `dir` as its data directory.
    pub async fn connect(url: &str, dir: &std::path::Path) -> super::Postgres {
        let config = crate::config::StoreConfig {
            url: url.to_string(),
            ..Default::default()
        };
        super::Postgres::connect(&config, dir).await.unwrap()
    }
}

/// Creates an empty database `cxwt_<random>` on the server of `base_url` (which names any
/// database the user may connect to) and answers its URL. For tests: the README's test
/// command drops every `cxwt_` database before and after its run.
pub async fn create_test_database(base_url: &str) -> String {
    use rand::Rng;
    let name = format!("cxwt_{:016x}", rand::thread_rng().gen::<u64>());
    let (client, conn) = tokio_postgres::connect(base_url, tokio_postgres::NoTls)
        .await
        .unwrap_or_else(|e| panic!("TEST_POSTGRES_URL={base_url}: {e}"));
    let task = tokio::spawn(conn);
    client
        .batch_execute(&format!("CREATE DATABASE {name}"))
        .await
        .unwrap_or_else(|e| panic!("CREATE DATABASE {name}: {e}"));
    drop(client);
    let _ = task.await;
    let mut url = reqwest::Url::parse(base_url).expect("TEST_POSTGRES_URL is a URL");
    url.set_path(&format!("/{name}"));
    url.to_string()
}
