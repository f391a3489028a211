//! PostgreSQL: [`RunStore`](crate::store::RunStore).
//!
//! Ingest stores a batch in one transaction with a few statements whatever its size: the
//! lookups it needs (engine keys already stored, test cases, IVR applications, recordings,
//! scripts, texts) in one pipelined round trip with `= ANY($1)`, the batch checked and
//! built in memory as SQLite's ingest does run by run, then one multi-row upsert per
//! catalog table (`unnest` arrays), the runs and their keys by `COPY ... FROM STDIN
//! BINARY` with ids taken from the identity sequence first, and the rollup rows the batch
//! touches read `FOR UPDATE`, merged in Rust (the histogram and segment blobs) and written
//! back with one `INSERT ... ON CONFLICT DO UPDATE`.
//!
//! Several instances may ingest into one database at once: each batch takes the
//! transaction-scoped advisory lock [`INGEST_LOCK`] first, so batches are applied one after
//! the other as on SQLite's single writer. That keeps the engine-key dedupe, the read,
//! merge and write of rollup rows and the alert engine's per-test-case state exact (two
//! batches with runs of one test case must be evaluated in order) without deadlocks; the
//! work done under the lock is a handful of set-based statements. The transaction is READ
//! COMMITTED whatever the server's default, so the statements after the lock see what the
//! batches before it committed. PostgreSQL has no `checkpoint` of ours to run (its own
//! checkpointer empties its log): [`RunStore::checkpoint`] answers 0.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use async_trait::async_trait;

use crate::store::sql::Pg;
use chrono_tz::Tz;
use deadpool_postgres::GenericClient;
use futures_util::pin_mut;
use tokio_postgres::binary_copy::BinaryCopyInWriter;
use tokio_postgres::types::{ToSql, Type};
use tokio_postgres::Row;

use super::{Postgres, Tx};
use crate::domain::caller::{Scope, Visibility};
use crate::domain::dist;
use crate::domain::ingest::IngestRun;
use crate::domain::page::{Page, PageRequest};
use crate::domain::run::{RunSortField, RunStatus, RunType};
use crate::store::alerts::Evaluated;
use crate::store::catalog::{case_visibility, channel, group_visibility, status_texts};
use crate::store::rollups::{self, Deltas, RunFacts};
use crate::store::run_detail::{self, ScriptSegment};
use crate::store::runs::{
    engine_key, ms_to_time, recording_refs, segment_details, status_text, GroupName,
    GroupRunFilter, IngestOutcome, Rejected, RunDetail, RunExtent, RunFilter, RunRow, StoredRun,
};
use crate::store::RunStore;
use crate::store::{now_secs, StoreError, StoreResult};

use super::INGEST_LOCK;

#[async_trait]
impl RunStore for Postgres {
    async fn ingest_runs(&self, tz: Tz, runs: Vec<IngestRun>) -> StoreResult<IngestOutcome> {
        let options = self
            .alerting
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        let mut c = self.client().await?;
        let tx = read_committed(&mut c).await?;
        let mut out = ingest(&tx, tz, &runs).await?;
        // The alert engine, in the same transaction: each stored run is evaluated once.
        // Runs a maintenance window covers are marked and left out.
        let kept = crate::store::maintenance::mark_in(&Pg(&tx), tz, &out.evaluated).await?;
        out.alerts = super::alerts::evaluate(&tx, tz, &options, &self.engine_view, &kept).await?;
        out.evaluated.clear();
        tx.commit().await?;
        Ok(out)
    }

    async fn case_runs(
        &self,
        scope: Scope,
        filter: RunFilter,
        page: PageRequest,
    ) -> StoreResult<Visibility<Page<RunRow>>> {
        let c = self.client().await?;
        let seen = case_visibility(&Pg(&c), scope, filter.test_case_id).await?;
        if let Err(unseen) = seen.visible() {
            return Ok(unseen);
        }
        Ok(Visibility::Visible(list(&c, &filter, page).await?))
    }

    async fn run(&self, scope: Scope, id: i64) -> StoreResult<Visibility<RunDetail>> {
        let c = self.client().await?;
        let case: Option<i64> = c
            .query_opt(
                &c.prepare_cached("SELECT test_case_id FROM test_runs WHERE id = $1")
                    .await?,
                &[&id],
            )
            .await?
            .map(|r| r.get("test_case_id"));
        let Some(case) = case else {
            return Ok(Visibility::Missing);
        };
        if let Err(unseen) = case_visibility(&Pg(&c), scope, case).await?.visible() {
            return Ok(unseen);
        }
        let Some(mut d) = get(&c, id).await? else {
            return Ok(Visibility::Missing);
        };
        d.groups = case_groups(&c, scope, case).await?;
        Ok(Visibility::Visible(d))
    }

    async fn group_runs(
        &self,
        scope: Scope,
        filter: GroupRunFilter,
        page: PageRequest,
    ) -> StoreResult<Visibility<Page<RunRow>>> {
        let c = self.client().await?;
        let seen = group_visibility(&Pg(&c), scope, filter.group_id).await?;
        if let Err(unseen) = seen.visible() {
            return Ok(unseen);
        }
        Ok(Visibility::Visible(list_group(&c, &filter, page).await?))
    }

    async fn rebuild_rollups(&self, tz: Tz) -> StoreResult<u64> {
        let mut c = self.client().await?;
        let tx = read_committed(&mut c).await?;
        tx.execute("SELECT pg_advisory_xact_lock($1)", &[&INGEST_LOCK])
            .await?;
        let n = rebuild(&tx, tz).await?;
        tx.commit().await?;
        Ok(n)
    }

    async fn run_extent(&self) -> StoreResult<RunExtent> {
        let c = self.client().await?;
        let r = c
            .query_one(
                "SELECT max(id), min(run_time), max(run_time) FROM test_runs",
                &[],
            )
            .await?;
        let (n, lo, hi): (Option<i64>, Option<i64>, Option<i64>) = (r.get(0), r.get(1), r.get(2));
        Ok(RunExtent {
            runs: n.unwrap_or(0).max(0) as u64,
            first: lo.map(ms_to_time),
            last: hi.map(ms_to_time),
        })
    }

    /// PostgreSQL checkpoints its write-ahead log itself (and `CHECKPOINT` needs a
    /// privileged role): nothing to do, no log pages of ours to report.
    async fn checkpoint(&self) -> StoreResult<u64> {
        Ok(0)
    }

    /// Each table of the schema with its indexes and TOAST (`pg_total_relation_size`),
    /// largest first.
    async fn table_sizes(&self) -> StoreResult<Vec<(String, u64)>> {
        let c = self.client().await?;
        let rows = c
            .query(
                "SELECT c.relname::TEXT, pg_total_relation_size(c.oid)
                   FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
                  WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p', 'm')
                  ORDER BY 2 DESC, 1",
                &[],
            )
            .await?;
        Ok(rows
            .iter()
            .map(|r| (r.get::<_, String>(0), r.get::<_, i64>(1).max(0) as u64))
            .collect())
    }
}

/// A READ COMMITTED transaction whatever the server's default: the statements after
/// [`INGEST_LOCK`] is taken must see what the batches before committed.
async fn read_committed(c: &mut super::Client) -> StoreResult<Tx<'_>> {
    Ok(c.build_transaction()
        .isolation_level(tokio_postgres::IsolationLevel::ReadCommitted)
        .start()
        .await?)
}

/// Prepares (once per connection) and runs a query.
async fn rows(
    c: &impl GenericClient,
    sql: &str,
    params: &[&(dyn ToSql + Sync)],
) -> Result<Vec<Row>, tokio_postgres::Error> {
    let stmt = c.prepare_cached(sql).await?;
    c.query(&stmt, params).await
}

/// Prepares (once per connection) and runs a statement.
async fn exec(
    c: &impl GenericClient,
    sql: &str,
    params: &[&(dyn ToSql + Sync)],
) -> Result<u64, tokio_postgres::Error> {
    let stmt = c.prepare_cached(sql).await?;
    c.execute(&stmt, params).await
}

fn corrupt(what: &str, e: impl std::fmt::Display) -> StoreError {
    StoreError::Invalid(format!("stored {what}: {e}"))
}

/// A test case as stored (or as the batch has made it so far).
#[derive(Clone)]
struct CaseState {
    name: String,
    channel: String,
    ivr_id: i64,
    script_hash: Option<Vec<u8>>,
    updated_at: i64,
    /// The batch changed it: it is written back.
    dirty: bool,
}

/// Stores a batch in the transaction `tx` ([`store_batch`]), its refusals in batch order.
async fn ingest(tx: &Tx<'_>, tz: Tz, runs: &[IngestRun]) -> StoreResult<IngestOutcome> {
    let mut out = store_batch(tx, tz, runs).await?;
    // Refusals in batch order, whichever check refused them.
    out.rejected.sort_by_key(|r| r.index);
    Ok(out)
}

/// A run of the batch that passed its own checks, with its keys.
struct Valid<'a> {
    /// Its place in the batch.
    index: usize,
    run: &'a IngestRun,
    /// Its engine run id's key (`run_keys`).
    key: [u8; 16],
    /// Its script's hash (`run_scripts`).
    script: [u8; 32],
}

/// A run the batch stores, with what its row needs.
struct Accepted<'a> {
    run: &'a IngestRun,
    key: [u8; 16],
    script: [u8; 32],
    recordings: HashMap<String, i64>,
}

/// What the batch's checks and rows need from the database, read in one pipelined round
/// trip ([`Known::read`]), then kept up to date as the batch stores its runs.
struct Known {
    /// Engine keys stored, and those of the batch's runs stored so far.
    keys: HashSet<Vec<u8>>,
    cases: HashMap<i64, CaseState>,
    /// `(name, channel)` of the IVR applications as stored.
    ivrs: HashMap<i64, (String, String)>,
    recordings: HashMap<String, i64>,
    scripts: HashMap<Vec<u8>, i64>,
    texts: HashMap<String, i64>,
}

/// What the batch writes besides its runs, gathered run by run ([`Batch::take`]).
#[derive(Default)]
struct Batch<'a> {
    /// The channel of each IVR application as the runs so far leave it.
    ivr_channel: HashMap<i64, String>,
    /// `(name, channel)` of each IVR application the batch names, as its last run says.
    ivrs: BTreeMap<i64, (String, &'static str)>,
    new_scripts: BTreeMap<[u8; 32], String>,
    /// Segment names by `(test case, segment)`.
    segments: BTreeMap<(i64, i64), String>,
    new_texts: BTreeSet<&'a str>,
    accepted: Vec<Accepted<'a>>,
    deltas: Deltas,
}

/// Stores a batch in the transaction `tx` (see the module): the same outcome as SQLite's
/// `store::sqlite::runs::ingest`, run by run, with set-based statements. Each phase is a
/// function: the lock and the zone, the checks of each run alone, the reads, the checks
/// run by run, the new rows' ids, the catalog, the runs, the rollups, the groups.
async fn store_batch(tx: &Tx<'_>, tz: Tz, runs: &[IngestRun]) -> StoreResult<IngestOutcome> {
    lock_and_zone(tx, tz).await?;
    let mut out = IngestOutcome::default();
    let valid = validate(runs, &mut out);
    if valid.is_empty() {
        return Ok(out);
    }
    let mut known = Known::read(tx, &valid).await?;
    let batch = Batch::take(tz, valid, &mut known, &mut out);
    if batch.accepted.is_empty() {
        return Ok(out);
    }
    let run_ids = new_ids(tx, &batch, &mut known).await?;
    write_catalog(tx, &batch, &known).await?;
    copy_runs(tx, &batch, &known, &run_ids, &mut out).await?;
    apply(tx, batch.deltas).await?;
    add_groups(tx, &mut out).await?;
    Ok(out)
}

/// Takes [`INGEST_LOCK`], then makes sure the rollups are in the site's zone (read after the
/// lock is held: a statement's snapshot is taken when it starts).
async fn lock_and_zone(tx: &Tx<'_>, tz: Tz) -> StoreResult<()> {
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&INGEST_LOCK])
        .await?;
    let stored_tz: Option<String> = rows(tx, "SELECT value FROM meta WHERE key = 'rollup_tz'", &[])
        .await?
        .first()
        .map(|r| r.get("value"));
    ensure_tz(tx, tz, stored_tz).await
}

/// The runs that pass their own checks; the others are refused in `out`.
fn validate<'a>(runs: &'a [IngestRun], out: &mut IngestOutcome) -> Vec<Valid<'a>> {
    let mut valid = Vec::with_capacity(runs.len());
    for (index, run) in runs.iter().enumerate() {
        match run.validate() {
            Ok(()) => valid.push(Valid {
                index,
                run,
                key: engine_key(&run.engine_run_id),
                script: run_detail::script_hash(run),
            }),
            Err(reason) => out.rejected.push(Rejected { index, reason }),
        }
    }
    valid
}

/// The distinct values of `f` over the batch, in order (a lookup's `= ANY($1)`).
fn distinct<'a, T: Ord + 'a>(
    valid: &'a [Valid<'a>],
    f: impl FnMut(&'a Valid<'a>) -> Vec<T>,
) -> Vec<T> {
    valid
        .iter()
        .flat_map(f)
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect()
}

impl Known {
    /// Everything the batch's runs name that is stored already, in one round trip.
    async fn read(tx: &Tx<'_>, valid: &[Valid<'_>]) -> StoreResult<Known> {
        let keys: Vec<&[u8]> = valid.iter().map(|v| &v.key[..]).collect();
        let case_ids = distinct(valid, |v| vec![v.run.test_case.id]);
        let ivr_ids = distinct(valid, |v| vec![v.run.test_case.ivr.id]);
        let rec_ids = distinct(valid, |v| {
            recording_refs(v.run)
                .into_iter()
                .map(|(_, id)| id)
                .collect()
        });
        let hashes = distinct(valid, |v| vec![&v.script[..]]);
        let bodies = distinct(valid, |v| {
            (v.run.segments.iter())
                .flat_map(|s| s.steps.iter())
                .filter_map(|t| t.test_result.utterance.as_deref())
                .collect()
        });
        let (known, case_rows, ivr_rows, rec_rows, script_rows, text_rows) = tokio::try_join!(
            async {
                rows(
                    tx,
                    "SELECT engine_key FROM run_keys WHERE engine_key = ANY($1)",
                    &[&keys],
                )
                .await
            },
            async {
                rows(
                    tx,
                    "SELECT tc.id, tc.name, tc.channel, tc.ivr_id, s.hash, tc.updated_at
                   FROM test_cases tc LEFT JOIN run_scripts s ON s.id = tc.script_id
                  WHERE tc.id = ANY($1)",
                    &[&case_ids],
                )
                .await
            },
            async {
                rows(
                    tx,
                    "SELECT id, name, channel FROM ivr_apps WHERE id = ANY($1)",
                    &[&ivr_ids],
                )
                .await
            },
            async {
                rows(
                    tx,
                    "SELECT sha256, id FROM recordings WHERE sha256 = ANY($1)",
                    &[&rec_ids],
                )
                .await
            },
            async {
                rows(
                    tx,
                    "SELECT hash, id FROM run_scripts WHERE hash = ANY($1)",
                    &[&hashes],
                )
                .await
            },
            async {
                rows(
                    tx,
                    "SELECT body, id FROM texts WHERE body = ANY($1)",
                    &[&bodies],
                )
                .await
            },
        )?;
        let case = |r: &Row| CaseState {
            name: r.get("name"),
            channel: r.get("channel"),
            ivr_id: r.get("ivr_id"),
            script_hash: r.get("hash"),
            updated_at: r.get("updated_at"),
            dirty: false,
        };
        Ok(Known {
            keys: known.iter().map(|r| r.get("engine_key")).collect(),
            cases: case_rows.iter().map(|r| (r.get("id"), case(r))).collect(),
            ivrs: (ivr_rows.iter())
                .map(|r| (r.get("id"), (r.get("name"), r.get("channel"))))
                .collect(),
            recordings: (rec_rows.iter())
                .map(|r| (r.get("sha256"), r.get("id")))
                .collect(),
            scripts: (script_rows.iter())
                .map(|r| (r.get("hash"), r.get("id")))
                .collect(),
            texts: text_rows
                .iter()
                .map(|r| (r.get("body"), r.get("id")))
                .collect(),
        })
    }

    /// The id of the stored script of hash `hash`.
    fn script_id(&self, hash: &[u8]) -> StoreResult<i64> {
        self.scripts
            .get(hash)
            .copied()
            .ok_or_else(|| StoreError::Invalid("a run's script was not stored".into()))
    }
}

impl<'a> Batch<'a> {
    /// The batch, run by run as SQLite's ingest goes: duplicates (of stored runs or of runs
    /// earlier in the batch), channel changes and unknown recordings are refused in `out`;
    /// a stored run updates its test case, IVR application and script in `known` for the
    /// runs after it.
    fn take(
        tz: Tz,
        valid: Vec<Valid<'a>>,
        known: &mut Known,
        out: &mut IngestOutcome,
    ) -> Batch<'a> {
        let now = now_secs();
        let mut batch = Batch {
            ivr_channel: (known.ivrs.iter())
                .map(|(id, (_, c))| (*id, c.clone()))
                .collect(),
            ..Batch::default()
        };
        for v in valid {
            if known.keys.contains(&v.key[..]) {
                out.duplicates += 1;
                continue;
            }
            let found = match batch.refusal(&v, known) {
                Ok(found) => found,
                Err(reason) => {
                    out.rejected.push(Rejected {
                        index: v.index,
                        reason,
                    });
                    continue;
                }
            };
            batch.catalog(&v, known, now);
            let run = v.run;
            batch.deltas.add(tz, &RunFacts::of_ingest(run));
            out.accepted += 1;
            out.stored.push(StoredRun {
                test_case_id: run.test_case.id,
                channel: run.test_case.channel,
                status: run.status,
                run_time: run.run_time.timestamp(),
                group_ids: Vec::new(),
            });
            batch.accepted.push(Accepted {
                run,
                key: v.key,
                script: v.script,
                recordings: found,
            });
        }
        batch
    }

    /// Why run `v` is refused (its test case's or IVR application's channel changes, a
    /// recording it names is not stored), else the rows of its recordings.
    fn refusal(&self, v: &Valid<'_>, known: &Known) -> Result<HashMap<String, i64>, String> {
        let tc = &v.run.test_case;
        let wanted = tc.channel.as_str();
        if let Some(state) = known.cases.get(&tc.id) {
            if state.channel != wanted {
                return Err(format!(
                    "testCase {} is a {} test case; a run cannot change its channel to {wanted}",
                    tc.id, state.channel
                ));
            }
        }
        if let Some(c) = self.ivr_channel.get(&tc.ivr.id).filter(|c| *c != wanted) {
            return Err(format!(
                "testCase.ivr {} is a {c} IVR application; a {wanted} test case cannot use it",
                tc.ivr.id
            ));
        }
        let mut found = HashMap::new();
        for (at, id) in recording_refs(v.run) {
            match known.recordings.get(id) {
                Some(&row) => {
                    found.insert(id.to_string(), row);
                }
                None => {
                    return Err(format!(
                        "{at} {id} is not a stored recording (upload it first: POST /api/ingest/v1/recordings)"
                    ))
                }
            }
        }
        Ok(found)
    }

    /// The catalog as stored run `v` leaves it: its key, IVR application, test case,
    /// script, segments and texts.
    fn catalog(&mut self, v: &Valid<'a>, known: &mut Known, now: i64) {
        let (run, tc) = (v.run, &v.run.test_case);
        let wanted = tc.channel.as_str();
        known.keys.insert(v.key.to_vec());
        let ivr_name = tc.ivr.name.trim();
        self.ivr_channel.insert(tc.ivr.id, wanted.to_string());
        self.ivrs.insert(tc.ivr.id, (ivr_name.to_string(), wanted));
        let name = tc.name.trim();
        let state = known.cases.entry(tc.id).or_insert_with(|| CaseState {
            name: String::new(),
            channel: String::new(),
            ivr_id: 0,
            script_hash: None,
            updated_at: now,
            dirty: true,
        });
        if state.name != name || state.channel != wanted || state.ivr_id != tc.ivr.id {
            state.name = name.to_string();
            state.channel = wanted.to_string();
            state.ivr_id = tc.ivr.id;
            state.updated_at = now;
            state.dirty = true;
        }
        if state.script_hash.as_deref() != Some(&v.script[..]) {
            if !known.scripts.contains_key(&v.script[..]) {
                self.new_scripts
                    .entry(v.script)
                    .or_insert_with(|| run_detail::script_of(run).1);
            }
            for seg in &run.segments {
                self.segments
                    .insert((tc.id, seg.segment_id), seg.segment_name.trim().to_string());
            }
            state.script_hash = Some(v.script.to_vec());
            state.dirty = true;
        }
        for step in run.segments.iter().flat_map(|s| s.steps.iter()) {
            if let Some(u) = step.test_result.utterance.as_deref() {
                if !known.texts.contains_key(u) {
                    self.new_texts.insert(u);
                }
            }
        }
    }
}

/// Stores the batch's new scripts and texts (their ids into `known`) and takes its runs'
/// ids from the identity sequence, in one round trip; returns the run ids, in order.
async fn new_ids(tx: &Tx<'_>, batch: &Batch<'_>, known: &mut Known) -> StoreResult<Vec<i64>> {
    let (script_hashes, script_bodies): (Vec<&[u8]>, Vec<&str>) = (batch.new_scripts.iter())
        .map(|(h, b)| (&h[..], b.as_str()))
        .unzip();
    let new_texts: Vec<&str> = batch.new_texts.iter().copied().collect();
    let n_runs = batch.accepted.len() as i64;
    let (script_rows, text_rows, id_rows) = tokio::try_join!(
        async {
            if script_hashes.is_empty() {
                return Ok(Vec::new());
            }
            rows(
                tx,
                "INSERT INTO run_scripts (hash, body)
                 SELECT * FROM unnest($1::BYTEA[], $2::TEXT[])
                 ON CONFLICT (hash) DO UPDATE SET hash = EXCLUDED.hash
                 RETURNING hash, id",
                &[&script_hashes, &script_bodies],
            )
            .await
        },
        async {
            if new_texts.is_empty() {
                return Ok(Vec::new());
            }
            rows(
                tx,
                "INSERT INTO texts (body) SELECT unnest($1::TEXT[])
                 ON CONFLICT (body) DO UPDATE SET body = EXCLUDED.body
                 RETURNING body, id",
                &[&new_texts],
            )
            .await
        },
        async {
            rows(
                tx,
                "SELECT nextval(pg_get_serial_sequence('test_runs', 'id')) AS id
               FROM generate_series(1, $1::BIGINT)",
                &[&n_runs],
            )
            .await
        },
    )?;
    (known.scripts).extend(script_rows.iter().map(|r| (r.get("hash"), r.get("id"))));
    (known.texts).extend(text_rows.iter().map(|r| (r.get("body"), r.get("id"))));
    let mut run_ids: Vec<i64> = id_rows.iter().map(|r| r.get("id")).collect();
    run_ids.sort_unstable();
    Ok(run_ids)
}

/// The catalog the batch changed: IVR applications, then test cases (which refer to
/// them), then segments; one multi-row upsert each.
async fn write_catalog(tx: &Tx<'_>, batch: &Batch<'_>, known: &Known) -> StoreResult<()> {
    let changed_ivrs: Vec<(&i64, &(String, &str))> = (batch.ivrs.iter())
        .filter(|(id, (name, channel))| {
            known.ivrs.get(id).map(|(n, c)| (n.as_str(), c.as_str()))
                != Some((name.as_str(), channel))
        })
        .collect();
    if !changed_ivrs.is_empty() {
        let ids: Vec<i64> = changed_ivrs.iter().map(|(id, _)| **id).collect();
        let names: Vec<&str> = changed_ivrs.iter().map(|(_, (n, _))| n.as_str()).collect();
        let channels: Vec<&str> = changed_ivrs.iter().map(|(_, (_, c))| *c).collect();
        exec(
            tx,
            "INSERT INTO ivr_apps (id, name, channel)
             SELECT * FROM unnest($1::BIGINT[], $2::TEXT[], $3::TEXT[])
             ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, channel = EXCLUDED.channel
              WHERE (ivr_apps.name, ivr_apps.channel)
                    IS DISTINCT FROM (EXCLUDED.name, EXCLUDED.channel)",
            &[&ids, &names, &channels],
        )
        .await?;
    }
    let mut dirty: Vec<(i64, &CaseState)> = (known.cases.iter())
        .filter(|(_, s)| s.dirty)
        .map(|(id, s)| (*id, s))
        .collect();
    dirty.sort_unstable_by_key(|(id, _)| *id);
    if !dirty.is_empty() {
        let mut ids = Vec::with_capacity(dirty.len());
        let mut names = Vec::with_capacity(dirty.len());
        let mut channels = Vec::with_capacity(dirty.len());
        let mut ivr_of = Vec::with_capacity(dirty.len());
        let mut script_of = Vec::with_capacity(dirty.len());
        let mut updated = Vec::with_capacity(dirty.len());
        for (id, s) in &dirty {
            ids.push(*id);
            names.push(s.name.as_str());
            channels.push(s.channel.as_str());
            ivr_of.push(s.ivr_id);
            script_of.push(match &s.script_hash {
                Some(h) => Some(known.script_id(h)?),
                None => None,
            });
            updated.push(s.updated_at);
        }
        exec(
            tx,
            "INSERT INTO test_cases (id, name, channel, ivr_id, script_id, updated_at)
             SELECT * FROM unnest($1::BIGINT[], $2::TEXT[], $3::TEXT[], $4::BIGINT[],
                                  $5::BIGINT[], $6::BIGINT[])
             ON CONFLICT (id) DO UPDATE SET name = EXCLUDED.name, channel = EXCLUDED.channel,
                    ivr_id = EXCLUDED.ivr_id, script_id = EXCLUDED.script_id,
                    updated_at = EXCLUDED.updated_at",
            &[&ids, &names, &channels, &ivr_of, &script_of, &updated],
        )
        .await?;
    }
    if !batch.segments.is_empty() {
        let (ids, names): (Vec<(i64, i64)>, Vec<&str>) =
            batch.segments.iter().map(|(k, n)| (*k, n.as_str())).unzip();
        let (cases_of, seg_ids): (Vec<i64>, Vec<i64>) = ids.into_iter().unzip();
        exec(
            tx,
            "INSERT INTO segments (test_case_id, segment_id, name)
             SELECT * FROM unnest($1::BIGINT[], $2::BIGINT[], $3::TEXT[])
             ON CONFLICT (test_case_id, segment_id) DO UPDATE SET name = EXCLUDED.name
              WHERE segments.name IS DISTINCT FROM EXCLUDED.name",
            &[&cases_of, &seg_ids, &names],
        )
        .await?;
    }
    Ok(())
}

/// The runs (ids `run_ids`, in order) and their keys, by `COPY`, and which test cases use
/// each recording; each run is handed to the engine in `out.evaluated`.
async fn copy_runs(
    tx: &Tx<'_>,
    batch: &Batch<'_>,
    known: &Known,
    run_ids: &[i64],
    out: &mut IngestOutcome,
) -> StoreResult<()> {
    let sink = tx
        .copy_in(
            "COPY test_runs (id, test_case_id, run_time, duration_ms, status, run_type, mos,
                    recording_id, script_id, results) FROM STDIN BINARY",
        )
        .await?;
    let writer = BinaryCopyInWriter::new(
        sink,
        &[
            Type::INT8,
            Type::INT8,
            Type::INT8,
            Type::INT8,
            Type::INT2,
            Type::INT2,
            Type::INT4,
            Type::INT8,
            Type::INT8,
            Type::BYTEA,
        ],
    );
    pin_mut!(writer);
    let mut rec_cases: BTreeSet<(i64, i64)> = BTreeSet::new();
    for (a, &run_id) in batch.accepted.iter().zip(run_ids) {
        let run = a.run;
        let run_ms = run.run_time.timestamp_millis();
        let results = run_detail::stored_results(run, &a.recordings, |u| {
            (known.texts.get(u).copied())
                .ok_or_else(|| StoreError::Invalid("a run's utterance was not stored".into()))
        })?;
        let blob = run_detail::encode(run_ms, &results);
        let recording = (run.recording_id.as_ref()).and_then(|id| a.recordings.get(id).copied());
        let mos = run.mos_cq_in.map(|m| rollups::mos_units(m) as i32);
        writer
            .as_mut()
            .write(&[
                &run_id,
                &run.test_case.id,
                &run_ms,
                &run_detail::secs_to_ms(run.run_duration),
                &i16::from(run.status.code()),
                &i16::from(run.run_type.code()),
                &mos,
                &recording,
                &known.script_id(&a.script)?,
                &blob,
            ])
            .await?;
        for &rec in a.recordings.values() {
            rec_cases.insert((rec, run.test_case.id));
        }
        out.evaluated.push(Evaluated {
            run_id,
            test_case_id: run.test_case.id,
            run_ms,
            status_id: run.status.status_id(),
        });
    }
    writer.finish().await?;
    let sink = tx
        .copy_in("COPY run_keys (engine_key, run_id) FROM STDIN BINARY")
        .await?;
    let writer = BinaryCopyInWriter::new(sink, &[Type::BYTEA, Type::INT8]);
    pin_mut!(writer);
    for (a, run_id) in batch.accepted.iter().zip(run_ids) {
        writer.as_mut().write(&[&&a.key[..], run_id]).await?;
    }
    writer.finish().await?;
    if !rec_cases.is_empty() {
        let (recs, of_cases): (Vec<i64>, Vec<i64>) = rec_cases.into_iter().unzip();
        exec(
            tx,
            "INSERT INTO recording_cases (recording_id, test_case_id)
             SELECT * FROM unnest($1::BIGINT[], $2::BIGINT[]) ON CONFLICT DO NOTHING",
            &[&recs, &of_cases],
        )
        .await?;
    }
    Ok(())
}

/// The groups of the stored runs' test cases, for the live dashboard.
async fn add_groups(tx: &Tx<'_>, out: &mut IngestOutcome) -> StoreResult<()> {
    let stored_cases: Vec<i64> = (out.stored.iter())
        .map(|s| s.test_case_id)
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let mut groups_of: HashMap<i64, Vec<i64>> = HashMap::new();
    for r in rows(
        tx,
        "SELECT test_case_id, group_id FROM group_cases WHERE test_case_id = ANY($1)
          ORDER BY test_case_id, group_id",
        &[&stored_cases],
    )
    .await?
    {
        groups_of
            .entry(r.get("test_case_id"))
            .or_default()
            .push(r.get("group_id"));
    }
    for stored in &mut out.stored {
        stored.group_ids = (groups_of.get(&stored.test_case_id))
            .cloned()
            .unwrap_or_default();
    }
    Ok(())
}

/// Adds rollup changes to `rollup_hour`: the rows they touch are read `FOR UPDATE` (in key
/// order), merged with the changes in Rust, and written back in one upsert.
async fn apply(tx: &Tx<'_>, deltas: Deltas) -> StoreResult<()> {
    if deltas.hours.is_empty() {
        return Ok(());
    }
    let n = deltas.hours.len();
    let mut cases = Vec::with_capacity(n);
    let mut types = Vec::with_capacity(n);
    let mut days = Vec::with_capacity(n);
    let mut hours = Vec::with_capacity(n);
    for &(case, rt, day, hour) in deltas.hours.keys() {
        cases.push(case);
        types.push(i16::from(rt));
        days.push(day);
        hours.push(i16::from(hour));
    }
    let stored = rows(
        tx,
        "SELECT test_case_id, run_type, day, hour, pass, warn, fail, stopped, mos_n, mos_sum,
                mos_hist, lat_n, lat_sum, lat_hist, segments
           FROM rollup_hour
          WHERE (test_case_id, run_type, day, hour) IN
                (SELECT * FROM unnest($1::BIGINT[], $2::SMALLINT[], $3::INT[], $4::SMALLINT[]))
          ORDER BY test_case_id, run_type, day, hour
          FOR UPDATE",
        &[&cases, &types, &days, &hours],
    )
    .await?;
    let stored: HashMap<(i64, i16, i32, i16), &Row> = stored
        .iter()
        .map(|r| ((r.get(0), r.get(1), r.get(2), r.get(3)), r))
        .collect();
    let mut counts: [Vec<i64>; 4] = Default::default();
    let (mut mos_n, mut mos_sum, mut mos_hist) = (
        Vec::with_capacity(n),
        Vec::with_capacity(n),
        Vec::with_capacity(n),
    );
    let (mut lat_n, mut lat_sum, mut lat_hist) = (
        Vec::with_capacity(n),
        Vec::with_capacity(n),
        Vec::with_capacity(n),
    );
    let mut seg_blobs = Vec::with_capacity(n);
    for ((case, rt, day, hour), mut d) in deltas.hours {
        let (mut m_n, mut m_sum, mut m_hist) = rollups::hist_parts(&mut d.mos);
        let (mut l_n, mut l_sum, mut l_hist) = rollups::hist_parts(&mut d.lat);
        let mut seg_blob = rollups::segment_blob(d.segments);
        let mut c = d.counts;
        let key = (case, i16::from(rt), day, i16::from(hour));
        if let Some(r) = stored.get(&key) {
            for (i, v) in c.iter_mut().enumerate() {
                *v += r.get::<_, i64>(4 + i);
            }
            m_n += r.get::<_, i64>(8);
            m_sum += r.get::<_, i64>(9);
            m_hist = dist::merge(r.get(10), m_hist.as_deref()).map_err(|e| corrupt("rollup", e))?;
            l_n += r.get::<_, i64>(11);
            l_sum += r.get::<_, i64>(12);
            l_hist = dist::merge(r.get(13), l_hist.as_deref()).map_err(|e| corrupt("rollup", e))?;
            seg_blob = rollups::merge_segments(r.get(14), seg_blob.as_deref())
                .map_err(|e| corrupt("rollup", e))?;
        }
        for (i, v) in c.into_iter().enumerate() {
            counts[i].push(v);
        }
        mos_n.push(m_n);
        mos_sum.push(m_sum);
        mos_hist.push(m_hist);
        lat_n.push(l_n);
        lat_sum.push(l_sum);
        lat_hist.push(l_hist);
        seg_blobs.push(seg_blob);
    }
    exec(
        tx,
        "INSERT INTO rollup_hour (test_case_id, run_type, day, hour, pass, warn, fail, stopped,
                mos_n, mos_sum, mos_hist, lat_n, lat_sum, lat_hist, segments)
         SELECT * FROM unnest($1::BIGINT[], $2::SMALLINT[], $3::INT[], $4::SMALLINT[],
                $5::BIGINT[], $6::BIGINT[], $7::BIGINT[], $8::BIGINT[], $9::BIGINT[],
                $10::BIGINT[], $11::BYTEA[], $12::BIGINT[], $13::BIGINT[], $14::BYTEA[],
                $15::BYTEA[])
         ON CONFLICT (test_case_id, run_type, day, hour) DO UPDATE SET
                pass = EXCLUDED.pass, warn = EXCLUDED.warn, fail = EXCLUDED.fail,
                stopped = EXCLUDED.stopped, mos_n = EXCLUDED.mos_n, mos_sum = EXCLUDED.mos_sum,
                mos_hist = EXCLUDED.mos_hist, lat_n = EXCLUDED.lat_n,
                lat_sum = EXCLUDED.lat_sum, lat_hist = EXCLUDED.lat_hist,
                segments = EXCLUDED.segments",
        &[
            &cases, &types, &days, &hours, &counts[0], &counts[1], &counts[2], &counts[3], &mos_n,
            &mos_sum, &mos_hist, &lat_n, &lat_sum, &lat_hist, &seg_blobs,
        ],
    )
    .await?;
    Ok(())
}

/// Makes sure the rollups are bucketed in `tz` (as `rollups::ensure_tz`): records it on
/// first use, rebuilds them from the stored runs when the site time zone changed. The
/// caller holds [`INGEST_LOCK`] and has read the zone recorded, `stored`.
async fn ensure_tz(tx: &Tx<'_>, tz: Tz, stored: Option<String>) -> StoreResult<()> {
    if stored.as_deref() == Some(tz.name()) {
        return Ok(());
    }
    let any_run = tx
        .query_opt("SELECT id FROM test_runs LIMIT 1", &[])
        .await?;
    if any_run.is_some() {
        tracing::warn!(from = ?stored, to = tz.name(), "site time zone changed: rebuilding rollups");
        let n = rebuild(tx, tz).await?;
        tracing::info!(runs = n, "rollups rebuilt");
    }
    tx.execute(
        "INSERT INTO meta (key, value) VALUES ('rollup_tz', $1)
         ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
        &[&tz.name()],
    )
    .await?;
    Ok(())
}

/// Recomputes every rollup from the stored runs in `tz`; returns the number of runs. The
/// caller holds [`INGEST_LOCK`].
async fn rebuild(tx: &Tx<'_>, tz: Tz) -> StoreResult<u64> {
    tx.execute("DELETE FROM rollup_hour", &[]).await?;
    let mut scripts: HashMap<i64, Vec<ScriptSegment>> = HashMap::new();
    let mut deltas = Deltas::default();
    let mut total = 0u64;
    let mut last_id = i64::MIN;
    loop {
        let chunk = rows(
            tx,
            "SELECT id, test_case_id, run_type, run_time, status, mos, script_id, results
               FROM test_runs WHERE id > $1 ORDER BY id LIMIT 50000",
            &[&last_id],
        )
        .await?;
        for r in &chunk {
            last_id = r.get(0);
            let script_id: i64 = r.get(6);
            if let std::collections::hash_map::Entry::Vacant(e) = scripts.entry(script_id) {
                e.insert(load_script(tx, script_id).await?);
            }
            let facts = rollups::facts_of_stored(
                r.get(1),
                r.get::<_, i16>(2) as u8,
                r.get(3),
                r.get::<_, i16>(4) as u8,
                r.get::<_, Option<i32>>(5).map(|m| m.max(0) as u32),
                &scripts[&script_id],
                r.get::<_, &[u8]>(7),
            )?;
            deltas.add(tz, &facts);
        }
        total += chunk.len() as u64;
        if deltas.runs() >= 200_000 || chunk.is_empty() {
            apply(tx, std::mem::take(&mut deltas)).await?;
        }
        if chunk.is_empty() {
            break;
        }
    }
    Ok(total)
}

/// The segments of a stored script.
async fn load_script(c: &impl GenericClient, id: i64) -> StoreResult<Vec<ScriptSegment>> {
    let body: String = rows(c, "SELECT body FROM run_scripts WHERE id = $1", &[&id])
        .await?
        .first()
        .map(|r| r.get("body"))
        .ok_or_else(|| StoreError::NotFound(format!("stored script {id} does not exist")))?;
    serde_json::from_str(&body).map_err(|e| StoreError::Invalid(format!("stored script {id}: {e}")))
}

/// A run row of the lists: `id, test_case_id, name, run_time, duration_ms, status,
/// run_type, mos` from column `at` on.
fn run_row(r: &Row, texts: &BTreeMap<i64, String>) -> RunRow {
    let status = RunStatus::from_code(r.get::<_, i16>(5) as u8).unwrap_or(RunStatus::Fail);
    RunRow {
        id: r.get(0),
        test_case_id: r.get(1),
        test_case_name: r.get(2),
        run_time: ms_to_time(r.get(3)),
        duration_ms: r.get(4),
        status,
        run_type: RunType::from_code(r.get::<_, i16>(6) as u8).unwrap_or(RunType::Manual),
        mos: r.get::<_, Option<i32>>(7).map(|m| m.max(0) as u32),
        status_text: status_text(texts, status),
    }
}

/// One page of the filtered runs of a test case, newest first, and how many match in all.
async fn list(
    c: &impl GenericClient,
    f: &RunFilter,
    page: PageRequest,
) -> StoreResult<Page<RunRow>> {
    let filter = (f.from_ms, f.to_ms, f.status, f.run_type);
    let order = f.sort.map_or_else(
        || "r.run_time DESC, r.status DESC, r.run_type DESC, r.id DESC".to_string(),
        |s| RunSortField::order_by(s, "r.", "lower(tc.name COLLATE \"C\")"),
    );
    let (name, page) = tokio::try_join!(
        async {
            let sql = "SELECT name FROM test_cases WHERE id = $1";
            Ok::<_, StoreError>(rows(c, sql, &[&f.test_case_id]).await?)
        },
        filtered_page(
            c,
            "r.test_case_id = $1",
            &order,
            f.test_case_id,
            filter,
            page,
        ),
    )?;
    if name.is_empty() {
        return Err(StoreError::NotFound(format!(
            "Test case {} does not exist.",
            f.test_case_id
        )));
    }
    Ok(page)
}

/// One page of the filtered runs of a group's test cases, newest first, and how many match.
async fn list_group(
    c: &impl GenericClient,
    f: &GroupRunFilter,
    page: PageRequest,
) -> StoreResult<Page<RunRow>> {
    filtered_page(
        c,
        "r.test_case_id IN (SELECT test_case_id FROM group_cases WHERE group_id = $1)",
        &f.sort.map_or_else(
            || "r.run_time DESC, r.id DESC".to_string(),
            |s| RunSortField::order_by(s, "r.", "lower(tc.name COLLATE \"C\")"),
        ),
        f.group_id,
        (f.from_ms, f.to_ms, f.status, f.run_type),
        page,
    )
    .await
}

/// The runs that `owner_sql` (`$1` is `owner`: a test case or a group) selects within a
/// filter's time range (UTC ms), status codes and run type codes: how many in all and one page
/// in `order`. The count, the page and the status texts are read concurrently.
async fn filtered_page(
    c: &impl GenericClient,
    owner_sql: &str,
    order: &str,
    owner: i64,
    (from_ms, to_ms, status, run_type): (i64, i64, (u8, u8), (u8, u8)),
    page: PageRequest,
) -> StoreResult<Page<RunRow>> {
    let filter = format!(
        "{owner_sql} AND r.run_time >= $2 AND r.run_time < $3
            AND r.status BETWEEN $4 AND $5 AND r.run_type BETWEEN $6 AND $7"
    );
    let (s0, s1) = (i16::from(status.0), i16::from(status.1));
    let (t0, t1) = (i16::from(run_type.0), i16::from(run_type.1));
    let (size, offset) = (i64::from(page.size), page.offset() as i64);
    let count_sql = format!("SELECT count(*) FROM test_runs r WHERE {filter}");
    let page_sql = format!(
        "SELECT r.id, r.test_case_id, tc.name, r.run_time, r.duration_ms, r.status,
                r.run_type, r.mos
           FROM test_runs r JOIN test_cases tc ON tc.id = r.test_case_id
          WHERE {filter}
          ORDER BY {order}
          LIMIT $8 OFFSET $9"
    );
    let params: [&(dyn ToSql + Sync); 9] =
        [&owner, &from_ms, &to_ms, &s0, &s1, &t0, &t1, &size, &offset];
    let pg = Pg(c);
    let (texts, total, items) = tokio::try_join!(
        status_texts(&pg),
        async { Ok::<_, StoreError>(rows(c, &count_sql, &params[..7]).await?) },
        async { Ok::<_, StoreError>(rows(c, &page_sql, &params).await?) },
    )?;
    let total: i64 = total[0].get(0);
    Ok(Page {
        items: items.iter().map(|r| run_row(r, &texts)).collect(),
        total: total.max(0) as u64,
    })
}

/// The groups of test case `case` the scope may see, by name.
async fn case_groups(
    c: &impl GenericClient,
    scope: Scope,
    case: i64,
) -> StoreResult<Vec<GroupName>> {
    Ok(rows(
        c,
        "SELECT g.id, g.name FROM group_cases gc JOIN test_case_groups g ON g.id = gc.group_id
          WHERE gc.test_case_id = $1
            AND ($2::BIGINT IS NULL
                 OR g.id IN (SELECT group_id FROM user_groups WHERE user_id = $2))
          ORDER BY lower(g.name COLLATE \"C\"), g.id",
        &[&case, &scope.user()],
    )
    .await?
    .iter()
    .map(|r| GroupName {
        id: r.get("id"),
        name: r.get("name"),
    })
    .collect())
}

/// Run `id` with its segments and steps.
async fn get(c: &impl GenericClient, id: i64) -> StoreResult<Option<RunDetail>> {
    let pg = Pg(c);
    let (texts, found) = tokio::try_join!(status_texts(&pg), async {
        Ok::<_, StoreError>(
            rows(
                c,
                "SELECT r.id, r.test_case_id, tc.name, r.run_time, r.duration_ms, r.status,
                            r.run_type, r.mos, r.recording_id, r.script_id, r.results,
                            tc.channel, tc.ivr_id, i.name
                       FROM test_runs r JOIN test_cases tc ON tc.id = r.test_case_id
                       JOIN ivr_apps i ON i.id = tc.ivr_id
                      WHERE r.id = $1",
                &[&id],
            )
            .await?,
        )
    },)?;
    let Some(r) = found.first() else {
        return Ok(None);
    };
    let run = run_row(r, &texts);
    let recording: Option<i64> = r.get("recording_id");
    let script_id: i64 = r.get("script_id");
    let blob: &[u8] = r.get("results");
    let channel = channel(r.get("channel"))?;
    let ivr_id: i64 = r.get("ivr_id");
    let ivr_name: String = r.get(13);
    let run_ms = run.run_time.timestamp_millis();
    let results = run_detail::decode(blob, run_ms)
        .map_err(|e| StoreError::Invalid(format!("stored run {id}: {e}")))?;
    let text_ids: Vec<i64> = results
        .iter()
        .filter_map(|s| s.utterance)
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let rec_rows: Vec<i64> = results
        .iter()
        .filter_map(|s| s.recording)
        .chain(recording)
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let (script, text_rows, rec_rows) = tokio::try_join!(
        load_script(c, script_id),
        async {
            Ok::<_, StoreError>(
                rows(
                    c,
                    "SELECT id, body FROM texts WHERE id = ANY($1)",
                    &[&text_ids],
                )
                .await?,
            )
        },
        async {
            Ok::<_, StoreError>(
                rows(
                    c,
                    "SELECT id, sha256 FROM recordings WHERE id = ANY($1)",
                    &[&rec_rows],
                )
                .await?,
            )
        },
    )?;
    let bodies: HashMap<i64, String> = (text_rows.iter())
        .map(|r| (r.get("id"), r.get("body")))
        .collect();
    let rec_ids: HashMap<i64, String> = (rec_rows.iter())
        .map(|r| (r.get("id"), r.get("sha256")))
        .collect();
    let segments = segment_details(
        script,
        results,
        |t| Ok(bodies.get(&t).cloned()),
        |row| Ok(rec_ids.get(&row).cloned()),
    )?;
    Ok(Some(RunDetail {
        run,
        channel,
        ivr_id,
        ivr_name,
        groups: Vec::new(),
        recording_id: recording.and_then(|row| rec_ids.get(&row).cloned()),
        segments,
    }))
}

#[cfg(test)]
mod tests {
    //! Run with `TEST_POSTGRES_URL` set (each test gets a fresh database); without it they
    //! pass at once.
    use super::*;
    use crate::domain::ingest::parse_run;
    use crate::store::pg::testdb::connect;
    use crate::store::runs::tests::{random_batches, run};
    use crate::store::{RecordingStore, Sqlite};
    use chrono_tz::America::Toronto;
    use rand::{Rng, SeedableRng};
    use serde_json::json;

    async fn store() -> Option<(tempfile::TempDir, String, Postgres)> {
        let url = super::super::testdb::fresh().await?;
        let dir = tempfile::tempdir().unwrap();
        let pg = connect(&url, dir.path()).await;
        Some((dir, url, pg))
    }

    fn visible<T>(v: Visibility<T>) -> T {
        match v {
            Visibility::Visible(t) => t,
            _ => panic!("not visible"),
        }
    }

    async fn int(pg: &Postgres, sql: &str) -> i64 {
        pg.client()
            .await
            .unwrap()
            .query_one(sql, &[])
            .await
            .unwrap()
            .get(0)
    }

    /// Every rollup row, in key order, as text (the blobs in hex).
    async fn pg_rollups(pg: &Postgres) -> Vec<String> {
        pg.client()
            .await
            .unwrap()
            .query(
                "SELECT concat_ws(' ', test_case_id, run_type, day, hour, pass, warn, fail,
                        stopped, mos_n, mos_sum, encode(mos_hist, 'hex'), lat_n, lat_sum,
                        encode(lat_hist, 'hex'), encode(segments, 'hex'))
                   FROM rollup_hour ORDER BY test_case_id, run_type, day, hour",
                &[],
            )
            .await
            .unwrap()
            .iter()
            .map(|r| r.get(0))
            .collect()
    }

    /// The same from SQLite's table.
    async fn sqlite_rollups(s: &Sqlite) -> Vec<String> {
        s.read(|c| {
            let mut stmt = c.prepare(
                "SELECT concat_ws(' ', test_case_id, run_type, day, hour, pass, warn, fail,
                        stopped, mos_n, mos_sum, lower(hex(mos_hist)), lat_n, lat_sum,
                        lower(hex(lat_hist)), lower(hex(segments)))
                   FROM rollup_hour ORDER BY test_case_id, run_type, day, hour",
            )?;
            let rows = stmt
                .query_map([], |r| r.get::<_, String>(0))?
                .collect::<Result<Vec<_>, _>>()?;
            Ok(rows)
        })
        .await
        .unwrap()
    }

    /// A recording (the run detail's, which the shared tests check on both backends) is
    /// kept in the database and served from this instance's cache, written on first read.
    #[tokio::test]
    async fn recordings_are_cached_on_first_read() {
        let Some((dir, _url, pg)) = store().await else {
            return;
        };
        let rec = pg
            .put_recording(bytes::Bytes::from_static(b"RIFFxxxxWAVE"), "audio/wav")
            .await
            .unwrap()
            .id;
        let mut r = run("x", 7, "2026-03-08T06:30:00.250Z", "warn", 3.456);
        r.recording_id = Some(rec.clone());
        pg.ingest_runs(Toronto, vec![r]).await.unwrap();
        // The recording: served from this instance's cache, written on first read.
        let found = visible(pg.recording(Scope::All, &rec).await.unwrap());
        assert_eq!((found.content_type.as_str(), found.size), ("audio/wav", 12));
        assert!(found.path.starts_with(dir.path()));
        assert_eq!(std::fs::read(&found.path).unwrap(), b"RIFFxxxxWAVE");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode =
                |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode(&found.path), 0o600);
            assert_eq!(mode(found.path.parent().unwrap()), 0o700);
        }
        assert_eq!(
            pg.recording(Scope::User(1), &rec).await.unwrap(),
            Visibility::Hidden
        );
        assert_eq!(
            pg.recording(Scope::All, &"0".repeat(64)).await.unwrap(),
            Visibility::Missing
        );
        let again = pg
            .put_recording(bytes::Bytes::from_static(b"RIFFxxxxWAVE"), "audio/x-wav")
            .await
            .unwrap();
        assert_eq!(again.id, rec);
        assert_eq!(int(&pg, "SELECT count(*) FROM recordings").await, 1);
    }

    /// The same batches into SQLite and PostgreSQL give the same rollups, byte for byte,
    /// and the same outcomes; PostgreSQL's incremental rollups equal its rebuild.
    #[tokio::test]
    async fn rollups_equal_sqlite_and_a_rebuild() {
        let Some((_dir, _url, pg)) = store().await else {
            return;
        };
        let sdir = tempfile::tempdir().unwrap();
        let sqlite = Sqlite::open(sdir.path(), crate::store::StoreOptions::default()).unwrap();
        for batch in random_batches(7, 8, 60) {
            let a = sqlite.ingest_runs(Toronto, batch.clone()).await.unwrap();
            let b = pg.ingest_runs(Toronto, batch).await.unwrap();
            assert_eq!(
                (a.accepted, a.duplicates, &a.rejected, &a.stored),
                (b.accepted, b.duplicates, &b.rejected, &b.stored)
            );
        }
        let incremental = pg_rollups(&pg).await;
        assert!(!incremental.is_empty());
        assert_eq!(incremental, sqlite_rollups(&sqlite).await);
        // The catalog as the batches left it.
        for (pg_sql, sqlite_sql) in [
            (
                "SELECT concat_ws(' ', tc.id, tc.name, tc.channel, tc.ivr_id, encode(s.hash, 'hex'))
                   FROM test_cases tc JOIN run_scripts s ON s.id = tc.script_id ORDER BY tc.id",
                "SELECT concat_ws(' ', tc.id, tc.name, tc.channel, tc.ivr_id, lower(hex(s.hash)))
                   FROM test_cases tc JOIN run_scripts s ON s.id = tc.script_id ORDER BY tc.id",
            ),
            (
                "SELECT concat_ws(' ', test_case_id, segment_id, name) FROM segments
                  ORDER BY test_case_id, segment_id",
                "SELECT concat_ws(' ', test_case_id, segment_id, name) FROM segments
                  ORDER BY test_case_id, segment_id",
            ),
            (
                "SELECT concat_ws(' ', id, name, channel) FROM ivr_apps ORDER BY id",
                "SELECT concat_ws(' ', id, name, channel) FROM ivr_apps ORDER BY id",
            ),
            (
                // Ids are the store's own: the set of texts is the same.
                "SELECT body FROM texts ORDER BY body COLLATE \"C\"",
                "SELECT body FROM texts ORDER BY body",
            ),
            (
                "SELECT encode(hash, 'hex') FROM run_scripts ORDER BY 1",
                "SELECT lower(hex(hash)) FROM run_scripts ORDER BY 1",
            ),
        ] {
            let on_pg: Vec<String> = pg
                .client()
                .await
                .unwrap()
                .query(pg_sql, &[])
                .await
                .unwrap()
                .iter()
                .map(|r| r.get(0))
                .collect();
            let sql = sqlite_sql.to_string();
            let on_sqlite: Vec<String> = sqlite
                .read(move |c| {
                    let mut stmt = c.prepare(&sql)?;
                    let rows = stmt
                        .query_map([], |r| r.get::<_, String>(0))?
                        .collect::<Result<Vec<_>, _>>()?;
                    Ok(rows)
                })
                .await
                .unwrap();
            assert!(!on_pg.is_empty(), "{pg_sql}");
            assert_eq!(on_pg, on_sqlite, "{pg_sql}");
        }
        let runs = pg.rebuild_rollups(Toronto).await.unwrap();
        assert!(runs > 100, "{runs}");
        assert_eq!(pg_rollups(&pg).await, incremental);
        // The detail of every run is the same on both.
        let ids = pg
            .client()
            .await
            .unwrap()
            .query("SELECT id FROM test_runs ORDER BY id", &[])
            .await
            .unwrap();
        for r in ids.iter().step_by(7) {
            let id: i64 = r.get("id");
            assert_eq!(
                pg.run(Scope::All, id).await.unwrap(),
                sqlite.run(Scope::All, id).await.unwrap()
            );
        }
        // A new site time zone rebuilds on the next ingest.
        let utc: Tz = "UTC".parse().unwrap();
        pg.ingest_runs(utc, vec![]).await.unwrap();
        let rebucketed = pg_rollups(&pg).await;
        assert_ne!(rebucketed, incremental);
        pg.rebuild_rollups(utc).await.unwrap();
        assert_eq!(pg_rollups(&pg).await, rebucketed);
    }

    /// Two instances ingesting overlapping batches at once store each run once, and their
    /// rollups equal a rebuild.
    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn concurrent_instances_ingest_safely() {
        let Some((dir, url, pg)) = store().await else {
            return;
        };
        let other = std::sync::Arc::new(connect(&url, dir.path()).await);
        let pg = std::sync::Arc::new(pg);
        let batches = random_batches(11, 12, 80);
        let mut tasks = Vec::new();
        for (i, batch) in batches.into_iter().enumerate() {
            for store in [pg.clone(), other.clone()] {
                let batch = batch.clone();
                tasks.push(tokio::spawn(async move {
                    let _ = i;
                    store.ingest_runs(Toronto, batch).await.unwrap()
                }));
            }
        }
        let mut accepted = 0;
        for t in tasks {
            accepted += t.await.unwrap().accepted;
        }
        let distinct = int(&pg, "SELECT count(*) FROM run_keys").await;
        assert_eq!(accepted as i64, distinct);
        assert_eq!(int(&pg, "SELECT count(*) FROM test_runs").await, distinct);
        let incremental = pg_rollups(&pg).await;
        pg.rebuild_rollups(Toronto).await.unwrap();
        assert_eq!(pg_rollups(&pg).await, incremental);
    }

    /// Ingest rate on PostgreSQL, as `cargo bench --bench store -- ingest` measures SQLite's:
    /// batches of 500 runs (500 test cases, 3 segments, 5 steps), one time slot each.
    /// `TEST_POSTGRES_URL=... cargo test --release --lib pg::runs::tests::ingest_rate --
    /// --ignored --nocapture`
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    #[ignore]
    async fn ingest_rate() {
        let Some((_dir, _url, pg)) = store().await else {
            return;
        };
        let batches: usize = std::env::var("CXWATCH_RATE_BATCHES")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(60);
        let mut rng = rand::rngs::StdRng::seed_from_u64(1);
        let texts = [
            "Thank you for calling Acme Bank.",
            "Please say your account number.",
            "For billing press 1.",
            "Please hold.",
            "Your balance is two dollars.",
        ];
        let make = |rng: &mut rand::rngs::StdRng, case: i64, slot: usize| -> IngestRun {
            let t = ms_to_time(1_763_614_800_000 + slot as i64 * 300_000 + case * 211);
            let time = t.to_rfc3339();
            let step = |rng: &mut rand::rngs::StdRng, id: i64, prompt: usize| {
                json!({"stepId": id, "stepType": "PROMPT", "typeDisplayText": "Prompt",
                       "prompt": texts[prompt], "promptLatencyMin": 200, "promptLatencyMax": 3000,
                       "testResult": {"status": "pass", "utterance": texts[prompt],
                                      "latency": rng.gen_range(200..3000),
                                      "confidence": rng.gen_range(6000..10000) as f64 / 10000.0,
                                      "recordingDuration": 2.5,
                                      "startTime": time, "endTime": time}})
            };
            let segments = json!([
                {"segmentId": 1, "segmentName": "Greeting",
                 "steps": [step(rng, 1, 0), step(rng, 2, 1)]},
                {"segmentId": 2, "segmentName": "Main menu",
                 "steps": [step(rng, 3, 2), step(rng, 4, 3)]},
                {"segmentId": 3, "segmentName": "Balance", "steps": [step(rng, 5, 4)]}
            ]);
            let status = ["pass", "warn", "fail", "stopped"][rng.gen_range(0..4)];
            parse_run(&json!({
                "engineRunId": format!("{:032x}", rng.gen::<u128>()),
                "testCase": {"id": case, "name": format!("TC{case:03}"), "channel": "voice",
                             "ivr": {"id": 1 + (case - 1) / 25, "name": "App"}},
                "runTime": time, "runDuration": 42.5,
                "status": status,
                "runType": "Schedule", "mosCqIn": rng.gen_range(250..=480) as f64 / 100.0,
                "segments": segments
            }))
            .unwrap()
        };
        let all: Vec<Vec<IngestRun>> = (0..batches)
            .map(|slot| (1..=500).map(|case| make(&mut rng, case, slot)).collect())
            .collect();
        let started = std::time::Instant::now();
        let mut times = Vec::new();
        for batch in all {
            let t = std::time::Instant::now();
            let out = pg.ingest_runs(Toronto, batch).await.unwrap();
            assert_eq!(out.accepted, 500);
            times.push(t.elapsed().as_secs_f64() * 1000.0);
        }
        let secs = started.elapsed().as_secs_f64();
        times.sort_by(f64::total_cmp);
        println!(
            "PostgreSQL ingest: {} runs in {secs:.2} s = {:.0} runs/s; batch of 500: median {:.1} ms, p95 {:.1} ms",
            batches * 500,
            (batches * 500) as f64 / secs,
            times[times.len() / 2],
            times[times.len() * 95 / 100]
        );
    }
}
