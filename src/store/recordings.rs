//! Recorded audio of runs and steps, content-addressed: a recording's id is the SHA-256
//! (hex) of its bytes; the file lives at `<data_dir>/recordings/<id[0..2]>/<id>` and a row
//! in `recordings` keeps its content type and size. Uploading the same bytes twice stores
//! them once. Written once for both backends (`store/sql.rs`) but for where the bytes are:
//!
//! - SQLite keeps them in that file, written and flushed before its row is committed.
//! - PostgreSQL keeps them in `recordings.data` (several instances share no disk). The
//!   download handler serves a file, so a visible recording is copied once into this
//!   instance's cache at the same path (a file there is always right since its name is its
//!   content's hash), and answered with that path.

use std::io::Write;
use std::path::{Path, PathBuf};

use async_trait::async_trait;
use bytes::Bytes;
use sha2::{Digest, Sha256};

use super::sql::{self, Db, Exec, SqlStore};
use super::{now_secs, StoreError, StoreResult};
use crate::domain::caller::{Scope, Visibility};
use crate::domain::ingest::is_recording_id;

/// Largest recording accepted: 50 MiB.
pub const MAX_BYTES: usize = 50 * 1024 * 1024;

/// Content types accepted, as stored (aliases are mapped by [`normalize_content_type`]).
pub const CONTENT_TYPES: [&str; 3] = ["audio/wav", "audio/mpeg", "audio/ogg"];

/// A stored recording.
#[derive(Debug, Clone, PartialEq)]
pub struct Recording {
    /// Public id: SHA-256 hex of the bytes.
    pub id: String,
    pub content_type: String,
    pub size: u64,
    /// Where its file lives.
    pub path: PathBuf,
}

#[async_trait]
pub trait RecordingStore {
    /// Stores `bytes` of `content_type` (one of [`CONTENT_TYPES`] or an alias) unless the
    /// same bytes are already stored; the file is flushed before the row is committed.
    async fn put_recording(&self, bytes: Bytes, content_type: &str) -> StoreResult<Recording>;
    /// The recording with public id `id`, when it exists and the scope may download it:
    /// administrators may; a restricted user when a run of a test case in one of their
    /// groups refers to it.
    async fn recording(&self, scope: Scope, id: &str) -> StoreResult<Visibility<Recording>>;
}

#[async_trait]
impl<S: SqlStore> RecordingStore for S {
    async fn put_recording(&self, bytes: Bytes, content_type: &str) -> StoreResult<Recording> {
        let content_type = accepted(content_type, &bytes)?;
        let id = hex::encode(Sha256::digest(&bytes));
        let size = bytes.len() as i64;
        let path = file_path(&data_dir(self), &id);
        match self.db() {
            // The file first (again when it is missing), flushed, then the row.
            Db::Sqlite(s) => sql::write!(s, [id = id.clone(), path = path.clone()], |c| {
                if !on_disk(&path, size) {
                    write_file(&path, &bytes, true)?;
                }
                c.execute(
                    "INSERT INTO recordings (sha256, content_type, size, created_at)
                     VALUES ($1, $2, $3, $4) ON CONFLICT (sha256) DO NOTHING",
                    &[&id, &content_type, &size, &now_secs()],
                )
                .await?;
                Ok(())
            })?,
            // The bytes in the row, not sent again when the same bytes are stored already.
            Db::Postgres(p) => sql::write!(p, [id = id.clone()], |c| {
                let stored: Option<i64> = c
                    .scalar_opt("SELECT 1 FROM recordings WHERE sha256 = $1", &[&id])
                    .await?;
                if stored.is_none() {
                    c.execute(
                        "INSERT INTO recordings (sha256, content_type, size, created_at, data)
                         VALUES ($1, $2, $3, $4, $5) ON CONFLICT (sha256) DO NOTHING",
                        &[&id, &content_type, &size, &now_secs(), &&bytes[..]],
                    )
                    .await?;
                }
                Ok(())
            })?,
        }
        Ok(Recording {
            content_type: content_type.to_string(),
            size: size as u64,
            path,
            id,
        })
    }

    async fn recording(&self, scope: Scope, id: &str) -> StoreResult<Visibility<Recording>> {
        if !is_recording_id(id) {
            return Ok(Visibility::Missing);
        }
        let user = match scope {
            Scope::All => None,
            Scope::User(u) => Some(u),
        };
        // May the scope download it? Administrators may; a restricted user only when a run
        // of a test case in one of their groups refers to it.
        let found = sql::read!(self, [id = id.to_string()], |c| {
            let row = c
                .query_opt(
                    "SELECT r.id, r.content_type, r.size,
                            CAST($2 AS BIGINT) IS NULL OR EXISTS (
                                SELECT 1 FROM recording_cases rc
                                  JOIN group_cases gc ON gc.test_case_id = rc.test_case_id
                                  JOIN user_groups ug ON ug.group_id = gc.group_id
                                 WHERE rc.recording_id = r.id AND ug.user_id = $2)
                       FROM recordings r WHERE r.sha256 = $1",
                    &[&id, &user],
                )
                .await?;
            row.map(|r| -> StoreResult<(i64, String, i64, bool)> {
                Ok((
                    r.col("id")?,
                    r.col("content_type")?,
                    r.col("size")?,
                    r.get(3)?,
                ))
            })
            .transpose()
        })?;
        let Some((row_id, content_type, size, visible)) = found else {
            return Ok(Visibility::Missing);
        };
        if !visible {
            return Ok(Visibility::Hidden);
        }
        let path = file_path(&data_dir(self), id);
        if let Db::Postgres(p) = self.db() {
            let cached = tokio::fs::metadata(&path)
                .await
                .map(|m| m.len() == size as u64)
                .unwrap_or(false);
            if !cached {
                let bytes: Vec<u8> = sql::read!(p, |c| {
                    c.scalar("SELECT data FROM recordings WHERE id = $1", &[&row_id])
                        .await
                })?;
                let to = path.clone();
                tokio::task::spawn_blocking(move || write_file(&to, &bytes, false))
                    .await
                    .map_err(|e| StoreError::Task(e.to_string()))??;
            }
        }
        Ok(Visibility::Visible(Recording {
            id: id.to_string(),
            content_type,
            size: size.max(0) as u64,
            path,
        }))
    }
}

/// Maps a `Content-Type` value to the stored type: `audio/wav` (also `audio/x-wav`,
/// `audio/wave`, `audio/vnd.wave`), `audio/mpeg` (also `audio/mp3`) or `audio/ogg`.
pub fn normalize_content_type(value: &str) -> Option<&'static str> {
    let essence = value
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    match essence.as_str() {
        "audio/wav" | "audio/x-wav" | "audio/wave" | "audio/vnd.wave" => Some("audio/wav"),
        "audio/mpeg" | "audio/mp3" => Some("audio/mpeg"),
        "audio/ogg" => Some("audio/ogg"),
        _ => None,
    }
}

/// The data directory: where the recordings' files (SQLite's, PostgreSQL's cache) live.
fn data_dir(store: &impl SqlStore) -> PathBuf {
    match store.db() {
        Db::Sqlite(s) => s.data_dir(),
        Db::Postgres(p) => p.data_dir.clone(),
    }
}

/// Where the file of recording `id` lives.
pub(super) fn file_path(data_dir: &Path, id: &str) -> PathBuf {
    data_dir.join("recordings").join(&id[..2]).join(id)
}

/// The stored content type of an upload ([`normalize_content_type`]), when the type is
/// accepted and the bytes are neither empty nor larger than [`MAX_BYTES`].
fn accepted(content_type: &str, bytes: &[u8]) -> StoreResult<&'static str> {
    let Some(content_type) = normalize_content_type(content_type) else {
        return Err(StoreError::Invalid(format!(
            "Content type {content_type:?} is not a recording type; use one of {}.",
            CONTENT_TYPES.join(", ")
        )));
    };
    if bytes.is_empty() {
        return Err(StoreError::Invalid("The recording is empty.".into()));
    }
    if bytes.len() > MAX_BYTES {
        return Err(StoreError::Invalid(format!(
            "The recording is larger than {} MiB.",
            MAX_BYTES / (1024 * 1024)
        )));
    }
    Ok(content_type)
}

/// Whether the file at `path` holds `size` bytes.
fn on_disk(path: &Path, size: i64) -> bool {
    std::fs::metadata(path)
        .map(|m| m.len() == size as u64)
        .unwrap_or(false)
}

/// Writes a recording's file whole under a name of its own, then renames it into place, so
/// a reader never sees part of it (two writers of the same recording write the same bytes).
/// Private as the data directory (recordings are call audio). `durable`: flushed, with its
/// directory, before this returns (SQLite's file, before its row is committed; PostgreSQL's
/// cache need not be).
fn write_file(path: &Path, bytes: &[u8], durable: bool) -> StoreResult<()> {
    let dir = path
        .parent()
        .ok_or_else(|| StoreError::Invalid("bad recording path".into()))?;
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
        if durable {
            f.sync_all()?;
        }
        std::fs::rename(&tmp, path)
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written?;
    if durable {
        if let Ok(d) = std::fs::File::open(dir) {
            let _ = d.sync_all();
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(flavor = "multi_thread")]
    async fn content_addressed_and_deduplicated() {
        let (dir, store) = crate::store::testing::store().await;
        let wav = Bytes::from_static(b"RIFF....WAVE");
        let rec = store
            .put_recording(wav.clone(), "audio/x-wav")
            .await
            .unwrap();
        assert!(is_recording_id(&rec.id));
        assert_eq!(
            rec.id,
            hex::encode(Sha256::digest(b"RIFF....WAVE".as_slice()))
        );
        let again = store.put_recording(wav, "audio/wav").await.unwrap();
        assert_eq!(rec.id, again.id);
        let Visibility::Visible(found) = store.recording(Scope::All, &rec.id).await.unwrap() else {
            panic!("not found");
        };
        assert_eq!((found.content_type.as_str(), found.size), ("audio/wav", 12));
        assert_eq!(std::fs::read(&found.path).unwrap(), b"RIFF....WAVE");
        assert_eq!(found.path, file_path(dir.path(), &rec.id));
        // Not referred to by any run: a restricted user may not download it.
        assert_eq!(
            store.recording(Scope::User(1), &rec.id).await.unwrap(),
            Visibility::Hidden
        );
        assert_eq!(
            store.recording(Scope::All, &"0".repeat(64)).await.unwrap(),
            Visibility::Missing
        );
    }

    #[tokio::test(flavor = "multi_thread")]
    async fn refuses_other_types_and_empty() {
        let (_dir, store) = crate::store::testing::store().await;
        let err = store
            .put_recording(Bytes::from_static(b"x"), "text/html")
            .await
            .unwrap_err();
        assert!(err.to_string().contains("text/html"), "{err}");
        assert!(store
            .put_recording(Bytes::new(), "audio/ogg")
            .await
            .is_err());
        assert_eq!(
            normalize_content_type("Audio/MPEG; charset=x"),
            Some("audio/mpeg")
        );
        assert!(!is_recording_id("../../etc/passwd"));
    }
}
