//! The SQLite side of what keeps a file per backend (`store/pg/` holds the PostgreSQL side;
//! the plain resources are written once for both on `store/sql.rs`): ingest, the alert
//! engine and the rollups, report views and metrics, and the leases and the sign-in
//! throttle that one process keeps itself; and the backup of the SQLite file. Each file
//! implements its resource's trait for [`Sqlite`] with rusqlite on
//! the connections of `store/mod.rs`; the trait, its types and what both backends share
//! are in `store/<resource>.rs`.

use std::path::{Path, PathBuf};

use super::Sqlite;

mod alerts;
pub mod backup;
pub(in crate::store) mod checkpoint;
mod leases;
mod metrics;
mod reports;
mod rollups;
mod runs;
mod throttle;

impl Sqlite {
    /// The data directory: where the database file lives.
    pub(in crate::store) fn data_dir(&self) -> PathBuf {
        self.inner
            .path
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default()
    }
}

/// A column that holds a BLOB or NULL (a rollup's histogram or segments), borrowed from the
/// row.
fn blob<'a>(r: &'a rusqlite::Row, i: usize) -> rusqlite::Result<Option<&'a [u8]>> {
    r.get_ref(i)?
        .as_blob_or_null()
        .map_err(rusqlite::Error::from)
}
