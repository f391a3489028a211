//! What the demo remembers in the data directory (`meta`, key `demo_state`, JSON): the
//! seed and anchor its runs derive from, how far runs have been ingested, and the stored
//! clips. Written after the runs it accounts for: a crash in between only makes the next
//! start ingest those runs again, and ingest skips runs already stored.

use std::collections::{BTreeMap, HashMap};

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::audio::ClipId;
use crate::store::{Store, StoreError, StoreResult};

const KEY: &str = "demo_state";

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DemoState {
    pub seed: u64,
    pub anchor: DateTime<Utc>,
    /// Runs that end up to this time are stored (once the history is complete).
    pub until: DateTime<Utc>,
    /// Clip name to recording id.
    pub clips: BTreeMap<String, String>,
    /// False while the history is being loaded; a start that finds it false loads it
    /// again (ingest skips the runs already stored).
    #[serde(default)]
    pub history_complete: bool,
}

impl DemoState {
    pub fn clip_ids(&self) -> HashMap<ClipId, String> {
        self.clips
            .iter()
            .filter_map(|(name, id)| Some((ClipId::from_name(name)?, id.clone())))
            .collect()
    }
}

pub async fn load(store: &Store) -> StoreResult<Option<DemoState>> {
    store
        .meta(KEY)
        .await?
        .map(|v| {
            serde_json::from_str(&v).map_err(|e| StoreError::Invalid(format!("meta {KEY}: {e}")))
        })
        .transpose()
}

pub async fn save(store: &Store, state: &DemoState) -> StoreResult<()> {
    let value = serde_json::to_string(state)
        .map_err(|e| StoreError::Invalid(format!("meta {KEY}: {e}")))?;
    store.set_meta(KEY, &value).await
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[tokio::test]
    async fn saved_state_reads_back() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path(), crate::store::StoreOptions::default()).unwrap();
        assert_eq!(load(&store).await.unwrap(), None);
        let state = DemoState {
            seed: 3,
            anchor: Utc.with_ymd_and_hms(2024, 5, 15, 12, 0, 0).unwrap(),
            until: Utc.with_ymd_and_hms(2024, 5, 15, 12, 5, 0).unwrap(),
            clips: [("call".to_string(), "ab".repeat(32))].into(),
            history_complete: false,
        };
        save(&store, &state).await.unwrap();
        let mut later = state.clone();
        later.until = Utc.with_ymd_and_hms(2024, 5, 15, 12, 6, 0).unwrap();
        later.history_complete = true;
        save(&store, &later).await.unwrap();
        assert_eq!(load(&store).await.unwrap(), Some(later));
        assert_eq!(state.clip_ids()[&ClipId::CallGood], "ab".repeat(32));
    }
}
