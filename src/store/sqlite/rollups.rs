//! SQLite: the rollup table `rollup_hour` (see `store::rollups`). A batch's deltas are added
//! with an upsert whose histograms and segment blobs merge in `cx_hist_merge` and
//! `cx_segments_merge`, Rust functions of the connection; the site time zone they were
//! built in is kept in `meta`.

use std::collections::HashMap;

use chrono_tz::Tz;
use rusqlite::functions::FunctionFlags;
use rusqlite::types::ValueRef;
use rusqlite::{params, Connection, OptionalExtension, Transaction};

use crate::domain::{dist, varint};
use crate::store::rollups::{facts_of_stored, hist_parts, merge_segments, segment_blob, Deltas};
use crate::store::run_detail::ScriptSegment;
use crate::store::{StoreError, StoreResult};

/// Adds the changes to the rollup table.
pub(super) fn apply(conn: &Connection, deltas: Deltas) -> StoreResult<()> {
    register_functions(conn)?;
    let mut stmt = conn.prepare_cached(
        "INSERT INTO rollup_hour (test_case_id, run_type, day, hour, pass, warn, fail,
                stopped, mos_n, mos_sum, mos_hist, lat_n, lat_sum, lat_hist, segments)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)
         ON CONFLICT (test_case_id, run_type, day, hour) DO UPDATE SET
                pass = pass + excluded.pass, warn = warn + excluded.warn,
                fail = fail + excluded.fail, stopped = stopped + excluded.stopped,
                mos_n = mos_n + excluded.mos_n, mos_sum = mos_sum + excluded.mos_sum,
                mos_hist = cx_hist_merge(mos_hist, excluded.mos_hist),
                lat_n = lat_n + excluded.lat_n, lat_sum = lat_sum + excluded.lat_sum,
                lat_hist = cx_hist_merge(lat_hist, excluded.lat_hist),
                segments = cx_segments_merge(segments, excluded.segments)",
    )?;
    for ((case, rt, day, hour), mut d) in deltas.hours {
        let (mos_n, mos_sum, mos_hist) = hist_parts(&mut d.mos);
        let (lat_n, lat_sum, lat_hist) = hist_parts(&mut d.lat);
        let segments = segment_blob(d.segments);
        stmt.execute(params![
            case,
            rt,
            day,
            hour,
            d.counts[0],
            d.counts[1],
            d.counts[2],
            d.counts[3],
            mos_n,
            mos_sum,
            mos_hist,
            lat_n,
            lat_sum,
            lat_hist,
            segments
        ])?;
    }
    Ok(())
}

type Merge = fn(Option<&[u8]>, Option<&[u8]>) -> Result<Option<Vec<u8>>, varint::Corrupt>;

/// Registers `cx_hist_merge(a, b)` and `cx_segments_merge(a, b)` on the connection (once).
pub(super) fn register_functions(conn: &Connection) -> StoreResult<()> {
    if conn
        .prepare("SELECT cx_hist_merge(NULL, NULL), cx_segments_merge(NULL, NULL)")
        .is_ok()
    {
        return Ok(());
    }
    let functions: [(&str, Merge); 2] = [
        ("cx_hist_merge", dist::merge),
        ("cx_segments_merge", merge_segments),
    ];
    for (name, merge) in functions {
        conn.create_scalar_function(
            name,
            2,
            FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC,
            move |ctx| {
                let blob = |i: usize| -> rusqlite::Result<Option<&[u8]>> {
                    match ctx.get_raw(i) {
                        ValueRef::Null => Ok(None),
                        ValueRef::Blob(b) => Ok(Some(b)),
                        _ => Err(rusqlite::Error::UserFunctionError(
                            "rollup merge functions take blobs".into(),
                        )),
                    }
                };
                merge(blob(0)?, blob(1)?)
                    .map_err(|e| rusqlite::Error::UserFunctionError(Box::new(e)))
            },
        )?;
    }
    Ok(())
}

/// Makes sure the rollups are bucketed in `tz`: records it on first use, rebuilds them from
/// the stored runs when the site time zone changed.
pub(super) fn ensure_tz(tx: &Transaction, tz: Tz) -> StoreResult<()> {
    let stored: Option<String> = tx
        .prepare_cached("SELECT value FROM meta WHERE key = 'rollup_tz'")?
        .query_row([], |r| r.get(0))
        .optional()?;
    if stored.as_deref() == Some(tz.name()) {
        return Ok(());
    }
    let any_run: Option<i64> = tx
        .query_row("SELECT id FROM test_runs LIMIT 1", [], |r| r.get(0))
        .optional()?;
    if any_run.is_some() {
        tracing::warn!(from = ?stored, to = tz.name(), "site time zone changed: rebuilding rollups");
        let n = rebuild(tx, tz)?;
        tracing::info!(runs = n, "rollups rebuilt");
    }
    tx.execute(
        "INSERT INTO meta (key, value) VALUES ('rollup_tz', ?1)
         ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        [tz.name()],
    )?;
    Ok(())
}

/// Recomputes every rollup from the stored runs in `tz`; returns the number of runs.
pub(super) fn rebuild(tx: &Transaction, tz: Tz) -> StoreResult<u64> {
    tx.execute("DELETE FROM rollup_hour", [])?;
    let mut scripts: HashMap<i64, Vec<ScriptSegment>> = HashMap::new();
    let mut deltas = Deltas::default();
    let mut total = 0u64;
    let mut last_id = i64::MIN;
    loop {
        let mut stmt = tx.prepare_cached(
            "SELECT id, test_case_id, run_type, run_time, status, mos, script_id, results
               FROM test_runs WHERE id > ?1 ORDER BY id LIMIT 50000",
        )?;
        let mut rows = stmt.query([last_id])?;
        let mut seen = 0;
        while let Some(r) = rows.next()? {
            seen += 1;
            last_id = r.get(0)?;
            let script_id: i64 = r.get(6)?;
            if let std::collections::hash_map::Entry::Vacant(e) = scripts.entry(script_id) {
                e.insert(load_script(tx, script_id)?);
            }
            let facts = facts_of_stored(
                r.get(1)?,
                r.get(2)?,
                r.get(3)?,
                r.get(4)?,
                r.get::<_, Option<u32>>(5)?,
                &scripts[&script_id],
                r.get_ref(7)?.as_blob().map_err(rusqlite::Error::from)?,
            )?;
            deltas.add(tz, &facts);
        }
        total += seen;
        if deltas.runs() >= 200_000 || seen == 0 {
            apply(tx, std::mem::take(&mut deltas))?;
        }
        if seen == 0 {
            break;
        }
    }
    Ok(total)
}

/// The segments of a stored script.
pub(super) fn load_script(conn: &Connection, id: i64) -> StoreResult<Vec<ScriptSegment>> {
    let body: String = conn
        .prepare_cached("SELECT body FROM run_scripts WHERE id = ?1")?
        .query_row([id], |r| r.get(0))?;
    serde_json::from_str(&body).map_err(|e| StoreError::Invalid(format!("stored script {id}: {e}")))
}
