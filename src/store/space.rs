//! Free space under the data directory, and the reserve ingest leaves untouched
//! (`store.min_free_mb`).
//!
//! A full volume is worse than a refused call: SQLite then keeps what it could write in its
//! write-ahead log, and a checkpoint needs room in the database file to empty it. So ingest,
//! the only writer that grows the data without bound, is refused (507) once the free space
//! falls under the reserve; what is left serves the checkpoint and the console's small writes
//! (sign-in, acknowledging an alert). Nothing is remembered: each check reads the volume
//! again (at most once a second), so ingest comes back by itself as soon as space does.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::{StoreError, StoreResult};

/// How long one reading of the volume is reused (ingest may check many times a second).
const FRESH: Duration = Duration::from_secs(1);

/// The volume of the data directory and the reserve kept on it.
pub struct Space {
    dir: PathBuf,
    min_free: u64,
    last: Mutex<Option<(Instant, Reading)>>,
}

/// One reading of the volume.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reading {
    /// Bytes an unprivileged process may still write.
    pub free: u64,
    /// Size of the volume in bytes.
    pub total: u64,
}

impl Space {
    /// The volume holding `dir`, keeping `min_free_mb` MiB free for all but ingest.
    pub fn new(dir: &Path, min_free_mb: u64) -> Space {
        Space {
            dir: dir.to_path_buf(),
            min_free: min_free_mb.saturating_mul(1024 * 1024),
            last: Mutex::new(None),
        }
    }

    /// The reserve in bytes.
    pub fn min_free(&self) -> u64 {
        self.min_free
    }

    /// The volume now (or within the last second).
    pub fn reading(&self) -> std::io::Result<Reading> {
        let mut last = self.last.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((at, r)) = *last {
            if at.elapsed() < FRESH {
                return Ok(r);
            }
        }
        let r = read(&self.dir)?;
        *last = Some((Instant::now(), r));
        Ok(r)
    }

    /// Why ingest is refused now, or None when there is room. A volume that cannot be
    /// read is not a reason: the write itself will say.
    pub fn shortage(&self) -> Option<String> {
        let r = self.reading().ok()?;
        (r.free < self.min_free).then(|| {
            format!(
                "The disk holding the data directory {} has {} MiB free, under the {} MiB \
                 (store.min_free_mb) kept for the database; ingest is refused until space is freed.",
                self.dir.display(),
                r.free / (1024 * 1024),
                self.min_free / (1024 * 1024)
            )
        })
    }

    /// Ok when there is room for ingest; [`StoreError::NoSpace`] with the reason otherwise.
    pub fn check(&self) -> StoreResult<()> {
        match self.shortage() {
            Some(reason) => Err(StoreError::NoSpace(reason)),
            None => Ok(()),
        }
    }
}

/// `statvfs` of `dir`.
#[cfg(unix)]
fn read(dir: &Path) -> std::io::Result<Reading> {
    use std::os::unix::ffi::OsStrExt;
    let path = std::ffi::CString::new(dir.as_os_str().as_bytes())
        .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidInput, e))?;
    let mut s = std::mem::MaybeUninit::<libc::statvfs>::uninit();
    // SAFETY: `path` is a NUL-terminated string and `s` room for one `statvfs`, filled on
    // success.
    let rc = unsafe { libc::statvfs(path.as_ptr(), s.as_mut_ptr()) };
    if rc != 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: statvfs succeeded, so it filled `s`.
    let s = unsafe { s.assume_init() };
    let frsize = s.f_frsize;
    Ok(Reading {
        free: s.f_bavail.saturating_mul(frsize),
        total: s.f_blocks.saturating_mul(frsize),
    })
}

#[cfg(not(unix))]
fn read(_dir: &Path) -> std::io::Result<Reading> {
    Err(std::io::Error::new(
        std::io::ErrorKind::Unsupported,
        "free space is read on Unix only",
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reserve_larger_than_the_volume_refuses_and_none_accepts() {
        let dir = tempfile::tempdir().unwrap();
        let r = Space::new(dir.path(), 0).reading().unwrap();
        assert!(r.total > 0 && r.free <= r.total, "{r:?}");
        assert!(Space::new(dir.path(), 0).check().is_ok());
        let huge = Space::new(dir.path(), r.total / (1024 * 1024) + 1);
        let err = huge.check().unwrap_err();
        assert!(err.is_no_space(), "{err}");
        assert!(err.to_string().contains("store.min_free_mb"), "{err}");
    }
}
