//! Rollups: per test case and per segment, per site-local day and hour, per run type,
//! counts per run status plus MOS and latency distributions (`domain::dist`). Ingest adds
//! each batch's runs in the same transaction that stores them, so rollups always equal a
//! recount of the stored runs. Metric queries (`store::metrics`) read only these tables.
//!
//! The site time zone the rollups were built with is kept in `meta` (`rollup_tz`); when the
//! configured zone changes, the next ingest rebuilds them from the stored runs.

use std::collections::{BTreeMap, HashMap};

use chrono_tz::Tz;
use rusqlite::functions::FunctionFlags;
use rusqlite::types::ValueRef;
use rusqlite::{params, Connection, OptionalExtension, Transaction};

use super::run_detail::{self, ScriptSegment};
use super::{StoreError, StoreResult};
use crate::domain::{buckets, dist};
use crate::ingest::IngestRun;

/// What a run contributes to the rollups.
#[derive(Debug, Clone, PartialEq)]
pub struct RunFacts {
    pub case_id: i64,
    pub run_type: u8,
    pub run_ms: i64,
    /// 0 pass, 1 warn, 2 fail, 3 stopped.
    pub status: u8,
    /// mosCqIn in hundredths.
    pub mos: Option<u32>,
    pub segments: Vec<SegmentFacts>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct SegmentFacts {
    pub segment_id: i64,
    /// The worst status of the segment's steps (the run's status when it has none).
    pub status: u8,
    /// Step latencies, ms.
    pub latencies: Vec<u32>,
}

/// MOS 1.0..5.0 to hundredths.
pub fn mos_units(m: f64) -> u32 {
    (m * 100.0).round().clamp(0.0, 1000.0) as u32
}

impl RunFacts {
    pub fn of_ingest(run: &IngestRun) -> RunFacts {
        let status = run.status.code();
        RunFacts {
            case_id: run.test_case.id,
            run_type: run.run_type.code(),
            run_ms: run.run_time.timestamp_millis(),
            status,
            mos: run.mos_cq_in.map(mos_units),
            segments: run
                .segments
                .iter()
                .map(|s| SegmentFacts {
                    segment_id: s.segment_id,
                    status: s
                        .steps
                        .iter()
                        .map(|t| t.test_result.status.code())
                        .max()
                        .unwrap_or(status),
                    latencies: s
                        .steps
                        .iter()
                        .filter_map(|t| t.test_result.latency)
                        .map(|l| l.clamp(0, i64::from(u32::MAX)) as u32)
                        .collect(),
                })
                .collect(),
        }
    }
}

#[derive(Default)]
struct CaseDelta {
    counts: [i64; 4],
    mos: Vec<u32>,
    lat: Vec<u32>,
}

#[derive(Default)]
struct SegmentDelta {
    counts: [i64; 4],
    lat: Vec<u32>,
}

/// Rollup changes of a set of runs, applied at once.
#[derive(Default)]
pub struct Deltas {
    cases: BTreeMap<(i64, u8, i32, u8), CaseDelta>,
    segments: BTreeMap<(i64, u8, i32, u8, i64), SegmentDelta>,
    runs: usize,
}

impl Deltas {
    pub fn add(&mut self, tz: Tz, f: &RunFacts) {
        let (day, hour) = buckets::local_slot(tz, f.run_ms);
        let c = self
            .cases
            .entry((f.case_id, f.run_type, day, hour))
            .or_default();
        c.counts[usize::from(f.status & 3)] += 1;
        if let Some(m) = f.mos {
            c.mos.push(m);
        }
        for s in &f.segments {
            c.lat.extend_from_slice(&s.latencies);
            let d = self
                .segments
                .entry((f.case_id, f.run_type, day, hour, s.segment_id))
                .or_default();
            d.counts[usize::from(s.status & 3)] += 1;
            d.lat.extend_from_slice(&s.latencies);
        }
        self.runs += 1;
    }

    /// Runs added so far.
    pub fn runs(&self) -> usize {
        self.runs
    }

    /// Adds the changes to the rollup tables.
    pub fn apply(self, conn: &Connection) -> StoreResult<()> {
        register_functions(conn)?;
        let mut case_stmt = conn.prepare_cached(
            "INSERT INTO rollup_case_hour (test_case_id, run_type, day, hour, pass, warn, fail,
                    stopped, mos_n, mos_sum, mos_hist, lat_n, lat_sum, lat_hist)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)
             ON CONFLICT (test_case_id, run_type, day, hour) DO UPDATE SET
                    pass = pass + excluded.pass, warn = warn + excluded.warn,
                    fail = fail + excluded.fail, stopped = stopped + excluded.stopped,
                    mos_n = mos_n + excluded.mos_n, mos_sum = mos_sum + excluded.mos_sum,
                    mos_hist = cx_hist_merge(mos_hist, excluded.mos_hist),
                    lat_n = lat_n + excluded.lat_n, lat_sum = lat_sum + excluded.lat_sum,
                    lat_hist = cx_hist_merge(lat_hist, excluded.lat_hist)",
        )?;
        for ((case, rt, day, hour), mut d) in self.cases {
            let (mos_n, mos_sum, mos_hist) = hist_parts(&mut d.mos);
            let (lat_n, lat_sum, lat_hist) = hist_parts(&mut d.lat);
            case_stmt.execute(params![
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
                lat_hist
            ])?;
        }
        let mut seg_stmt = conn.prepare_cached(
            "INSERT INTO rollup_segment_hour (test_case_id, run_type, day, hour, segment_id,
                    pass, warn, fail, stopped, lat_n, lat_sum, lat_hist)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)
             ON CONFLICT (test_case_id, run_type, day, hour, segment_id) DO UPDATE SET
                    pass = pass + excluded.pass, warn = warn + excluded.warn,
                    fail = fail + excluded.fail, stopped = stopped + excluded.stopped,
                    lat_n = lat_n + excluded.lat_n, lat_sum = lat_sum + excluded.lat_sum,
                    lat_hist = cx_hist_merge(lat_hist, excluded.lat_hist)",
        )?;
        for ((case, rt, day, hour, seg), mut d) in self.segments {
            let (lat_n, lat_sum, lat_hist) = hist_parts(&mut d.lat);
            seg_stmt.execute(params![
                case,
                rt,
                day,
                hour,
                seg,
                d.counts[0],
                d.counts[1],
                d.counts[2],
                d.counts[3],
                lat_n,
                lat_sum,
                lat_hist
            ])?;
        }
        Ok(())
    }
}

fn hist_parts(values: &mut [u32]) -> (i64, i64, Option<Vec<u8>>) {
    if values.is_empty() {
        return (0, 0, None);
    }
    let n = values.len() as i64;
    let sum: i64 = values.iter().map(|&v| i64::from(v)).sum();
    (n, sum, Some(dist::encode(&dist::from_values(values))))
}

/// Registers `cx_hist_merge(a, b)` on the connection (once).
pub fn register_functions(conn: &Connection) -> StoreResult<()> {
    if conn.prepare("SELECT cx_hist_merge(NULL, NULL)").is_ok() {
        return Ok(());
    }
    conn.create_scalar_function(
        "cx_hist_merge",
        2,
        FunctionFlags::SQLITE_UTF8 | FunctionFlags::SQLITE_DETERMINISTIC,
        |ctx| {
            let blob = |i: usize| -> rusqlite::Result<Option<&[u8]>> {
                match ctx.get_raw(i) {
                    ValueRef::Null => Ok(None),
                    ValueRef::Blob(b) => Ok(Some(b)),
                    _ => Err(rusqlite::Error::UserFunctionError(
                        "cx_hist_merge takes blobs".into(),
                    )),
                }
            };
            dist::merge(blob(0)?, blob(1)?)
                .map_err(|e| rusqlite::Error::UserFunctionError(Box::new(e)))
        },
    )?;
    Ok(())
}

/// Makes sure the rollups are bucketed in `tz`: records it on first use, rebuilds them from
/// the stored runs when the site time zone changed.
pub fn ensure_tz(tx: &Transaction, tz: Tz) -> StoreResult<()> {
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

/// The facts of a stored run, from its script and results blob.
pub fn facts_of_stored(
    case_id: i64,
    run_type: u8,
    run_ms: i64,
    status: u8,
    mos: Option<u32>,
    script: &[ScriptSegment],
    results: &[u8],
) -> StoreResult<RunFacts> {
    let steps = run_detail::decode(results, run_ms)
        .map_err(|e| StoreError::Invalid(format!("stored run detail: {e}")))?;
    let mut segments = Vec::with_capacity(script.len());
    let mut at = 0usize;
    for seg in script {
        let mine = steps.get(at..at + seg.steps.len()).unwrap_or(&[]);
        at += seg.steps.len();
        segments.push(SegmentFacts {
            segment_id: seg.segment_id,
            status: mine.iter().map(|s| s.status).max().unwrap_or(status),
            latencies: mine
                .iter()
                .filter_map(|s| s.latency)
                .map(|l| l.clamp(0, i64::from(u32::MAX)) as u32)
                .collect(),
        });
    }
    Ok(RunFacts {
        case_id,
        run_type,
        run_ms,
        status,
        mos,
        segments,
    })
}

/// Recomputes every rollup from the stored runs in `tz`; returns the number of runs.
pub fn rebuild(tx: &Transaction, tz: Tz) -> StoreResult<u64> {
    tx.execute("DELETE FROM rollup_case_hour", [])?;
    tx.execute("DELETE FROM rollup_segment_hour", [])?;
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
            std::mem::take(&mut deltas).apply(tx)?;
        }
        if seen == 0 {
            break;
        }
    }
    Ok(total)
}

/// The segments of a stored script.
pub fn load_script(conn: &Connection, id: i64) -> StoreResult<Vec<ScriptSegment>> {
    let body: String = conn
        .prepare_cached("SELECT body FROM run_scripts WHERE id = ?1")?
        .query_row([id], |r| r.get(0))?;
    serde_json::from_str(&body).map_err(|e| StoreError::Invalid(format!("stored script {id}: {e}")))
}
