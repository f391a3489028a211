//! SQLite: [`RecordingStore`]. The bytes are files in the data directory, written and
//! flushed before their row is committed.

use std::io::Write;
use std::path::{Path, PathBuf};

use async_trait::async_trait;
use bytes::Bytes;
use rusqlite::{params, Connection, OptionalExtension, Transaction};
use sha2::{Digest, Sha256};

use crate::domain::caller::{Scope, Visibility};
use crate::domain::ingest::is_recording_id;
use crate::store::recordings::{accepted, file_path, Recording, RecordingStore};
use crate::store::{now_secs, Sqlite, StoreError, StoreResult};

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

/// Stores `bytes` (unless the same bytes are already stored) and returns the recording id.
/// The file is written and flushed before the row is inserted, so a committed row always
/// has its file.
fn put(
    data_dir: &Path,
    tx: &Transaction,
    bytes: &[u8],
    content_type: &str,
) -> StoreResult<Recording> {
    let content_type = accepted(content_type, bytes)?;
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
pub(super) fn id_of_row(conn: &Connection, row_id: i64) -> StoreResult<Option<String>> {
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
    use crate::store::recordings::normalize_content_type;
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
