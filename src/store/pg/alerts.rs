//! PostgreSQL: the alert engine and its backfill, as `store/sqlite/alerts.rs` has them for
//! SQLite (rules in `domain/alerting.rs`, `docs/alerting.md`; the shared pieces in
//! `store/alerts.rs`; the events' reads and edits in `store/alert_events.rs`).
//!
//! The engine runs inside the ingest transaction ([`evaluate`], called by `pg/runs.rs`): the
//! runs, the engine's state per (setting, test case), the events, their ticket jobs and
//! their notifications in the outbox are committed together or not at all.
//!
//! The rules run over the whole batch first ([`plan`], shared with SQLite); what they decide is
//! then written in a few multi-row statements (`unnest`): the events (their ids taken from
//! the table's sequence beforehand), their runs, the closings, the notifications and the
//! test cases' memory. Written event by event it was about ten round trips an event, the engine's
//! main cost here (`docs/benchmarks.md` has the engine's on/off figures).
//!
//! **Several instances on one database.** The engine reads, changes and writes back
//! `alert_memory`; two transactions doing that at once for the same test case
//! would lose one's runs or open two events. So the engine runs under the transaction-
//! scoped advisory lock [`ENGINE_LOCK`] (`SELECT pg_advisory_xact_lock(..)`), which
//! [`evaluate`] takes in the ingest transaction before it reads any state: exactly one
//! transaction on the database runs the engine at a time, whichever instance it comes
//! from, and it holds the lock until it commits or rolls back. An instance killed mid-batch
//! loses its connection; PostgreSQL rolls its transaction back and frees the lock, and the
//! batch (never acknowledged) is sent again. The lock is ingest's own (`pg/runs.rs` takes
//! it at the batch's start, so taking it again here is immediate) and the backfill takes it
//! too. The transaction must be READ COMMITTED (the default; [`evaluate`] checks): each
//! statement after the lock then sees what the previous holder committed.
//!
//! A setting's delete does not take the lock: its trigger removes the setting's states from
//! the test cases' rows, and one of those rows a batch read before the delete committed and
//! changes the states of is written back whole, the deleted setting's state with it (a row
//! whose clock alone moves has that one column updated). That state is never read again
//! (no setting gets a deleted one's id here), and the setting's events and notifications
//! are held off by [`hold_settings`] as before.
use std::collections::hash_map::Entry;
use std::collections::{BTreeMap, HashMap};

use async_trait::async_trait;
use chrono_tz::Tz;
use deadpool_postgres::GenericClient;
use tokio_postgres::Row;

use super::Postgres;
use crate::clock::now_ms;
use crate::domain::alerting;
use crate::domain::distribution::Distribution;
use crate::domain::incident::{self, Member, Note};
use crate::domain::notify::{Attachment, NewNotification};
use crate::domain::run::{RunStatus, RunType};
use crate::store::alert_events::AlertEngine;
use crate::store::alerts::{
    addressed, claim_for_backfill, facts_by_case, hold_settings, mark_evaluated, plan,
    AlertOptions, CaseRows, Clock, EngineOutcome, Evaluated, IdMap, Notice, Plan, SettingRow,
    Settled, Standing, ViewCache,
};
use crate::store::catalog::status_texts;
use crate::store::distributions::distribution_by_id;
use crate::store::runs::{ms_to_time, RunRow};
use crate::store::sql::Pg;
use crate::store::{StoreError, StoreResult};

/// The advisory lock (transaction-scoped) under which one transaction at a time runs the
/// alert engine on the database (see the module's documentation). It is ingest's lock
/// ([`super::INGEST_LOCK`]): a batch holds it from its start already (taking it again
/// in the same transaction is immediate), and the backfill, taking it too, never runs
/// between a batch's runs and their evaluation.
pub(crate) const ENGINE_LOCK: i64 = super::INGEST_LOCK;

/// Evaluates the batch's stored runs against the settings of their test cases' groups, in
/// run-time order per test case, inside the ingest transaction `tx` (as
/// `store::sqlite::alerts::evaluate` does on SQLite). The ingest of `pg/runs.rs` calls it
/// last in its transaction; it takes [`ENGINE_LOCK`] when some setting applies to the batch.
pub(crate) async fn evaluate(
    tx: &super::Tx<'_>,
    tz: Tz,
    options: &AlertOptions,
    view: &ViewCache,
    runs: &[Evaluated],
) -> StoreResult<EngineOutcome> {
    evaluate_with(tx, tz, options, view, runs, None, Clock::Now).await
}

/// Takes [`ENGINE_LOCK`] and checks the transaction is READ COMMITTED (each statement after
/// the lock then sees what the previous holder committed).
async fn lock_engine(tx: &impl GenericClient) -> StoreResult<()> {
    let isolation: String = tx
        .query_one(
            "SELECT current_setting('transaction_isolation') FROM pg_advisory_xact_lock($1)",
            &[&ENGINE_LOCK],
        )
        .await?
        .get(0);
    if isolation != "read committed" {
        return Err(StoreError::Invalid(format!(
            "the alert engine needs a READ COMMITTED transaction, not {isolation}"
        )));
    }
    Ok(())
}

/// What the engine has stored of these test cases: their rows of `alert_memory`.
async fn load_cases(tx: &impl GenericClient, cases: &[i64]) -> StoreResult<IdMap<CaseRows>> {
    let stmt = tx
        .prepare_cached(
            "SELECT test_case_id, clock_ms, states FROM alert_memory
              WHERE test_case_id = ANY($1)",
        )
        .await?;
    let mut out = IdMap::default();
    for r in tx.query(&stmt, &[&cases]).await? {
        let case: i64 = r.get(0);
        out.insert(case, CaseRows::parse(case, r.get(1), r.get(2))?);
    }
    Ok(out)
}

/// Writes the memory of each test case the batch changed: the clocks that alone moved in one
/// update, the rest in one upsert.
async fn save_cases(
    tx: &impl GenericClient,
    settled: Vec<(i64, CaseRows, Settled)>,
) -> StoreResult<()> {
    let (mut cases, mut clocks, mut states) = (Vec::new(), Vec::new(), Vec::new());
    let (mut moved, mut to) = (Vec::new(), Vec::new());
    for (case, before, out) in settled {
        if let Some(clock) = before.clock_only(&out) {
            moved.push(case);
            to.push(clock);
        } else if let Some(after) = before.after(&out) {
            cases.push(case);
            clocks.push(after.clock);
            states.push(after.states_text());
        }
    }
    if !moved.is_empty() {
        let stmt = tx
            .prepare_cached(
                "UPDATE alert_memory m SET clock_ms = v.clock_ms
                   FROM unnest($1::BIGINT[], $2::BIGINT[]) AS v (test_case_id, clock_ms)
                  WHERE m.test_case_id = v.test_case_id",
            )
            .await?;
        tx.execute(&stmt, &[&moved, &to]).await?;
    }
    if cases.is_empty() {
        return Ok(());
    }
    let stmt = tx
        .prepare_cached(
            "INSERT INTO alert_memory (test_case_id, clock_ms, states)
             SELECT * FROM unnest($1::BIGINT[], $2::BIGINT[], $3::TEXT[])
             ON CONFLICT (test_case_id) DO UPDATE SET clock_ms = excluded.clock_ms,
                    states = excluded.states",
        )
        .await?;
    tx.execute(&stmt, &[&cases, &clocks, &states]).await?;
    Ok(())
}

/// Adds runs to events (`(event, run)`), a run already in its event left as it is.
async fn join_runs(tx: &impl GenericClient, joins: Vec<(i64, i64)>) -> StoreResult<()> {
    if joins.is_empty() {
        return Ok(());
    }
    let (events, runs): (Vec<i64>, Vec<i64>) = joins.into_iter().unzip();
    let stmt = tx
        .prepare_cached(
            "INSERT INTO alert_event_runs (event_id, run_id)
             SELECT * FROM unnest($1::BIGINT[], $2::BIGINT[]) ON CONFLICT DO NOTHING",
        )
        .await?;
    tx.execute(&stmt, &[&events, &runs]).await?;
    Ok(())
}

/// [`evaluate`] for the settings `only` (all when `None`), events timed by `clock`.
#[allow(clippy::too_many_arguments)]
async fn evaluate_with(
    tx: &impl GenericClient,
    tz: Tz,
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
    let mut locked = false;
    let (held, mut plan) = loop {
        let held = view.view(&Pg(tx)).await?;
        let settings_of = held.settings_of(&by_case, only);
        if settings_of.is_empty() {
            return Ok(EngineOutcome::default());
        }
        if !locked {
            // From here on the engine reads and writes its state: one transaction at a time.
            lock_engine(tx).await?;
            locked = true;
        }
        let case_ids: Vec<i64> = settings_of.keys().copied().collect();
        let stored = load_cases(tx, &case_ids).await?;
        let plan = plan(
            &by_case,
            &settings_of,
            &held.settings,
            stored,
            &held.evaluated,
            only,
            clock,
        );
        let first = if only.is_none() {
            held.first_evaluated(&settings_of)
        } else {
            Vec::new()
        };
        // The view may be older than a setting's delete: what the plan names is held, or
        // the batch is planned again on a view read afresh.
        if !hold_settings(&Pg(tx), &plan.settings_named(&first)).await? {
            view.forget();
            continue;
        }
        mark_evaluated(&Pg(tx), &first).await?;
        break (held, plan);
    };
    let settings = &held.settings;
    let ids = event_ids(tx, plan.opens.len()).await?;
    plan.resolve(&ids);
    // The incidents' tallies first: the close leaves an event closed already. The batch's
    // new events are not stored yet: they are counted as they join.
    crate::store::incidents::closing_in(&Pg(tx), &plan.closes).await?;
    // Each new event joins an incident or starts one (domain/incident.rs), under the
    // engine's lock, and is inserted with it (closed already when the batch closes it):
    // a row written once.
    let members = members(tx, settings, &plan, &ids).await?;
    let notes = crate::store::incidents::assign_members(&Pg(tx), &members, now_ms()).await?;
    open_events(tx, settings, &plan, &members, &notes).await?;
    join_runs(tx, plan.event_runs(&ids)).await?;
    close_events(tx, &plan.closes).await?;
    let queued = notify(tx, tz, options, settings, &plan.notices, &notes).await?;
    save_cases(tx, plan.settled).await?;
    Ok(EngineOutcome {
        opened: plan.opens.len(),
        closed: plan.closes.len(),
        queued,
    })
}

/// The ids of `n` new events, taken from the table's sequence (ascending).
async fn event_ids(tx: &impl GenericClient, n: usize) -> StoreResult<Vec<i64>> {
    if n == 0 {
        return Ok(Vec::new());
    }
    let stmt = tx
        .prepare_cached(
            "SELECT nextval(pg_get_serial_sequence('alert_events', 'id'))
               FROM generate_series(1, $1::BIGINT)",
        )
        .await?;
    let mut ids: Vec<i64> = tx
        .query(&stmt, &[&(n as i64)])
        .await?
        .iter()
        .map(|r| r.get(0))
        .collect();
    ids.sort_unstable();
    Ok(ids)
}

/// What grouping reads of the plan's new events (`ids`, in the order of the openings):
/// their causes, opening and close in the batch, in that order.
async fn members(
    tx: &impl GenericClient,
    settings: &IdMap<SettingRow>,
    plan: &Plan,
    ids: &[i64],
) -> StoreResult<Vec<(i64, Member)>> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let cases: Vec<i64> = plan.opens.iter().map(|o| o.case).collect();
    let mut entry: HashMap<i64, Option<i64>> = HashMap::new();
    for r in tx
        .query(
            "SELECT id, ivr_id FROM test_cases WHERE id = ANY($1)",
            &[&cases],
        )
        .await?
    {
        entry.insert(r.get("id"), r.get("ivr_id"));
    }
    let mut closed: HashMap<i64, i64> = HashMap::new();
    for (event, ms) in &plan.closes {
        closed.entry(*event).or_insert(*ms);
    }
    Ok(plan
        .opens
        .iter()
        .zip(ids)
        .map(|(o, id)| {
            let group = settings[&o.setting].group_id;
            let ivr = entry.get(&o.case).copied().flatten();
            (
                *id,
                Member {
                    causes: incident::causes(group, ivr),
                    alert_ms: o.alert_ms,
                    closed_ms: closed.get(id).copied(),
                },
            )
        })
        .collect())
}

/// Inserts the plan's events (one statement), `members` their ids (in the order of the
/// openings) and what grouping read of them, each with its incident from `notes`, and
/// closed already when the batch closes it.
async fn open_events(
    tx: &impl GenericClient,
    settings: &IdMap<SettingRow>,
    plan: &Plan,
    members: &[(i64, Member)],
    notes: &HashMap<i64, Note>,
) -> StoreResult<()> {
    if plan.opens.is_empty() {
        return Ok(());
    }
    // An event's status is its first run's; the first run is rarely outside the batch.
    let outside: Vec<i64> = plan.opens.iter().filter_map(|o| o.status_of).collect();
    let mut stored_status: HashMap<i64, i64> = HashMap::new();
    if !outside.is_empty() {
        // Planned at each call, as `EVENT_RUNS` (a plan cached while `test_runs` was small
        // scans it).
        for r in tx
            .query(
                "SELECT id, status FROM test_runs WHERE id = ANY($1)",
                &[&outside],
            )
            .await?
        {
            if let Some(s) = u8::try_from(r.get::<_, i16>("status"))
                .ok()
                .and_then(RunStatus::from_code)
            {
                stored_status.insert(r.get("id"), s.status_id());
            }
        }
    }
    let (mut setting_ids, mut names, mut groups, mut cases) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let (mut lists, mut statuses, mut times) = (Vec::new(), Vec::new(), Vec::new());
    let (mut incidents, mut closes) = (Vec::new(), Vec::new());
    let ids: Vec<i64> = members.iter().map(|(id, _)| *id).collect();
    for (o, (id, m)) in plan.opens.iter().zip(members) {
        let s = &settings[&o.setting];
        setting_ids.push(o.setting);
        names.push(s.name.as_str());
        groups.push(s.group_id);
        cases.push(o.case);
        lists.push(s.distribution_id);
        statuses.push(
            o.status_of
                .and_then(|r| stored_status.get(&r).copied())
                .unwrap_or(o.status_id),
        );
        times.push(o.alert_ms);
        incidents.push(notes.get(id).map(|n| n.incident_id));
        closes.push(m.closed_ms);
    }
    let stmt = tx
        .prepare_cached(
            "INSERT INTO alert_events (id, setting_id, setting_name, group_id, group_name,
                    test_case_id, distribution_id, distribution_name, status_id, alert_ms,
                    incident_id, open, closed_ms)
             SELECT u.id, u.setting_id, u.setting_name, u.group_id, coalesce(g.name, ''),
                    u.test_case_id, u.distribution_id, coalesce(d.name, ''), u.status_id,
                    u.alert_ms, u.incident_id, u.closed_ms IS NULL, u.closed_ms
               FROM unnest($1::BIGINT[], $2::BIGINT[], $3::TEXT[], $4::BIGINT[], $5::BIGINT[],
                           $6::BIGINT[], $7::BIGINT[], $8::BIGINT[], $9::BIGINT[],
                           $10::BIGINT[])
                    AS u(id, setting_id, setting_name, group_id, test_case_id,
                         distribution_id, status_id, alert_ms, incident_id, closed_ms)
               LEFT JOIN test_case_groups g ON g.id = u.group_id
               LEFT JOIN distribution_lists d ON d.id = u.distribution_id",
        )
        .await?;
    tx.execute(
        &stmt,
        &[
            &ids,
            &setting_ids,
            &names,
            &groups,
            &cases,
            &lists,
            &statuses,
            &times,
            &incidents,
            &closes,
        ],
    )
    .await?;
    Ok(())
}

/// Closes events (`(event, closed_ms)`), one statement; an event closed already is left.
async fn close_events(tx: &impl GenericClient, closes: &[(i64, i64)]) -> StoreResult<()> {
    if closes.is_empty() {
        return Ok(());
    }
    let (events, times): (Vec<i64>, Vec<i64>) = closes.iter().copied().unzip();
    // Planned at each call (an unnamed statement), as `EVENT_RUNS`: `alert_events` grows.
    tx.execute(
        "UPDATE alert_events e SET open = FALSE, closed_ms = u.closed_ms
           FROM unnest($1::BIGINT[], $2::BIGINT[]) AS u(id, closed_ms)
          WHERE e.id = u.id AND e.open",
        &[&events, &times],
    )
    .await?;
    Ok(())
}

/// What a notification of an event says of it: its status, group, test case and channel.
struct EventHead {
    status_id: i64,
    group: String,
    case_name: String,
    channel: String,
    standing: Option<Standing>,
}

/// Queues the plan's notifications and, for each new event of a setting with attach
/// ticket, its ticket job; returns how many notifications. The events and their runs are
/// read in one statement each, the notifications written in one (those with a recording
/// attached one at a time).
async fn notify(
    tx: &impl GenericClient,
    tz: Tz,
    options: &AlertOptions,
    settings: &IdMap<SettingRow>,
    notices: &[Notice],
    notes: &HashMap<i64, crate::domain::incident::Note>,
) -> StoreResult<usize> {
    if notices.is_empty() {
        return Ok(0);
    }
    let texts = status_texts(&Pg(tx)).await?;
    let mut events: Vec<i64> = notices.iter().map(|n| n.event).collect();
    events.sort_unstable();
    events.dedup();
    let mut heads: HashMap<i64, EventHead> = HashMap::new();
    // Planned at each call, as `EVENT_RUNS`: `alert_events` grows.
    for r in tx
        .query(
            "SELECT e.id, e.status_id, e.group_name, tc.name AS case_name, tc.channel,
                    e.incident_id, coalesce(i.first_event <> e.id, FALSE) AS joined,
                    i.open_events
               FROM alert_events e LEFT JOIN test_cases tc ON tc.id = e.test_case_id
                    LEFT JOIN incidents i ON i.id = e.incident_id
              WHERE e.id = ANY($1)",
            &[&events],
        )
        .await?
    {
        heads.insert(
            r.get("id"),
            EventHead {
                status_id: r.get("status_id"),
                group: r.get("group_name"),
                case_name: r.get::<_, Option<String>>("case_name").unwrap_or_default(),
                channel: r.get::<_, Option<String>>("channel").unwrap_or_default(),
                standing: r
                    .get::<_, Option<i64>>("incident_id")
                    .map(|incident_id| Standing {
                        incident_id,
                        joined: r.get("joined"),
                        open: r.get::<_, Option<i64>>("open_events").unwrap_or(0),
                    }),
            },
        );
    }
    let mut runs_of: HashMap<i64, Vec<RunRow>> = HashMap::new();
    for r in tx.query(EVENT_RUNS, &[&events]).await? {
        let event: i64 = r.get("id");
        let case = heads.get(&event).map_or("", |h| h.case_name.as_str());
        runs_of
            .entry(event)
            .or_default()
            .push(run_row(&r, 1, &texts, case));
    }
    let now = now_ms();
    let mut lists: HashMap<i64, Option<Distribution>> = HashMap::new();
    let mut queue = Vec::new();
    for n in notices {
        let (Some(s), Some(head)) = (settings.get(&n.setting), heads.get(&n.event)) else {
            continue;
        };
        let all = runs_of.get(&n.event).map(Vec::as_slice).unwrap_or_default();
        let runs: Vec<RunRow> = match &n.runs {
            Some(ids) => all
                .iter()
                .filter(|r| ids.contains(&r.id))
                .cloned()
                .collect(),
            None => all.to_vec(),
        };
        let status = texts.get(&head.status_id).cloned().unwrap_or_default();
        let facts = s.facts(
            tz,
            options,
            n.event,
            head.case_name.clone(),
            head.group.clone(),
            status,
            &runs,
        );
        if let Some(job) = s.ticket_job(n.event, &facts).filter(|_| !n.recovery) {
            crate::store::auto_tickets::queue_in(&Pg(tx), &job, now).await?;
        }
        let mut msg = alerting::alert_message(&facts, n.recovery);
        if !n.recovery && s.attach_recording && head.channel == "voice" {
            if let Some(last) = runs.last() {
                if let Some(a) = recording_of(tx, last.id, options.attach_max_bytes).await? {
                    msg.attachments.push(a);
                }
            }
        }
        let list = match lists.entry(s.distribution_id) {
            Entry::Occupied(e) => e.into_mut(),
            Entry::Vacant(e) => e.insert(distribution_by_id(&Pg(tx), s.distribution_id).await?),
        };
        // A list deleted under the setting: the event stands, nobody to tell.
        if let Some(list) = list {
            queue.extend(addressed(
                &list.contacts,
                msg,
                &facts,
                n,
                notes.get(&n.event),
                head.standing,
            ));
        }
    }
    enqueue_all(tx, &queue, now).await?;
    Ok(queue.len())
}

/// Queues notifications as `outbox::enqueue_in` does (a key in the outbox already is not
/// queued again), one statement for each run of them without attachments.
async fn enqueue_all(
    tx: &impl GenericClient,
    items: &[NewNotification],
    now: i64,
) -> StoreResult<()> {
    for chunk in items.chunk_by(|a, b| a.attachments.is_empty() && b.attachments.is_empty()) {
        if !chunk[0].attachments.is_empty() {
            for n in chunk {
                crate::store::outbox::enqueue_in(&Pg(tx), n, now).await?;
            }
            continue;
        }
        let mut vars = Vec::with_capacity(chunk.len());
        for n in chunk {
            vars.push(
                serde_json::to_string(&n.vars).map_err(|e| StoreError::Invalid(e.to_string()))?,
            );
        }
        let keys: Vec<&str> = chunk.iter().map(|n| n.key.as_str()).collect();
        let channels: Vec<i64> = chunk.iter().map(|n| n.channel.id()).collect();
        let recipients: Vec<&str> = chunk.iter().map(|n| n.recipient.as_str()).collect();
        let subjects: Vec<&str> = chunk.iter().map(|n| n.subject.as_str()).collect();
        let texts: Vec<&str> = chunk.iter().map(|n| n.text.as_str()).collect();
        let htmls: Vec<Option<&str>> = chunk.iter().map(|n| n.html.as_deref()).collect();
        let causes: Vec<&str> = chunk.iter().map(|n| n.cause.as_str()).collect();
        // The destination each row counts against, as `outbox::enqueue_in` stores it: without
        // it every row would share one, and a hung webhook would hold the mail back.
        let dests: Vec<String> = chunk
            .iter()
            .map(|n| crate::domain::delivery::destination(n.channel, &n.recipient))
            .collect();
        let stmt = tx
            .prepare_cached(
                "INSERT INTO outbox (key, channel, recipient, subject, body_text, body_html, vars,
                                     cause, dest, created_ms, next_ms)
                 SELECT u.*, $10::BIGINT, $10::BIGINT
                   FROM unnest($1::TEXT[], $2::BIGINT[], $3::TEXT[], $4::TEXT[], $5::TEXT[],
                               $6::TEXT[], $7::TEXT[], $8::TEXT[], $9::TEXT[]) AS u
                 ON CONFLICT (key) DO NOTHING",
            )
            .await?;
        tx.execute(
            &stmt,
            &[
                &keys,
                &channels,
                &recipients,
                &subjects,
                &texts,
                &htmls,
                &vars,
                &causes,
                &dests,
                &now,
            ],
        )
        .await?;
    }
    Ok(())
}

/// The run's call recording as an attachment, when it has one of at most `max` bytes (the
/// bytes are in `recordings.data`; a larger recording's are not even read).
async fn recording_of(
    tx: &impl GenericClient,
    run: i64,
    max: u64,
) -> StoreResult<Option<Attachment>> {
    let max = i64::try_from(max).unwrap_or(i64::MAX);
    // Planned at each call, as `event_runs` (a plan cached while `test_runs` was small scans
    // it).
    let Some(r) = tx
        .query_opt(
            "SELECT r.content_type, CASE WHEN r.size <= $2 THEN r.data END
               FROM test_runs t JOIN recordings r ON r.id = t.recording_id WHERE t.id = $1",
            &[&run, &max],
        )
        .await?
    else {
        return Ok(None);
    };
    let content_type: String = r.get(0);
    let Some(data) = r.get::<_, Option<Vec<u8>>>(1) else {
        return Ok(None);
    };
    Ok(Some(Attachment::recording(run, content_type, data)))
}

/// The runs of the events `$1` (an array, no id twice), each event's oldest first, after the
/// event's id: [`event_runs`] reads one event's, the engine's notifications a batch's.
///
/// Each event's runs are found by its key in `alert_event_runs`, and each run by its key in
/// `test_runs`, whatever the tables' statistics say: each `LATERAL` subquery is kept apart
/// (`OFFSET 0`) and run once a row of the one before, so the only plan worth making is a
/// lookup of the primary key. Written as one join, the plan followed the statistics, which
/// lag behind a growing table: a plan cached while `test_runs` was small scanned it whole
/// (slow at a million runs), and even planned at each call, with
/// `alert_event_runs` analyzed when it held fewer events, PostgreSQL expected thousands of
/// rows for a batch's events and read the whole of `test_runs` for them (a hash join in the
/// bench: 36 ms at 77,000 runs for 137 rows; a merge join along its whole index in the test).
/// `tests::event_runs_never_scan_the_runs_as_the_table_grows` makes both happen.
pub(crate) const EVENT_RUNS: &str = "SELECT e.id, t.id, t.test_case_id, t.run_time, t.duration_ms,
            t.status, t.run_type, t.mos
       FROM unnest($1::BIGINT[]) AS e(id)
       CROSS JOIN LATERAL (SELECT run_id FROM alert_event_runs WHERE event_id = e.id
                           OFFSET 0) AS r
       CROSS JOIN LATERAL (SELECT id, test_case_id, run_time, duration_ms, status, run_type, mos
                             FROM test_runs WHERE id = r.run_id OFFSET 0) AS t
      ORDER BY e.id, t.run_time, t.id";

/// A run of [`EVENT_RUNS`], its columns from `at`.
fn run_row(r: &Row, at: usize, texts: &BTreeMap<i64, String>, case_name: &str) -> RunRow {
    let status = u8::try_from(r.get::<_, i16>(at + 4))
        .ok()
        .and_then(RunStatus::from_code)
        .unwrap_or(RunStatus::Fail);
    RunRow {
        id: r.get(at),
        test_case_id: r.get(at + 1),
        test_case_name: case_name.to_string(),
        run_time: ms_to_time(r.get(at + 2)),
        duration_ms: r.get(at + 3),
        status,
        run_type: u8::try_from(r.get::<_, i16>(at + 5))
            .ok()
            .and_then(RunType::from_code)
            .unwrap_or(RunType::Manual),
        mos: r
            .get::<_, Option<i32>>(at + 6)
            .and_then(|m| u32::try_from(m).ok()),
        status_text: texts.get(&status.status_id()).cloned().unwrap_or_default(),
    }
}

#[async_trait]
impl AlertEngine for Postgres {
    fn configure_engine(&self, options: AlertOptions) {
        *self.alerting.write().unwrap_or_else(|e| e.into_inner()) = options;
    }

    async fn backfill_engine(
        &self,
        tz: Tz,
        ids: Vec<i64>,
        from_ms: i64,
    ) -> StoreResult<EngineOutcome> {
        let options = self
            .alerting
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        let mut total = EngineOutcome::default();
        let mut after = (from_ms - 1, i64::MAX);
        let mut c = self.client().await?;
        loop {
            // READ COMMITTED whatever the server's default (the engine checks it).
            let tx = c
                .build_transaction()
                .isolation_level(tokio_postgres::IsolationLevel::ReadCommitted)
                .start()
                .await?;
            // The engine's lock from the start: the check that the settings are fresh and
            // the evaluation are one step for ingest running meanwhile.
            tx.execute("SELECT pg_advisory_xact_lock($1)", &[&ENGINE_LOCK])
                .await?;
            if after.1 == i64::MAX {
                claim_for_backfill(&Pg(&tx), &ids).await?;
            }
            let runs: Vec<Evaluated> = tx
                .query(
                    "SELECT id, test_case_id, run_time, status FROM test_runs
                      WHERE run_time > $1 OR (run_time = $1 AND id > $2)
                      ORDER BY run_time, id LIMIT 5000",
                    &[&after.0, &after.1],
                )
                .await?
                .iter()
                .map(|r| Evaluated {
                    run_id: r.get(0),
                    test_case_id: r.get(1),
                    run_ms: r.get(2),
                    status_id: u8::try_from(r.get::<_, i16>(3))
                        .ok()
                        .and_then(RunStatus::from_code)
                        .unwrap_or(RunStatus::Fail)
                        .status_id(),
                })
                .collect();
            let last = runs.last().map(|r| (r.run_ms, r.run_id));
            // Runs a maintenance window marked are left out.
            let runs = crate::store::maintenance::unmarked(&Pg(&tx), runs).await?;
            let out = evaluate_with(
                &tx,
                tz,
                &options,
                &self.engine_view,
                &runs,
                Some(ids.as_slice()),
                Clock::RunTime,
            )
            .await?;
            tx.commit().await?;
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

#[cfg(test)]
mod tests {
    //! Run with `TEST_POSTGRES_URL` set (each test gets a fresh database); without it they
    //! pass at once. The engine's answers compared with SQLite's are `store/both/alerts.rs`.
    use std::sync::Arc;

    use chrono_tz::America::Toronto;

    use super::*;
    use crate::store::alert_events::event_runs;
    use crate::store::both::alerts::{run, site};
    use crate::store::pg::testdb::connect;
    use crate::store::RunStore;

    /// An event's runs are read by the primary key of `test_runs` however much the table
    /// grew since the connection first read them, without an `ANALYZE` (a plan
    /// cached while the table was small scanned it whole).
    #[tokio::test]
    async fn event_runs_never_scan_the_runs_as_the_table_grows() {
        let Some(url) = crate::store::pg::testdb::fresh().await else {
            return;
        };
        let dir = tempfile::tempdir().unwrap();
        let pg = connect(&url, dir.path()).await;
        let seed = (1..=4)
            .map(|c| run(&format!("seed{c}"), c, 1_794_990_000_000, "pass"))
            .collect();
        pg.ingest_runs(Toronto, seed).await.unwrap();
        site(&pg).await;
        let t0 = 1_795_000_000_000;
        let out = pg
            .ingest_runs(
                Toronto,
                vec![run("f1", 1, t0, "fail"), run("f2", 1, t0 + 1000, "fail")],
            )
            .await
            .unwrap();
        assert!(out.alerts.opened > 0, "{:?}", out.alerts);
        let c = pg.client().await.unwrap();
        let event: i64 = c
            .query_one("SELECT min(id) FROM alert_events", &[])
            .await
            .unwrap()
            .get(0);
        let texts = status_texts(&Pg(&c)).await.unwrap();
        // While the table is small, as often as a connection's statement cache needs to
        // settle on a plan.
        for _ in 0..10 {
            let runs = event_runs(&Pg(&c), &texts, event, "Case 1").await.unwrap();
            assert_eq!(runs.len(), 2);
        }
        // The table grows, nobody analyzes it.
        c.batch_execute(
            "INSERT INTO test_runs (test_case_id, run_time, duration_ms, status, run_type,
                                    script_id, results)
             SELECT 2, g, 1000, 1, 1, s.script_id, ''::bytea
               FROM generate_series(1, 200000) g,
                    (SELECT script_id FROM test_runs LIMIT 1) s",
        )
        .await
        .unwrap();
        let reader = pg.client().await.unwrap();
        let scans = || async {
            // The counts of the connection that read the runs, flushed now.
            c.batch_execute("SELECT pg_stat_force_next_flush()")
                .await
                .unwrap();
            reader
                .query_one(
                    "SELECT seq_scan FROM pg_stat_user_tables WHERE relname = 'test_runs'",
                    &[],
                )
                .await
                .unwrap()
                .get::<_, i64>(0)
        };
        let before = scans().await;
        for _ in 0..10 {
            let runs = event_runs(&Pg(&c), &texts, event, "Case 1").await.unwrap();
            assert_eq!(runs.len(), 2);
        }
        assert_eq!(scans().await, before, "event_runs scanned test_runs");
        // The statement's plan as a call makes it.
        let plan = || async {
            c.query(&format!("EXPLAIN {EVENT_RUNS}"), &[&vec![event]])
                .await
                .unwrap()
                .iter()
                .map(|r| r.get::<_, String>(0))
                .collect::<Vec<_>>()
        };
        let shown = plan().await;
        assert!(
            !shown.iter().any(|l| l.contains("Seq Scan on test_runs")),
            "{shown:#?}"
        );
        // Statistics that lag behind: `alert_event_runs` analyzed when it held 200 events,
        // then ten times as many opened. PostgreSQL expects about a hundred runs for each
        // new event (the table's rows over the 200 events it knows), 13,000 for a batch's
        // 120, and a join planned from that read the whole of `test_runs` (a hash or a merge
        // join). The lookups by key stay whatever the statistics say.
        let fake_events = |n: i64| {
            format!(
                "INSERT INTO alert_events (setting_id, setting_name, group_id, group_name,
                        test_case_id, distribution_id, distribution_name, status_id, alert_ms)
                 SELECT setting_id, setting_name, group_id, group_name, test_case_id,
                        distribution_id, distribution_name, status_id, alert_ms
                   FROM alert_events, generate_series(1, {n})
                  WHERE id = (SELECT min(id) FROM alert_events);
                 INSERT INTO alert_event_runs (event_id, run_id)
                 SELECT e.id, e.id * 10 + g FROM alert_events e, generate_series(0, 9) g
                  WHERE NOT EXISTS (SELECT 1 FROM alert_event_runs r WHERE r.event_id = e.id);"
            )
        };
        c.batch_execute(&fake_events(200)).await.unwrap();
        c.batch_execute(
            "ALTER TABLE alert_event_runs ALTER COLUMN event_id SET (n_distinct = 200);
             ALTER TABLE alert_event_runs ALTER COLUMN event_id SET STATISTICS 10;
             ANALYZE alert_event_runs;
             ANALYZE test_runs;",
        )
        .await
        .unwrap();
        c.batch_execute(&fake_events(2000)).await.unwrap();
        let batch: Vec<i64> = c
            .query(
                "(SELECT id FROM alert_events ORDER BY id DESC LIMIT 119) UNION SELECT $1",
                &[&event],
            )
            .await
            .unwrap()
            .iter()
            .map(|r| r.get(0))
            .collect();
        let shown: Vec<String> = c
            .query(&format!("EXPLAIN {EVENT_RUNS}"), &[&batch])
            .await
            .unwrap()
            .iter()
            .map(|r| r.get(0))
            .collect();
        assert!(
            !shown
                .iter()
                .any(|l| l.contains("Seq Scan on test_runs") || l.contains("Merge Join")),
            "{shown:#?}"
        );
        let before = scans().await;
        let rows = c.query(EVENT_RUNS, &[&batch]).await.unwrap();
        assert!(rows.len() > 1000, "{}", rows.len());
        assert_eq!(
            rows.iter().filter(|r| r.get::<_, i64>(0) == event).count(),
            2
        );
        assert_eq!(scans().await, before, "the engine's read scanned test_runs");
    }

    /// Two instances ingesting failures of one test case at once: the engine runs one
    /// transaction at a time, so one event holds every run and is told once.
    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn two_instances_open_one_event() {
        let Some(url) = crate::store::pg::testdb::fresh().await else {
            return;
        };
        let dir = tempfile::tempdir().unwrap();
        let a = Arc::new(connect(&url, dir.path()).await);
        let b = Arc::new(connect(&url, dir.path()).await);
        let seed = (1..=4)
            .map(|c| run(&format!("seed{c}"), c, 1_794_990_000_000, "pass"))
            .collect();
        a.ingest_runs(Toronto, seed).await.unwrap();
        site(&*a).await;
        let t0 = 1_795_000_000_000;
        let mut tasks = Vec::new();
        for i in 0..40i64 {
            let store = if i % 2 == 0 { a.clone() } else { b.clone() };
            tasks.push(tokio::spawn(async move {
                store
                    .ingest_runs(
                        Toronto,
                        vec![run(&format!("f{i}"), 1, t0 + i * 1000, "fail")],
                    )
                    .await
                    .unwrap()
            }));
        }
        for t in tasks {
            t.await.unwrap();
        }
        let c = a.client().await.unwrap();
        let count = |sql: &'static str| {
            let c = &c;
            async move { c.query_one(sql, &[]).await.unwrap().get::<_, i64>(0) }
        };
        // Billing down (threshold 2) and Billing shaky (threshold 3): one event each.
        assert_eq!(count("SELECT count(*) FROM alert_events").await, 2);
        // Runs arriving out of order are late for the engine (not evaluated), so an event
        // holds at most every run; each run once.
        let runs = count("SELECT count(*) FROM alert_event_runs").await;
        assert_eq!(
            runs,
            count(
                "SELECT count(*) FROM (SELECT DISTINCT event_id, run_id FROM alert_event_runs) x"
            )
            .await
        );
        // Both events are one incident (one test case): the second, which joined it, is
        // sent to the list's e-mail only, its SMS does not page again.
        assert_eq!(count("SELECT count(*) FROM outbox").await, 3);
        assert_eq!(
            count("SELECT count(DISTINCT incident_id) FROM alert_events").await,
            1
        );
        assert_eq!(count("SELECT count(*) FROM ticket_jobs").await, 1);
    }
}
