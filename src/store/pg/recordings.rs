//! PostgreSQL: [`RecordingStore`](crate::store::RecordingStore).
//!
//! The bytes live in `recordings.data` (several instances share no disk), content-addressed
//! by SHA-256 as on SQLite. The download handler serves a file, so a visible recording is
//! copied once into this instance's cache, `<data_dir>/recordings/<id[0..2]>/<id>` (the
//! SQLite file layout; a file there is always right since its name is its content's hash),
//! and answered with that path.
use std::io::Write;
use std::path::Path;

use super::Postgres;
use crate::domain::caller::{Scope, Visibility};
use crate::domain::ingest::is_recording_id;
use crate::store::recordings::*;
use crate::store::RecordingStore;
use crate::store::{now_secs, StoreError, StoreResult};
use async_trait::async_trait;
use bytes::Bytes;
use sha2::{Digest, Sha256};

#[async_trait]
impl RecordingStore for Postgres {
    async fn put_recording(&self, bytes: Bytes, content_type: &str) -> StoreResult<Recording> {
        let content_type = accepted(content_type, &bytes)?;
        let id = hex::encode(Sha256::digest(&bytes));
        let c = self.client().await?;
        // The same bytes stored already: not sent again.
        let stored = c
            .query_opt(
                &c.prepare_cached("SELECT 1 FROM recordings WHERE sha256 = $1")
                    .await?,
                &[&id],
            )
            .await?;
        if stored.is_none() {
            c.execute(
                &c.prepare_cached(
                    "INSERT INTO recordings (sha256, content_type, size, created_at, data)
                     VALUES ($1, $2, $3, $4, $5) ON CONFLICT (sha256) DO NOTHING",
                )
                .await?,
                &[
                    &id,
                    &content_type,
                    &(bytes.len() as i64),
                    &now_secs(),
                    &&bytes[..],
                ],
            )
            .await?;
        }
        Ok(Recording {
            content_type: content_type.to_string(),
            size: bytes.len() as u64,
            path: file_path(&self.data_dir, &id),
            id,
        })
    }

    async fn recording(&self, scope: Scope, id: &str) -> StoreResult<Visibility<Recording>> {
        if !is_recording_id(id) {
            return Ok(Visibility::Missing);
        }
        let c = self.client().await?;
        let user = match scope {
            Scope::All => None,
            Scope::User(u) => Some(u),
        };
        // May the scope download it? Administrators may; a restricted user only when a run
        // of a test case in one of their groups refers to it.
        let row = c
            .query_opt(
                &c.prepare_cached(
                    "SELECT r.id, r.content_type, r.size,
                            $2::BIGINT IS NULL OR EXISTS (
                                SELECT 1 FROM recording_cases rc
                                  JOIN group_cases gc ON gc.test_case_id = rc.test_case_id
                                  JOIN user_groups ug ON ug.group_id = gc.group_id
                                 WHERE rc.recording_id = r.id AND ug.user_id = $2)
                       FROM recordings r WHERE r.sha256 = $1",
                )
                .await?,
                &[&id, &user],
            )
            .await?;
        let Some(row) = row else {
            return Ok(Visibility::Missing);
        };
        if !row.get::<_, bool>(3) {
            return Ok(Visibility::Hidden);
        }
        let (row_id, size): (i64, i64) = (row.get(0), row.get(2));
        let path = file_path(&self.data_dir, id);
        let cached = tokio::fs::metadata(&path)
            .await
            .map(|m| m.len() == size as u64)
            .unwrap_or(false);
        if !cached {
            let data = c
                .query_one(
                    &c.prepare_cached("SELECT data FROM recordings WHERE id = $1")
                        .await?,
                    &[&row_id],
                )
                .await?;
            let bytes: Vec<u8> = data.get(0);
            let to = path.clone();
            tokio::task::spawn_blocking(move || write_cache(&to, &bytes))
                .await
                .map_err(|e| StoreError::Task(e.to_string()))??;
        }
        Ok(Visibility::Visible(Recording {
            id: id.to_string(),
            content_type: row.get(1),
            size: size.max(0) as u64,
            path,
        }))
    }
}

/// Writes a cache file whole under a name of its own, then renames it into place, so a
/// reader never sees part of it (two writers of the same recording write the same bytes).
fn write_cache(path: &Path, bytes: &[u8]) -> StoreResult<()> {
    let dir = path
        .parent()
        .ok_or_else(|| StoreError::Invalid("bad recording path".into()))?;
    // Private as SQLite's data directory: recordings are call audio.
    #[cfg(unix)]
    {
        use std::os::unix::fs::DirBuilderExt;
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)?;
    }
    #[cfg(not(unix))]
    std::fs::create_dir_all(dir)?;
    let tmp = dir.join(format!(
        ".{}.{}.{:016x}.tmp",
        path.file_name().and_then(|n| n.to_str()).unwrap_or("rec"),
        std::process::id(),
        rand::random::<u64>()
    ));
    let written = (|| -> std::io::Result<()> {
        let mut options = std::fs::OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        let mut f = options.open(&tmp)?;
        f.write_all(bytes)?;
        std::fs::rename(&tmp, path)
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    Ok(written?)
}
