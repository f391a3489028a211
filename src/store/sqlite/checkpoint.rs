//! WAL checkpoints beside the writer, not in its commits.
//!
//! SQLite's automatic checkpoint runs inside the commit that crosses the threshold: the
//! commit then also copies every page of the WAL into the database file and syncs it, and
//! the request that committed (an engine's batch) waits for all of it. Here the writer's
//! commit only signals, and a thread of its own checkpoints on its own connection
//! (`PASSIVE`: it never blocks the writer or the readers) while the next batch is already
//! being written. The durability of a commit is the same: it is in the WAL, synced as
//! `store.synchronous` says, before the commit returns; the checkpoint only moves pages
//! from the WAL into the database file, whenever it runs.
//!
//! How large the WAL grows before a checkpoint depends on the room left on the volume
//! ([`Bounds::for_free_space`]): large while there is plenty, so that each hot page is
//! written once for many batches; small when the volume runs out, so that the WAL can
//! still be folded into the database file. If the thread falls behind (a long reader holds
//! old pages, a slow disk), the writer checkpoints itself past the writer's bound, as
//! SQLite's own would, so the WAL stays bounded; once a checkpoint has copied all of it,
//! the next commit starts the WAL over and cuts the file back to [`WAL_SIZE_LIMIT`].

use std::ffi::{c_char, c_int, c_void};
use std::sync::mpsc::{sync_channel, SyncSender};

use rusqlite::{ffi, Connection};

use crate::store::StoreResult;

/// How far the WAL may grow before it is folded into the database file: the background
/// checkpoint starts at `background` pages after a commit, the writer checkpoints itself at
/// `writer` (the background one has fallen far behind).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bounds {
    pub background: c_int,
    pub writer: c_int,
}

/// With room on the volume (40 MiB, 160 MiB). A batch of 500 runs dirties about 1,600
/// pages; folding every several batches writes each hot page once for all of them, which
/// ingest on SQLite depends on (`docs/benchmarks.md`).
pub const ROOMY: Bounds = Bounds {
    background: 10_000,
    writer: 40_000,
};

/// On a volume running out of room (16 MiB, 32 MiB). Until a checkpoint has copied them,
/// the commits are only in the WAL, and a checkpoint needs room in the database file for as
/// many pages as the WAL holds: a WAL that outgrew the space left could never be folded in,
/// and the volume would stay full.
pub const TIGHT: Bounds = Bounds {
    background: 4_096,
    writer: 8_192,
};

/// Free space under which the WAL is kept to [`TIGHT`]: several times what [`ROOMY`] lets
/// the WAL (and then the database file) take.
pub const ROOM_FOR_ROOMY: u64 = 1024 * 1024 * 1024;

// The roomy WAL at its largest (pages of 4 KiB) fits several times in that room, and the
// tight bounds are the smaller.
const _: () = assert!(ROOM_FOR_ROOMY >= 4 * ROOMY.writer as u64 * 4096);
const _: () = assert!(TIGHT.background < ROOMY.background && TIGHT.writer < ROOMY.writer);

impl Bounds {
    /// The bounds for the free space on the data directory's volume (None: it cannot be
    /// read, so the safe side).
    pub fn for_free_space(free: Option<u64>) -> Bounds {
        match free {
            Some(free) if free >= ROOM_FOR_ROOMY => ROOMY,
            _ => TIGHT,
        }
    }
}

/// Bytes the WAL file is cut back to when it is reset after a complete checkpoint
/// (`journal_size_limit`): without it the file keeps the size of its largest transaction
/// (a migration, a large delete), space the volume does not get back. The most steady
/// ingest lets it reach (the writer's bound with room): the file is reused, not cut and
/// grown again at each checkpoint, which slows ingest.
pub const WAL_SIZE_LIMIT: i64 = ROOMY.writer as i64 * 4096;

/// What the writer's WAL hook holds: where to signal. Dropping it (with the writer's
/// connection, which must go first) ends the checkpoint thread.
pub struct Checkpointer {
    wake: SyncSender<()>,
    /// The volume's free space now (read at most once a second, `store/space.rs`).
    free: Box<dyn Fn() -> Option<u64> + Send + Sync>,
}

impl Checkpointer {
    /// Starts the checkpoint thread (its connection opened with `open` when first needed)
    /// and hooks the writer's commits to it; `free` says the volume's free space, which
    /// sets the [`Bounds`]. `writer` must be dropped before the returned value.
    pub fn start(
        writer: &Connection,
        open: impl Fn() -> StoreResult<Connection> + Send + 'static,
        free: impl Fn() -> Option<u64> + Send + Sync + 'static,
    ) -> std::io::Result<Box<Checkpointer>> {
        let (wake, woken) = sync_channel::<()>(1);
        std::thread::Builder::new()
            .name("sqlite-checkpoint".into())
            .spawn(move || {
                let mut conn: Option<Connection> = None;
                while woken.recv().is_ok() {
                    if conn.is_none() {
                        conn = open()
                            .map_err(|e| tracing::warn!(error = %e, "checkpoint connection"))
                            .ok();
                    }
                    let Some(c) = &conn else { continue };
                    // BUSY (another checkpoint runs: a backup's, the writer's own) is fine:
                    // the next commit signals again.
                    if let Err(e) = c.query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(())) {
                        tracing::debug!(error = %e, "background checkpoint");
                    }
                }
            })?;
        let me = Box::new(Checkpointer {
            wake,
            free: Box::new(free),
        });
        // SAFETY: the hook's argument points into the box, which the caller keeps until
        // after `writer` is closed (the hook is never called after that); the callback
        // only reads it.
        unsafe {
            ffi::sqlite3_wal_hook(
                writer.handle(),
                Some(on_commit),
                &*me as *const Checkpointer as *mut c_void,
            );
        }
        Ok(me)
    }
}

/// SQLite's WAL hook: called after each commit with the pages the WAL holds.
unsafe extern "C" fn on_commit(
    arg: *mut c_void,
    db: *mut ffi::sqlite3,
    _name: *const c_char,
    pages: c_int,
) -> c_int {
    // SAFETY: `arg` is the `Checkpointer` of `Checkpointer::start`, alive while `db` is.
    let me = unsafe { &*(arg as *const Checkpointer) };
    // Nothing to decide below the smallest bound: most commits read no free space.
    if pages < TIGHT.background {
        return ffi::SQLITE_OK;
    }
    let bounds = Bounds::for_free_space((me.free)());
    if pages >= bounds.writer {
        // SAFETY: `db` is the connection that committed; a passive checkpoint from the hook
        // is what SQLite's automatic checkpoint does.
        unsafe {
            ffi::sqlite3_wal_checkpoint_v2(
                db,
                std::ptr::null(),
                ffi::SQLITE_CHECKPOINT_PASSIVE,
                std::ptr::null_mut(),
                std::ptr::null_mut(),
            );
        }
    } else if pages >= bounds.background {
        // Full: a checkpoint is already asked for.
        let _ = me.wake.try_send(());
    }
    ffi::SQLITE_OK
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The writer's commits only signal: the pages reach the database file through the
    /// checkpoint thread, while the writer does not checkpoint below its own threshold.
    #[test]
    fn a_large_wal_is_checkpointed_beside_the_writer() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.db");
        let writer = Connection::open(&path).unwrap();
        writer
            .execute_batch("PRAGMA journal_mode = WAL; CREATE TABLE t (x BLOB);")
            .unwrap();
        let opened = path.clone();
        // A volume short of room: the tight bounds.
        let checkpointer =
            Checkpointer::start(&writer, move || Ok(Connection::open(&opened)?), || Some(0))
                .unwrap();
        let file_pages = || std::fs::metadata(&path).unwrap().len() / 4096;
        // About 1,000 pages a commit (a row of 4,000 bytes takes a page).
        let commit = || {
            writer
                .execute(
                    "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000)
                     INSERT INTO t SELECT randomblob(4000) FROM n",
                    [],
                )
                .unwrap()
        };
        // Below the threshold (4,096 pages): three commits of about 1,000.
        for _ in 0..3 {
            commit();
        }
        // Below the threshold nothing is copied into the database file.
        std::thread::sleep(std::time::Duration::from_millis(200));
        assert!(file_pages() < 100, "{} pages", file_pages());
        commit();
        commit();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        while file_pages() < 4_000 {
            assert!(
                std::time::Instant::now() < deadline,
                "no checkpoint: {} pages",
                file_pages()
            );
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        drop(writer);
        drop(checkpointer);
    }

    #[test]
    fn the_wal_is_kept_small_when_the_volume_runs_out_of_room() {
        assert_eq!(Bounds::for_free_space(Some(ROOM_FOR_ROOMY)), ROOMY);
        assert_eq!(Bounds::for_free_space(Some(ROOM_FOR_ROOMY - 1)), TIGHT);
        assert_eq!(Bounds::for_free_space(Some(0)), TIGHT);
        assert_eq!(Bounds::for_free_space(None), TIGHT);
    }
}
