//! Recorded audio of runs and steps, content-addressed: a recording's id is the SHA-256
//! (hex) of its bytes; the file lives at `<data_dir>/recordings/<id[0..2]>/<id>` and a row
//! in `recordings` keeps its content type and size. Uploading the same bytes twice stores
//! them once. The trait and what both backends check; the SQL is in `sqlite/recordings.rs`
//! and `pg/recordings.rs`.

use std::path::{Path, PathBuf};

use async_trait::async_trait;
use bytes::Bytes;

use super::{StoreError, StoreResult};
use crate::domain::caller::{Scope, Visibility};

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
pub(super) fn file_path(data_dir: &Path, id: &str) -> PathBuf {
    data_dir.join("recordings").join(&id[..2]).join(id)
}

/// The stored content type of an upload ([`normalize_content_type`]), when the type is
/// accepted and the bytes are neither empty nor larger than [`MAX_BYTES`].
pub(super) fn accepted(content_type: &str, bytes: &[u8]) -> StoreResult<&'static str> {
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
