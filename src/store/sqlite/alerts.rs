//! SQLite: [`AlertEventStore`] and the alert engine, run in the ingest transaction
//! ([`evaluate`], called by `sqlite/runs.rs`).

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use async_trait::async_trait;
use chrono_tz::Tz;
use rusqlite::{params, Connection, OptionalExtension, Transaction};

use crate::domain::alerting::{self, Rule};
use crate::domain::caller::{Scope, Visibility};
use crate::domain::notify::Attachment;
use crate::domain::page::{Page, PageRequest};
use crate::domain::run::{RunStatus, RunType};
use crate::domain::schedule::Week;
use crate::store::alerts::{
    addressed, facts_by_case, plan, state_condition, AlertEvent, AlertEventDetail,
    AlertEventFilter, AlertEventStore, AlertOptions, CaseRows, Clock, EngineOutcome, Evaluated,
    Notice, Opening, SettingRow, Settled, StoredState,
};
use crate::store::audit;
use crate::store::catalog::status_texts;
use crate::store::distributions::distribution_by_id;
use crate::store::outbox::now_ms;
use crate::store::outbox::{enqueue_in, notifications_of_causes};
use crate::store::runs::{ms_to_time, RunRow};
use crate::store::sql::{self, Lite};
use crate::store::{takes_ticket, Sqlite, StoreError, StoreResult};

const EVENT_COLUMNS: &str = "e.id, e.setting_id, e.setting_name, e.group_id, e.group_name,
       e.test_case_id, coalesce(tc.name, ''), e.distribution_id, e.distribution_name,
       e.status_id, e.alert_ms, e.open, e.closed_ms, e.jira_ticket,
       (SELECT count(*) FROM alert_event_runs r WHERE r.event_id = e.id), e.comment,
       e.incident_id";

fn event_row(
    texts: &std::collections::BTreeMap<i64, String>,
) -> impl Fn(&rusqlite::Row) -> rusqlite::Result<AlertEvent> + '_ {
    move |r| {
        let status_id: i64 = r.get(9)?;
        Ok(AlertEvent {
            id: r.get(0)?,
            setting_id: r.get(1)?,
            setting_name: r.get(2)?,
            group_id: r.get(3)?,
            group_name: r.get(4)?,
            test_case_id: r.get(5)?,
            test_case_name: r.get(6)?,
            distribution_id: r.get(7)?,
            distribution_name: r.get(8)?,
            status_id,
            status_text: texts.get(&status_id).cloned().unwrap_or_default(),
            alert_time: ms_to_time(r.get(10)?),
            open: r.get::<_, i64>(11)? == 1,
            closed_time: r.get::<_, Option<i64>>(12)?.map(ms_to_time),
            jira_ticket: r.get(13)?,
            run_count: r.get::<_, i64>(14)?.max(0) as u64,
            comment: r.get(15)?,
            incident_id: r.get(16)?,
        })
    }
}

/// `(sql, user)`: the scope as a condition on `e.group_id`.
fn scope_clause(scope: Scope) -> (&'static str, i64) {
    match scope {
        Scope::All => ("?1 = ?1", 0),
        Scope::User(u) => (
            "e.group_id IN (SELECT group_id FROM user_groups WHERE user_id = ?1)",
            u,
        ),
    }
}

#[async_trait]
impl AlertEventStore for Sqlite {
    fn configure_alerts(&self, options: AlertOptions) {
        *self
            .inner
            .alerting
            .write()
            .unwrap_or_else(|e| e.into_inner()) = options;
    }

    async fn list_alert_events(
        &self,
        scope: Scope,
        page: PageRequest,
        filter: AlertEventFilter,
    ) -> StoreResult<Page<AlertEvent>> {
        self.read(move |c| {
            let texts = sql::finish(status_texts(&Lite(c)))?;
            let (clause, user) = scope_clause(scope);
            let status = filter.status.unwrap_or(-1);
            let cond = format!("{clause} AND (?2 = -1 OR e.status_id = ?2)");
            let me = filter.me.clone();
            let total: i64 = c
                .prepare_cached(&format!(
                    "SELECT count(*) FROM alert_events e WHERE {cond} AND {}",
                    state_condition(filter.state, "?3")
                ))?
                .query_row(params![user, status, me], |r| r.get(0))?;
            let items = c
                .prepare_cached(&format!(
                    "SELECT {EVENT_COLUMNS} FROM alert_events e
                       LEFT JOIN test_cases tc ON tc.id = e.test_case_id
                      WHERE {cond} AND {} ORDER BY e.alert_ms DESC, e.id DESC LIMIT ?3 OFFSET ?4",
                    state_condition(filter.state, "?5")
                ))?
                .query_map(
                    params![user, status, page.size, page.offset(), me],
                    event_row(&texts),
                )?
                .collect::<Result<Vec<_>, _>>()?;
            Ok(Page {
                items,
                total: total.max(0) as u64,
            })
        })
        .await
    }

    async fn alert_event(
        &self,
        scope: Scope,
        id: i64,
    ) -> StoreResult<Visibility<AlertEventDetail>> {
        self.read(move |c| {
            let texts = sql::finish(status_texts(&Lite(c)))?;
            let event = c
                .prepare_cached(&format!(
                    "SELECT {EVENT_COLUMNS} FROM alert_events e
                       LEFT JOIN test_cases tc ON tc.id = e.test_case_id WHERE e.id = ?1"
                ))?
                .query_row([id], event_row(&texts))
                .optional()?;
            let Some(event) = event else {
                return Ok(Visibility::Missing);
            };
            if !scope_sees(c, scope, event.group_id)? {
                return Ok(Visibility::Hidden);
            }
            let runs = event_runs(c, &texts, id, &event.test_case_name)?;
            let notifications = sql::finish(notifications_of_causes(
                &Lite(c),
                &[format!("alert:{id}"), format!("recovery:{id}")],
            ))?;
            Ok(Visibility::Visible(AlertEventDetail {
                event,
                runs,
                notifications,
            }))
        })
        .await
    }

    async fn set_alert_ticket(
        &self,
        scope: Scope,
        id: i64,
        key: &str,
    ) -> StoreResult<Visibility<()>> {
        let key = key.to_string();
        self.write(move |tx| {
            let ticket = match event_ticket(tx, scope, id)?.visible() {
                Ok(t) => t,
                Err(unseen) => return Ok(unseen),
            };
            if !takes_ticket("Alert", id, ticket.as_deref(), &key)? {
                return Ok(Visibility::Visible(()));
            }
            let before = sql::finish(audit::snapshot(&Lite(tx), "alert_events", id))?;
            tx.execute(
                "UPDATE alert_events SET jira_ticket = ?2 WHERE id = ?1",
                params![id, key],
            )?;
            let after = sql::finish(audit::snapshot(&Lite(tx), "alert_events", id))?;
            sql::finish(audit::record(
                &Lite(tx),
                "alert_event",
                "ticket",
                id,
                before,
                after,
            ))?;
            Ok(Visibility::Visible(()))
        })
        .await
    }

    async fn update_alert(
        &self,
        scope: Scope,
        id: i64,
        comment: Option<String>,
        ticket: Option<String>,
    ) -> StoreResult<Visibility<()>> {
        self.write(move |tx| {
            let current = match event_ticket(tx, scope, id)?.visible() {
                Ok(t) => t,
                Err(unseen) => return Ok(unseen),
            };
            let before = sql::finish(audit::snapshot(&Lite(tx), "alert_events", id))?;
            if let Some(key) = &ticket {
                if takes_ticket("Alert", id, current.as_deref(), key)? {
                    tx.execute(
                        "UPDATE alert_events SET jira_ticket = ?2 WHERE id = ?1",
                        params![id, key],
                    )?;
                }
            }
            if let Some(comment) = &comment {
                tx.execute(
                    "UPDATE alert_events SET comment = nullif(?2, '') WHERE id = ?1",
                    params![id, comment],
                )?;
            }
            let after = sql::finish(audit::snapshot(&Lite(tx), "alert_events", id))?;
            if before != after {
                sql::finish(audit::record(
                    &Lite(tx),
                    "alert_event",
                    "update",
                    id,
                    before,
                    after,
                ))?;
            }
            Ok(Visibility::Visible(()))
        })
        .await
    }

    async fn alert_with_ticket(&self, scope: Scope, key: &str) -> StoreResult<Visibility<i64>> {
        let key = key.to_string();
        self.read(move |c| {
            // Several events may share a ticket key only through old data; the first the
            // scope may see answers.
            let rows: Vec<(i64, bool)> = c
                .prepare_cached(
                    "SELECT e.id, ?2 IS NULL OR EXISTS (SELECT 1 FROM user_groups ug
                             WHERE ug.user_id = ?2 AND ug.group_id = e.group_id)
                       FROM alert_events e WHERE e.jira_ticket = ?1 ORDER BY e.id",
                )?
                .query_map(params![key, scope.user()], |r| Ok((r.get(0)?, r.get(1)?)))?
                .collect::<Result<_, _>>()?;
            Ok(Visibility::first(rows.into_iter().map(|(id, seen)| {
                if seen {
                    Visibility::Visible(id)
                } else {
                    Visibility::Hidden
                }
            })))
        })
        .await
    }

    async fn open_alert_count(&self, scope: Scope) -> StoreResult<i64> {
        self.read(move |c| {
            let (clause, user) = scope_clause(scope);
            Ok(c.prepare_cached(&format!(
                "SELECT count(*) FROM alert_events e WHERE e.open = 1 AND {clause}"
            ))?
            .query_row([user], |r| r.get(0))?)
        })
        .await
    }

    async fn backfill_alerts(
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
            let (out, last) = self
                .write(move |tx| {
                    let fresh: i64 = tx.query_row(
                        &format!(
                            "SELECT count(*) FROM alert_state WHERE setting_id IN ({})",
                            ids.iter().map(i64::to_string).collect::<Vec<_>>().join(",")
                        ),
                        [],
                        |r| r.get(0),
                    )?;
                    if fresh > 0 && after.1 == i64::MAX {
                        return Err(StoreError::Conflict(
                            "these alert settings have evaluated runs already".into(),
                        ));
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
                    // Runs a maintenance window marked are left out (issue 28).
                    let runs = sql::finish(crate::store::maintenance::unmarked(&Lite(tx), runs))?;
                    let out = evaluate_with(
                        tx,
                        tz,
                        &data_dir,
                        &options,
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

fn event_runs(
    c: &Connection,
    texts: &std::collections::BTreeMap<i64, String>,
    id: i64,
    case_name: &str,
) -> StoreResult<Vec<RunRow>> {
    let rows = c
        .prepare_cached(
            "SELECT t.id, t.test_case_id, t.run_time, t.duration_ms, t.status, t.run_type, t.mos
               FROM alert_event_runs r JOIN test_runs t ON t.id = r.run_id
              WHERE r.event_id = ?1 ORDER BY t.run_time, t.id",
        )?
        .query_map([id], |r| {
            let status = RunStatus::from_code(r.get(4)?).unwrap_or(RunStatus::Fail);
            Ok(RunRow {
                id: r.get(0)?,
                test_case_id: r.get(1)?,
                test_case_name: case_name.to_string(),
                run_time: ms_to_time(r.get(2)?),
                duration_ms: r.get(3)?,
                status,
                run_type: RunType::from_code(r.get(5)?).unwrap_or(RunType::Manual),
                mos: r.get(6)?,
                status_text: texts.get(&status.status_id()).cloned().unwrap_or_default(),
            })
        })?
        .collect::<Result<Vec<_>, _>>()?;
    Ok(rows)
}

fn load_setting(tx: &Transaction, id: i64) -> StoreResult<Option<SettingRow>> {
    let head = tx
        .prepare_cached(
            "SELECT name, active, group_id, distribution_id, email_subject, voice_message,
                    sms_prefix, attach_recording, notify_on_recovery, failure_to_alert,
                    attach_jira_ticket, jira_project, jira_assignee, jira_username
               FROM alert_settings WHERE id = ?1",
        )?
        .query_row([id], |r| {
            Ok(SettingRow {
                rule: Rule {
                    setting_id: id,
                    active: r.get::<_, i64>(1)? == 1,
                    failure_to_alert: r.get::<_, i64>(9)?.clamp(1, 10) as u32,
                    statuses: Vec::new(),
                    week: Week::default(),
                },
                name: r.get(0)?,
                group_id: r.get(2)?,
                distribution_id: r.get(3)?,
                email_subject: r.get(4)?,
                voice_message: r.get(5)?,
                sms_prefix: r.get(6)?,
                attach_recording: r.get::<_, i64>(7)? == 1,
                notify_on_recovery: r.get::<_, i64>(8)? == 1,
                jira: (r.get::<_, i64>(10)? == 1).then_some((
                    r.get::<_, Option<String>>(11)?.unwrap_or_default(),
                    r.get::<_, Option<String>>(12)?.unwrap_or_default(),
                    r.get::<_, Option<String>>(13)?.unwrap_or_default(),
                )),
            })
        })
        .optional()?;
    let Some(mut s) = head else {
        return Ok(None);
    };
    s.rule.statuses = tx
        .prepare_cached("SELECT status_id FROM alert_setting_statuses WHERE setting_id = ?1")?
        .query_map([id], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    let masks = tx
        .prepare_cached(
            "SELECT day_of_week, slots FROM alert_setting_schedule WHERE setting_id = ?1",
        )?
        .query_map([id], |r| {
            Ok((r.get::<_, i64>(0)? as u8, r.get::<_, i64>(1)? as u64))
        })?
        .collect::<Result<Vec<_>, _>>()?;
    s.rule.week = Week::from_masks(masks);
    Ok(Some(s))
}

/// The active settings of each of `cases` (a JSON array), by test case, in id order.
fn settings_of_cases(tx: &Transaction, cases: &str) -> StoreResult<HashMap<i64, Vec<i64>>> {
    let mut out: HashMap<i64, Vec<i64>> = HashMap::new();
    let mut stmt = tx.prepare_cached(
        "SELECT gc.test_case_id, s.id FROM alert_settings s
           JOIN group_cases gc ON gc.group_id = s.group_id
          WHERE gc.test_case_id IN (SELECT value FROM json_each(?1)) AND s.active = 1
          ORDER BY gc.test_case_id, s.id",
    )?;
    let mut rows = stmt.query([cases])?;
    while let Some(r) = rows.next()? {
        out.entry(r.get(0)?).or_default().push(r.get(1)?);
    }
    Ok(out)
}

/// What the engine has stored of `cases` (a JSON array): their clocks and all their state
/// rows (one statement each for the batch).
fn load_cases(tx: &Transaction, cases: &str) -> StoreResult<HashMap<i64, CaseRows>> {
    let mut out: HashMap<i64, CaseRows> = HashMap::new();
    let mut stmt = tx.prepare_cached(
        "SELECT test_case_id, last_ms FROM alert_clock
          WHERE test_case_id IN (SELECT value FROM json_each(?1))",
    )?;
    let mut rows = stmt.query([cases])?;
    while let Some(r) = rows.next()? {
        out.entry(r.get(0)?).or_default().clock = Some(r.get(1)?);
    }
    let mut stmt = tx.prepare_cached(
        "SELECT test_case_id, setting_id, count, pending, open_event, last_run_ms FROM alert_state
          WHERE test_case_id IN (SELECT value FROM json_each(?1))",
    )?;
    let mut rows = stmt.query([cases])?;
    while let Some(r) = rows.next()? {
        let pending: String = r.get(3)?;
        out.entry(r.get(0)?).or_default().rows.insert(
            r.get(1)?,
            StoredState {
                count: r.get::<_, i64>(2)?.max(0) as u32,
                pending: StoredState::parse_pending(&pending),
                open_event: r.get(4)?,
                last_run_ms: r.get(5)?,
            },
        );
    }
    Ok(out)
}

/// Writes what [`CaseRows::settle`] asks for test case `case`.
fn save_case(tx: &Transaction, case: i64, out: &Settled) -> StoreResult<()> {
    if let Some(clock) = out.clock {
        tx.prepare_cached(
            "INSERT INTO alert_clock (test_case_id, last_ms) VALUES (?1, ?2)
             ON CONFLICT (test_case_id) DO UPDATE SET last_ms = excluded.last_ms",
        )?
        .execute(params![case, clock])?;
    }
    if out.rows.is_empty() {
        return Ok(());
    }
    let mut upsert = tx.prepare_cached(
        "INSERT INTO alert_state (setting_id, test_case_id, count, pending, open_event, last_run_ms)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)
         ON CONFLICT (test_case_id, setting_id) DO UPDATE SET count = excluded.count,
                pending = excluded.pending, open_event = excluded.open_event,
                last_run_ms = excluded.last_run_ms",
    )?;
    for (setting, s) in &out.rows {
        upsert.execute(params![
            setting,
            case,
            s.count,
            s.pending_text(),
            s.open_event,
            s.last_run_ms
        ])?;
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
    runs: &[Evaluated],
) -> StoreResult<EngineOutcome> {
    evaluate_with(tx, tz, data_dir, options, runs, None, Clock::Now)
}

/// [`evaluate`] for the settings `only` (all when `None`), events timed by `clock`.
fn evaluate_with(
    tx: &Transaction,
    tz: Tz,
    data_dir: &Path,
    options: &AlertOptions,
    runs: &[Evaluated],
    only: Option<&[i64]>,
    clock: Clock,
) -> StoreResult<EngineOutcome> {
    if !options.enabled || runs.is_empty() {
        return Ok(EngineOutcome::default());
    }
    let by_case = facts_by_case(runs, tz);
    let cases = format!(
        "[{}]",
        by_case
            .iter()
            .map(|(c, _)| c.to_string())
            .collect::<Vec<_>>()
            .join(",")
    );
    let settings_of = settings_of_cases(tx, &cases)?;
    if settings_of.is_empty() {
        return Ok(EngineOutcome::default());
    }
    let stored = load_cases(tx, &cases)?;
    let mut settings: HashMap<i64, SettingRow> = HashMap::new();
    for &sid in settings_of.values().flatten() {
        if only.is_some_and(|o| !o.contains(&sid)) || settings.contains_key(&sid) {
            continue;
        }
        if let Some(s) = load_setting(tx, sid)? {
            settings.insert(sid, s);
        }
    }
    let mut plan = plan(&by_case, &settings_of, &settings, stored, only, clock);
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
    for (case, settled) in &plan.settled {
        save_case(tx, *case, settled)?;
    }
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
            .query_row([first], |r| r.get::<_, u8>(0))
            .optional()?
            .and_then(RunStatus::from_code);
        if let Some(status) = stored {
            status_id = status.status_id();
        }
    }
    let group_name: String = tx
        .prepare_cached("SELECT name FROM test_case_groups WHERE id = ?1")?
        .query_row([s.group_id], |r| r.get(0))
        .optional()?
        .unwrap_or_default();
    let dist_name: String = tx
        .prepare_cached("SELECT name FROM distribution_lists WHERE id = ?1")?
        .query_row([s.distribution_id], |r| r.get(0))
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
    let (case_id, status_id, group_name): (i64, i64, String) = tx
        .prepare_cached(
            "SELECT test_case_id, status_id, group_name FROM alert_events WHERE id = ?1",
        )?
        .query_row([n.event], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
    let (case_name, channel): (String, String) = tx
        .prepare_cached("SELECT name, channel FROM test_cases WHERE id = ?1")?
        .query_row([case_id], |r| Ok((r.get(0)?, r.get(1)?)))
        .optional()?
        .unwrap_or_default();
    let mut runs = event_runs(tx, texts, n.event, &case_name)?;
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
    let queue = addressed(&list.contacts, msg, &facts, n, note);
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
        .query_row([run], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
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

/// The ticket of event `id`, when the scope may see the event's group.
fn event_ticket(c: &Connection, scope: Scope, id: i64) -> StoreResult<Visibility<Option<String>>> {
    let row: Option<(i64, Option<String>)> = c
        .prepare_cached("SELECT group_id, jira_ticket FROM alert_events WHERE id = ?1")?
        .query_row([id], |r| Ok((r.get(0)?, r.get(1)?)))
        .optional()?;
    let Some((group, ticket)) = row else {
        return Ok(Visibility::Missing);
    };
    if !scope_sees(c, scope, group)? {
        return Ok(Visibility::Hidden);
    }
    Ok(Visibility::Visible(ticket))
}

/// Whether the scope may see an event of group `group`. The group need not exist any more:
/// events stay in the history after their group goes (an administrator still sees them).
fn scope_sees(c: &Connection, scope: Scope, group: i64) -> StoreResult<bool> {
    let Scope::User(user) = scope else {
        return Ok(true);
    };
    Ok(
        c.prepare_cached("SELECT 1 FROM user_groups WHERE user_id = ?1 AND group_id = ?2")?
            .query_row(params![user, group], |r| r.get::<_, i64>(0))
            .optional()?
            .is_some(),
    )
}
