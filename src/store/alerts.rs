//! Alert events and the alert engine's state (rules in `domain/alerting.rs`,
//! `docs/alerting.md`): the trait and what both backends' engines share.
//!
//! The engine runs inside the ingest transaction (`evaluate` in `sqlite/alerts.rs` and
//! `pg/alerts.rs`, called by that backend's ingest): the runs, the engine's state per
//! (setting, test case), the events and their notifications in the outbox are committed
//! together or not at all, so a re-sent batch (its runs are duplicates, not evaluated again)
//! or a `kill -9` neither loses nor duplicates an event. Engine actions are not user
//! mutations: they write no audit rows.

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use chrono_tz::Tz;

use std::collections::{BTreeMap, HashMap};

use super::alert_settings::{settings_by_id, status_ids_of, weeks_of, Lock};
use super::runs::RunRow;
use super::sql::Exec;
use super::StoreResult;
use crate::domain::alert_setting::AlertSetting;
use crate::domain::alerting::{self, Action, AlertFacts, Rule, RunFact};
pub use crate::domain::alerting::{EngineOutcome, Evaluated};
use crate::domain::caller::{Scope, Visibility};
use crate::domain::notify::Notification;
use crate::domain::opstate::EventState;
use crate::domain::page::{Page, PageRequest};

/// The engine's maps by test case or setting id, hashed with Fx rather than SipHash: a
/// batch looks ids up thousands of times and SipHash was a visible share of its time. The
/// DoS resistance SipHash buys is not needed here: a batch holds at most 10,000 runs, so
/// even ids chosen to collide cost it milliseconds.
pub(super) type IdMap<V> = HashMap<i64, V, rustc_hash::FxBuildHasher>;
/// A set of ids, hashed as [`IdMap`].
pub(super) type IdSet = std::collections::HashSet<i64, rustc_hash::FxBuildHasher>;

/// How the engine works, from the configuration (`Store::configure_alerts` at start-up).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AlertOptions {
    /// Evaluate runs at ingest (off only to measure the engine's cost).
    pub enabled: bool,
    /// The console's address for the link in messages (`notify.public_url`).
    pub public_url: String,
    /// Largest recording attached to an alert e-mail (`notify.attach_recording_max_bytes`);
    /// a larger one is not attached (the message links to the alert instead).
    pub attach_max_bytes: u64,
}

impl Default for AlertOptions {
    fn default() -> Self {
        AlertOptions {
            enabled: true,
            public_url: String::new(),
            attach_max_bytes: 5 * 1024 * 1024,
        }
    }
}

/// Which events a list shows.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AlertEventFilter {
    /// The first run's alert status: 7 failure, 3 pass, 4 warning.
    pub status: Option<i64>,
    /// Open, unacknowledged, or the caller's (cxwatch's addition).
    pub state: Option<EventState>,
    /// The caller's username for [`EventState::Mine`], else `None`.
    pub me: Option<String>,
}

/// A list's state filter as SQL on event `e`, `me` the placeholder of the caller's username
/// (bound by both backends; NULL unless the filter is 'mine'). Mine: events the caller
/// acknowledged, commented on, or muted (a window made from the event).
pub fn state_condition(state: Option<EventState>, me: &str) -> String {
    let open = match state {
        Some(EventState::Open) => "e.open = TRUE",
        Some(EventState::Unacknowledged) => "e.open = TRUE AND e.ack_ms IS NULL",
        Some(EventState::Mine) | None => "TRUE",
    };
    format!(
        "({open}) AND (CAST({me} AS TEXT) IS NULL
            OR lower(e.ack_user) = lower({me})
            OR EXISTS (SELECT 1 FROM alert_comments ac
                        WHERE ac.event_id = e.id AND lower(ac.author) = lower({me}))
            OR EXISTS (SELECT 1 FROM maintenance_windows mw
                        WHERE mw.event_id = e.id AND lower(mw.created_by) = lower({me})))"
    )
}

/// An alert event as the list shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct AlertEvent {
    pub id: i64,
    pub setting_id: i64,
    pub setting_name: String,
    pub group_id: i64,
    pub group_name: String,
    pub test_case_id: i64,
    pub test_case_name: String,
    pub distribution_id: i64,
    pub distribution_name: String,
    /// The first run's alert status id.
    pub status_id: i64,
    pub status_text: String,
    pub alert_time: DateTime<Utc>,
    pub open: bool,
    pub closed_time: Option<DateTime<Utc>>,
    pub run_count: u64,
    pub jira_ticket: Option<String>,
    /// A user's comment on the event (`PUT alerts/{id}`).
    pub comment: Option<String>,
    /// The incident it belongs to (`domain/incident.rs`); none for an event opened before
    /// incidents were kept.
    pub incident_id: Option<i64>,
}

/// An event with its runs (oldest first) and the notifications it caused.
#[derive(Debug, Clone, PartialEq)]
pub struct AlertEventDetail {
    pub event: AlertEvent,
    pub runs: Vec<RunRow>,
    pub notifications: Vec<Notification>,
}

#[async_trait]
pub trait AlertEventStore {
    /// Sets how the engine works (at start-up, from the configuration).
    fn configure_alerts(&self, options: AlertOptions);
    /// One page of the events of the groups the scope may see, newest first: by the time
    /// each opened (`alert_ms`), then by id (the engine opens events of a run history out of
    /// time order, so ids are not times).
    async fn list_alert_events(
        &self,
        scope: Scope,
        page: PageRequest,
        filter: AlertEventFilter,
    ) -> StoreResult<Page<AlertEvent>>;
    /// Event `id` with its runs and notifications, when it exists and the scope may see its
    /// group.
    async fn alert_event(&self, scope: Scope, id: i64)
        -> StoreResult<Visibility<AlertEventDetail>>;
    /// Open events of the groups the scope may see.
    async fn open_alert_count(&self, scope: Scope) -> StoreResult<i64>;
    /// Stores the key of the ticket a user opened for event `id` (alert details), when the
    /// scope may see its group; a conflict when it has another ticket already. Audited.
    async fn set_alert_ticket(
        &self,
        scope: Scope,
        id: i64,
        key: &str,
    ) -> StoreResult<Visibility<()>>;
    /// Stores the comment (`Some("")` removes it) and the ticket key of event `id`
    /// (`PUT alerts/{id}`), when the scope may see its group; the key is taken as
    /// [`AlertEventStore::set_alert_ticket`] takes it (a conflict when the event has another).
    /// Audited when something changed.
    async fn update_alert(
        &self,
        scope: Scope,
        id: i64,
        comment: Option<String>,
        ticket: Option<String>,
    ) -> StoreResult<Visibility<()>>;
    /// The event whose ticket is `key` (a user's or the engine's), when the scope may see it.
    async fn alert_with_ticket(&self, scope: Scope, key: &str) -> StoreResult<Visibility<i64>>;
    /// Runs the engine over the runs already stored since `from_ms`, in run-time order, for
    /// the settings `ids`, which must be new (no state yet: no run was evaluated for them).
    /// Events open and close at their runs' times. A transaction per 5,000 runs.
    async fn backfill_alerts(
        &self,
        tz: Tz,
        ids: Vec<i64>,
        from_ms: i64,
    ) -> StoreResult<EngineOutcome>;
}

/// Which time an event's opening and closing take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Clock {
    /// Now (runs arriving).
    Now,
    /// The run's (runs evaluated afterwards).
    RunTime,
}

/// A setting as the engine reads it, with what its messages need (both backends).
pub(super) struct SettingRow {
    pub rule: Rule,
    pub name: String,
    pub group_id: i64,
    pub distribution_id: i64,
    pub email_subject: String,
    pub voice_message: String,
    pub sms_prefix: String,
    pub attach_recording: bool,
    pub notify_on_recovery: bool,
    /// attachJiraTicket with its project, assignee and username.
    pub jira: Option<(String, String, String)>,
}

impl SettingRow {
    /// The engine's view of setting `s` (its week read), counting the statuses `statuses`.
    fn of(s: AlertSetting, statuses: Vec<i64>) -> SettingRow {
        let text = |v: Option<String>| v.unwrap_or_default();
        SettingRow {
            rule: Rule {
                setting_id: s.id,
                active: s.active,
                failure_to_alert: u32::from(s.failure_to_alert).clamp(1, 10),
                statuses,
                week: s.week,
            },
            name: s.name,
            group_id: s.group_id,
            distribution_id: s.distribution_id,
            email_subject: s.email_subject,
            voice_message: s.voice_message,
            sms_prefix: s.sms_prefix,
            attach_recording: s.attach_recording,
            notify_on_recovery: s.notify_on_recovery,
            jira: s.attach_jira_ticket.then(|| {
                (
                    text(s.jira_project),
                    text(s.jira_assignee),
                    text(s.jira_username),
                )
            }),
        }
    }

    /// What the messages and the ticket of event `event` say, its runs oldest first.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn facts(
        &self,
        tz: Tz,
        options: &AlertOptions,
        event: i64,
        test_case: String,
        group: String,
        status: String,
        runs: &[RunRow],
    ) -> AlertFacts {
        AlertFacts {
            event_id: event,
            setting_name: self.name.clone(),
            email_subject: self.email_subject.clone(),
            sms_prefix: self.sms_prefix.clone(),
            voice_message: self.voice_message.clone(),
            test_case,
            group,
            status,
            runs: runs
                .iter()
                .map(|r| (r.id, site_time(tz, r.run_time), r.status_text.clone()))
                .collect(),
            public_url: options.public_url.clone(),
        }
    }

    /// The ticket job of a new event, when the setting attaches a ticket.
    pub(super) fn ticket_job(
        &self,
        event: i64,
        facts: &AlertFacts,
    ) -> Option<super::auto_tickets::NewTicketJob> {
        let (project, assignee, username) = self.jira.as_ref()?;
        let t = alerting::auto_ticket(facts);
        Some(super::auto_tickets::NewTicketJob {
            event_id: event,
            setting_id: self.rule.setting_id,
            project: project.clone(),
            assignee: assignee.clone(),
            username: username.clone(),
            summary: t.summary,
            description: t.description,
            csv_name: t.csv_name,
            csv: t.csv,
        })
    }
}

/// The settings `ids` that exist, as the engine reads them (through the one reader of a
/// setting, `alert_settings::settings_by_id`).
async fn engine_settings(c: &impl Exec, ids: &[i64]) -> StoreResult<IdMap<SettingRow>> {
    let rows = settings_by_id(c, ids, Lock::None).await?;
    let found: Vec<i64> = rows.iter().map(|s| s.id).collect();
    let mut statuses = status_ids_of(c, &found).await?;
    let mut weeks = weeks_of(c, &found).await?;
    Ok(rows
        .into_iter()
        .map(|mut s| {
            s.week = weeks.remove(&s.id).unwrap_or_default();
            let counted = statuses.remove(&s.id).unwrap_or_default();
            (s.id, SettingRow::of(s, counted))
        })
        .collect())
}

/// What the engine reads of the settings, for every test case at once. Both backends' engines
/// keep it between batches ([`ViewCache`]) for as long as `engine_generation` (migration
/// 0037) has not moved: its triggers move it at every change of the settings, their
/// statuses and weeks, and the groups' test cases, whichever instance makes it.
pub(super) struct EngineView {
    generation: i64,
    /// The active settings of each test case's groups, in id order.
    of_case: IdMap<Vec<i64>>,
    pub settings: IdMap<SettingRow>,
    /// The settings the engine has evaluated runs for (`alert_setting_evaluated`): a test
    /// case without their row is at rest ([`alerting::CaseState::unstored`]).
    pub evaluated: IdSet,
}

impl EngineView {
    async fn load(c: &impl Exec, generation: i64) -> StoreResult<EngineView> {
        let mut of_case: IdMap<Vec<i64>> = IdMap::default();
        for r in c
            .query(
                "SELECT gc.test_case_id, s.id FROM alert_settings s
                   JOIN group_cases gc ON gc.group_id = s.group_id
                  WHERE s.active = TRUE ORDER BY gc.test_case_id, s.id",
                &[],
            )
            .await?
        {
            of_case
                .entry(r.col("test_case_id")?)
                .or_default()
                .push(r.col("id")?);
        }
        let mut ids: Vec<i64> = of_case.values().flatten().copied().collect();
        ids.sort_unstable();
        ids.dedup();
        Ok(EngineView {
            generation,
            of_case,
            settings: engine_settings(c, &ids).await?,
            evaluated: c
                .column("SELECT setting_id FROM alert_setting_evaluated", &[])
                .await?
                .into_iter()
                .collect(),
        })
    }

    /// The settings to evaluate for each test case of the batch (`only` those, when
    /// given), in id order; test cases without one are left out.
    pub fn settings_of(
        &self,
        by_case: &[(i64, Vec<RunFact>)],
        only: Option<&[i64]>,
    ) -> IdMap<Vec<i64>> {
        by_case
            .iter()
            .filter_map(|(case, _)| {
                let mut ids = self.of_case.get(case)?.clone();
                ids.retain(|sid| only.is_none_or(|o| o.contains(sid)));
                (!ids.is_empty()).then_some((*case, ids))
            })
            .collect()
    }

    /// The settings of `settings_of` the engine evaluates for the first time.
    pub fn first_evaluated(&self, settings_of: &IdMap<Vec<i64>>) -> Vec<i64> {
        let mut ids: Vec<i64> = settings_of
            .values()
            .flatten()
            .filter(|sid| !self.evaluated.contains(sid))
            .copied()
            .collect();
        ids.sort_unstable();
        ids.dedup();
        ids
    }
}

/// The engine's [`EngineView`] between batches (a store holds one; clones share it).
#[derive(Clone, Default)]
pub(crate) struct ViewCache(std::sync::Arc<std::sync::Mutex<Option<std::sync::Arc<EngineView>>>>);

impl ViewCache {
    /// The view at the database's generation: the one held, or read again when the
    /// generation moved (one small read a batch otherwise).
    pub(super) async fn view(&self, c: &impl Exec) -> StoreResult<std::sync::Arc<EngineView>> {
        let generation: i64 = c.scalar("SELECT n FROM engine_generation", &[]).await?;
        let held = self.lock().clone();
        if let Some(v) = held.filter(|v| v.generation == generation) {
            return Ok(v);
        }
        let v = std::sync::Arc::new(EngineView::load(c, generation).await?);
        *self.lock() = Some(v.clone());
        Ok(v)
    }

    /// Drops the view held: the next batch reads it again.
    pub(super) fn forget(&self) {
        *self.lock() = None;
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<std::sync::Arc<EngineView>>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Records that the engine evaluated runs for `ids` (those that still exist); moves the
/// generation, so every instance reads the view again.
pub(super) async fn mark_evaluated(c: &impl Exec, ids: &[i64]) -> StoreResult<()> {
    if ids.is_empty() {
        return Ok(());
    }
    let (list, params) = id_list(ids);
    let sql = format!(
        "INSERT INTO alert_setting_evaluated (setting_id)
         SELECT id FROM alert_settings WHERE id IN ({list}) ON CONFLICT DO NOTHING"
    );
    c.execute(&sql, &params).await?;
    Ok(())
}

/// Claims the settings `ids` for a backfill, which is only for settings never evaluated: a
/// conflict when one was, else they are marked evaluated from here on.
pub(super) async fn claim_for_backfill(c: &impl Exec, ids: &[i64]) -> StoreResult<()> {
    if ids.is_empty() {
        return Ok(());
    }
    let (list, params) = id_list(ids);
    let sql = format!("SELECT count(*) FROM alert_setting_evaluated WHERE setting_id IN ({list})");
    if c.scalar::<i64>(&sql, &params).await? > 0 {
        return Err(super::StoreError::Conflict(
            "these alert settings have evaluated runs already".into(),
        ));
    }
    mark_evaluated(c, ids).await
}

/// On PostgreSQL, locks the settings `ids` (`FOR KEY SHARE`) until the transaction ends, so
/// that none is deleted under the rows about to name it; false when one is gone already
/// (the view was read before its delete: plan again). SQLite's one writer needs no lock.
pub(super) async fn hold_settings(c: &impl Exec, ids: &[i64]) -> StoreResult<bool> {
    if !c.postgres() || ids.is_empty() {
        return Ok(true);
    }
    let (list, params) = id_list(ids);
    let sql = format!("SELECT id FROM alert_settings WHERE id IN ({list}) FOR KEY SHARE");
    Ok(c.column::<i64>(&sql, &params).await?.len() == ids.len())
}

/// The placeholders of `ids` for `IN (…)`, and their parameters.
fn id_list(ids: &[i64]) -> (String, Vec<&dyn super::sql::Param>) {
    (
        super::sql::placeholders(1, ids.len()),
        ids.iter().map(|id| id as _).collect(),
    )
}

/// The outbox key prefix of an event's notifications (a key is queued once).
pub(super) fn notification_prefix(event: i64, recovery: bool) -> String {
    if recovery {
        format!("recovery:{event}")
    } else {
        format!("alert:{event}")
    }
}

/// Where a notified event's incident stands once the batch is written, as read beside the
/// event (`incidents`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Standing {
    pub incident_id: i64,
    /// The event joined the incident another event started (`incidents.first_event`; false
    /// when that is not known).
    pub joined: bool,
    /// Its events still open.
    pub open: i64,
}

/// Notice `n`'s message `msg` told to the contacts of its list, with its incident: an
/// opening names it (`note`, from [`super::incidents::assign_members`]), a recovery says
/// whether it is still open (`standing`). Either is sent only to the contacts that are not
/// paged again (`domain::incident::pages_joined`: e-mail, chat and webhooks, not SMS nor
/// voice) when the event joined its incident: a recovery goes where its alert went. Both
/// backends' engines address through it.
pub(super) fn addressed(
    contacts: &[crate::domain::distribution::Contact],
    msg: crate::domain::notify::Message,
    facts: &AlertFacts,
    n: &Notice,
    note: Option<&crate::domain::incident::Note>,
    standing: Option<Standing>,
) -> Vec<crate::domain::notify::NewNotification> {
    let prefix = notification_prefix(n.event, n.recovery);
    let (msg, joined) = match (n.recovery, note, standing) {
        (false, Some(note), _) => (alerting::with_incident(msg, facts, note), note.joined),
        (true, _, Some(s)) => (
            alerting::recovered_in_incident(msg, facts, s.incident_id, s.open),
            s.joined,
        ),
        _ => (msg, false),
    };
    let mut out = crate::domain::notify::address(contacts, &msg, &prefix, &prefix);
    if joined {
        out.retain(|x| crate::domain::incident::pages_joined(x.channel));
    }
    out
}

/// The facts of a batch's runs, by test case, in the order the engine evaluates them.
pub(super) fn facts_by_case(runs: &[Evaluated], tz: Tz) -> Vec<(i64, Vec<RunFact>)> {
    let mut facts: Vec<(i64, RunFact)> = runs
        .iter()
        .map(|r| {
            (
                r.test_case_id,
                RunFact::new(r.run_id, r.run_ms, r.status_id, tz),
            )
        })
        .collect();
    alerting::evaluation_order(&mut facts);
    facts
        .chunk_by(|a, b| a.0 == b.0)
        .map(|run| (run[0].0, run.iter().map(|(_, f)| *f).collect()))
        .collect()
}

/// `yyyy/MM/dd HH:mm:ss` in the site's zone.
fn site_time(tz: Tz, t: DateTime<Utc>) -> String {
    t.with_timezone(&tz).format("%Y/%m/%d %H:%M:%S").to_string()
}

/// The engine's state of one (setting, test case) as stored: `last_run_ms` `None` means the
/// (setting, test case) is at its test case's clock. In `alert_memory.states` it is a
/// [`PackedState`].
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(from = "PackedState", into = "PackedState")]
pub(super) struct StoredState {
    pub count: u32,
    pub pending: Vec<i64>,
    pub open_event: Option<i64>,
    pub last_run_ms: Option<i64>,
}

/// One state in `alert_memory.states`: `[count, [pending run ids, oldest first], open
/// event or null, last run time or null]`.
type PackedState = (u32, Vec<i64>, Option<i64>, Option<i64>);

impl From<PackedState> for StoredState {
    fn from((count, pending, open_event, last_run_ms): PackedState) -> Self {
        StoredState {
            count,
            pending,
            open_event,
            last_run_ms,
        }
    }
}

impl From<StoredState> for PackedState {
    fn from(s: StoredState) -> Self {
        (s.count, s.pending, s.open_event, s.last_run_ms)
    }
}

/// What the engine has stored of one test case, its row of `alert_memory` (migration
/// 0038): its clock and its states by setting (every setting's, active or not).
///
/// The time the states of a test case share is kept once, in the test case's clock; a state
/// whose `last_run_ms` is `None` is at the clock. A state at rest there (nothing counted,
/// nothing pending, no event) is not stored at all: what a missing one means is
/// [`alerting::CaseState::unstored`]'s to say. The states are kept in the test case's row
/// (`states`, JSON: [`CaseRows::states_text`]) rather than a row each, so a batch reads and
/// writes one row per test case, whatever its runs did: a failure that starts a count and
/// the pass that ends it no longer insert and delete rows and their index entries.
/// [`CaseRows::settle`] says what a batch changes: the clock, the states whose count, runs
/// or event changed, the states back at rest (removed), and the states whose time leaves
/// the clock (a setting that skipped the newest run, or was not evaluated: inactive, no
/// longer on the test case's group, or left out of a backfill).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct CaseRows {
    pub clock: Option<i64>,
    pub rows: BTreeMap<i64, StoredState>,
    /// Whether the row was read from `alert_memory` (a test case without one gets one).
    pub stored: bool,
}

/// The writes [`CaseRows::settle`] asks for.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct Settled {
    /// The test case's new clock, when it moves.
    pub clock: Option<i64>,
    /// The states to write, by setting.
    pub rows: Vec<(i64, StoredState)>,
    /// The settings whose states go: back at rest, what no stored state means.
    pub deletes: Vec<i64>,
}

impl CaseRows {
    /// `states` as the column keeps it: a JSON object by setting id of [`PackedState`],
    /// in the order of the settings' ids. The delete of a setting removes its key in SQL
    /// (the migration's triggers), so the format is one both backends' JSON functions read.
    pub fn states_text(&self) -> String {
        serde_json::to_string(&self.rows).unwrap_or_else(|_| "{}".into())
    }

    /// A test case's row as stored: its clock and its `states` ([`Self::states_text`]).
    pub fn parse(case: i64, clock: Option<i64>, states: &str) -> StoreResult<CaseRows> {
        let rows = serde_json::from_str(states).map_err(|e| {
            super::StoreError::Invalid(format!(
                "the alert engine's stored state of test case {case} is unreadable ({e}): \
                 alert_memory.states must be a JSON object of [count, [run ids], event, time]"
            ))
        })?;
        Ok(CaseRows {
            clock,
            rows,
            stored: true,
        })
    }

    /// The new clock, when moving it is all that `out` asks of a stored row: most batches
    /// of a quiet day, whose states stay at rest. That one column is updated, the row's
    /// states are not written again.
    pub fn clock_only(&self, out: &Settled) -> Option<i64> {
        let only = self.stored && out.rows.is_empty() && out.deletes.is_empty();
        out.clock.filter(|_| only)
    }

    /// The test case's memory after the writes `out` asked for; `None` when they change
    /// nothing (nothing to write).
    pub fn after(mut self, out: &Settled) -> Option<CaseRows> {
        if out.clock.is_none() && out.rows.is_empty() && out.deletes.is_empty() {
            return None;
        }
        self.clock = out.clock.or(self.clock);
        for setting in &out.deletes {
            self.rows.remove(setting);
        }
        for (setting, s) in &out.rows {
            self.rows.insert(*setting, s.clone());
        }
        Some(self)
    }

    /// The engine's state of (`setting`, this test case): its row's, else what no row means
    /// ([`alerting::CaseState::unstored`]; `evaluated`: the setting was evaluated before).
    pub fn state(&self, setting: i64, evaluated: bool) -> alerting::CaseState {
        match self.rows.get(&setting) {
            None => alerting::CaseState::unstored(evaluated, self.clock),
            Some(s) => alerting::CaseState {
                count: s.count,
                pending: s.pending.clone(),
                open_event: s.open_event,
                last_run_ms: s.last_run_ms.or(self.clock),
            },
        }
    }

    /// The rows to write after a batch: `evaluated` has each evaluated setting's state after
    /// the batch. With `move_clock` (ingest: every active setting of the test case was
    /// evaluated) the clock moves to the newest of their times; without it (a backfill of
    /// some settings) the clock stays.
    pub fn settle(&self, evaluated: &[(i64, alerting::CaseState)], move_clock: bool) -> Settled {
        let newest = evaluated.iter().filter_map(|(_, s)| s.last_run_ms).max();
        let clock = match newest {
            Some(t) if move_clock && self.clock.is_none_or(|c| t > c) => Some(t),
            _ => self.clock,
        };
        let mut out = Settled {
            clock: (clock != self.clock).then_some(clock).flatten(),
            ..Settled::default()
        };
        for (setting, s) in evaluated {
            let row = self.rows.get(setting);
            if s.at_rest(clock) || (s.last_run_ms.is_none() && row.is_none()) {
                // What no row means (or nothing evaluated yet): the row, if any, goes.
                if row.is_some() {
                    out.deletes.push(*setting);
                }
                continue;
            }
            let stored = StoredState {
                count: s.count,
                pending: s.pending.clone(),
                open_event: s.open_event,
                last_run_ms: s.last_run_ms.filter(|t| Some(*t) != clock),
            };
            if row != Some(&stored) {
                out.rows.push((*setting, stored));
            }
        }
        if out.clock.is_some() {
            // Rows at the old clock that were not evaluated keep their time. A test case has
            // a few settings: a scan costs less than a set.
            for (setting, s) in &self.rows {
                if s.last_run_ms.is_none() && !evaluated.iter().any(|(e, _)| e == setting) {
                    out.rows.push((
                        *setting,
                        StoredState {
                            last_run_ms: self.clock,
                            ..s.clone()
                        },
                    ));
                }
            }
        }
        out.rows.sort_by_key(|(s, _)| *s);
        out.deletes.sort_unstable();
        out
    }
}

/// What the rules decided for a batch, before any of it is written: each backend writes a
/// plan in a few statements (PostgreSQL: one multi-row statement each for the events, their
/// runs, the closings, the notifications and the state rows, instead of about ten round
/// trips an event).
///
/// An event the batch opens has no id yet: the plan refers to the n-th opening by the
/// placeholder `-(n + 1)` until [`Plan::resolve`] gives the openings their ids.
#[derive(Debug, Default)]
pub(super) struct Plan {
    pub opens: Vec<Opening>,
    /// Runs added to events: (event, run).
    pub joins: Vec<(i64, i64)>,
    /// Events closed: (event, closed_ms).
    pub closes: Vec<(i64, i64)>,
    /// The notifications to queue, in the order the rules asked for them.
    pub notices: Vec<Notice>,
    /// What each test case's memory was before the batch, and what the batch changes.
    pub settled: Vec<(i64, CaseRows, Settled)>,
}

/// An event to open.
#[derive(Debug)]
pub(super) struct Opening {
    pub setting: i64,
    pub case: i64,
    /// Its runs, oldest first.
    pub runs: Vec<i64>,
    /// Its status: its first run's when that run is in the batch, else the newest's.
    pub status_id: i64,
    /// Its first run when that run is not in the batch: its stored status, when it is
    /// found, is the event's.
    pub status_of: Option<i64>,
    pub alert_ms: i64,
}

/// A notification of an event (or of its recovery) to its setting's list.
#[derive(Debug)]
pub(super) struct Notice {
    pub event: i64,
    pub setting: i64,
    pub recovery: bool,
    /// An opening's runs: the message tells those (runs the batch adds to the event later
    /// are not in it); `None`: all the event's runs.
    pub runs: Option<Vec<i64>>,
}

impl Plan {
    /// The placeholder of the next opening.
    fn next_event(&self) -> i64 {
        -(self.opens.len() as i64) - 1
    }

    /// Puts the openings' ids (`ids[n]` for the n-th) in place of their placeholders.
    pub fn resolve(&mut self, ids: &[i64]) {
        let id = |e: i64| if e < 0 { ids[(-e - 1) as usize] } else { e };
        for (event, _) in self.joins.iter_mut().chain(self.closes.iter_mut()) {
            *event = id(*event);
        }
        for n in &mut self.notices {
            n.event = id(n.event);
        }
        for (_, _, settled) in &mut self.settled {
            for (_, s) in &mut settled.rows {
                s.open_event = s.open_event.map(id);
            }
        }
    }

    /// Every (event, run) to add: the openings' (their ids resolved) and the joins.
    /// The settings the plan's writes name (events, their notifications and ticket jobs,
    /// state rows) and the settings `first` evaluated for the first time, without repeats.
    pub fn settings_named(&self, first: &[i64]) -> Vec<i64> {
        let mut ids: Vec<i64> = self
            .opens
            .iter()
            .map(|o| o.setting)
            .chain(self.notices.iter().map(|n| n.setting))
            .chain(
                self.settled
                    .iter()
                    .flat_map(|(_, _, s)| s.rows.iter().map(|(sid, _)| *sid)),
            )
            .chain(first.iter().copied())
            .collect();
        ids.sort_unstable();
        ids.dedup();
        ids
    }

    pub fn event_runs(&self, ids: &[i64]) -> Vec<(i64, i64)> {
        let opened = self
            .opens
            .iter()
            .zip(ids)
            .flat_map(|(o, id)| o.runs.iter().map(move |r| (*id, *r)));
        opened.chain(self.joins.iter().copied()).collect()
    }
}

/// Runs the rules over a batch (`by_case`, from [`facts_by_case`]): each test case's runs
/// against the settings `settings_of` gives it (only those of `only`, when given; a setting
/// missing from `settings` was deleted meanwhile and is not evaluated), from the state
/// `stored` holds (a missing row as [`alerting::CaseState::unstored`] says, the settings of
/// `evaluated_before` evaluated before). Events open and close at `clock`'s time.
pub(super) fn plan(
    by_case: &[(i64, Vec<RunFact>)],
    settings_of: &IdMap<Vec<i64>>,
    settings: &IdMap<SettingRow>,
    mut stored: IdMap<CaseRows>,
    evaluated_before: &IdSet,
    only: Option<&[i64]>,
    clock: Clock,
) -> Plan {
    let mut plan = Plan::default();
    for (case, facts) in by_case {
        let Some(sids) = settings_of.get(case) else {
            continue;
        };
        let rows = stored.remove(case).unwrap_or_default();
        let mut evaluated = Vec::with_capacity(sids.len());
        for sid in sids {
            if only.is_some_and(|o| !o.contains(sid)) {
                continue;
            }
            let Some(setting) = settings.get(sid) else {
                continue;
            };
            // The backfill's settings were never evaluated: fresh without a row.
            let mut state = rows.state(*sid, only.is_none() && evaluated_before.contains(sid));
            for fact in facts {
                let (mut next, action) = alerting::step(&setting.rule, &state, fact);
                let at = || match clock {
                    Clock::Now => crate::clock::now_ms(),
                    Clock::RunTime => fact.run_ms,
                };
                match action {
                    Action::Open { runs } => {
                        let event = plan.next_event();
                        next.open_event = Some(event);
                        // The first run is usually in the batch.
                        let first = runs.first().copied().filter(|r| *r != fact.run_id);
                        let in_batch = first.and_then(|r| facts.iter().find(|f| f.run_id == r));
                        plan.notices.push(Notice {
                            event,
                            setting: *sid,
                            recovery: false,
                            runs: Some(runs.clone()),
                        });
                        plan.opens.push(Opening {
                            setting: *sid,
                            case: *case,
                            status_id: in_batch.map_or(fact.status_id, |f| f.status_id),
                            status_of: first.filter(|_| in_batch.is_none()),
                            runs,
                            alert_ms: at(),
                        });
                    }
                    Action::Join { event, run } => plan.joins.push((event, run)),
                    Action::Close { event } => {
                        plan.closes.push((event, at()));
                        if setting.notify_on_recovery {
                            plan.notices.push(Notice {
                                event,
                                setting: *sid,
                                recovery: true,
                                runs: None,
                            });
                        }
                    }
                    Action::None | Action::Late | Action::Skip => {}
                }
                state = next;
            }
            evaluated.push((*sid, state));
        }
        // A setting of the batch's list deleted meanwhile was not evaluated: its state goes
        // with it, so the clock still moves only when every setting was.
        let out = rows.settle(&evaluated, only.is_none());
        plan.settled.push((*case, rows, out));
    }
    plan
}

#[cfg(test)]
mod clock_tests {
    use super::*;
    use crate::domain::alerting::CaseState;

    fn st(count: u32, last: Option<i64>) -> CaseState {
        CaseState {
            count,
            last_run_ms: last,
            ..Default::default()
        }
    }

    fn row(count: u32, last: Option<i64>) -> StoredState {
        StoredState {
            count,
            last_run_ms: last,
            ..Default::default()
        }
    }

    #[test]
    fn a_batch_that_changes_only_times_writes_only_the_clock() {
        let rows = CaseRows {
            clock: Some(100),
            ..Default::default()
        };
        // Ten evaluated settings without rows: at rest at the clock.
        assert_eq!(rows.state(3, true), st(0, Some(100)));
        // Every setting evaluated a pass at 200: all still at rest, at the new clock.
        let evaluated: Vec<(i64, CaseState)> = (1..=10).map(|s| (s, st(0, Some(200)))).collect();
        let out = rows.settle(&evaluated, true);
        assert_eq!(
            out,
            Settled {
                clock: Some(200),
                ..Default::default()
            }
        );
        // A test case without its row gets one; one with its row has its clock updated.
        assert_eq!(rows.clock_only(&out), None);
        let stored = CaseRows {
            stored: true,
            ..rows
        };
        assert_eq!(stored.clock_only(&out), Some(200));
        assert_eq!(stored.clock_only(&Settled::default()), None);
    }

    #[test]
    fn changed_counts_and_times_that_leave_the_clock_are_written() {
        let mut rows = CaseRows {
            clock: Some(100),
            ..Default::default()
        };
        rows.rows.insert(3, row(1, None)); // inactive now: not evaluated
        rows.rows.insert(4, row(2, Some(50))); // behind the clock
        rows.rows.insert(7, row(1, None)); // a count the batch resets
        let out = rows.settle(
            &[
                (1, st(1, Some(200))), // counted a failure
                (2, st(0, Some(100))), // skipped the run (outside its schedule)
                (4, st(2, Some(50))),  // unchanged, keeps its own time
                (5, st(0, None)),      // new setting, every run skipped: stays fresh
                (6, st(0, Some(200))), // new setting, evaluated: at rest, no row
                (7, st(0, Some(200))), // back at rest: its row goes
            ],
            true,
        );
        assert_eq!(out.clock, Some(200));
        assert_eq!(
            out.rows,
            vec![
                (1, row(1, None)),
                (2, row(0, Some(100))),
                (3, row(1, Some(100))),
            ]
        );
        assert_eq!(out.deletes, vec![7]);
        // Read back, every setting has the time it had.
        let mut after = rows.clone();
        after.clock = out.clock;
        for (s, r) in out.rows {
            after.rows.insert(s, r);
        }
        for s in out.deletes {
            after.rows.remove(&s);
        }
        assert_eq!(after.state(1, true), st(1, Some(200)));
        assert_eq!(after.state(2, true), st(0, Some(100)));
        assert_eq!(after.state(3, true), st(1, Some(100)));
        assert_eq!(after.state(4, true), st(2, Some(50)));
        assert_eq!(after.state(5, false), CaseState::default());
        assert_eq!(after.state(6, true), st(0, Some(200)));
        assert_eq!(after.state(7, true), st(0, Some(200)));
    }

    #[test]
    fn a_test_cases_memory_reads_back_as_written() {
        let mut rows = CaseRows {
            clock: Some(100),
            stored: true,
            ..Default::default()
        };
        let counting = StoredState {
            count: 3,
            pending: vec![7, 9],
            ..Default::default()
        };
        rows.rows.insert(12, counting);
        let alerting = StoredState {
            count: 1,
            open_event: Some(55),
            last_run_ms: Some(90),
            ..Default::default()
        };
        rows.rows.insert(4, alerting.clone());
        let text = rows.states_text();
        assert_eq!(text, r#"{"4":[1,[],55,90],"12":[3,[7,9],null,null]}"#);
        assert_eq!(CaseRows::parse(1, Some(100), &text).unwrap(), rows);
        // As PostgreSQL's jsonb prints it after a setting's delete rewrote the row.
        let jsonb = r#"{"4": [1, [], 55, 90], "12": [3, [7, 9], null, null]}"#;
        assert_eq!(CaseRows::parse(1, Some(100), jsonb).unwrap(), rows);
        let bad = CaseRows::parse(31, None, "[1]").unwrap_err().to_string();
        assert!(bad.contains("test case 31"), "{bad}");

        // A pass at 200: setting 12 back at rest goes, 4 keeps its own time.
        let out = rows.settle(&[(12, st(0, Some(200)))], true);
        assert_eq!(
            rows.clock_only(&out),
            None,
            "a state goes: the row is written"
        );
        let after = rows.clone().after(&out).unwrap();
        assert_eq!(after.clock, Some(200));
        assert_eq!(after.rows.into_iter().collect::<Vec<_>>(), [(4, alerting)]);
        // A batch that changes nothing writes nothing.
        assert_eq!(rows.after(&Settled::default()), None);
    }

    #[test]
    fn a_backfill_never_moves_the_clock() {
        let rows = CaseRows {
            clock: Some(100),
            ..Default::default()
        };
        // The backfill's settings are fresh without a row: its runs are older than the clock.
        assert_eq!(rows.state(7, false), CaseState::default());
        let out = rows.settle(
            &[
                (7, st(1, Some(40))),
                (8, st(0, Some(40))),
                (9, st(0, Some(100))),
            ],
            false,
        );
        assert_eq!(out.clock, None);
        assert_eq!(out.rows, vec![(7, row(1, Some(40))), (8, row(0, Some(40)))]);
        // A first batch on a test case without a clock.
        let fresh = CaseRows::default();
        let out = fresh.settle(&[(1, st(0, Some(10))), (2, st(1, Some(10)))], true);
        assert_eq!(out.clock, Some(10));
        assert_eq!(out.rows, vec![(2, row(1, None))]);
    }
}
