//! The store: one SQLite file in the data directory (WAL), or PostgreSQL for big sites
//! (`pg/`), the schema upgraded at start-up by the numbered migrations of each backend
//! (`schema.rs`), one transaction each.
//!
//! The boundary: one trait per resource (`UserStore`, `RunStore`, …), each declared in its
//! file. A plain resource's file holds its SQL too, written once for both backends on
//! `sql.rs`; the resources whose speed needs each dialect keep their SQL in `sqlite/` and
//! `pg/`. Handlers hold a [`Store`] and call its typed async methods; they never see a
//! connection. Blocking SQLite work runs on tokio's blocking pool.

pub mod alert_events;
pub mod alert_life;
pub mod alert_settings;
pub mod alerts;
pub mod api_keys;
pub mod audit;
pub mod auth;
pub mod auto_tickets;
#[cfg(test)]
mod both;
pub mod catalog;
pub mod copy;
pub mod distributions;
pub mod group_removal;
pub mod health;
pub mod hourly;
pub mod incidents;
pub mod last_pass;
pub mod leases;
pub mod maintenance;
pub mod meta;
pub mod metrics;
pub mod ops;
pub mod opstate;
pub mod outbox;
pub mod pg;
pub mod recent;
pub mod recordings;
pub mod report_schedules;
pub mod reports;
pub mod rollups;
pub mod run_detail;
pub mod runs;
pub mod schema;
pub mod site;
pub mod space;
pub mod sql;
pub mod sqlite;
pub mod sso;
pub mod throttle;
pub mod users;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use include_dir::{include_dir, Dir};
use rusqlite::Connection;

use crate::config::{StoreConfig, Synchronous};

pub use alert_life::AlertLifeStore;
pub use alert_settings::AlertSettingStore;
pub use alerts::AlertEventStore;
pub use api_keys::ApiKeyStore;
pub use audit::AuditStore;
pub use auth::AuthStore;
pub use auto_tickets::AutoTicketStore;
pub use catalog::CatalogStore;
pub use distributions::DistributionStore;
pub use group_removal::GroupRemovalStore;
pub use health::HealthStore;
pub use hourly::HourlyStore;
pub use incidents::IncidentStore;
pub use last_pass::LastPassStore;
pub use leases::LeaseStore;
pub use maintenance::MaintenanceStore;
pub use meta::MetaStore;
pub use metrics::MetricStore;
pub use ops::OpsStore;
pub use opstate::OpStateStore;
pub use outbox::OutboxStore;
pub use recent::RecentStore;
pub use recordings::RecordingStore;
pub use report_schedules::ReportScheduleStore;
pub use reports::{ReportStore, ReportViewStore};
pub use runs::RunStore;
pub use site::SiteStore;
pub use sso::SsoStore;
pub use throttle::ThrottleStore;
pub use users::UserStore;

static MIGRATIONS: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/src/store/migrations");

/// File name of the database inside the data directory.
pub const DB_FILE: &str = "cxwatch.db";
/// Reads running at once at most, and reader connections kept open. A burst of requests
/// beyond it waits for a reader instead of opening connections of its own: each new one
/// paid its schema and a page cache, two hundred clients took 300 MiB for reads that the
/// cores run a few at a time anyway.
const MAX_IDLE_READERS: usize = 8;

/// How the SQLite connections are set up: `[store]` of the config.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StoreOptions {
    /// `PRAGMA synchronous`: NORMAL or FULL.
    pub synchronous: Synchronous,
    /// Page cache of all connections together, in MiB.
    pub cache_mib: u32,
    /// Free space ingest leaves on the data directory's volume, in MiB (`space.rs`).
    pub min_free_mb: u64,
}

impl Default for StoreOptions {
    fn default() -> Self {
        StoreOptions::from(&StoreConfig::default())
    }
}

impl From<&StoreConfig> for StoreOptions {
    fn from(c: &StoreConfig) -> Self {
        StoreOptions {
            synchronous: c.synchronous,
            cache_mib: c.cache_mib,
            min_free_mb: c.min_free_mb,
        }
    }
}

impl StoreOptions {
    /// The writer's page cache in KiB: a quarter of the total (its hot pages are the run
    /// index and rollup leaves an ingest batch touches).
    fn writer_cache_kib(&self) -> i64 {
        (i64::from(self.cache_mib) * 1024 / 4).max(1024)
    }

    /// Each reader's page cache in KiB: the other three quarters over the readers kept.
    fn reader_cache_kib(&self) -> i64 {
        (i64::from(self.cache_mib) * 1024 * 3 / 4 / MAX_IDLE_READERS as i64).max(512)
    }
}

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("{0}")]
    NotFound(String),
    #[error("{0}")]
    Invalid(String),
    #[error("{0}")]
    Conflict(String),
    /// A problem of one input field found in the data (a username taken, a group that
    /// does not exist), so a form can show it beside the field.
    #[error("{}", .1.message)]
    Field(FieldConflict, crate::domain::rules::FieldError),
    #[error("database {path}: schema version {found} is newer than this cxwatch knows ({known}); run the newer cxwatch or restore a backup")]
    TooNew {
        path: PathBuf,
        found: i64,
        known: i64,
    },
    #[error("database: {0}")]
    Sqlite(#[from] rusqlite::Error),
    #[error("database: {}", pg::message(.0))]
    Postgres(#[from] tokio_postgres::Error),
    /// The database cannot be reached (PostgreSQL down, the pool exhausted).
    #[error("{0}")]
    Unavailable(String),
    /// The migrations compiled in do not fit what the database recorded (one changed after
    /// it was applied, one removed, one numbered below the database's version).
    #[error("{0}")]
    Migration(String),
    /// The data directory's volume is full, or below `store.min_free_mb` (`space.rs`).
    #[error("{0}")]
    NoSpace(String),
    #[error("store I/O: {0}")]
    Io(#[from] std::io::Error),
    #[error("store task failed: {0}")]
    Task(String),
}

pub type StoreResult<T> = Result<T, StoreError>;

impl StoreError {
    /// Whether the database could not be reached at all (PostgreSQL stopped, restarting or
    /// unreachable; the pool without a connection): nothing was done, and the same call
    /// may succeed once it is back.
    pub fn is_unavailable(&self) -> bool {
        match self {
            StoreError::Unavailable(_) => true,
            StoreError::Postgres(e) => pg::is_unreachable(e),
            _ => false,
        }
    }

    /// Whether the call failed because the volume is full (or below `store.min_free_mb`).
    pub fn is_no_space(&self) -> bool {
        match self {
            StoreError::NoSpace(_) => true,
            StoreError::Sqlite(rusqlite::Error::SqliteFailure(e, _)) => {
                e.code == rusqlite::ErrorCode::DiskFull
            }
            StoreError::Io(e) => e.raw_os_error() == Some(libc::ENOSPC),
            _ => false,
        }
    }
}

/// Whether a [`StoreError::Field`] problem conflicts with stored data or is invalid input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldConflict {
    Conflict,
    Invalid,
}

/// Whether a record (`what` `id`: an alert event, a report) whose Jira ticket is `current`
/// takes ticket `key`: not when it has it already; a conflict when it has another.
pub(crate) fn takes_ticket(
    what: &str,
    id: i64,
    current: Option<&str>,
    key: &str,
) -> StoreResult<bool> {
    match current {
        Some(k) if k == key => Ok(false),
        Some(k) => Err(StoreError::Conflict(format!(
            "{what} {id} already has ticket {k}."
        ))),
        None => Ok(true),
    }
}

/// A form's field that fails a check against the stored data.
pub(crate) fn invalid(field: &str, message: String) -> StoreError {
    StoreError::Field(
        FieldConflict::Invalid,
        crate::domain::rules::FieldError {
            field: field.into(),
            rule: crate::domain::rules::Rule::Invalid,
            message,
        },
    )
}

/// A unique violation of a name (`what`: 'test case group', 'distribution list'; the names
/// are unique without case, migration 0022) becomes a conflict of the form's field `name`,
/// rule `taken`, so the form shows it beside the field.
pub(crate) fn or_name_taken<T>(done: StoreResult<T>, what: &str, name: &str) -> StoreResult<T> {
    done.map_err(|e| {
        if sql::is_unique_violation(&e) {
            StoreError::Field(
                FieldConflict::Conflict,
                crate::domain::rules::FieldError {
                    field: "name".into(),
                    rule: crate::domain::rules::Rule::Taken,
                    message: format!("A {what} named {name} already exists."),
                },
            )
        } else {
            e
        }
    })
}

/// A form's test case group (field `field`) exists and the caller's scope sees it.
pub(crate) fn group_field(
    field: &str,
    group_id: i64,
    seen: crate::domain::caller::Visibility<()>,
) -> StoreResult<()> {
    use crate::domain::caller::Visibility;
    match seen {
        Visibility::Visible(()) => Ok(()),
        Visibility::Hidden => Err(invalid(
            field,
            format!("Test case group {group_id} is not in your test case groups."),
        )),
        Visibility::Missing => Err(invalid(
            field,
            format!("Test case group {group_id} does not exist."),
        )),
    }
}

/// The backend behind a store, for `sql::read!` and `sql::write!` (the handle names the
/// backends; the SQL layer below it does not).
pub enum Db<'a> {
    Sqlite(&'a Sqlite),
    Postgres(&'a pg::Postgres),
}

/// A backend whose plain resources go through this layer.
pub trait SqlStore: Send + Sync + 'static {
    fn db(&self) -> Db<'_>;
}

impl SqlStore for Sqlite {
    fn db(&self) -> Db<'_> {
        Db::Sqlite(self)
    }
}

impl SqlStore for pg::Postgres {
    fn db(&self) -> Db<'_> {
        Db::Postgres(self)
    }
}

/// Declares [`Backend`], the sum of the resource traits, and implements it for whatever
/// implements them all: the list is written once.
macro_rules! backend {
    ($($store:ident),* $(,)?) => {
        /// Everything a backend stores: one trait per resource. Both backends ([`Sqlite`],
        /// [`pg::Postgres`]) implement them all, the plain ones through `sql::SqlStore`;
        /// the handlers do not know which one runs.
        pub trait Backend: $($store +)* Send + Sync + 'static {}

        impl<T> Backend for T where T: $($store +)* Send + Sync + 'static {}
    };
}

backend!(
    AlertEventStore,
    AlertLifeStore,
    AlertSettingStore,
    ApiKeyStore,
    AuditStore,
    AuthStore,
    AutoTicketStore,
    CatalogStore,
    DistributionStore,
    GroupRemovalStore,
    HealthStore,
    HourlyStore,
    IncidentStore,
    LastPassStore,
    LeaseStore,
    MaintenanceStore,
    MetaStore,
    MetricStore,
    OutboxStore,
    OpsStore,
    OpStateStore,
    RecentStore,
    RecordingStore,
    ReportScheduleStore,
    ReportStore,
    ReportViewStore,
    SiteStore,
    RunStore,
    SsoStore,
    ThrottleStore,
    UserStore,
);

/// The store handlers, the CLI and the demo use: typed async methods of the resource
/// traits (`store.list_users(..)`), never a connection or SQL. Cheap to clone.
#[derive(Clone)]
pub struct Store {
    backend: Arc<dyn Backend>,
    /// The data directory's volume.
    space: Arc<space::Space>,
    /// Whether ingest is refused when that volume is low: on SQLite, whose database is
    /// there (on PostgreSQL only a cache of recordings is).
    guard_space: bool,
}

impl std::ops::Deref for Store {
    type Target = dyn Backend;
    fn deref(&self) -> &Self::Target {
        &*self.backend
    }
}

impl Store {
    /// Opens (or creates) the SQLite database in `data_dir` and applies pending migrations.
    pub fn open(data_dir: &Path, options: StoreOptions) -> StoreResult<Store> {
        Ok(Store::sqlite(
            Sqlite::open(data_dir, options)?,
            data_dir,
            options,
        ))
    }

    /// Opens the SQLite database in `data_dir` only when it exists: for the commands that
    /// only read, which must not leave an empty database behind a mistyped `--data-dir`.
    pub fn open_existing(data_dir: &Path, options: StoreOptions) -> StoreResult<Store> {
        let file = data_dir.join(DB_FILE);
        if !file.is_file() {
            return Err(StoreError::NotFound(format!(
                "there is no database at {}: check --data-dir (or data_dir in the config); \
                 `cxwatch serve` creates it on a new site",
                file.display()
            )));
        }
        Store::open(data_dir, options)
    }

    fn sqlite(sqlite: Sqlite, data_dir: &Path, options: StoreOptions) -> Store {
        Store {
            backend: Arc::new(sqlite),
            space: Arc::new(space::Space::new(data_dir, options.min_free_mb)),
            guard_space: true,
        }
    }

    /// The data directory's volume: its free space and the reserve (`store.min_free_mb`).
    pub fn space(&self) -> &space::Space {
        &self.space
    }

    /// Ok when ingest may write; [`StoreError::NoSpace`] when the data directory's volume
    /// has less free space than `store.min_free_mb` (SQLite only).
    pub fn check_ingest_space(&self) -> StoreResult<()> {
        match self.guard_space {
            true => self.space.check(),
            false => Ok(()),
        }
    }

    /// Why ingest is refused now for lack of space, if it is (`/healthz`).
    pub fn space_shortage(&self) -> Option<String> {
        self.guard_space.then(|| self.space.shortage()).flatten()
    }

    /// Opens the store `[store]` names: PostgreSQL when `url` is given, else the SQLite
    /// file in `data_dir`. Either way the schema is brought up to date first.
    pub async fn connect(config: &StoreConfig, data_dir: &Path) -> StoreResult<Store> {
        let options = StoreOptions::from(config);
        if config.is_postgres() {
            Ok(Store {
                backend: Arc::new(pg::Postgres::connect(config, data_dir).await?),
                space: Arc::new(space::Space::new(data_dir, options.min_free_mb)),
                guard_space: false,
            })
        } else {
            let dir = data_dir.to_path_buf();
            let sqlite = tokio::task::spawn_blocking(move || Sqlite::open(&dir, options))
                .await
                .map_err(|e| StoreError::Task(e.to_string()))??;
            Ok(Store::sqlite(sqlite, data_dir, options))
        }
    }

    /// [`Store::connect`] from synchronous code (the command line).
    pub fn open_config(config: &crate::config::Config) -> StoreResult<Store> {
        Self::block_on(Self::connect(&config.store, &config.data_dir))
    }

    /// [`Store::open_config`] for a command that only reads: a SQLite database that does
    /// not exist is an error, not made ([`Store::open_existing`]).
    pub fn open_config_existing(config: &crate::config::Config) -> StoreResult<Store> {
        match config.store.is_postgres() {
            true => Self::open_config(config),
            false => Store::open_existing(&config.data_dir, StoreOptions::from(&config.store)),
        }
    }

    /// [`Store::block_on`] for the command line: its changes are audited as `cli:<user>`.
    pub fn block_on_cli<F: std::future::Future>(f: F) -> F::Output {
        Self::block_on(audit::as_actor(audit::Actor::cli(), f))
    }

    /// Runs a store call to its end from synchronous code (the CLI, the demo's loader
    /// thread, benchmarks): on the current runtime when there is one, else on a small one.
    pub fn block_on<F: std::future::Future>(f: F) -> F::Output {
        match tokio::runtime::Handle::try_current() {
            Ok(h) => tokio::task::block_in_place(|| h.block_on(f)),
            Err(_) => tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .expect("a tokio runtime for a store call")
                .block_on(f),
        }
    }
}

/// The SQLite backend: one file in the data directory (WAL), a writer connection and a
/// few readers. Its SQL is private to the `store` module.
pub struct Sqlite {
    inner: Arc<Inner>,
}

struct Inner {
    path: PathBuf,
    options: StoreOptions,
    writer: Mutex<Connection>,
    /// The writer's checkpoints, on a thread of their own; after `writer`, so that it is
    /// dropped after the connection whose hook points into it.
    _checkpointer: Box<sqlite::checkpoint::Checkpointer>,
    readers: Mutex<Vec<Connection>>,
    /// One permit a read running ([`MAX_IDLE_READERS`]).
    reading: Arc<tokio::sync::Semaphore>,
    /// How the alert engine works (`AlertEventStore::configure_alerts`).
    alerting: std::sync::RwLock<alerts::AlertOptions>,
    /// The engine's settings between batches.
    engine_view: alerts::ViewCache,
}

impl Sqlite {
    pub fn open(data_dir: &Path, options: StoreOptions) -> StoreResult<Sqlite> {
        // Private whatever the umask: a new data directory 0700; the database 0600 (SQLite
        // gives its -wal and -shm files the database's mode).
        let path = data_dir.join(DB_FILE);
        #[cfg(unix)]
        {
            use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt, PermissionsExt};
            if !data_dir.exists() {
                std::fs::DirBuilder::new()
                    .recursive(true)
                    .mode(0o700)
                    .create(data_dir)?;
                std::fs::set_permissions(data_dir, std::fs::Permissions::from_mode(0o700))?;
            }
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .mode(0o600)
                .open(&path)?;
            for suffix in ["", "-wal", "-shm"] {
                let file = data_dir.join(format!("{DB_FILE}{suffix}"));
                if file.exists() {
                    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600))?;
                }
            }
        }
        #[cfg(not(unix))]
        std::fs::create_dir_all(data_dir)?;
        let mut writer = connect(&path, &options, options.writer_cache_kib())?;
        migrate(&mut writer, &path)?;
        let checkpointer = {
            let (path, options) = (path.clone(), options);
            let volume = space::Space::new(data_dir, 0);
            sqlite::checkpoint::Checkpointer::start(
                &writer,
                move || connect(&path, &options, 1024),
                move || volume.reading().ok().map(|r| r.free),
            )?
        };
        Ok(Sqlite {
            inner: Arc::new(Inner {
                path,
                options,
                writer: Mutex::new(writer),
                _checkpointer: checkpointer,
                readers: Mutex::new(Vec::new()),
                reading: Arc::new(tokio::sync::Semaphore::new(MAX_IDLE_READERS)),
                alerting: Default::default(),
                engine_view: Default::default(),
            }),
        })
    }

    /// Runs `f` on a reader connection, off the async threads.
    async fn read<T, F>(&self, f: F) -> StoreResult<T>
    where
        T: Send + 'static,
        F: FnOnce(&Connection) -> StoreResult<T> + Send + 'static,
    {
        let permit = (self.inner.reading.clone().acquire_owned().await)
            .map_err(|e| StoreError::Task(e.to_string()))?;
        let inner = self.inner.clone();
        tokio::task::spawn_blocking(move || {
            let _permit = permit;
            inner.with_reader(f)
        })
        .await
        .map_err(|e| StoreError::Task(e.to_string()))?
    }

    /// Runs `f` inside one write transaction, committed when `f` returns `Ok`.
    async fn write<T, F>(&self, f: F) -> StoreResult<T>
    where
        T: Send + 'static,
        F: FnOnce(&rusqlite::Transaction) -> StoreResult<T> + Send + 'static,
    {
        let inner = self.inner.clone();
        // Who makes the change goes with it to the writer thread (audit::record reads it).
        let actor = audit::current();
        tokio::task::spawn_blocking(move || audit::within(actor, || inner.with_writer(f)))
            .await
            .map_err(|e| StoreError::Task(e.to_string()))?
    }
}

impl Inner {
    /// Empties the idle readers' page caches (`PRAGMA shrink_memory`): the pages stay in
    /// the kernel's cache, a later read takes them from there.
    fn release_memory(&self) {
        for c in self
            .readers
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
        {
            if let Err(e) = c.execute_batch("PRAGMA shrink_memory") {
                tracing::warn!(error = %e, "store: a reader's cache could not be released");
            }
        }
    }

    fn with_reader<T>(&self, f: impl FnOnce(&Connection) -> StoreResult<T>) -> StoreResult<T> {
        let conn = self.readers.lock().unwrap_or_else(|e| e.into_inner()).pop();
        let conn = match conn {
            Some(c) => c,
            None => connect(&self.path, &self.options, self.options.reader_cache_kib())?,
        };
        let result = f(&conn);
        let mut idle = self.readers.lock().unwrap_or_else(|e| e.into_inner());
        if idle.len() < MAX_IDLE_READERS {
            idle.push(conn);
        }
        result
    }

    fn with_writer<T>(
        &self,
        f: impl FnOnce(&rusqlite::Transaction) -> StoreResult<T>,
    ) -> StoreResult<T> {
        let mut conn = self.writer.lock().unwrap_or_else(|e| e.into_inner());
        let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
        let out = f(&tx)?;
        tx.commit()?;
        Ok(out)
    }
}

fn connect(path: &Path, options: &StoreOptions, cache_kib: i64) -> StoreResult<Connection> {
    let conn = Connection::open(path)?;
    conn.busy_timeout(std::time::Duration::from_secs(10))?;
    // wal_autocheckpoint: an ingest batch dirties a few pages per run spread over the tables
    // (one hot leaf per test case in the run index and the rollups). Checkpointing every ~1000
    // WAL pages (SQLite's default) copies them after nearly every batch. The writer's
    // connection checkpoints on a thread of its own instead, less often while the volume has
    // room (`sqlite/checkpoint.rs`); the others, which write little, at its tight bound.
    // journal_size_limit: the WAL file is cut back to that size when it starts over.
    // WAL: readers never block the writer. synchronous=NORMAL in WAL mode loses nothing
    // when the process is killed; only a power cut may drop the last commits. FULL (the
    // `store.synchronous` setting) syncs the WAL at every commit.
    // cache_size: negative is KiB; the total over all connections is `store.cache_mib`.
    let synchronous = match options.synchronous {
        Synchronous::Normal => "NORMAL",
        Synchronous::Full => "FULL",
    };
    conn.execute_batch(&format!(
        "PRAGMA journal_mode = WAL;
         PRAGMA synchronous = {synchronous};
         PRAGMA foreign_keys = ON;
         PRAGMA temp_store = MEMORY;
         PRAGMA cache_size = -{cache_kib};
         PRAGMA wal_autocheckpoint = {autocheckpoint};
         PRAGMA journal_size_limit = {wal_limit};",
        autocheckpoint = sqlite::checkpoint::TIGHT.background,
        wal_limit = sqlite::checkpoint::WAL_SIZE_LIMIT,
    ))?;
    Ok(conn)
}

/// SQLite's migrations compiled in, in number order.
pub(crate) fn migrations() -> Vec<schema::Migration> {
    schema::migrations(&MIGRATIONS)
}

/// The schema version this cxwatch knows on SQLite: its highest migration number.
pub(crate) fn known_version() -> i64 {
    schema::latest(&migrations())
}

/// Applies every migration the database has not recorded, one transaction each, after
/// checking the recorded ones (`store::schema`); `user_version` is the highest number
/// applied. A database versioned by count (before numbered versions) is first given its
/// numbers, once. A database from a newer cxwatch is refused.
fn migrate(conn: &mut Connection, path: &Path) -> StoreResult<()> {
    let all = migrations();
    let user_version = |c: &Connection| -> StoreResult<i64> {
        Ok(c.query_row("PRAGMA user_version", [], |r| r.get(0))?)
    };
    let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
    let recorded: bool = tx.query_row(
        "SELECT count(*) > 0 FROM sqlite_schema WHERE type = 'table' AND name = ?1",
        [schema::BOOKKEEPING_TABLE],
        |r| r.get(0),
    )?;
    if !recorded {
        let count = user_version(&tx)?;
        let Some(done) = schema::counted(&all, count) else {
            return Err(schema::too_new(path, count, &all));
        };
        tx.execute_batch(
            "CREATE TABLE schema_migrations (
                 version    INTEGER PRIMARY KEY,
                 name       TEXT NOT NULL,
                 checksum   TEXT NOT NULL,
                 applied_at INTEGER NOT NULL
             ) STRICT",
        )?;
        for m in done {
            record(&tx, m)?;
        }
        if let Some(last) = done.last() {
            tx.execute_batch(&format!("PRAGMA user_version = {}", last.version))?;
            tracing::info!(
                files = count,
                version = last.version,
                "database schema versioned by migration number"
            );
        }
    }
    tx.commit()?;
    let applied: Vec<schema::Applied> = conn
        .prepare("SELECT version, name, checksum FROM schema_migrations ORDER BY version")?
        .query_map([], |r| {
            Ok(schema::Applied {
                version: r.get(0)?,
                name: r.get(1)?,
                checksum: r.get(2)?,
            })
        })?
        .collect::<Result<_, _>>()?;
    for m in schema::pending(path, &all, &applied, user_version(conn)?)? {
        let tx = conn.transaction()?;
        tx.execute_batch(m.sql)
            .map_err(|e| StoreError::Invalid(format!("migration {}: {e}", m.name)))?;
        record(&tx, m)?;
        tx.execute_batch(&format!("PRAGMA user_version = {}", m.version))?;
        tx.commit()?;
        tracing::info!(migration = m.name, "database schema upgraded");
    }
    Ok(())
}

/// Records `m` as applied.
fn record(tx: &rusqlite::Transaction, m: &schema::Migration) -> StoreResult<()> {
    tx.execute(
        "INSERT INTO schema_migrations (version, name, checksum, applied_at)
         VALUES (?1, ?2, ?3, ?4)",
        rusqlite::params![m.version, m.name, m.checksum(), now_secs()],
    )?;
    Ok(())
}

/// A stored channel name, in a SQLite row mapper.
pub(crate) fn channel_of(s: &str) -> rusqlite::Result<crate::domain::run::Channel> {
    crate::domain::run::Channel::parse(s).ok_or_else(|| {
        rusqlite::Error::FromSqlConversionFailure(
            0,
            rusqlite::types::Type::Text,
            format!("unknown channel {s:?}").into(),
        )
    })
}

/// A `LIKE … ESCAPE '\\'` pattern matching text that contains `s`, in lower case (for a
/// column compared lower-cased).
pub(crate) fn like(s: &str) -> String {
    contains(&s.to_lowercase())
}

/// A `LIKE … ESCAPE '\\'` (or `ILIKE`) pattern matching text that contains `s`.
pub(crate) fn contains(s: &str) -> String {
    let escaped = s
        .replace('\\', "\\\\")
        .replace('%', "\\%")
        .replace('_', "\\_");
    format!("%{escaped}%")
}

/// Seconds since the Unix epoch on the server's clock (`crate::clock`), the unit of every
/// `*_at` column.
pub fn now_secs() -> i64 {
    crate::clock::now_secs()
}

#[cfg(test)]
pub(crate) mod testing {
    /// The store of a unit test: SQLite in a temporary directory, or, when
    /// `TEST_POSTGRES_URL` names a server, a fresh PostgreSQL database (the README's test
    /// command runs the library's tests once each way).
    pub async fn store() -> (tempfile::TempDir, super::Store) {
        let dir = tempfile::tempdir().unwrap();
        let config = crate::config::StoreConfig {
            url: super::pg::testdb::fresh().await.unwrap_or_default(),
            ..Default::default()
        };
        let store = super::Store::connect(&config, dir.path()).await.unwrap();
        (dir, store)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fresh_database_gets_every_migration() {
        let dir = tempfile::tempdir().unwrap();
        let store = Sqlite::open(dir.path(), StoreOptions::default()).unwrap();
        let v: i64 = store
            .inner
            .with_reader(|c| Ok(c.query_row("PRAGMA user_version", [], |r| r.get(0))?))
            .unwrap();
        assert_eq!(v, known_version());
        assert_eq!(v, migrations().last().unwrap().version);
        let recorded = store.inner.with_reader(|c| Ok(recorded(c))).unwrap();
        let expected: Vec<(i64, String, String)> = migrations()
            .iter()
            .map(|m| (m.version, m.name.to_string(), m.checksum()))
            .collect();
        assert_eq!(recorded, expected);
        // Opening again applies nothing and keeps the data.
        drop(store);
        Store::open(dir.path(), StoreOptions::default()).unwrap();
    }

    fn recorded(c: &Connection) -> Vec<(i64, String, String)> {
        c.prepare("SELECT version, name, checksum FROM schema_migrations ORDER BY version")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .unwrap()
            .map(Result::unwrap)
            .collect()
    }

    /// A database of a cxwatch before numbered versions: the first `count` files applied
    /// and `user_version` their count, no `schema_migrations`.
    fn counted_database(dir: &Path, count: usize) {
        let conn = Connection::open(dir.join(DB_FILE)).unwrap();
        for m in migrations().iter().take(count) {
            conn.execute_batch(m.sql).unwrap();
        }
        conn.execute_batch(&format!("PRAGMA user_version = {count}"))
            .unwrap();
        conn.execute("INSERT INTO meta (key, value) VALUES ('kept', 'yes')", [])
            .unwrap();
    }

    #[test]
    fn a_database_versioned_by_count_gets_numbers_once_without_rerunning() {
        let all = migrations();
        // Every file applied (12 on SQLite today): numbered as the last one, nothing run
        // again (running 0001 again would fail: its tables exist).
        let dir = tempfile::tempdir().unwrap();
        counted_database(dir.path(), all.len());
        let store = Sqlite::open(dir.path(), StoreOptions::default()).unwrap();
        let (version, kept, rows) = store
            .inner
            .with_reader(|c| {
                Ok((
                    pragma(c, "user_version"),
                    c.query_row("SELECT value FROM meta WHERE key = 'kept'", [], |r| {
                        r.get::<_, String>(0)
                    })?,
                    recorded(c),
                ))
            })
            .unwrap();
        assert_eq!(version, all.last().unwrap().version);
        assert_eq!(kept, "yes");
        assert_eq!(rows.len(), all.len());
        drop(store);
        // Once: the next start finds the numbers and changes nothing.
        let store = Sqlite::open(dir.path(), StoreOptions::default()).unwrap();
        let again = store.inner.with_reader(|c| Ok(recorded(c))).unwrap();
        assert_eq!(again, rows);
        drop(store);

        // All but the last applied: numbered as the one before, then the last is applied.
        let dir = tempfile::tempdir().unwrap();
        counted_database(dir.path(), all.len() - 1);
        let conn = Connection::open(dir.path().join(DB_FILE)).unwrap();
        assert_eq!(pragma(&conn, "user_version"), all.len() as i64 - 1);
        drop(conn);
        let store = Sqlite::open(dir.path(), StoreOptions::default()).unwrap();
        let (version, rows) = store
            .inner
            .with_reader(|c| Ok((pragma(c, "user_version"), recorded(c))))
            .unwrap();
        assert_eq!(version, all.last().unwrap().version);
        let versions: Vec<i64> = rows.iter().map(|r| r.0).collect();
        let expected: Vec<i64> = all.iter().map(|m| m.version).collect();
        assert_eq!(versions, expected, "gaps and all");
    }

    #[test]
    fn a_migration_changed_after_it_was_applied_stops_start_up() {
        let dir = tempfile::tempdir().unwrap();
        drop(Store::open(dir.path(), StoreOptions::default()).unwrap());
        let conn = Connection::open(dir.path().join(DB_FILE)).unwrap();
        // As if 0012's text had been another when it was applied.
        let before = schema::checksum("-- 0012 as it was\n");
        conn.execute(
            "UPDATE schema_migrations SET checksum = ?1 WHERE version = 12",
            [&before],
        )
        .unwrap();
        drop(conn);
        let err = Store::open(dir.path(), StoreOptions::default())
            .err()
            .unwrap();
        assert!(matches!(err, StoreError::Migration(_)), "{err}");
        let now = migrations()
            .into_iter()
            .find(|m| m.version == 12)
            .unwrap()
            .checksum();
        let message = err.to_string();
        assert!(
            message.contains(
                "migration 0012_auto_tickets.sql was changed after it was applied to this database"
            ) && message.contains(&format!("checksum {now}, recorded {before}"))
                && message.contains("add a new one instead"),
            "{message}"
        );
    }

    fn pragma(c: &Connection, name: &str) -> i64 {
        c.query_row(&format!("PRAGMA {name}"), [], |r| r.get(0))
            .unwrap()
    }

    #[test]
    fn options_reach_every_connection() {
        let dir = tempfile::tempdir().unwrap();
        // Defaults: synchronous NORMAL (1), 32 MiB in all: 8 MiB writer, 3 MiB per reader.
        let store = Sqlite::open(dir.path(), StoreOptions::default()).unwrap();
        let w = store.inner.writer.lock().unwrap();
        assert_eq!(pragma(&w, "synchronous"), 1);
        assert_eq!(pragma(&w, "cache_size"), -8 * 1024);
        drop(w);
        let r = store
            .inner
            .with_reader(|c| Ok((pragma(c, "synchronous"), pragma(c, "cache_size"))))
            .unwrap();
        assert_eq!(r, (1, -3 * 1024));
        drop(store);

        let full = StoreOptions {
            synchronous: Synchronous::Full,
            cache_mib: 64,
            min_free_mb: 0,
        };
        let store = Sqlite::open(dir.path(), full).unwrap();
        let w = store.inner.writer.lock().unwrap();
        assert_eq!(pragma(&w, "synchronous"), 2);
        assert_eq!(pragma(&w, "cache_size"), -16 * 1024);
        drop(w);
        let r = store
            .inner
            .with_reader(|c| Ok((pragma(c, "synchronous"), pragma(c, "cache_size"))))
            .unwrap();
        assert_eq!(r, (2, -6 * 1024));
    }

    #[test]
    fn newer_database_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        drop(Store::open(dir.path(), StoreOptions::default()).unwrap());
        let conn = Connection::open(dir.path().join(DB_FILE)).unwrap();
        conn.execute_batch("PRAGMA user_version = 999").unwrap();
        drop(conn);
        let err = Store::open(dir.path(), StoreOptions::default())
            .err()
            .unwrap();
        assert!(err.to_string().contains("newer"), "{err}");
    }
}

/// Migrations run on raw connections (only this file, `sql.rs` and `copy.rs` name the drivers).
#[cfg(test)]
mod migration_tests {
    /// An SQLite database migrated up to `version`, with `seed` run just before it.
    fn sqlite_through(version: i64, seed: &str) -> rusqlite::Connection {
        let conn = rusqlite::Connection::open_in_memory().unwrap();
        conn.execute_batch("PRAGMA foreign_keys = ON").unwrap();
        for m in crate::store::migrations() {
            if m.version == version {
                conn.execute_batch(seed).unwrap();
            }
            if m.version <= version {
                conn.execute_batch(m.sql).unwrap();
            }
        }
        conn
    }

    /// The same on a fresh PostgreSQL database (`None` without `TEST_POSTGRES_URL`), with
    /// the connection's task.
    async fn postgres_through(
        version: i64,
        seed: &str,
    ) -> Option<(tokio_postgres::Client, tokio::task::JoinHandle<()>)> {
        let url = crate::store::pg::testdb::fresh().await?;
        let (client, connection) = tokio_postgres::connect(&url, tokio_postgres::NoTls)
            .await
            .unwrap();
        let task = tokio::spawn(async move {
            let _ = connection.await;
        });
        for m in crate::store::pg::migrations() {
            if m.version == version {
                client.batch_execute(seed).await.unwrap();
            }
            if m.version <= version {
                client.batch_execute(m.sql).await.unwrap();
            }
        }
        Some((client, task))
    }

    /// Migration 0022 on a database that holds twins already (made before it): nothing is
    /// deleted, the later twins are renamed 'name (id)' (again when that name was taken),
    /// and the unique index is built. SQLite always; PostgreSQL with `TEST_POSTGRES_URL`.
    #[tokio::test(flavor = "multi_thread")]
    async fn migration_0022_renames_existing_twins() {
        const TWINS: &str = "INSERT INTO test_case_groups (id, name, channel, created_at, updated_at) VALUES
               (1, 'Claims', 'voice', 0, 0), (2, 'claims', 'voice', 0, 0),
               (3, 'Claims (2)', 'voice', 0, 0), (4, 'CLAIMS', 'voice', 0, 0), (5, 'Other', 'voice', 0, 0);
             INSERT INTO distribution_lists (id, name, modified_at) VALUES (1, 'On call', 0), (2, 'on call', 0);";
        let want_groups = vec![
            "Claims".to_string(),
            "claims (2)".into(),
            "Claims (2) (3)".into(),
            "CLAIMS (4)".into(),
            "Other".into(),
        ];
        let want_lists = vec!["On call".to_string(), "on call (2)".into()];

        let conn = sqlite_through(22, TWINS);
        let names = |table: &str| -> Vec<String> {
            conn.prepare(&format!("SELECT name FROM {table} ORDER BY id"))
                .unwrap()
                .query_map([], |r| r.get(0))
                .unwrap()
                .collect::<Result<_, _>>()
                .unwrap()
        };
        assert_eq!(names("test_case_groups"), want_groups);
        assert_eq!(names("distribution_lists"), want_lists);
        assert!(conn
            .execute_batch(
                "INSERT INTO distribution_lists (name, modified_at) VALUES ('ON CALL', 0)"
            )
            .is_err());

        let Some((client, task)) = postgres_through(22, TWINS).await else {
            return;
        };
        for (table, want) in [
            ("test_case_groups", &want_groups),
            ("distribution_lists", &want_lists),
        ] {
            let got: Vec<String> = client
                .query(&format!("SELECT name FROM {table} ORDER BY id"), &[])
                .await
                .unwrap()
                .iter()
                .map(|r| r.get(0))
                .collect();
            assert_eq!(&got, want, "{table}");
        }
        drop(client);
        let _ = task.await;
    }

    /// Migration 0038 on a database whose engine stored state rows and clocks: each test
    /// case's row holds its clock and its states, read back as they were; then a setting's
    /// delete takes its states from every row. SQLite always; PostgreSQL with
    /// `TEST_POSTGRES_URL`.
    #[tokio::test(flavor = "multi_thread")]
    async fn migration_0038_packs_the_engines_state_by_test_case() {
        use crate::store::alerts::CaseRows;
        const BEFORE: &str = "INSERT INTO test_case_groups (id, name, channel, created_at, updated_at)
                 VALUES (1, 'Claims', 'voice', 0, 0);
             INSERT INTO distribution_lists (id, name, modified_at) VALUES (1, 'On call', 0);
             INSERT INTO alert_settings (id, name, group_id, distribution_id, email_subject,
                    voice_message, sms_prefix, failure_to_alert, modified_at)
                 VALUES (4, 'a', 1, 1, '', '', '', 2, 0), (12, 'b', 1, 1, '', '', '', 2, 0);
             INSERT INTO alert_clock (test_case_id, last_ms) VALUES (1, 100), (2, 200);
             INSERT INTO alert_state (setting_id, test_case_id, count, pending, open_event, last_run_ms)
                 VALUES (4, 1, 1, '', 55, 90), (12, 1, 3, '7,9', NULL, NULL),
                        (12, 3, 1, '8', NULL, 40);";
        // A test case's clock, and its states as (setting, count, pending, event, time).
        type Memory = (
            Option<i64>,
            Vec<(i64, u32, Vec<i64>, Option<i64>, Option<i64>)>,
        );
        let want = |case: i64| -> Memory {
            match case {
                1 => (
                    Some(100),
                    vec![
                        (4, 1, vec![], Some(55), Some(90)),
                        (12, 3, vec![7, 9], None, None),
                    ],
                ),
                2 => (Some(200), vec![]),
                _ => (None, vec![(12, 1, vec![8], None, Some(40))]),
            }
        };
        let read = |rows: Vec<(i64, Option<i64>, String)>| {
            for (case, clock, states) in &rows {
                let memory = CaseRows::parse(*case, *clock, states).unwrap();
                let mut got: Vec<_> = (memory.rows.into_iter())
                    .map(|(s, st)| (s, st.count, st.pending, st.open_event, st.last_run_ms))
                    .collect();
                got.sort();
                assert_eq!(
                    (memory.clock, got),
                    want(*case),
                    "test case {case}: {states}"
                );
            }
            rows.iter().map(|(case, _, _)| *case).collect::<Vec<_>>()
        };
        const GONE: &str = "DELETE FROM alert_settings WHERE id = 12";

        let conn = sqlite_through(38, BEFORE);
        let memory = |conn: &rusqlite::Connection| -> Vec<(i64, Option<i64>, String)> {
            conn.prepare("SELECT test_case_id, clock_ms, states FROM alert_memory ORDER BY 1")
                .unwrap()
                .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
                .unwrap()
                .collect::<Result<_, _>>()
                .unwrap()
        };
        assert_eq!(read(memory(&conn)), [1, 2, 3]);
        conn.execute_batch(GONE).unwrap();
        let after: Vec<String> = memory(&conn).into_iter().map(|r| r.2).collect();
        assert_eq!(after, [r#"{"4":[1,[],55,90]}"#, "{}", "{}"]);

        let Some((client, task)) = postgres_through(38, BEFORE).await else {
            return;
        };
        let memory = || async {
            let rows = client
                .query(
                    "SELECT test_case_id, clock_ms, states FROM alert_memory ORDER BY 1",
                    &[],
                )
                .await
                .unwrap();
            rows.iter()
                .map(|r| (r.get(0), r.get(1), r.get(2)))
                .collect::<Vec<(i64, Option<i64>, String)>>()
        };
        assert_eq!(read(memory().await), [1, 2, 3]);
        client.batch_execute(GONE).await.unwrap();
        let after: Vec<String> = memory().await.into_iter().map(|r| r.2).collect();
        assert_eq!(after, [r#"{"4": [1, [], 55, 90]}"#, "{}", "{}"]);
        drop(client);
        let _ = task.await;
    }

    /// Migration 0039 on a database with incidents: each incident's tally and causes are
    /// read from its events; an event without an incident counts nowhere. SQLite always;
    /// PostgreSQL with `TEST_POSTGRES_URL`.
    #[tokio::test(flavor = "multi_thread")]
    async fn migration_0039_tallies_the_incidents_from_their_events() {
        const BEFORE: &str = "INSERT INTO ivr_apps (id, name, channel)
                 VALUES (10, 'Main', 'voice'), (11, 'Claims', 'voice');
             INSERT INTO test_cases (id, name, channel, ivr_id, updated_at)
                 VALUES (1, 'a', 'voice', 10, 0), (2, 'b', 'voice', 11, 0);
             INSERT INTO incidents (id, first_ms, created_ms) VALUES (1, 100, 100), (2, 500, 500);
             INSERT INTO alert_events (id, setting_id, setting_name, group_id, group_name,
                    test_case_id, distribution_id, distribution_name, status_id, alert_ms,
                    open, closed_ms, incident_id)
                 VALUES (1, 1, 's', 5, 'g', 1, 1, 'd', 7, 100, FALSE, 300, 1),
                        (2, 1, 's', 6, 'g', 2, 1, 'd', 7, 150, FALSE, 400, 1),
                        (3, 1, 's', 5, 'g', 1, 1, 'd', 7, 500, TRUE, NULL, 2),
                        (4, 1, 's', 5, 'g', 1, 1, 'd', 7, 600, FALSE, 700, 2),
                        (5, 1, 's', 7, 'g', 2, 1, 'd', 7, 50, TRUE, NULL, NULL);";
        const TALLY: &str =
            "SELECT id, events, open_events, last_closed_ms FROM incidents ORDER BY id";
        const CAUSES: &str =
            "SELECT incident_id, kind, cause_id FROM incident_causes ORDER BY 1, 2, 3";
        let want_tally: Vec<(i64, i64, i64, Option<i64>)> =
            vec![(1, 2, 0, Some(400)), (2, 2, 1, Some(700))];
        let want_causes: Vec<(i64, i64, i64)> = vec![
            (1, 0, 5),
            (1, 0, 6),
            (1, 1, 10),
            (1, 1, 11),
            (2, 0, 5),
            (2, 1, 10),
        ];

        let conn = sqlite_through(39, BEFORE);
        let tally: Vec<(i64, i64, i64, Option<i64>)> = conn
            .prepare(TALLY)
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(tally, want_tally);
        let causes: Vec<(i64, i64, i64)> = conn
            .prepare(CAUSES)
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(causes, want_causes);

        let Some((client, task)) = postgres_through(39, BEFORE).await else {
            return;
        };
        let tally: Vec<(i64, i64, i64, Option<i64>)> = client
            .query(TALLY, &[])
            .await
            .unwrap()
            .iter()
            .map(|r| (r.get(0), r.get(1), r.get(2), r.get(3)))
            .collect();
        assert_eq!(tally, want_tally);
        let causes: Vec<(i64, i64, i64)> = client
            .query(CAUSES, &[])
            .await
            .unwrap()
            .iter()
            .map(|r| (r.get(0), i64::from(r.get::<_, i16>(1)), r.get(2)))
            .collect();
        assert_eq!(causes, want_causes);
        drop(client);
        let _ = task.await;
    }
}
