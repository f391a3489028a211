//! Backup and restore of the SQLite database: `cxwatch backup --to FILE` and
//! `cxwatch restore --from FILE` (see `docs/backup.md`).
//!
//! A backup is `VACUUM INTO` on a connection of its own: one read transaction, so it is a
//! consistent copy while the server serves and ingest writes (WAL: readers never block the
//! writer, the writer never blocks the reader). It is written beside the target, checked
//! (`PRAGMA integrity_check`, schema version, every table counted) and only then renamed to
//! the target, so a failed backup leaves nothing that looks like one.
//!
//! A restore refuses to run while a server holds the data directory ([`DataDirLock`]),
//! checks the file the same way, keeps the current database beside it as
//! `cxwatch.db.before-restore-<time>`, and puts the backup in its place; the next start
//! applies any newer migrations. Recordings are files beside the database, not in it: the
//! docs say how to copy them.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rusqlite::{Connection, OpenFlags};

use crate::store::{known_version, StoreError, StoreResult, DB_FILE};

/// Name of the lock file a serving process holds (shared) in the data directory.
pub const LOCK_FILE: &str = "cxwatch.lock";

/// What a checked database holds: its schema version and the rows of every table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checked {
    pub schema_version: i64,
    /// `(table, rows)`, every table of the schema, in name order.
    pub counts: Vec<(String, i64)>,
}

impl Checked {
    pub fn rows(&self, table: &str) -> Option<i64> {
        self.counts
            .iter()
            .find(|(t, _)| t == table)
            .map(|(_, n)| *n)
    }
}

/// What `backup` made.
#[derive(Debug, Clone)]
pub struct BackupReport {
    pub file: PathBuf,
    pub size: u64,
    pub duration: Duration,
    pub checked: Checked,
}

/// What `restore` did.
#[derive(Debug, Clone)]
pub struct RestoreReport {
    /// Where the database that was in place before is kept (None when there was none).
    pub previous: Option<PathBuf>,
    pub checked: Checked,
}

/// Copies the database of `data_dir` into `to` (which must not exist) while others may be
/// reading and writing it, then checks the copy.
pub fn backup(data_dir: &Path, to: &Path) -> StoreResult<BackupReport> {
    let source = data_dir.join(DB_FILE);
    if !source.exists() {
        return Err(StoreError::NotFound(format!(
            "no database at {}",
            source.display()
        )));
    }
    if to.exists() {
        return Err(StoreError::Conflict(format!(
            "{} exists already: give a new file name",
            to.display()
        )));
    }
    let started = Instant::now();
    let partial = sibling(to, ".partial");
    let _ = std::fs::remove_file(&partial);
    let result = (|| {
        let conn = Connection::open_with_flags(&source, OpenFlags::SQLITE_OPEN_READ_ONLY)?;
        conn.busy_timeout(Duration::from_secs(30))?;
        let target = partial
            .to_str()
            .ok_or_else(|| StoreError::Invalid(format!("{}: not UTF-8", partial.display())))?;
        conn.execute("VACUUM INTO ?1", [target])?;
        drop(conn);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&partial, std::fs::Permissions::from_mode(0o600))?;
        }
        let checked = check(&partial)?;
        std::fs::rename(&partial, to)?;
        Ok(checked)
    })();
    let checked = match result {
        Ok(c) => c,
        Err(e) => {
            let _ = std::fs::remove_file(&partial);
            return Err(e);
        }
    };
    Ok(BackupReport {
        file: to.to_path_buf(),
        size: std::fs::metadata(to)?.len(),
        duration: started.elapsed(),
        checked,
    })
}

/// Checks a database file: SQLite's integrity check passes, it is a cxwatch database
/// (it has the `users` and `test_runs` tables), its schema is not newer than this binary
/// knows; then counts every table.
pub fn check(file: &Path) -> StoreResult<Checked> {
    if !file.is_file() {
        return Err(StoreError::NotFound(format!(
            "no file at {}",
            file.display()
        )));
    }
    let conn = Connection::open_with_flags(file, OpenFlags::SQLITE_OPEN_READ_ONLY)?;
    let bad = |why: String| StoreError::Invalid(format!("{}: {why}", file.display()));
    let integrity: String = conn
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .map_err(|e| bad(format!("not a readable SQLite database ({e})")))?;
    if integrity != "ok" {
        return Err(bad(format!("integrity check failed: {integrity}")));
    }
    let schema_version: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    let known = known_version();
    if schema_version > known {
        return Err(StoreError::TooNew {
            path: file.to_path_buf(),
            found: schema_version,
            known,
        });
    }
    let counts = table_counts(&conn)?;
    for needed in ["users", "test_runs"] {
        if !counts.iter().any(|(t, _)| t == needed) {
            return Err(bad(format!("not a cxwatch database (no {needed} table)")));
        }
    }
    Ok(Checked {
        schema_version,
        counts,
    })
}

/// Rows of every table of a database, in name order.
pub fn table_counts(conn: &Connection) -> StoreResult<Vec<(String, i64)>> {
    let tables: Vec<String> = conn
        .prepare(
            "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'
             ORDER BY name",
        )?
        .query_map([], |r| r.get("name"))?
        .collect::<Result<_, _>>()?;
    let mut counts = Vec::with_capacity(tables.len());
    for t in tables {
        let n: i64 = conn.query_row(&format!("SELECT count(*) FROM \"{t}\""), [], |r| r.get(0))?;
        counts.push((t, n));
    }
    Ok(counts)
}

/// Puts the backup `from` in place of the database of `data_dir`. Refused while a server
/// holds the data directory. The database in place before is kept beside it.
pub fn restore(data_dir: &Path, from: &Path) -> StoreResult<RestoreReport> {
    let checked = check(from)?;
    std::fs::create_dir_all(data_dir)?;
    let _lock = DataDirLock::exclusive(data_dir)?;
    let target = data_dir.join(DB_FILE);
    let incoming = sibling(&target, ".restoring");
    let _ = std::fs::remove_file(&incoming);
    std::fs::copy(from, &incoming)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&incoming, std::fs::Permissions::from_mode(0o600))?;
        same_owner_as(data_dir, &incoming)?;
    }
    let previous = if target.exists() {
        // Fold the WAL into the database first, so the kept file is whole by itself.
        let conn = Connection::open(&target)?;
        conn.busy_timeout(Duration::from_secs(10))?;
        conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))?;
        conn.execute_batch("PRAGMA journal_mode = DELETE")?;
        drop(conn);
        let stamp = crate::clock::now().format("%Y%m%dT%H%M%SZ");
        let kept = sibling(&target, &format!(".before-restore-{stamp}"));
        std::fs::rename(&target, &kept)?;
        Some(kept)
    } else {
        None
    };
    for suffix in ["-wal", "-shm"] {
        let _ = std::fs::remove_file(sibling(&target, suffix));
    }
    std::fs::rename(&incoming, &target)?;
    Ok(RestoreReport { previous, checked })
}

fn sibling(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

/// When run as root (e.g. `sudo cxwatch restore` on an installed package), the restored
/// file gets the data directory's owner, so the service can still open it.
#[cfg(unix)]
fn same_owner_as(dir: &Path, file: &Path) -> StoreResult<()> {
    use std::os::unix::fs::MetadataExt;
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        return Ok(());
    }
    let meta = std::fs::metadata(dir)?;
    std::os::unix::fs::chown(file, Some(meta.uid()), Some(meta.gid()))?;
    Ok(())
}

/// An advisory lock on `<data_dir>/cxwatch.lock`: a serving process holds it shared for
/// its whole life; `restore` takes it exclusive and is refused while any server runs.
pub struct DataDirLock {
    _file: std::fs::File,
}

impl DataDirLock {
    /// The lock a server holds while it serves.
    pub fn shared(data_dir: &Path) -> StoreResult<DataDirLock> {
        Self::take(data_dir, libc::LOCK_SH).map_err(|e| match e {
            StoreError::Conflict(_) => StoreError::Conflict(format!(
                "{} is being restored; start the server when the restore is done",
                data_dir.display()
            )),
            other => other,
        })
    }

    /// The lock `restore` takes: refused while a server holds the shared one.
    pub fn exclusive(data_dir: &Path) -> StoreResult<DataDirLock> {
        Self::take(data_dir, libc::LOCK_EX).map_err(|e| match e {
            StoreError::Conflict(_) => StoreError::Conflict(format!(
                "a cxwatch server is running on {}: stop it first (systemctl stop cxwatch)",
                data_dir.display()
            )),
            other => other,
        })
    }

    fn take(data_dir: &Path, how: libc::c_int) -> StoreResult<DataDirLock> {
        use std::os::unix::io::AsRawFd;
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(data_dir.join(LOCK_FILE))?;
        // SAFETY: flock on a descriptor we own; it is released when the file is closed.
        let rc = unsafe { libc::flock(file.as_raw_fd(), how | libc::LOCK_NB) };
        if rc != 0 {
            let err = std::io::Error::last_os_error();
            return Err(if err.kind() == std::io::ErrorKind::WouldBlock {
                StoreError::Conflict(String::new())
            } else {
                StoreError::Io(err)
            });
        }
        Ok(DataDirLock { _file: file })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{Store, StoreOptions};

    #[test]
    fn restore_is_refused_while_a_server_holds_the_directory() {
        let dir = tempfile::tempdir().unwrap();
        drop(Store::open(dir.path(), StoreOptions::default()).unwrap());
        let file = dir.path().join("b.db");
        backup(dir.path(), &file).unwrap();
        let held = DataDirLock::shared(dir.path()).unwrap();
        let err = restore(dir.path(), &file).unwrap_err();
        assert!(err.to_string().contains("server is running"), "{err}");
        drop(held);
        let done = restore(dir.path(), &file).unwrap();
        assert!(done.previous.unwrap().exists());
    }

    #[test]
    fn backup_refuses_an_existing_file_and_check_refuses_other_files() {
        let dir = tempfile::tempdir().unwrap();
        drop(Store::open(dir.path(), StoreOptions::default()).unwrap());
        let file = dir.path().join("b.db");
        std::fs::write(&file, b"not a database").unwrap();
        assert!(matches!(
            backup(dir.path(), &file),
            Err(StoreError::Conflict(_))
        ));
        assert!(check(&file).is_err());
        let other = dir.path().join("other.db");
        Connection::open(&other)
            .unwrap()
            .execute_batch("CREATE TABLE t (x)")
            .unwrap();
        let err = check(&other).unwrap_err();
        assert!(err.to_string().contains("not a cxwatch database"), "{err}");
        assert!(restore(dir.path(), &other).is_err());
    }
}
