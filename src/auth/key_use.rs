//! When each ingest API key was last used, without a write per ingest call: the guard asks
//! [`KeyUse::due`] after a key is found, and writes the time only when this process has not
//! written it for that key in the last minute. Kept in memory (a restart writes once more;
//! each instance of a PostgreSQL site writes its own once a minute at most); the stored
//! time is to the minute, which is all an operator needs to find a key no engine uses.

use std::collections::HashMap;
use std::sync::Mutex;

/// At most one write per key in this time (ms).
pub const EVERY_MS: i64 = 60_000;

/// The last time this process wrote each key's use (by key id, UTC ms).
#[derive(Debug, Default)]
pub struct KeyUse {
    written: Mutex<HashMap<i64, i64>>,
}

impl KeyUse {
    /// True when key `id`'s use at `now_ms` should be written (none written for it in the
    /// last [`EVERY_MS`]); it then counts as written.
    pub fn due(&self, id: i64, now_ms: i64) -> bool {
        let mut written = self.written.lock().unwrap_or_else(|e| e.into_inner());
        match written.get(&id) {
            Some(&at) if now_ms >= at && now_ms - at < EVERY_MS => false,
            _ => {
                written.insert(id, now_ms);
                true
            }
        }
    }

    /// Forgets that key `id`'s use was written (the write failed: the next call tries again).
    pub fn forget(&self, id: i64) {
        self.written
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(&id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn once_a_minute_per_key() {
        let k = KeyUse::default();
        assert!(k.due(1, 1_000));
        assert!(!k.due(1, 1_001));
        assert!(!k.due(1, 1_000 + EVERY_MS - 1));
        assert!(k.due(2, 1_001), "another key has its own minute");
        assert!(k.due(1, 1_000 + EVERY_MS));
        assert!(!k.due(1, 1_000 + EVERY_MS + 5));
        // A clock set back does not stop the writes for a minute more.
        assert!(k.due(1, 500));
    }

    #[test]
    fn a_failed_write_is_tried_again() {
        let k = KeyUse::default();
        assert!(k.due(7, 10));
        k.forget(7);
        assert!(k.due(7, 11));
    }
}
