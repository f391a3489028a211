//! SQLite: the alert engine, run in the ingest transaction ([`evaluate`], called by
//! `sqlite/runs.rs`), and the backfill (its reads and edits of events are
//! `store/alert_events.rs`'s, shared with PostgreSQL).

use std::collections::BTreeMap;
use std::path::Path;

use async_trait::async_trait;
use chrono_tz::Tz;
use rusqlite::{params, OptionalExtension, Transaction};

use crate::clock::now_ms;
use crate::domain::alerting;
use crate::domain::notify::Attachment;
use crate::domain::run::RunStatus;
use crate::store::alert_events::{event_runs, AlertEngine};
use crate::store::alerts::{
    addressed, claim_for_backfill, facts_by_case, mark_evaluated, plan, AlertOptions, CaseRows,
    Clock, EngineOutcome, Evaluated, IdMap, Notice, Opening, SettingRow, Settled, Standing,
    ViewCache,
};
use crate::store::catalog::status_texts;
use crate::store::distributions::distribution_by_id;
use crate::store::outbox::enqueue_in;
use crate::store::sql::{self, Lite};
use crate::store::{Sqlite, StoreResult};

#[async_trait]
impl AlertEngine for Sqlite {
    fn configure_engine(&self, options: AlertOptions) {
        *self
            .inner
            .alerting
            .write()
            .unwrap_or_else(|e| e.into_inner()) = options;
    }

    async fn backfill_engine(
        &self,
        tz: Tz,
        ids: Vec<i64>,
        from_ms: i64,
    ) -> StoreResult<EngineOutcome> {
        let data_dir = self.data_dir();
        let options = self
            .inner
            .alerting
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        let mut total = EngineOutcome::default();
        let mut after = (from_ms - 1, i64::MAX);
        loop {
            let (ids, options, data_dir) = (ids.clone(), options.clone(), data_dir.clone());
            let view = self.inner.engine_view.clone();
            let (out, last) = self
                .write(move |tx| {
                    if after.1 == i64::MAX {
                        sql::finish(claim_for_backfill(&Lite(tx), &ids))?;
                    }
                    let runs = tx
                        .prepare_cached(
                            "SELECT id, test_case_id, run_time, status FROM test_runs
                              WHERE run_time > ?1 OR (run_time = ?1 AND id > ?2)
                              ORDER BY run_time, id LIMIT 5000",
                        )?
                        .query_map(params![after.0, after.1], |r| {
                            Ok(Evaluated {
                                run_id: r.get(0)?,
                                test_case_id: r.get(1)?,
                                run_ms: r.get(2)?,
                                status_id: RunStatus::from_code(r.get(3)?)
                                    .unwrap_or(RunStatus::Fail)
                                    .status_id(),
                            })
                        })?
                        .collect::<Result<Vec<_>, _>>()?;
                    let last = runs.last().map(|r| (r.run_ms, r.run_id));
                    // Runs a maintenance window marked are left out.
                    let runs = sql::finish(crate::store::maintenance::unmarked(&Lite(tx), runs))?;
                    let out = evaluate_with(
                        tx,
                        tz,
                        &data_dir,
                        &options,
                        &view,
                        &runs,
                        Some(ids.as_slice()),
                        Clock::RunTime,
                    )?;
                    Ok((out, last))
                })
                .await?;
            total.opened += out.opened;
            total.closed += out.closed;
            total.queued += out.queued;
            match last {
                Some(l) => after = l,
                None => return Ok(total),
            }
        }
    }
}

/// What the engine has stored of `cases` (a JSON array): their rows of `alert_memory`.
fn load_cases(tx: &Transaction, cases: &str) -> StoreResult<IdMap<CaseRows>> {
    let mut out = IdMap::default();
    let mut stmt = tx.prepare_cached(
        "SELECT test_case_id, clock_ms, states FROM alert_memory
          WHERE test_case_id IN (SELECT value FROM json_each(?1))",
    )?;
    let mut rows = stmt.query([cases])?;
    while let Some(r) = rows.next()? {
        let case: i64 = r.get(0)?;
        let states: String = r.get(2)?;
        out.insert(case, CaseRows::parse(case, r.get(1)?, &states)?);
    }
    Ok(out)
}

/// Writes the memory of each test case the batch changed: the clock alone where nothing else
/// moved (most test cases of a quiet day), else the row. Both statements are prepared once a
/// batch, not looked up in the connection's cache for every test case.
fn save_cases(tx: &Transaction, settled: Vec<(i64, CaseRows, Settled)>) -> StoreResult<()> {
    let mut clock =
        tx.prepare_cached("UPDATE alert_memory SET clock_ms = ?2 WHERE test_case_id = ?1")?;
    let mut upsert = tx.prepare_cached(
        "INSERT INTO alert_memory (test_case_id, clock_ms, states) VALUES (?1, ?2, ?3)
         ON CONFLICT (test_case_id) DO UPDATE SET clock_ms = excluded.clock_ms,
                states = excluded.states",
    )?;
    for (case, before, out) in settled {
        if let Some(moved) = before.clock_only(&out) {
            clock.execute(params![case, moved])?;
        } else if let Some(after) = before.after(&out) {
            upsert.execute(params![case, after.clock, after.states_text()])?;
        }
    }
    Ok(())
}

/// Evaluates the batch's stored runs against the settings of their test cases' groups, in
/// run-time order per test case, inside the ingest transaction `tx`.
pub(super) fn evaluate(
    tx: &Transaction,
    tz: Tz,
    data_dir: &Path,
    options: &AlertOptions,
    view: &ViewCache,
    runs: &[Evaluated],
) -> StoreResult<EngineOutcome> {
    evaluate_with(tx, tz, data_dir, options, view, runs, None, Clock::Now)
}

/// [`evaluate`] for the settings `only` (all when `None`), events timed by `clock`.
#[allow(clippy::too_many_arguments)]
fn evaluate_with(
    tx: &Transaction,
    tz: Tz,
    data_dir: &Path,
    options: &AlertOptions,
    view: &ViewCache,
    runs: &[Evaluated],
    only: Option<&[i64]>,
    clock: Clock,
) -> StoreResult<EngineOutcome> {
    if !options.enabled || runs.is_empty() {
        return Ok(EngineOutcome::default());
    }
    let by_case = facts_by_case(runs, tz);
    let view = sql::finish(view.view(&Lite(tx)))?;
    let settings_of = view.settings_of(&by_case, only);
    if settings_of.is_empty() {
        return Ok(EngineOutcome::default());
    }
    let cases = format!(
        "[{}]",
        settings_of
            .keys()
            .map(i64::to_string)
            .collect::<Vec<_>>()
            .join(",")
    );
    let stored = load_cases(tx, &cases)?;
    let settings = &view.settings;
    let mut plan = plan(
        &by_case,
        &settings_of,
        settings,
        stored,
        &view.evaluated,
        only,
        clock,
    );
    if only.is_none() {
        sql::finish(mark_evaluated(
            &Lite(tx),
            &view.first_evaluated(&settings_of),
        ))?;
    }
    let mut ids = Vec::with_capacity(plan.opens.len());
    for o in &plan.opens {
        ids.push(open_event(tx, &settings[&o.setting], o)?);
    }
    plan.resolve(&ids);
    let mut join = tx.prepare_cached(
        "INSERT OR IGNORE INTO alert_event_runs (event_id, run_id) VALUES (?1, ?2)",
    )?;
    for (event, run) in plan.event_runs(&ids) {
        join.execute(params![event, run])?;
    }
    // The incidents' tallies first: the close leaves an event closed already.
    sql::finish(crate::store::incidents::closing_in(&Lite(tx), &plan.closes))?;
    let mut close = tx.prepare_cached(
        "UPDATE alert_events SET open = 0, closed_ms = ?2 WHERE id = ?1 AND open = 1",
    )?;
    for (event, at) in &plan.closes {
        close.execute(params![event, at])?;
    }
    // Each new event joins an incident or starts one (domain/incident.rs).
    let notes = sql::finish(crate::store::incidents::assign_in(
        &Lite(tx),
        &ids,
        now_ms(),
    ))?;
    let mut queued = 0;
    if !plan.notices.is_empty() {
        let texts = sql::finish(status_texts(&Lite(tx)))?;
        for n in &plan.notices {
            if let Some(s) = settings.get(&n.setting) {
                let note = notes.get(&n.event);
                queued += notify(tx, tz, data_dir, &texts, options, s, n, note)?;
            }
        }
    }
    save_cases(tx, plan.settled)?;
    Ok(EngineOutcome {
        opened: plan.opens.len(),
        closed: plan.closes.len(),
        queued,
    })
}

/// Inserts the event of opening `o` (its runs are added with the batch's joins); returns
/// its id.
fn open_event(tx: &Transaction, s: &SettingRow, o: &Opening) -> StoreResult<i64> {
    let mut status_id = o.status_id;
    if let Some(first) = o.status_of {
        let stored = tx
            .prepare_cached("SELECT status FROM test_runs WHERE id = ?1")?
            .query_row([first], |r| r.get::<_, u8>("status"))
            .optional()?
            .and_then(RunStatus::from_code);
        if let Some(status) = stored {
            status_id = status.status_id();
        }
    }
    let group_name: String = tx
        .prepare_cached("SELECT name FROM test_case_groups WHERE id = ?1")?
        .query_row([s.group_id], |r| r.get("name"))
        .optional()?
        .unwrap_or_default();
    let dist_name: String = tx
        .prepare_cached("SELECT name FROM distribution_lists WHERE id = ?1")?
        .query_row([s.distribution_id], |r| r.get("name"))
        .optional()?
        .unwrap_or_default();
    tx.prepare_cached(
        "INSERT INTO alert_events (setting_id, setting_name, group_id, group_name, test_case_id,
                distribution_id, distribution_name, status_id, alert_ms)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
    )?
    .execute(params![
        s.rule.setting_id,
        s.name,
        s.group_id,
        group_name,
        o.case,
        s.distribution_id,
        dist_name,
        status_id,
        o.alert_ms,
    ])?;
    Ok(tx.last_insert_rowid())
}

/// Queues the notifications of notice `n` (an event's or its recovery's) and, for a new
/// event of a setting with attach ticket, its ticket job; returns how many notifications.
#[allow(clippy::too_many_arguments)]
fn notify(
    tx: &Transaction,
    tz: Tz,
    data_dir: &Path,
    texts: &BTreeMap<i64, String>,
    options: &AlertOptions,
    s: &SettingRow,
    n: &Notice,
    note: Option<&crate::domain::incident::Note>,
) -> StoreResult<usize> {
    let (case_id, status_id, group_name, standing): (i64, i64, String, Option<Standing>) = tx
        .prepare_cached(
            "SELECT e.test_case_id, e.status_id, e.group_name, e.incident_id,
                    coalesce(i.first_event <> e.id, 0) AS joined, i.open_events
               FROM alert_events e LEFT JOIN incidents i ON i.id = e.incident_id
              WHERE e.id = ?1",
        )?
        .query_row([n.event], |r| {
            let standing = match r.get::<_, Option<i64>>("incident_id")? {
                Some(incident_id) => Some(Standing {
                    incident_id,
                    joined: r.get("joined")?,
                    open: r.get::<_, Option<i64>>("open_events")?.unwrap_or(0),
                }),
                None => None,
            };
            Ok((
                r.get("test_case_id")?,
                r.get("status_id")?,
                r.get("group_name")?,
                standing,
            ))
        })?;
    let (case_name, channel): (String, String) = tx
        .prepare_cached("SELECT name, channel FROM test_cases WHERE id = ?1")?
        .query_row([case_id], |r| Ok((r.get("name")?, r.get("channel")?)))
        .optional()?
        .unwrap_or_default();
    let mut runs = sql::finish(event_runs(&Lite(tx), texts, n.event, &case_name))?;
    if let Some(only) = &n.runs {
        runs.retain(|r| only.contains(&r.id));
    }
    let status = texts.get(&status_id).cloned().unwrap_or_default();
    let facts = s.facts(tz, options, n.event, case_name, group_name, status, &runs);
    if let Some(job) = s.ticket_job(n.event, &facts).filter(|_| !n.recovery) {
        sql::finish(crate::store::auto_tickets::queue_in(
            &Lite(tx),
            &job,
            now_ms(),
        ))?;
    }
    let mut msg = alerting::alert_message(&facts, n.recovery);
    if !n.recovery && s.attach_recording && channel == "voice" {
        if let Some(last) = runs.last() {
            if let Some(a) = recording_of(tx, data_dir, last.id, options.attach_max_bytes)? {
                msg.attachments.push(a);
            }
        }
    }
    // A list deleted under the setting: the event stands, nobody to tell.
    let Some(list) = sql::finish(distribution_by_id(&Lite(tx), s.distribution_id))? else {
        return Ok(0);
    };
    let queue = addressed(&list.contacts, msg, &facts, n, note, standing);
    for x in &queue {
        sql::finish(enqueue_in(&Lite(tx), x, now_ms()))?;
    }
    Ok(queue.len())
}

/// The run's call recording as an attachment, when it has one of at most `max` bytes.
fn recording_of(
    tx: &Transaction,
    data_dir: &Path,
    run: i64,
    max: u64,
) -> StoreResult<Option<Attachment>> {
    let rec: Option<(String, String, i64)> = tx
        .prepare_cached(
            "SELECT r.sha256, r.content_type, r.size FROM test_runs t
               JOIN recordings r ON r.id = t.recording_id WHERE t.id = ?1",
        )?
        .query_row([run], |r| {
            Ok((r.get("sha256")?, r.get("content_type")?, r.get("size")?))
        })
        .optional()?;
    let Some((sha, content_type, size)) = rec else {
        return Ok(None);
    };
    if size.max(0) as u64 > max {
        return Ok(None);
    }
    let Ok(data) = std::fs::read(crate::store::recordings::file_path(data_dir, &sha)) else {
        tracing::warn!(run, recording = %sha, "alert: the recording's file cannot be read");
        return Ok(None);
    };
    Ok(Some(Attachment::recording(run, content_type, data)))
}
