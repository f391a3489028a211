//! SQLite: [`RunStore`]. Ingest writes a batch run by run with cached statements in one
//! transaction (the rollups and the alert engine in it too); the run lists and a run's
//! detail read the runs through their indexes.

use std::collections::{HashMap, HashSet};

use async_trait::async_trait;
use chrono_tz::Tz;
use rusqlite::{params, Connection, OptionalExtension, Transaction};

use crate::domain::caller::{Scope, Visibility};
use crate::domain::ingest::IngestRun;
use crate::domain::page::{Page, PageRequest};
use crate::domain::run::{Channel, RunSortField, RunStatus, RunType};
use crate::store::catalog::{case_visibility, group_visibility, status_texts};
use crate::store::channel_of;
use crate::store::rollups::{mos_units, Deltas, RunFacts};
use crate::store::run_detail;
use crate::store::runs::{
    engine_key, ms_to_time, recording_refs, segment_details, status_text, GroupName,
    GroupRunFilter, IngestOutcome, Rejected, RunDetail, RunExtent, RunFilter, RunRow, RunStore,
    StoredRun,
};
use crate::store::sql::{self, Lite};
use crate::store::{now_secs, Sqlite, StoreError, StoreResult};

use super::rollups;

#[async_trait]
impl RunStore for Sqlite {
    async fn ingest_runs(&self, tz: Tz, runs: Vec<IngestRun>) -> StoreResult<IngestOutcome> {
        let data_dir = self.data_dir();
        let options = self
            .inner
            .alerting
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        let view = self.inner.engine_view.clone();
        self.write(move |tx| {
            let mut out = ingest(tx, tz, &runs)?;
            // The alert engine, in the same transaction: each stored run is evaluated once.
            // Runs a maintenance window covers are marked and left out.
            let kept = sql::finish(crate::store::maintenance::mark_in(
                &Lite(tx),
                tz,
                &out.evaluated,
            ))?;
            out.alerts = super::alerts::evaluate(tx, tz, &data_dir, &options, &view, &kept)?;
            out.evaluated.clear();
            Ok(out)
        })
        .await
    }

    async fn case_runs(
        &self,
        scope: Scope,
        filter: RunFilter,
        page: PageRequest,
    ) -> StoreResult<Visibility<Page<RunRow>>> {
        self.read(move |c| {
            sql::finish(case_visibility(&Lite(c), scope, filter.test_case_id))?
                .try_map(|()| list(c, &filter, page))
        })
        .await
    }

    async fn run(&self, scope: Scope, id: i64) -> StoreResult<Visibility<RunDetail>> {
        self.read(move |c| {
            let Some(case) = case_of_run(c, id)? else {
                return Ok(Visibility::Missing);
            };
            if let Err(unseen) = sql::finish(case_visibility(&Lite(c), scope, case))?.visible() {
                return Ok(unseen);
            }
            let Some(mut d) = get(c, id)? else {
                return Ok(Visibility::Missing);
            };
            d.groups = case_groups(c, scope, case)?;
            Ok(Visibility::Visible(d))
        })
        .await
    }

    async fn group_runs(
        &self,
        scope: Scope,
        filter: GroupRunFilter,
        page: PageRequest,
    ) -> StoreResult<Visibility<Page<RunRow>>> {
        self.read(move |c| {
            sql::finish(group_visibility(&Lite(c), scope, filter.group_id))?
                .try_map(|()| list_group(c, &filter, page))
        })
        .await
    }

    async fn rebuild_rollups(&self, tz: Tz) -> StoreResult<u64> {
        self.write(move |tx| rollups::rebuild(tx, tz)).await
    }

    async fn run_extent(&self) -> StoreResult<RunExtent> {
        self.read(|c| {
            let (n, lo, hi): (Option<i64>, Option<i64>, Option<i64>) = c.query_row(
                "SELECT max(id), min(run_time), max(run_time) FROM test_runs",
                [],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )?;
            Ok(RunExtent {
                runs: n.unwrap_or(0).max(0) as u64,
                first: lo.map(ms_to_time),
                last: hi.map(ms_to_time),
            })
        })
        .await
    }

    async fn checkpoint(&self) -> StoreResult<u64> {
        self.write(|_| Ok(())).await?;
        let inner = self.inner.clone();
        tokio::task::spawn_blocking(move || {
            let conn = inner.writer.lock().unwrap_or_else(|e| e.into_inner());
            let frames: i64 =
                conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |r| r.get(1))?;
            Ok(frames.max(0) as u64)
        })
        .await
        .map_err(|e| StoreError::Task(e.to_string()))?
    }

    async fn table_sizes(&self) -> StoreResult<Vec<(String, u64)>> {
        self.read(|c| {
            let mut stmt =
                c.prepare("SELECT name, sum(pgsize) FROM dbstat GROUP BY name ORDER BY 2 DESC")?;
            let rows = stmt
                .query_map([], |r| {
                    Ok((
                        r.get::<_, String>("name")?,
                        r.get::<_, i64>(1)?.max(0) as u64,
                    ))
                })?
                .collect::<Result<Vec<_>, _>>()?;
            Ok(rows)
        })
        .await
    }
}

struct CaseState {
    name: String,
    channel: String,
    ivr_id: i64,
    script_id: Option<i64>,
    script_hash: Option<Vec<u8>>,
}

/// Per-batch caches of what is already in the database.
struct Batch<'t> {
    tx: &'t Transaction<'t>,
    cases: HashMap<i64, Option<CaseState>>,
    ivrs: HashMap<i64, (String, Channel)>,
    scripts: HashMap<[u8; 32], i64>,
    texts: HashMap<String, i64>,
    recordings: HashMap<String, Option<i64>>,
    recording_cases: HashSet<(i64, i64)>,
}

impl<'t> Batch<'t> {
    fn new(tx: &'t Transaction<'t>) -> Self {
        Batch {
            tx,
            cases: HashMap::new(),
            ivrs: HashMap::new(),
            scripts: HashMap::new(),
            texts: HashMap::new(),
            recordings: HashMap::new(),
            recording_cases: HashSet::new(),
        }
    }

    fn recording(&mut self, id: &str) -> StoreResult<Option<i64>> {
        if let Some(r) = self.recordings.get(id) {
            return Ok(*r);
        }
        let row: Option<i64> = self
            .tx
            .prepare_cached("SELECT id FROM recordings WHERE sha256 = ?1")?
            .query_row([id], |r| r.get("id"))
            .optional()?;
        self.recordings.insert(id.to_string(), row);
        Ok(row)
    }

    /// Row ids of every recording the run refers to, or why one is unknown.
    fn recordings_of(
        &mut self,
        run: &IngestRun,
    ) -> StoreResult<Result<HashMap<String, i64>, String>> {
        let mut found = HashMap::new();
        let refs = recording_refs(run);
        for (at, id) in refs {
            match self.recording(id)? {
                Some(row) => {
                    found.insert(id.to_string(), row);
                }
                None => {
                    return Ok(Err(format!(
                        "{at} {id} is not a stored recording (upload it first: POST /api/ingest/v1/recordings)"
                    )))
                }
            }
        }
        Ok(Ok(found))
    }

    /// Reads the stored state of test case `id` into the batch's cache, once per batch.
    fn load_case(&mut self, id: i64) -> StoreResult<()> {
        if self.cases.contains_key(&id) {
            return Ok(());
        }
        let state = self
            .tx
            .prepare_cached(
                "SELECT tc.name, tc.channel, tc.ivr_id, tc.script_id, s.hash
                   FROM test_cases tc LEFT JOIN run_scripts s ON s.id = tc.script_id
                  WHERE tc.id = ?1",
            )?
            .query_row([id], |r| {
                Ok(CaseState {
                    name: r.get("name")?,
                    channel: r.get("channel")?,
                    ivr_id: r.get("ivr_id")?,
                    script_id: r.get("script_id")?,
                    script_hash: r.get("hash")?,
                })
            })
            .optional()?;
        self.cases.insert(id, state);
        Ok(())
    }

    /// A test case (and its IVR application) keeps the channel it was first stored with:
    /// groups are of one channel, so a run cannot move a test case from voice to web.
    fn same_channel(&mut self, run: &IngestRun) -> StoreResult<Result<(), String>> {
        let tc = &run.test_case;
        let wanted = tc.channel.as_str();
        self.load_case(tc.id)?;
        if let Some(Some(state)) = self.cases.get(&tc.id) {
            if state.channel != wanted {
                return Ok(Err(format!(
                    "testCase {} is a {} test case; a run cannot change its channel to {wanted}",
                    tc.id, state.channel
                )));
            }
        }
        let ivr_channel: Option<String> = match self.ivrs.get(&tc.ivr.id) {
            Some((_, c)) => Some(c.as_str().to_string()),
            None => self
                .tx
                .prepare_cached("SELECT channel FROM ivr_apps WHERE id = ?1")?
                .query_row([tc.ivr.id], |r| r.get("channel"))
                .optional()?,
        };
        if let Some(c) = ivr_channel.filter(|c| c != wanted) {
            return Ok(Err(format!(
                "testCase.ivr {} is a {c} IVR application; a {wanted} test case cannot use it",
                tc.ivr.id
            )));
        }
        Ok(Ok(()))
    }

    fn is_known(&self, engine_run_id: &str) -> StoreResult<bool> {
        let found: Option<i64> = self
            .tx
            .prepare_cached("SELECT run_id FROM run_keys WHERE engine_key = ?1")?
            .query_row([&engine_key(engine_run_id)[..]], |r| r.get("run_id"))
            .optional()?;
        Ok(found.is_some())
    }

    fn text(&mut self, body: &str) -> StoreResult<i64> {
        if let Some(&id) = self.texts.get(body) {
            return Ok(id);
        }
        let found: Option<i64> = self
            .tx
            .prepare_cached("SELECT id FROM texts WHERE body = ?1")?
            .query_row([body], |r| r.get("id"))
            .optional()?;
        let id = match found {
            Some(id) => id,
            None => {
                self.tx
                    .prepare_cached("INSERT INTO texts (body) VALUES (?1)")?
                    .execute([body])?;
                self.tx.last_insert_rowid()
            }
        };
        self.texts.insert(body.to_string(), id);
        Ok(id)
    }

    /// Creates or updates the run's test case and IVR application, and its script; returns
    /// the script id.
    fn case_and_script(&mut self, run: &IngestRun) -> StoreResult<i64> {
        let tc = &run.test_case;
        let ivr = &tc.ivr;
        let ivr_name = ivr.name.trim();
        if self.ivrs.get(&ivr.id) != Some(&(ivr_name.to_string(), tc.channel)) {
            self.tx
                .prepare_cached(
                    "INSERT INTO ivr_apps (id, name, channel) VALUES (?1, ?2, ?3)
                     ON CONFLICT (id) DO UPDATE SET name = excluded.name, channel = excluded.channel
                      WHERE name IS NOT excluded.name OR channel IS NOT excluded.channel",
                )?
                .execute(params![ivr.id, ivr_name, tc.channel.as_str()])?;
            self.ivrs.insert(ivr.id, (ivr_name.to_string(), tc.channel));
        }
        self.load_case(tc.id)?;
        let name = tc.name.trim();
        let now = now_secs();
        let state = self.cases.get(&tc.id).and_then(Option::as_ref);
        let changed = match &state {
            Some(s) => s.name != name || s.channel != tc.channel.as_str() || s.ivr_id != ivr.id,
            None => true,
        };
        if changed {
            self.tx
                .prepare_cached(
                    "INSERT INTO test_cases (id, name, channel, ivr_id, updated_at)
                     VALUES (?1, ?2, ?3, ?4, ?5)
                     ON CONFLICT (id) DO UPDATE SET name = excluded.name,
                            channel = excluded.channel, ivr_id = excluded.ivr_id,
                            updated_at = excluded.updated_at",
                )?
                .execute(params![tc.id, name, tc.channel.as_str(), ivr.id, now])?;
        }
        let hash = run_detail::script_hash(run);
        let (mut script_id, mut script_hash) = match &state {
            Some(s) => (s.script_id, s.script_hash.clone()),
            None => (None, None),
        };
        let current = script_hash.as_deref() == Some(&hash[..]);
        if !current {
            let id = match self.scripts.get(&hash) {
                Some(&id) => id,
                None => {
                    let found: Option<i64> = self
                        .tx
                        .prepare_cached("SELECT id FROM run_scripts WHERE hash = ?1")?
                        .query_row([&hash[..]], |r| r.get("id"))
                        .optional()?;
                    let id = match found {
                        Some(id) => id,
                        None => {
                            let (_, body) = run_detail::script_of(run);
                            self.tx
                                .prepare_cached(
                                    "INSERT INTO run_scripts (hash, body) VALUES (?1, ?2)",
                                )?
                                .execute(params![&hash[..], body])?;
                            self.tx.last_insert_rowid()
                        }
                    };
                    self.scripts.insert(hash, id);
                    id
                }
            };
            let mut seg_stmt = self.tx.prepare_cached(
                "INSERT INTO segments (test_case_id, segment_id, name) VALUES (?1, ?2, ?3)
                 ON CONFLICT (test_case_id, segment_id) DO UPDATE SET name = excluded.name
                  WHERE name IS NOT excluded.name",
            )?;
            for seg in &run.segments {
                seg_stmt.execute(params![tc.id, seg.segment_id, seg.segment_name.trim()])?;
            }
            self.tx
                .prepare_cached("UPDATE test_cases SET script_id = ?2 WHERE id = ?1")?
                .execute(params![tc.id, id])?;
            script_id = Some(id);
            script_hash = Some(hash.to_vec());
        }
        let script_id = script_id.unwrap_or_default();
        self.cases.insert(
            tc.id,
            Some(CaseState {
                name: name.to_string(),
                channel: tc.channel.as_str().to_string(),
                ivr_id: ivr.id,
                script_id: Some(script_id),
                script_hash,
            }),
        );
        Ok(script_id)
    }

    fn store(&mut self, run: &IngestRun, recordings: &HashMap<String, i64>) -> StoreResult<i64> {
        let script_id = self.case_and_script(run)?;
        let run_ms = run.run_time.timestamp_millis();
        let results = run_detail::stored_results(run, recordings, |u| self.text(u))?;
        let blob = run_detail::encode(run_ms, &results);
        let recording = run
            .recording_id
            .as_ref()
            .and_then(|id| recordings.get(id).copied());
        self.tx
            .prepare_cached(
                "INSERT INTO test_runs (test_case_id, run_time, duration_ms, status, run_type, mos,
                        recording_id, script_id, results)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
            )?
            .execute(params![
                run.test_case.id,
                run_ms,
                run_detail::secs_to_ms(run.run_duration),
                run.status.code(),
                run.run_type.code(),
                run.mos_cq_in.map(mos_units),
                recording,
                script_id,
                blob
            ])?;
        let run_id = self.tx.last_insert_rowid();
        self.tx
            .prepare_cached("INSERT INTO run_keys (engine_key, run_id) VALUES (?1, ?2)")?
            .execute(params![&engine_key(&run.engine_run_id)[..], run_id])?;
        for &rec in recordings.values() {
            if self.recording_cases.insert((rec, run.test_case.id)) {
                self.tx
                    .prepare_cached(
                        "INSERT OR IGNORE INTO recording_cases (recording_id, test_case_id)
                         VALUES (?1, ?2)",
                    )?
                    .execute(params![rec, run.test_case.id])?;
            }
        }
        Ok(run_id)
    }
}

/// Stores a batch of runs in the transaction `tx`: creates or updates their test cases,
/// IVR applications and segments, skips runs whose `engineRunId` is already stored, rejects
/// invalid runs (index and reason; nothing of them is written) and adds the stored runs to
/// the rollups, bucketed in the site time zone `tz`. Recordings a run refers to must be
/// stored first ([`RecordingStore::put_recording`](crate::store::RecordingStore::put_recording)).
fn ingest(tx: &Transaction, tz: Tz, runs: &[IngestRun]) -> StoreResult<IngestOutcome> {
    tx.set_prepared_statement_cache_capacity(64);
    rollups::register_functions(tx)?;
    rollups::ensure_tz(tx, tz)?;
    let mut out = IngestOutcome::default();
    let mut batch = Batch::new(tx);
    let mut deltas = Deltas::default();
    for (index, run) in runs.iter().enumerate() {
        if let Err(reason) = run.validate() {
            out.rejected.push(Rejected { index, reason });
            continue;
        }
        if batch.is_known(&run.engine_run_id)? {
            out.duplicates += 1;
            continue;
        }
        if let Err(reason) = batch.same_channel(run)? {
            out.rejected.push(Rejected { index, reason });
            continue;
        }
        let recordings = match batch.recordings_of(run)? {
            Ok(r) => r,
            Err(reason) => {
                out.rejected.push(Rejected { index, reason });
                continue;
            }
        };
        let run_id = batch.store(run, &recordings)?;
        out.evaluated.push(crate::store::alerts::Evaluated {
            run_id,
            test_case_id: run.test_case.id,
            run_ms: run.run_time.timestamp_millis(),
            status_id: run.status.status_id(),
        });
        deltas.add(tz, &RunFacts::of_ingest(run));
        out.accepted += 1;
        out.stored.push(StoredRun {
            test_case_id: run.test_case.id,
            channel: run.test_case.channel,
            status: run.status,
            run_time: run.run_time.timestamp(),
            group_ids: Vec::new(),
        });
    }
    rollups::apply(tx, deltas)?;
    let mut groups_of = std::collections::HashMap::<i64, Vec<i64>>::new();
    for stored in &mut out.stored {
        if let std::collections::hash_map::Entry::Vacant(slot) =
            groups_of.entry(stored.test_case_id)
        {
            let ids = tx
                .prepare_cached("SELECT group_id FROM group_cases WHERE test_case_id = ?1")?
                .query_map([stored.test_case_id], |r| r.get("group_id"))?
                .collect::<Result<Vec<i64>, _>>()?;
            slot.insert(ids);
        }
        stored.group_ids = groups_of[&stored.test_case_id].clone();
    }
    Ok(out)
}

/// One page of the filtered runs, newest first, and how many match in all.
fn list(conn: &Connection, f: &RunFilter, page: PageRequest) -> StoreResult<Page<RunRow>> {
    let texts = sql::finish(status_texts(&Lite(conn)))?;
    let name: String = conn
        .prepare_cached("SELECT name FROM test_cases WHERE id = ?1")?
        .query_row([f.test_case_id], |r| r.get("name"))
        .optional()?
        .ok_or_else(|| {
            StoreError::NotFound(format!("Test case {} does not exist.", f.test_case_id))
        })?;
    let args = params![
        f.test_case_id,
        f.from_ms,
        f.to_ms,
        f.status.0,
        f.status.1,
        f.run_type.0,
        f.run_type.1
    ];
    let total: i64 = conn
        .prepare_cached(
            "SELECT count(*) FROM test_runs
              WHERE test_case_id = ?1 AND run_time >= ?2 AND run_time < ?3
                AND status BETWEEN ?4 AND ?5 AND run_type BETWEEN ?6 AND ?7",
        )?
        .query_row(args, |r| r.get(0))?;
    let order = f.sort.map_or_else(
        || "run_time DESC, status DESC, run_type DESC, id DESC".to_string(),
        |s| RunSortField::order_by(s, "", "''"),
    );
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT id, run_time, duration_ms, status, run_type, mos FROM test_runs
          WHERE test_case_id = ?1 AND run_time >= ?2 AND run_time < ?3
            AND status BETWEEN ?4 AND ?5 AND run_type BETWEEN ?6 AND ?7
          ORDER BY {order}
          LIMIT ?8 OFFSET ?9"
    ))?;
    let rows = stmt
        .query_map(
            params![
                f.test_case_id,
                f.from_ms,
                f.to_ms,
                f.status.0,
                f.status.1,
                f.run_type.0,
                f.run_type.1,
                page.size,
                page.offset()
            ],
            |r| {
                let status = RunStatus::from_code(r.get("status")?).unwrap_or(RunStatus::Fail);
                Ok(RunRow {
                    id: r.get("id")?,
                    test_case_id: f.test_case_id,
                    test_case_name: name.clone(),
                    run_time: ms_to_time(r.get("run_time")?),
                    duration_ms: r.get("duration_ms")?,
                    status,
                    run_type: RunType::from_code(r.get("run_type")?).unwrap_or(RunType::Manual),
                    mos: r.get("mos")?,
                    status_text: status_text(&texts, status),
                })
            },
        )?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Page {
        items: rows,
        total: total.max(0) as u64,
    })
}

/// One page of the filtered runs of a group's test cases, newest first, and how many match.
/// Each test case's runs are read through `test_runs_case_time`, so an hour of a large
/// group reads only that hour's rows.
fn list_group(
    conn: &Connection,
    f: &GroupRunFilter,
    page: PageRequest,
) -> StoreResult<Page<RunRow>> {
    let texts = sql::finish(status_texts(&Lite(conn)))?;
    const WHERE: &str =
        "r.test_case_id IN (SELECT test_case_id FROM group_cases WHERE group_id = ?1)
            AND r.run_time >= ?2 AND r.run_time < ?3
            AND r.status BETWEEN ?4 AND ?5 AND r.run_type BETWEEN ?6 AND ?7";
    let total: i64 = conn
        .prepare_cached(&format!("SELECT count(*) FROM test_runs r WHERE {WHERE}"))?
        .query_row(
            params![
                f.group_id,
                f.from_ms,
                f.to_ms,
                f.status.0,
                f.status.1,
                f.run_type.0,
                f.run_type.1
            ],
            |r| r.get(0),
        )?;
    let order = f.sort.map_or_else(
        || "r.run_time DESC, r.id DESC".to_string(),
        |s| RunSortField::order_by(s, "r.", "tc.name COLLATE NOCASE"),
    );
    let mut stmt = conn.prepare_cached(&format!(
        "SELECT r.id, r.test_case_id, tc.name, r.run_time, r.duration_ms, r.status,
                r.run_type, r.mos
           FROM test_runs r JOIN test_cases tc ON tc.id = r.test_case_id
          WHERE {WHERE}
          ORDER BY {order}
          LIMIT ?8 OFFSET ?9"
    ))?;
    let rows = stmt
        .query_map(
            params![
                f.group_id,
                f.from_ms,
                f.to_ms,
                f.status.0,
                f.status.1,
                f.run_type.0,
                f.run_type.1,
                page.size,
                page.offset()
            ],
            |r| {
                let status = RunStatus::from_code(r.get("status")?).unwrap_or(RunStatus::Fail);
                Ok(RunRow {
                    id: r.get("id")?,
                    test_case_id: r.get("test_case_id")?,
                    test_case_name: r.get("name")?,
                    run_time: ms_to_time(r.get("run_time")?),
                    duration_ms: r.get("duration_ms")?,
                    status,
                    run_type: RunType::from_code(r.get("run_type")?).unwrap_or(RunType::Manual),
                    mos: r.get("mos")?,
                    status_text: status_text(&texts, status),
                })
            },
        )?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Page {
        items: rows,
        total: total.max(0) as u64,
    })
}

/// The groups of test case `case` the scope may see, by name.
fn case_groups(conn: &Connection, scope: Scope, case: i64) -> StoreResult<Vec<GroupName>> {
    let user = match scope {
        Scope::All => None,
        Scope::User(u) => Some(u),
    };
    let mut stmt = conn.prepare_cached(
        "SELECT g.id, g.name FROM group_cases gc JOIN test_case_groups g ON g.id = gc.group_id
          WHERE gc.test_case_id = ?1
            AND (?2 IS NULL OR g.id IN (SELECT group_id FROM user_groups WHERE user_id = ?2))
          ORDER BY g.name COLLATE NOCASE, g.id",
    )?;
    let rows = stmt
        .query_map(params![case, user], |r| {
            Ok(GroupName {
                id: r.get("id")?,
                name: r.get("name")?,
            })
        })?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(rows)
}

/// The test case of run `id`, if the run exists (for permission checks).
fn case_of_run(conn: &Connection, id: i64) -> StoreResult<Option<i64>> {
    Ok(conn
        .prepare_cached("SELECT test_case_id FROM test_runs WHERE id = ?1")?
        .query_row([id], |r| r.get("test_case_id"))
        .optional()?)
}

/// Run `id` with its segments and steps.
fn get(conn: &Connection, id: i64) -> StoreResult<Option<RunDetail>> {
    let texts = sql::finish(status_texts(&Lite(conn)))?;
    let row = conn
        .prepare_cached(
            "SELECT r.test_case_id, tc.name, r.run_time, r.duration_ms, r.status, r.run_type,
                    r.mos, r.recording_id, r.script_id, r.results, tc.channel, tc.ivr_id, i.name
               FROM test_runs r JOIN test_cases tc ON tc.id = r.test_case_id
               JOIN ivr_apps i ON i.id = tc.ivr_id
              WHERE r.id = ?1",
        )?
        .query_row([id], |r| {
            let status = RunStatus::from_code(r.get("status")?).unwrap_or(RunStatus::Fail);
            Ok((
                RunRow {
                    id,
                    test_case_id: r.get("test_case_id")?,
                    test_case_name: r.get(1)?,
                    run_time: ms_to_time(r.get("run_time")?),
                    duration_ms: r.get("duration_ms")?,
                    status,
                    run_type: RunType::from_code(r.get("run_type")?).unwrap_or(RunType::Manual),
                    mos: r.get("mos")?,
                    status_text: status_text(&texts, status),
                },
                r.get::<_, Option<i64>>("recording_id")?,
                r.get::<_, i64>("script_id")?,
                r.get::<_, Vec<u8>>("results")?,
                channel_of(&r.get::<_, String>("channel")?)?,
                r.get::<_, i64>("ivr_id")?,
                r.get::<_, String>(12)?,
            ))
        })
        .optional()?;
    let Some((run, recording, script_id, blob, channel, ivr_id, ivr_name)) = row else {
        return Ok(None);
    };
    let run_ms = run.run_time.timestamp_millis();
    let script = rollups::load_script(conn, script_id)?;
    let results = run_detail::decode(&blob, run_ms)
        .map_err(|e| StoreError::Invalid(format!("stored run {id}: {e}")))?;
    let mut text_stmt = conn.prepare_cached("SELECT body FROM texts WHERE id = ?1")?;
    let mut rec_cache: HashMap<i64, Option<String>> = HashMap::new();
    let mut rec_id = |row: i64| -> StoreResult<Option<String>> {
        if let Some(v) = rec_cache.get(&row) {
            return Ok(v.clone());
        }
        let v = recording_id_of_row(conn, row)?;
        rec_cache.insert(row, v.clone());
        Ok(v)
    };
    let segments = segment_details(
        script,
        results,
        |t| Ok(text_stmt.query_row([t], |x| x.get("body")).optional()?),
        &mut rec_id,
    )?;
    let recording_id = match recording {
        Some(row) => rec_id(row)?,
        None => None,
    };
    Ok(Some(RunDetail {
        run,
        channel,
        ivr_id,
        ivr_name,
        groups: Vec::new(),
        recording_id,
        segments,
    }))
}

/// The public id of a recording row.
fn recording_id_of_row(conn: &Connection, row_id: i64) -> StoreResult<Option<String>> {
    let id = conn
        .prepare_cached("SELECT sha256 FROM recordings WHERE id = ?1")?
        .query_row([row_id], |r| r.get("sha256"))
        .optional()?;
    Ok(id)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::runs::tests::random_batches;
    use chrono_tz::America::Toronto;

    fn store() -> (tempfile::TempDir, Sqlite) {
        let dir = tempfile::tempdir().unwrap();
        let s = Sqlite::open(dir.path(), crate::store::StoreOptions::default()).unwrap();
        (dir, s)
    }

    type Tables = (
        Vec<Vec<rusqlite::types::Value>>,
        Vec<Vec<rusqlite::types::Value>>,
    );

    async fn rollup_tables(store: &Sqlite) -> Tables {
        store
            .read(|c| {
                let dump = |sql: &str| -> StoreResult<Vec<Vec<rusqlite::types::Value>>> {
                    let mut stmt = c.prepare(sql)?;
                    let n = stmt.column_count();
                    let rows = stmt
                        .query_map([], |r| (0..n).map(|i| r.get(i)).collect())?
                        .collect::<Result<_, _>>()?;
                    Ok(rows)
                };
                Ok((
                    dump("SELECT * FROM rollup_hour ORDER BY 1, 2, 3, 4")?,
                    dump("SELECT count(*) FROM rollup_hour WHERE segments IS NOT NULL")?,
                ))
            })
            .await
            .unwrap()
    }

    #[tokio::test]
    async fn incremental_rollups_equal_a_rebuild() {
        let (_dir, store) = store();
        for batch in random_batches(7, 8, 60) {
            store.ingest_runs(Toronto, batch).await.unwrap();
        }
        let incremental = rollup_tables(&store).await;
        assert!(!incremental.0.is_empty());
        let runs = store.rebuild_rollups(Toronto).await.unwrap();
        assert!(runs > 100, "{runs}");
        assert_eq!(rollup_tables(&store).await, incremental);
        // A new site time zone rebuilds on the next ingest.
        let utc: Tz = "UTC".parse().unwrap();
        store.ingest_runs(utc, vec![]).await.unwrap();
        let rebucketed = rollup_tables(&store).await;
        assert_ne!(rebucketed, incremental);
        store.rebuild_rollups(utc).await.unwrap();
        assert_eq!(rollup_tables(&store).await, rebucketed);
    }
}
