//! Recorded audio of runs and steps, content-addressed: a recording's id is the SHA-256
//! (hex) of its bytes; the file lives at `<data_dir>/recordings/<id[0..2]>/<id>` and a row
//! in `recordings` keeps its content type and size. Uploading the same bytes twice stores
//! them once.

use crate::domain::ingest::is_recording_id;
use std::io::Write;
use std::path::{Path, PathBuf};

use async_trait::async_trait;
use bytes::Bytes;
use rusqlite::{params, Connection, OptionalExtension, Transaction};
use sha2::{Digest, Sha256};

use crate::domain::caller::{Scope, Visibility};
use crate::store::{now_secs, Sqlite, StoreError, StoreResult};

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
impl RecordingStore for Sqlite {
    async fn put_recording(&self, bytes: Bytes, content_type: &str) -> StoreResult<Recording> {
        let data_dir = self.data_dir();
        let content_type = content_type.to_string();
        self.write(move |tx| put(&data_dir, tx, &bytes, &content_type))
            .await
    }

    async fn recording(&self, scope: Scope, id: &str) -> StoreResult<Visibility<Recording>> {
        let data_dir = self.data_dir();
        let id = id.to_string();
        self.read(move |c| {
            let Some((row_id, mut rec)) = find(c, &id)? else {
                return Ok(Visibility::Missing);
            };
            rec.path = file_path(&data_dir, &rec.id);
            Ok(if visible(c, scope, row_id)? {
                Visibility::Visible(rec)
            } else {
                Visibility::Hidden
            })
        })
        .await
    }
}

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

/// Where the file of recording `id` lives.
pub(in crate::store) fn file_path(data_dir: &Path, id: &str) -> PathBuf {
    data_dir.join("recordings").join(&id[..2]).join(id)
}

/// Stores `bytes` (unless the same bytes are already stored) and returns the recording id.
/// The file is written and flushed before the row is inserted, so a committed row always
/// has its file.
fn put(
    data_dir: &Path,
    tx: &Transaction,
    bytes: &[u8],
    content_type: &str,
) -> StoreResult<Recording> {
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
    let id = hex::encode(Sha256::digest(bytes));
    let path = file_path(data_dir, &id);
    let on_disk = std::fs::metadata(&path)
        .map(|m| m.len() == bytes.len() as u64)
        .unwrap_or(false);
    if !on_disk {
        write_durably(&path, bytes)?;
    }
    tx.execute(
        "INSERT INTO recordings (sha256, content_type, size, created_at) VALUES (?1, ?2, ?3, ?4)
         ON CONFLICT (sha256) DO NOTHING",
        params![id, content_type, bytes.len() as i64, now_secs()],
    )?;
    Ok(Recording {
        content_type: content_type.to_string(),
        size: bytes.len() as u64,
        path,
        id,
    })
}

fn write_durably(path: &Path, bytes: &[u8]) -> StoreResult<()> {
    let dir = path
        .parent()
        .ok_or_else(|| StoreError::Invalid("bad recording path".into()))?;
    std::fs::create_dir_all(dir)?;
    let tmp = dir.join(format!(
        ".{}.{}.tmp",
        path.file_name().and_then(|n| n.to_str()).unwrap_or("rec"),
        std::process::id()
    ));
    {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
    }
    std::fs::rename(&tmp, path)?;
    if let Ok(d) = std::fs::File::open(dir) {
        let _ = d.sync_all();
    }
    Ok(())
}

/// The row id and stored recording with public id `id` (its path left empty).
fn find(conn: &Connection, id: &str) -> StoreResult<Option<(i64, Recording)>> {
    if !is_recording_id(id) {
        return Ok(None);
    }
    let row = conn
        .prepare_cached("SELECT id, sha256, content_type, size FROM recordings WHERE sha256 = ?1")?
        .query_row([id], |r| {
            Ok((
                r.get(0)?,
                Recording {
                    id: r.get(1)?,
                    content_type: r.get(2)?,
                    size: r.get::<_, i64>(3)? as u64,
                    path: PathBuf::new(),
                },
            ))
        })
        .optional()?;
    Ok(row)
}

/// The public id of a recording row.
pub(in crate::store) fn id_of_row(conn: &Connection, row_id: i64) -> StoreResult<Option<String>> {
    let id = conn
        .prepare_cached("SELECT sha256 FROM recordings WHERE id = ?1")?
        .query_row([row_id], |r| r.get(0))
        .optional()?;
    Ok(id)
}

/// May the scope download this recording? Administrators may; a restricted user only when
/// a run of a test case in one of their groups refers to it.
fn visible(conn: &Connection, scope: Scope, row_id: i64) -> StoreResult<bool> {
    let Scope::User(user) = scope else {
        return Ok(true);
    };
    let found: Option<i64> = conn
        .prepare_cached(
            "SELECT 1 FROM recording_cases rc
               JOIN group_cases gc ON gc.test_case_id = rc.test_case_id
               JOIN user_groups ug ON ug.group_id = gc.group_id
              WHERE rc.recording_id = ?1 AND ug.user_id = ?2 LIMIT 1",
        )?
        .query_row(params![row_id, user], |r| r.get(0))
        .optional()?;
    Ok(found.is_some())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::Store;

    #[tokio::test]
    async fn content_addressed_and_deduplicated() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path(), crate::store::StoreOptions::default()).unwrap();
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

    #[tokio::test]
    async fn refuses_other_types_and_empty() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path(), crate::store::StoreOptions::default()).unwrap();
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
