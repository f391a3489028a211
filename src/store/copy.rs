//! `cxwatch store copy`: moves a site from its SQLite file to PostgreSQL (docs/postgres.md,
//! "Moving a site from SQLite").
//!
//! The source is opened read-only and read in one transaction (a consistent snapshot, even
//! while a server writes to it). The target is connected as the server does
//! ([`pg::Postgres::connect`]: TLS, password, its schema created or upgraded first); both
//! must be at the schema version this cxwatch knows.
//!
//! What to copy is read from the target's catalog: every table of the schema
//! (`information_schema.columns`) but the bookkeeping ones and those only PostgreSQL has
//! (state SQLite keeps in memory), parents before children along
//! the foreign keys, each column converted to its PostgreSQL type (0/1 flags to `BOOLEAN`,
//! `SMALLINT`/`INTEGER` checked for range). Recordings, files beside the SQLite database,
//! go into `recordings.data`.
//!
//! Rows go in with `COPY ... FROM STDIN BINARY`, in chunks ordered by the table's primary
//! key; each chunk is committed with its progress record (`store_copy_progress`: the last
//! key copied), so an interrupted copy resumes where it stopped, and a finished one copies
//! nothing again. At the end the identity sequences are set past the largest ids, the tables
//! analysed, and every table's count compared with the source's.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bytes::BytesMut;
use include_dir::{include_dir, Dir};
use rusqlite::types::{Value, ValueRef};
use rusqlite::{Connection, OpenFlags};
use sha2::{Digest, Sha256};
use tokio_postgres::binary_copy::BinaryCopyInWriter;
use tokio_postgres::types::{IsNull, ToSql, Type};

use super::pg::{self, Postgres};
use super::{StoreError, StoreResult, DB_FILE};
use crate::config::StoreConfig;

static PG_MIGRATIONS: Dir<'static> = include_dir!("$CARGO_MANIFEST_DIR/src/store/pg/migrations");

/// Rows per transaction by default.
pub const CHUNK_ROWS: u64 = 50_000;
/// A chunk is committed at this many bytes too (recordings are large).
pub const CHUNK_BYTES: u64 = 256 * 1024 * 1024;
/// Rows (or bytes) the SQLite reader hands over at a time.
const BATCH_ROWS: usize = 1_000;
const BATCH_BYTES: usize = 8 * 1024 * 1024;

/// The target's bookkeeping of a copy (not copied, not part of the site's schema).
const PROGRESS_TABLE: &str = "store_copy_progress";
const SOURCE_TABLE: &str = "store_copy_source";
/// The advisory lock a copy holds on the target (any constant of our own).
const COPY_LOCK: i64 = 0x6378_7761_7463_6804;

/// What to copy where, and how.
#[derive(Debug, Clone)]
pub struct CopyOptions {
    /// The SQLite database (`cxwatch.db`), or the data directory holding it.
    pub from: PathBuf,
    /// The target: `url`, `password`, `ca_file` (as `[store]`).
    pub target: StoreConfig,
    /// Rows per transaction (each one a resume point).
    pub chunk_rows: u64,
    /// Bytes per transaction at most (past one row).
    pub chunk_bytes: u64,
    /// Stop after this many chunks were committed (tests: an interrupted copy).
    pub stop_after_chunks: Option<u64>,
    /// What to show on stderr.
    pub progress: Progress,
}

impl CopyOptions {
    pub fn new(from: impl Into<PathBuf>, target: StoreConfig) -> CopyOptions {
        CopyOptions {
            from: from.into(),
            target,
            chunk_rows: CHUNK_ROWS,
            chunk_bytes: CHUNK_BYTES,
            stop_after_chunks: None,
            progress: Progress::Auto,
        }
    }
}

/// What a copy shows on stderr.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Progress {
    /// A progress bar per table on a terminal; otherwise one line per table.
    Auto,
    /// Nothing.
    Quiet,
}

/// How a copy ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Copied from the start.
    Copied,
    /// Continued an interrupted copy.
    Resumed,
    /// An earlier run had copied everything: nothing copied.
    AlreadyComplete,
    /// Stopped as asked ([`CopyOptions::stop_after_chunks`]); run again to go on.
    Stopped,
}

/// One table's rows in the source and in the target.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableCount {
    pub table: String,
    pub source: i64,
    pub target: i64,
    /// Rows this run copied.
    pub copied: u64,
}

/// What a copy did.
#[derive(Debug, Clone)]
pub struct CopyReport {
    pub outcome: Outcome,
    /// Every table copied, in copy order (counts checked unless stopped).
    pub tables: Vec<TableCount>,
    /// Transactions committed by this run.
    pub chunks: u64,
    pub elapsed: Duration,
    /// The target, for messages (`db@host:port`, never the password).
    pub target: String,
    /// What was worth a warning (a server running on the source), shown as it happened.
    pub warnings: Vec<String>,
}

impl CopyReport {
    /// The tables whose counts differ.
    pub fn mismatches(&self) -> Vec<&TableCount> {
        self.tables
            .iter()
            .filter(|t| t.source != t.target)
            .collect()
    }

    /// Rows copied by this run.
    pub fn copied(&self) -> u64 {
        self.tables.iter().map(|t| t.copied).sum()
    }

    /// The table of counts: table, SQLite rows, PostgreSQL rows, copied now.
    pub fn render(&self) -> String {
        let width = self
            .tables
            .iter()
            .map(|t| t.table.len())
            .max()
            .unwrap_or(5)
            .max(5);
        let mut out = format!(
            "{:<width$}  {:>12}  {:>12}  {:>12}\n",
            "table", "sqlite", "postgresql", "copied now"
        );
        for t in &self.tables {
            out.push_str(&format!(
                "{:<width$}  {:>12}  {:>12}  {:>12}{}\n",
                t.table,
                t.source,
                t.target,
                t.copied,
                if t.source != t.target {
                    "  <- differs"
                } else {
                    ""
                }
            ));
        }
        out
    }
}

/// Copies the SQLite site `options.from` into the PostgreSQL database `options.target`
/// (see the module's documentation). Counts that differ at the end are reported in
/// [`CopyReport::mismatches`], not as an error.
pub async fn copy(options: &CopyOptions) -> StoreResult<CopyReport> {
    let started = Instant::now();
    let source_file = source_file(&options.from)?;
    let data_dir = source_file
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."));
    let source = Source::open(&source_file).await?;
    let show = Show::new(options.progress);
    let mut warnings = Vec::new();
    if server_running(&data_dir) {
        let w = format!(
            "a cxwatch server is running on {}: the copy is its database as it was when the \
             copy began, and what the server stores later is not copied. Stop it for the move.",
            data_dir.display()
        );
        show.line(&format!("warning: {w}"));
        warnings.push(w);
    }

    let target_config = StoreConfig {
        pool_size: 2,
        ..options.target.clone()
    };
    let target = Postgres::connect(&target_config, &data_dir).await?;
    let (found, known) = target.schema_version().await?;
    if found != known {
        return Err(StoreError::Invalid(format!(
            "the target database {} has schema version {found}, this cxwatch knows {known}",
            target.describe
        )));
    }
    let mut client = target.client().await?;
    let plans = plan(&client, &source).await?;
    let counts = source.counts(&plans).await?;

    // Where the target stands: a copy of this source begun or done, or nothing.
    let fingerprint = source.fingerprint().await?;
    let state = begin(
        &mut client,
        &target.describe,
        &plans,
        &source_file,
        &fingerprint,
    )
    .await?;
    let mut tables = Vec::new();
    let mut chunks = 0;
    if state != Begun::Finished {
        let progress = progress_rows(&client).await?;
        for (plan, &total) in plans.iter().zip(&counts) {
            let (done_rows, last_key, done) = progress
                .get(&plan.table)
                .cloned()
                .unwrap_or((0, None, false));
            if done {
                tables.push(count(plan, total, 0));
                continue;
            }
            let after = last_key.as_deref().map(decode_key).transpose()?;
            let bar = show.bar(&plan.table, total as u64, done_rows as u64);
            let t = Instant::now();
            let left = options.stop_after_chunks.map(|n| n.saturating_sub(chunks));
            let copied = if left == Some(0) {
                Copied {
                    rows: 0,
                    chunks: 0,
                    stopped: true,
                }
            } else {
                copy_table(
                    &mut client,
                    &source,
                    &data_dir,
                    plan,
                    after,
                    options,
                    left,
                    &bar,
                )
                .await?
            };
            chunks += copied.chunks;
            show.finish(bar, &plan.table, copied.rows, t.elapsed(), copied.stopped);
            tables.push(count(plan, total, copied.rows));
            if copied.stopped {
                // The tables not reached yet.
                for (p, &n) in plans.iter().zip(&counts).skip(tables.len()) {
                    tables.push(count(p, n, 0));
                }
                target_counts(&client, &mut tables).await?;
                return Ok(CopyReport {
                    outcome: Outcome::Stopped,
                    tables,
                    chunks,
                    elapsed: started.elapsed(),
                    target: target.describe.clone(),
                    warnings,
                });
            }
        }
        set_sequences(&client, &plans).await?;
        // Statistics for the planner now rather than at autovacuum's leisure.
        let names: Vec<String> = plans.iter().map(|p| ident(&p.table)).collect();
        client
            .batch_execute(&format!("ANALYZE {}", names.join(", ")))
            .await?;
        client
            .execute(
                &format!("UPDATE {SOURCE_TABLE} SET finished_at = $1"),
                &[&super::now_secs()],
            )
            .await?;
    }
    if tables.is_empty() {
        tables = plans
            .iter()
            .zip(&counts)
            .map(|(p, &n)| count(p, n, 0))
            .collect();
    }
    target_counts(&client, &mut tables).await?;
    Ok(CopyReport {
        outcome: match state {
            Begun::Fresh => Outcome::Copied,
            Begun::Partial => Outcome::Resumed,
            Begun::Finished => Outcome::AlreadyComplete,
        },
        tables,
        chunks,
        elapsed: started.elapsed(),
        target: target.describe.clone(),
        warnings,
    })
}

async fn target_counts(client: &pg::Client, tables: &mut [TableCount]) -> StoreResult<()> {
    for t in tables {
        t.target = client
            .query_one(&format!("SELECT count(*) FROM {}", ident(&t.table)), &[])
            .await?
            .get(0);
    }
    Ok(())
}

fn count(plan: &TablePlan, source: i64, copied: u64) -> TableCount {
    TableCount {
        table: plan.table.clone(),
        source,
        target: 0,
        copied,
    }
}

/// Whether a cxwatch server holds the data directory (its lock, `store::sqlite::backup`).
#[cfg(unix)]
fn server_running(data_dir: &Path) -> bool {
    use std::os::unix::io::AsRawFd;
    let Ok(file) = std::fs::File::open(data_dir.join(super::sqlite::backup::LOCK_FILE)) else {
        return false;
    };
    // SAFETY: flock on a descriptor we own; closing it (at the end of this function)
    // releases the lock when it was taken.
    let rc = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
    rc != 0 && std::io::Error::last_os_error().kind() == std::io::ErrorKind::WouldBlock
}

#[cfg(not(unix))]
fn server_running(_: &Path) -> bool {
    false
}

/// The database file `from` names (a data directory names its `cxwatch.db`).
fn source_file(from: &Path) -> StoreResult<PathBuf> {
    let file = if from.is_dir() {
        from.join(DB_FILE)
    } else {
        from.to_path_buf()
    };
    if !file.is_file() {
        return Err(StoreError::NotFound(format!(
            "no SQLite database at {}",
            file.display()
        )));
    }
    Ok(file)
}

// ---------------------------------------------------------------------------------------
// The source: one read-only connection holding one read transaction.

struct Source {
    conn: Arc<Mutex<Connection>>,
}

impl Source {
    /// Opens `file` read-only, checks its schema version and begins the snapshot.
    async fn open(file: &Path) -> StoreResult<Source> {
        let p = file.to_path_buf();
        let conn = blocking(move || {
            let conn = Connection::open_with_flags(
                &p,
                OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
            )?;
            conn.busy_timeout(Duration::from_secs(30))?;
            let found: i64 = conn
                .query_row("PRAGMA user_version", [], |r| r.get(0))
                .map_err(|e| {
                    StoreError::Invalid(format!("{} is not a cxwatch database: {e}", p.display()))
                })?;
            let known = super::known_version();
            if found < known {
                return Err(StoreError::Invalid(format!(
                    "the SQLite database {} has schema version {found}, this cxwatch knows \
                     {known}: upgrade it first by starting this cxwatch on it once \
                     (cxwatch serve --data-dir {}), stop it, then copy",
                    p.display(),
                    p.parent().unwrap_or(Path::new(".")).display()
                )));
            }
            if found > known {
                return Err(StoreError::TooNew {
                    path: p.clone(),
                    found,
                    known,
                });
            }
            // One read transaction for the whole copy: a consistent snapshot.
            conn.execute_batch("BEGIN")?;
            conn.query_row("SELECT count(*) FROM sqlite_schema", [], |r| {
                r.get::<_, i64>(0)
            })?;
            Ok(conn)
        })
        .await?;
        Ok(Source {
            conn: Arc::new(Mutex::new(conn)),
        })
    }

    async fn with<T: Send + 'static>(
        &self,
        f: impl FnOnce(&Connection) -> StoreResult<T> + Send + 'static,
    ) -> StoreResult<T> {
        let conn = self.conn.clone();
        blocking(move || f(&conn.lock().unwrap_or_else(|e| e.into_inner()))).await
    }

    /// The columns of `table` (None when the source has no such table).
    async fn columns(&self, table: &str) -> StoreResult<Option<Vec<String>>> {
        let table = table.to_string();
        self.with(move |c| {
            let mut stmt = c.prepare("SELECT name FROM pragma_table_info(?1) ORDER BY cid")?;
            let cols: Vec<String> = stmt
                .query_map([&table], |r| r.get(0))?
                .collect::<Result<_, _>>()?;
            Ok((!cols.is_empty()).then_some(cols))
        })
        .await
    }

    /// The tables of the schema.
    async fn tables(&self) -> StoreResult<Vec<String>> {
        self.with(|c| {
            let mut stmt = c.prepare(
                "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'",
            )?;
            let names = stmt
                .query_map([], |r| r.get(0))?
                .collect::<Result<_, _>>()?;
            Ok(names)
        })
        .await
    }

    /// Every table's row count, in the snapshot.
    async fn counts(&self, plans: &[TablePlan]) -> StoreResult<Vec<i64>> {
        let tables: Vec<String> = plans.iter().map(|p| p.table.clone()).collect();
        self.with(move |c| {
            tables
                .iter()
                .map(|t| {
                    Ok(
                        c.query_row(&format!("SELECT count(*) FROM {}", ident(t)), [], |r| {
                            r.get(0)
                        })?,
                    )
                })
                .collect()
        })
        .await
    }

    /// What tells this site from another: its users (id, name, creation time).
    async fn fingerprint(&self) -> StoreResult<String> {
        self.with(|c| {
            let mut hash = Sha256::new();
            let mut stmt = c.prepare("SELECT id, username, created_at FROM users ORDER BY id")?;
            let mut rows = stmt.query([])?;
            while let Some(r) = rows.next()? {
                let (id, name, at): (i64, String, i64) = (r.get(0)?, r.get(1)?, r.get(2)?);
                hash.update(format!("{id}\t{name}\t{at}\n"));
            }
            Ok(hex::encode(hash.finalize()))
        })
        .await
    }
}

async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> StoreResult<T> + Send + 'static,
) -> StoreResult<T> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| StoreError::Task(e.to_string()))?
}

// ---------------------------------------------------------------------------------------
// The plan: tables, columns and their types, from the target's catalog.

/// Where a target column's values come from.
#[derive(Debug, Clone)]
enum Src {
    /// The SQLite column at this index of the SELECT (after the key columns).
    Column(usize),
    /// The file of the recording whose SHA-256 is at this index (`recordings.data`).
    RecordingFile(usize),
}

#[derive(Debug, Clone)]
struct TablePlan {
    table: String,
    /// Target columns in order, with their types.
    columns: Vec<(String, Type)>,
    sources: Vec<Src>,
    /// The SQLite columns selected (by name).
    select: Vec<String>,
    /// The key the copy is ordered and resumed by: the primary key, else SQLite's rowid.
    key: Vec<String>,
    /// Identity (or serial) columns whose sequence is set at the end.
    identity: Vec<String>,
}

/// Tables the copy leaves alone.
fn bookkeeping(table: &str) -> bool {
    table == "schema_version"
        || table == super::schema::BOOKKEEPING_TABLE
        || table.starts_with("store_copy_")
}

/// Tables the migrations fill (with `INSERT INTO`): a fresh target already has their rows,
/// which the source's replace.
fn seeded_tables() -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for file in PG_MIGRATIONS.files() {
        let Some(sql) = file.contents_utf8() else {
            continue;
        };
        let upper = sql.to_ascii_uppercase();
        let mut at = 0;
        while let Some(i) = upper[at..].find("INSERT INTO ") {
            let start = at + i + "INSERT INTO ".len();
            let name: String = sql[start..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if !name.is_empty() {
                out.insert(name.to_ascii_lowercase());
            }
            at = start;
        }
    }
    out
}

async fn plan(client: &pg::Client, source: &Source) -> StoreResult<Vec<TablePlan>> {
    let rows = client
        .query(
            "SELECT c.table_name::TEXT, c.column_name::TEXT, c.data_type::TEXT,
                    c.is_identity::TEXT = 'YES' OR coalesce(c.column_default::TEXT, '') LIKE 'nextval(%'
               FROM information_schema.columns c
               JOIN information_schema.tables t
                 ON t.table_schema = c.table_schema AND t.table_name = c.table_name
              WHERE c.table_schema = current_schema() AND t.table_type = 'BASE TABLE'
              ORDER BY c.table_name, c.ordinal_position",
            &[],
        )
        .await?;
    let mut columns: BTreeMap<String, Vec<(String, String, bool)>> = BTreeMap::new();
    for r in rows {
        let table: String = r.get(0);
        if bookkeeping(&table) {
            continue;
        }
        columns
            .entry(table)
            .or_default()
            .push((r.get(1), r.get(2), r.get(3)));
    }
    let mut keys: HashMap<String, Vec<String>> = HashMap::new();
    for r in client
        .query(
            "SELECT tc.table_name::TEXT, k.column_name::TEXT
               FROM information_schema.table_constraints tc
               JOIN information_schema.key_column_usage k
                 ON k.constraint_schema = tc.constraint_schema
                AND k.constraint_name = tc.constraint_name
                AND k.table_name = tc.table_name
              WHERE tc.table_schema = current_schema() AND tc.constraint_type = 'PRIMARY KEY'
              ORDER BY tc.table_name, k.ordinal_position",
            &[],
        )
        .await?
    {
        keys.entry(r.get(0)).or_default().push(r.get(1));
    }
    let mut parents: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for r in client
        .query(
            "SELECT child.relname::TEXT, parent.relname::TEXT
               FROM pg_constraint con
               JOIN pg_class child ON child.oid = con.conrelid
               JOIN pg_class parent ON parent.oid = con.confrelid
               JOIN pg_namespace n ON n.oid = child.relnamespace
              WHERE con.contype = 'f' AND n.nspname = current_schema()",
            &[],
        )
        .await?
    {
        let (child, parent): (String, String) = (r.get(0), r.get(1));
        if child != parent {
            parents.entry(child).or_default().insert(parent);
        }
    }

    // Every SQLite table must have a place: no data is left behind.
    for table in source.tables().await? {
        if !bookkeeping(&table) && !columns.contains_key(&table) {
            return Err(StoreError::Invalid(format!(
                "the SQLite table {table} has no place in PostgreSQL's schema"
            )));
        }
    }
    let mut plans = Vec::new();
    for table in fk_order(columns.keys().cloned().collect(), &parents)? {
        let cols = &columns[&table];
        let Some(sqlite_cols) = source.columns(&table).await? else {
            // State only PostgreSQL keeps (what SQLite's one process keeps in memory,
            // e.g. the sign-in throttle shared by the instances): nothing to copy.
            continue;
        };
        for c in &sqlite_cols {
            if !cols.iter().any(|(name, _, _)| name == c) {
                return Err(StoreError::Invalid(format!(
                    "the SQLite column {table}.{c} has no place in PostgreSQL's schema"
                )));
            }
        }
        let key = keys.get(&table).cloned().unwrap_or_default();
        let mut select = Vec::new();
        let mut sources = Vec::new();
        let mut typed = Vec::new();
        let mut identity = Vec::new();
        for (name, data_type, is_identity) in cols {
            let ty = pg_type(data_type).ok_or_else(|| {
                StoreError::Invalid(format!(
                    "{table}.{name}: cannot copy into a column of type {data_type}"
                ))
            })?;
            if *is_identity {
                identity.push(name.clone());
            }
            if sqlite_cols.contains(name) {
                sources.push(Src::Column(select.len()));
                select.push(name.clone());
            } else if table == "recordings" && name == "data" && ty == Type::BYTEA {
                sources.push(Src::RecordingFile(usize::MAX));
            } else {
                return Err(StoreError::Invalid(format!(
                    "the PostgreSQL column {table}.{name} has no SQLite column to copy from"
                )));
            }
            typed.push((name.clone(), ty));
        }
        for s in &mut sources {
            if let Src::RecordingFile(i) = s {
                *i = select.iter().position(|c| c == "sha256").ok_or_else(|| {
                    StoreError::Invalid("recordings: no sha256 column to find the files".into())
                })?;
            }
        }
        plans.push(TablePlan {
            table,
            columns: typed,
            sources,
            select,
            key: if key.is_empty() {
                vec!["rowid".into()]
            } else {
                key
            },
            identity,
        });
    }
    Ok(plans)
}

/// The PostgreSQL types the copy writes.
fn pg_type(data_type: &str) -> Option<Type> {
    Some(match data_type {
        "bigint" => Type::INT8,
        "integer" => Type::INT4,
        "smallint" => Type::INT2,
        "boolean" => Type::BOOL,
        "text" => Type::TEXT,
        "character varying" => Type::VARCHAR,
        "bytea" => Type::BYTEA,
        "double precision" => Type::FLOAT8,
        "real" => Type::FLOAT4,
        _ => return None,
    })
}

/// `tables` with every table after the tables its foreign keys name (ties by name).
fn fk_order(
    tables: BTreeSet<String>,
    parents: &BTreeMap<String, BTreeSet<String>>,
) -> StoreResult<Vec<String>> {
    let mut left = tables;
    let mut order = Vec::new();
    while !left.is_empty() {
        let ready: Vec<String> = left
            .iter()
            .filter(|t| {
                parents
                    .get(*t)
                    .is_none_or(|ps| ps.iter().all(|p| !left.contains(p)))
            })
            .cloned()
            .collect();
        if ready.is_empty() {
            return Err(StoreError::Invalid(format!(
                "the foreign keys between {} form a cycle: no order to copy them in",
                left.iter().cloned().collect::<Vec<_>>().join(", ")
            )));
        }
        for t in ready {
            left.remove(&t);
            order.push(t);
        }
    }
    Ok(order)
}

/// A quoted identifier (both dialects).
fn ident(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

// ---------------------------------------------------------------------------------------
// The target's bookkeeping.

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Begun {
    /// Nothing copied before: the target was empty (its seeded rows removed now).
    Fresh,
    /// An earlier run of this source's copy stopped before the end.
    Partial,
    /// An earlier run copied everything.
    Finished,
}

/// Checks the target and records the copy's start: an empty target (but for the rows the
/// migrations seed) begins a copy; one that holds this source's partial copy resumes it;
/// anything else is refused.
async fn begin(
    client: &mut pg::Client,
    describe: &str,
    plans: &[TablePlan],
    source_file: &Path,
    fingerprint: &str,
) -> StoreResult<Begun> {
    // One copy at a time into a database: held by this connection until the copy ends.
    let alone: bool = client
        .query_one("SELECT pg_try_advisory_lock($1)", &[&COPY_LOCK])
        .await?
        .get(0);
    if !alone {
        return Err(StoreError::Conflict(format!(
            "another copy into {describe} is running: wait for it to end"
        )));
    }
    // Created when missing (checked first: IF NOT EXISTS would log a notice).
    let exists: bool = client
        .query_one(
            &format!("SELECT to_regclass('{PROGRESS_TABLE}') IS NOT NULL"),
            &[],
        )
        .await?
        .get(0);
    if !exists {
        client
            .batch_execute(&format!(
                "CREATE TABLE IF NOT EXISTS {SOURCE_TABLE} (
                 only_row    BOOLEAN PRIMARY KEY DEFAULT TRUE CHECK (only_row),
                 source      TEXT NOT NULL,
                 fingerprint TEXT NOT NULL,
                 started_at  BIGINT NOT NULL,
                 finished_at BIGINT);
             CREATE TABLE IF NOT EXISTS {PROGRESS_TABLE} (
                 table_name TEXT PRIMARY KEY,
                 rows       BIGINT NOT NULL DEFAULT 0,
                 last_key   TEXT,
                 done       BOOLEAN NOT NULL DEFAULT FALSE);"
            ))
            .await?;
    }
    let tx = client.transaction().await?;
    let record = tx
        .query_opt(
            &format!("SELECT source, fingerprint, finished_at FROM {SOURCE_TABLE}"),
            &[],
        )
        .await?;
    let begun = match record {
        Some(r) => {
            let (was, print, finished): (String, String, Option<i64>) =
                (r.get(0), r.get(1), r.get(2));
            if print != fingerprint {
                return Err(StoreError::Conflict(format!(
                    "the target database {describe} holds a copy of another SQLite database \
                     ({was}), or of this one before its users changed: refusing to mix two \
                     sites. Copy into a new, empty database."
                )));
            }
            if finished.is_some() {
                Begun::Finished
            } else {
                Begun::Partial
            }
        }
        None => {
            let seeded = seeded_tables();
            let mut held = Vec::new();
            for p in plans.iter().filter(|p| !seeded.contains(&p.table)) {
                let n: i64 = tx
                    .query_one(&format!("SELECT count(*) FROM {}", ident(&p.table)), &[])
                    .await?
                    .get(0);
                if n > 0 {
                    held.push((p.table.clone(), n));
                }
            }
            if !held.is_empty() {
                // The telling tables first, a few of them.
                held.sort_by_key(|(table, _)| {
                    !matches!(table.as_str(), "users" | "test_runs" | "test_cases")
                });
                let more = held.len().saturating_sub(4);
                let mut shown: Vec<String> = held
                    .iter()
                    .take(4)
                    .map(|(t, n)| format!("{n} {t}"))
                    .collect();
                if more > 0 {
                    shown.push(format!("rows in {more} other tables"));
                }
                return Err(StoreError::Conflict(format!(
                    "the target database {describe} already holds a site's data ({}) and no \
                     record of a copy from {}: refusing to mix two sites. Copy into a new, \
                     empty database.",
                    shown.join(", "),
                    source_file.display()
                )));
            }
            // The migrations' rows make way for the source's (children first).
            for p in plans.iter().rev().filter(|p| seeded.contains(&p.table)) {
                tx.execute(&format!("DELETE FROM {}", ident(&p.table)), &[])
                    .await?;
            }
            tx.execute(
                &format!(
                    "INSERT INTO {SOURCE_TABLE} (source, fingerprint, started_at)
                     VALUES ($1, $2, $3)"
                ),
                &[
                    &source_file.display().to_string(),
                    &fingerprint,
                    &super::now_secs(),
                ],
            )
            .await?;
            Begun::Fresh
        }
    };
    if begun != Begun::Finished {
        for p in plans {
            tx.execute(
                &format!(
                    "INSERT INTO {PROGRESS_TABLE} (table_name) VALUES ($1)
                     ON CONFLICT (table_name) DO NOTHING"
                ),
                &[&p.table],
            )
            .await?;
        }
    }
    tx.commit().await?;
    Ok(begun)
}

type ProgressRow = (i64, Option<String>, bool);

async fn progress_rows(client: &pg::Client) -> StoreResult<HashMap<String, ProgressRow>> {
    Ok(client
        .query(
            &format!("SELECT table_name, rows, last_key, done FROM {PROGRESS_TABLE}"),
            &[],
        )
        .await?
        .into_iter()
        .map(|r| (r.get(0), (r.get(1), r.get(2), r.get(3))))
        .collect())
}

/// Every identity sequence set past the largest id of its column.
async fn set_sequences(client: &pg::Client, plans: &[TablePlan]) -> StoreResult<()> {
    for p in plans {
        for col in &p.identity {
            client
                .execute(
                    &format!(
                        "SELECT setval(pg_get_serial_sequence($1, $2),
                                coalesce((SELECT max({c}) FROM {t}), 0) + 1, false)",
                        c = ident(col),
                        t = ident(&p.table)
                    ),
                    &[&ident(&p.table), col],
                )
                .await?;
        }
    }
    Ok(())
}

/// A key as stored in the progress record: a JSON array (blobs as `{"hex": …}`).
fn encode_key(key: &[Value]) -> String {
    let items: Vec<serde_json::Value> = key
        .iter()
        .map(|v| match v {
            Value::Null => serde_json::Value::Null,
            Value::Integer(i) => (*i).into(),
            Value::Real(f) => (*f).into(),
            Value::Text(s) => s.clone().into(),
            Value::Blob(b) => serde_json::json!({ "hex": hex::encode(b) }),
        })
        .collect();
    serde_json::Value::Array(items).to_string()
}

fn decode_key(text: &str) -> StoreResult<Vec<Value>> {
    let bad = || StoreError::Invalid(format!("{PROGRESS_TABLE}: a key {text:?} is not readable"));
    let items: Vec<serde_json::Value> = serde_json::from_str(text).map_err(|_| bad())?;
    items
        .into_iter()
        .map(|v| {
            Ok(match v {
                serde_json::Value::Null => Value::Null,
                serde_json::Value::Number(n) => match n.as_i64() {
                    Some(i) => Value::Integer(i),
                    None => Value::Real(n.as_f64().ok_or_else(bad)?),
                },
                serde_json::Value::String(s) => Value::Text(s),
                serde_json::Value::Object(o) => Value::Blob(
                    o.get("hex")
                        .and_then(|h| h.as_str())
                        .and_then(|h| hex::decode(h).ok())
                        .ok_or_else(bad)?,
                ),
                _ => return Err(bad()),
            })
        })
        .collect()
}

// ---------------------------------------------------------------------------------------
// Copying one table.

/// A value in its PostgreSQL type.
#[derive(Debug, Clone)]
enum Cell {
    Null,
    I16(i16),
    I32(i32),
    I64(i64),
    Bool(bool),
    F32(f32),
    F64(f64),
    Text(String),
    Bytes(Vec<u8>),
}

impl ToSql for Cell {
    fn to_sql(
        &self,
        ty: &Type,
        out: &mut BytesMut,
    ) -> Result<IsNull, Box<dyn std::error::Error + Sync + Send>> {
        match self {
            Cell::Null => Ok(IsNull::Yes),
            Cell::I16(v) => v.to_sql(ty, out),
            Cell::I32(v) => v.to_sql(ty, out),
            Cell::I64(v) => v.to_sql(ty, out),
            Cell::Bool(v) => v.to_sql(ty, out),
            Cell::F32(v) => v.to_sql(ty, out),
            Cell::F64(v) => v.to_sql(ty, out),
            Cell::Text(v) => v.to_sql(ty, out),
            Cell::Bytes(v) => v.to_sql(ty, out),
        }
    }

    fn accepts(_: &Type) -> bool {
        true
    }

    fn to_sql_checked(
        &self,
        ty: &Type,
        out: &mut BytesMut,
    ) -> Result<IsNull, Box<dyn std::error::Error + Sync + Send>> {
        match self {
            Cell::Null => Ok(IsNull::Yes),
            Cell::I16(v) => v.to_sql_checked(ty, out),
            Cell::I32(v) => v.to_sql_checked(ty, out),
            Cell::I64(v) => v.to_sql_checked(ty, out),
            Cell::Bool(v) => v.to_sql_checked(ty, out),
            Cell::F32(v) => v.to_sql_checked(ty, out),
            Cell::F64(v) => v.to_sql_checked(ty, out),
            Cell::Text(v) => v.to_sql_checked(ty, out),
            Cell::Bytes(v) => v.to_sql_checked(ty, out),
        }
    }
}

/// A source row: its key and its cells in the target's column order.
struct Row {
    key: Vec<Value>,
    cells: Vec<Cell>,
    bytes: usize,
}

enum Msg {
    Rows(Vec<Row>),
    /// Every row was sent.
    End,
}

/// SQLite's value `v` of `table.column` as PostgreSQL type `ty`.
fn convert(v: ValueRef<'_>, ty: &Type, table: &str, column: &str) -> Result<Cell, String> {
    let bad = |what: &str| format!("{table}.{column}: {what} cannot go into a {ty} column");
    let int = |v: ValueRef<'_>| match v {
        ValueRef::Integer(i) => Ok(i),
        ValueRef::Real(_) => Err(bad("a real number")),
        ValueRef::Text(t) => std::str::from_utf8(t)
            .ok()
            .and_then(|s| s.trim().parse().ok())
            .ok_or_else(|| bad("a text")),
        ValueRef::Blob(_) => Err(bad("a blob")),
        ValueRef::Null => unreachable!(),
    };
    if let ValueRef::Null = v {
        return Ok(Cell::Null);
    }
    Ok(match *ty {
        Type::INT8 => Cell::I64(int(v)?),
        Type::INT4 => {
            Cell::I32(i32::try_from(int(v)?).map_err(|_| bad("a number out of INTEGER's range"))?)
        }
        Type::INT2 => {
            Cell::I16(i16::try_from(int(v)?).map_err(|_| bad("a number out of SMALLINT's range"))?)
        }
        Type::BOOL => match int(v)? {
            0 => Cell::Bool(false),
            1 => Cell::Bool(true),
            n => return Err(bad(&format!("the number {n} (a flag is 0 or 1)"))),
        },
        Type::FLOAT8 | Type::FLOAT4 => {
            let f = match v {
                ValueRef::Integer(i) => i as f64,
                ValueRef::Real(f) => f,
                _ => return Err(bad("a text or blob")),
            };
            if *ty == Type::FLOAT4 {
                Cell::F32(f as f32)
            } else {
                Cell::F64(f)
            }
        }
        Type::TEXT | Type::VARCHAR => {
            let s = match v {
                ValueRef::Text(t) => {
                    String::from_utf8(t.to_vec()).map_err(|_| bad("text that is not UTF-8"))?
                }
                ValueRef::Integer(i) => i.to_string(),
                ValueRef::Real(f) => f.to_string(),
                ValueRef::Blob(_) => return Err(bad("a blob")),
                ValueRef::Null => unreachable!(),
            };
            if s.contains('\0') {
                return Err(bad("text holding a NUL character"));
            }
            Cell::Text(s)
        }
        Type::BYTEA => match v {
            ValueRef::Blob(b) | ValueRef::Text(b) => Cell::Bytes(b.to_vec()),
            _ => return Err(bad("a number")),
        },
        _ => return Err(bad("a value")),
    })
}

/// Reads `plan.table` after `after` in key order and sends its rows in batches.
fn read_table(
    conn: &Connection,
    plan: &TablePlan,
    after: Option<&[Value]>,
    data_dir: &Path,
    send: &tokio::sync::mpsc::Sender<Msg>,
) -> StoreResult<()> {
    let keys: Vec<String> = plan.key.iter().map(|k| ident(k)).collect();
    let nkeys = keys.len();
    let key_list = keys.join(", ");
    let mut sql = format!("SELECT {key_list}");
    for c in &plan.select {
        sql.push_str(", ");
        sql.push_str(&ident(c));
    }
    sql.push_str(&format!(" FROM {}", ident(&plan.table)));
    if after.is_some() {
        let marks: Vec<String> = (1..=nkeys).map(|i| format!("?{i}")).collect();
        sql.push_str(&format!(" WHERE ({key_list}) > ({})", marks.join(", ")));
    }
    sql.push_str(&format!(" ORDER BY {key_list}"));
    let mut stmt = conn.prepare(&sql)?;
    let mut rows = match after {
        Some(a) => stmt.query(rusqlite::params_from_iter(a.iter()))?,
        None => stmt.query([])?,
    };
    let mut batch = Vec::new();
    let mut batch_bytes = 0;
    while let Some(r) = rows.next()? {
        let key: Vec<Value> = (0..nkeys)
            .map(|i| r.get::<_, Value>(i))
            .collect::<Result<_, _>>()?;
        let mut cells = Vec::with_capacity(plan.columns.len());
        let mut bytes = 0;
        for ((name, ty), src) in plan.columns.iter().zip(&plan.sources) {
            let cell = match src {
                Src::Column(i) => convert(r.get_ref(nkeys + i)?, ty, &plan.table, name)
                    .map_err(|e| StoreError::Invalid(format!("{e} (row {})", encode_key(&key))))?,
                Src::RecordingFile(i) => {
                    let sha: String = r.get(nkeys + i)?;
                    Cell::Bytes(recording_file(data_dir, &sha)?)
                }
            };
            bytes += match &cell {
                Cell::Text(s) => s.len(),
                Cell::Bytes(b) => b.len(),
                _ => 8,
            };
            cells.push(cell);
        }
        batch_bytes += bytes;
        batch.push(Row { key, cells, bytes });
        if batch.len() >= BATCH_ROWS || batch_bytes >= BATCH_BYTES {
            if send
                .blocking_send(Msg::Rows(std::mem::take(&mut batch)))
                .is_err()
            {
                return Ok(()); // the writer stopped
            }
            batch_bytes = 0;
        }
    }
    if !batch.is_empty() && send.blocking_send(Msg::Rows(batch)).is_err() {
        return Ok(());
    }
    let _ = send.blocking_send(Msg::End);
    Ok(())
}

/// The bytes of the recording `sha` from its file beside the SQLite database.
fn recording_file(data_dir: &Path, sha: &str) -> StoreResult<Vec<u8>> {
    if sha.len() < 2 || !sha.is_ascii() {
        return Err(StoreError::Invalid(format!(
            "recordings: {sha:?} is not a recording id"
        )));
    }
    let path = super::recordings::file_path(data_dir, sha);
    std::fs::read(&path).map_err(|e| {
        StoreError::NotFound(format!(
            "recording {sha}: cannot read its file {}: {e} (the recordings directory must be \
             beside the database)",
            path.display()
        ))
    })
}

/// Hands the reader's rows out one at a time.
struct Feed {
    receive: tokio::sync::mpsc::Receiver<Msg>,
    batch: std::vec::IntoIter<Row>,
    /// The reader sent every row.
    ended: bool,
}

impl Feed {
    /// The next row; None at the end (see `ended`: false when the reader failed).
    async fn next(&mut self) -> Option<Row> {
        loop {
            if let Some(r) = self.batch.next() {
                return Some(r);
            }
            match self.receive.recv().await {
                Some(Msg::Rows(rows)) => self.batch = rows.into_iter(),
                Some(Msg::End) => {
                    self.ended = true;
                    return None;
                }
                None => return None,
            }
        }
    }
}

struct Copied {
    rows: u64,
    chunks: u64,
    stopped: bool,
}

#[allow(clippy::too_many_arguments)]
async fn copy_table(
    client: &mut pg::Client,
    source: &Source,
    data_dir: &Path,
    plan: &TablePlan,
    after: Option<Vec<Value>>,
    options: &CopyOptions,
    chunk_budget: Option<u64>,
    bar: &indicatif::ProgressBar,
) -> StoreResult<Copied> {
    let (send, receive) = tokio::sync::mpsc::channel(4);
    let reader = {
        let (conn, plan, dir) = (source.conn.clone(), plan.clone(), data_dir.to_path_buf());
        tokio::task::spawn_blocking(move || {
            let conn = conn.lock().unwrap_or_else(|e| e.into_inner());
            read_table(&conn, &plan, after.as_deref(), &dir, &send)
        })
    };
    let mut feed = Feed {
        receive,
        batch: Vec::new().into_iter(),
        ended: false,
    };
    let column_list = plan
        .columns
        .iter()
        .map(|(c, _)| ident(c))
        .collect::<Vec<_>>()
        .join(", ");
    let copy_sql = format!(
        "COPY {} ({column_list}) FROM STDIN BINARY",
        ident(&plan.table)
    );
    let types: Vec<Type> = plan.columns.iter().map(|(_, t)| t.clone()).collect();
    let context = |e: tokio_postgres::Error| {
        StoreError::Invalid(format!("copying {}: {}", plan.table, pg::message(&e)))
    };
    let mut out = Copied {
        rows: 0,
        chunks: 0,
        stopped: false,
    };
    let mut next = feed.next().await;
    while let Some(first) = next.take() {
        let tx = client.transaction().await?;
        let sink = tx.copy_in(&copy_sql).await.map_err(context)?;
        let writer = BinaryCopyInWriter::new(sink, &types);
        tokio::pin!(writer);
        let (mut n, mut bytes) = (0u64, 0u64);
        let mut last_key = Vec::new();
        let mut row = Some(first);
        while let Some(r) = row.take() {
            let refs: Vec<&(dyn ToSql + Sync)> =
                r.cells.iter().map(|c| c as &(dyn ToSql + Sync)).collect();
            writer.as_mut().write(&refs).await.map_err(context)?;
            n += 1;
            bytes += r.bytes as u64;
            last_key = r.key;
            if n % 1_000 == 0 {
                bar.inc(1_000);
            }
            if n >= options.chunk_rows.max(1) || bytes >= options.chunk_bytes {
                break;
            }
            row = feed.next().await;
        }
        writer.finish().await.map_err(context)?;
        bar.inc(n % 1_000);
        // Whether more follow (the reader has them ready, or says it is done).
        next = feed.next().await;
        if next.is_none() && !feed.ended {
            drop(tx);
            return Err(reader_failed(reader).await);
        }
        let done = next.is_none();
        tx.execute(
            &format!(
                "UPDATE {PROGRESS_TABLE} SET rows = rows + $2, last_key = $3, done = $4
                 WHERE table_name = $1"
            ),
            &[&plan.table, &(n as i64), &encode_key(&last_key), &done],
        )
        .await?;
        tx.commit().await?;
        out.rows += n;
        out.chunks += 1;
        if !done && chunk_budget.is_some_and(|b| out.chunks >= b) {
            out.stopped = true;
            drop(feed);
            let _ = reader.await;
            return Ok(out);
        }
    }
    if !feed.ended {
        return Err(reader_failed(reader).await);
    }
    if out.chunks == 0 {
        // Nothing (more) to copy.
        client
            .execute(
                &format!("UPDATE {PROGRESS_TABLE} SET done = TRUE WHERE table_name = $1"),
                &[&plan.table],
            )
            .await?;
    }
    reader
        .await
        .map_err(|e| StoreError::Task(e.to_string()))??;
    Ok(out)
}

async fn reader_failed(reader: tokio::task::JoinHandle<StoreResult<()>>) -> StoreError {
    match reader.await {
        Ok(Err(e)) => e,
        Ok(Ok(())) => StoreError::Task("the SQLite reader stopped early".into()),
        Err(e) => StoreError::Task(e.to_string()),
    }
}

// ---------------------------------------------------------------------------------------
// What is shown on stderr.

struct Show {
    /// A terminal: progress bars. Otherwise one line per table.
    bars: bool,
    quiet: bool,
}

impl Show {
    fn new(progress: Progress) -> Show {
        Show {
            bars: progress == Progress::Auto && std::io::stderr().is_terminal(),
            quiet: progress == Progress::Quiet,
        }
    }

    fn line(&self, text: &str) {
        if !self.quiet {
            eprintln!("{text}");
        }
    }

    fn bar(&self, table: &str, total: u64, done: u64) -> indicatif::ProgressBar {
        if !self.bars {
            return indicatif::ProgressBar::hidden();
        }
        let bar = indicatif::ProgressBar::with_draw_target(
            Some(total.max(done)),
            indicatif::ProgressDrawTarget::stderr(),
        )
        .with_prefix(table.to_string())
        .with_position(done);
        if let Ok(style) = indicatif::ProgressStyle::with_template(
            "{prefix:>24} [{bar:30}] {human_pos}/{human_len} rows, {rate}, ETA {eta}",
        ) {
            bar.set_style(
                style
                    .with_key(
                        "rate",
                        |s: &indicatif::ProgressState, w: &mut dyn std::fmt::Write| {
                            let _ = write!(w, "{:.0} rows/s", s.per_sec());
                        },
                    )
                    .progress_chars("=> "),
            );
        }
        bar.reset_eta();
        bar
    }

    fn finish(
        &self,
        bar: indicatif::ProgressBar,
        table: &str,
        rows: u64,
        took: Duration,
        stopped: bool,
    ) {
        let rate = rows as f64 / took.as_secs_f64().max(0.001);
        let text = format!(
            "{table}: {rows} rows copied in {:.1} s ({rate:.0} rows/s){}",
            took.as_secs_f64(),
            if stopped { ", stopped" } else { "" }
        );
        if self.bars {
            bar.finish();
        } else {
            self.line(&text);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_survive_the_progress_record() {
        let key = vec![
            Value::Integer(-7),
            Value::Text("a\"b".into()),
            Value::Blob(vec![0, 255]),
            Value::Null,
        ];
        assert_eq!(decode_key(&encode_key(&key)).unwrap(), key);
    }

    #[test]
    fn parents_come_first() {
        let tables: BTreeSet<String> = ["c", "b", "a"].iter().map(|s| s.to_string()).collect();
        let mut parents = BTreeMap::new();
        parents.insert("a".to_string(), BTreeSet::from(["c".to_string()]));
        parents.insert("b".to_string(), BTreeSet::from(["a".to_string()]));
        assert_eq!(fk_order(tables.clone(), &parents).unwrap(), ["c", "a", "b"]);
        parents.insert("c".to_string(), BTreeSet::from(["b".to_string()]));
        assert!(fk_order(tables, &parents).is_err());
    }

    #[test]
    fn the_migrations_seed_channels_and_statuses() {
        let seeded = seeded_tables();
        assert!(seeded.contains("channels"), "{seeded:?}");
        assert!(seeded.contains("alert_statuses"), "{seeded:?}");
        assert!(!seeded.contains("users"), "{seeded:?}");
    }

    #[test]
    fn values_take_their_postgresql_types() {
        let c = |v, ty| convert(v, ty, "t", "c");
        assert!(matches!(
            c(ValueRef::Integer(1), &Type::BOOL),
            Ok(Cell::Bool(true))
        ));
        assert!(c(ValueRef::Integer(2), &Type::BOOL).is_err());
        assert!(matches!(
            c(ValueRef::Integer(7), &Type::INT2),
            Ok(Cell::I16(7))
        ));
        assert!(c(ValueRef::Integer(70_000), &Type::INT2).is_err());
        assert!(matches!(c(ValueRef::Null, &Type::INT4), Ok(Cell::Null)));
        assert!(matches!(
            c(ValueRef::Blob(b"x"), &Type::BYTEA),
            Ok(Cell::Bytes(_))
        ));
        let err = c(ValueRef::Text(b"a\0b"), &Type::TEXT).unwrap_err();
        assert!(err.contains("t.c"), "{err}");
    }
}
