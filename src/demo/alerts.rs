//! The demo's alert settings (`alert_settings.rs`), made once when the site has none, and the
//! engine run over the history already stored so that the Card Services outage of four days
//! ago opened its events and closed them on recovery. Everything goes through the real engine
//! (`store::alerts`); no event is written by hand. The live feed's runs then go through it
//! at ingest like any engine's.

use chrono_tz::Tz;

use super::{alert_settings, DemoError};
use crate::store::Store;

/// Adds the demo's settings when the site has none and runs the engine over the stored
/// history since `from_ms` for them. Returns the events opened. Blocking.
pub fn ensure(store: &Store, tz: Tz, from_ms: i64) -> Result<usize, DemoError> {
    let ids = alert_settings::ensure(store)?;
    if ids.is_empty() {
        return Ok(0);
    }
    let out = Store::block_on(store.backfill_alerts(tz, ids, from_ms))?;
    Ok(out.opened)
}
