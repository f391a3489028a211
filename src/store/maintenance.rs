//! Maintenance windows, for both backends on `store/sql.rs`: planned work during
//! which the alert engine leaves the covered test cases alone. The rule is
//! `domain::alerting::MaintenanceWindow::covers`.
//!
//! **At ingest.** Each backend's ingest calls [`mark_in`] in its transaction, after the runs
//! are stored and before the alert engine evaluates them: the runs a window covers (by
//! their own time, so a run that arrives late is judged as it ran) are marked in
//! `maintenance_runs` and left out of the engine's batch, so no event opens, joins or closes
//! for them and nobody is notified. Without a live window it is one indexed read.
//!
//! Windows are never deleted: a window is ended (early), and the runs it marked keep it.
//! A user sees (and changes) the windows that cover one of their groups or of their groups'
//! test cases; an administrator sees all.

use std::collections::{HashMap, HashSet};

use async_trait::async_trait;
use chrono_tz::Tz;

use super::alerts::Evaluated;
use super::audit;
use super::catalog::{case_visibility, group_visibility};
use super::rollups::{facts_of_stored, RunFacts};
use super::run_detail::ScriptSegment;
use super::sql::{self, Exec, Row, SqlStore};
use super::{invalid, StoreError, StoreResult};
use crate::domain::alerting::{MaintenanceWindow, RunFact};
use crate::domain::caller::{Scope, Visibility};
use crate::domain::opstate::{extended_end, MuteTarget};
use crate::domain::page::{Page, PageRequest};
use crate::domain::schedule::Week;

/// A window with what it covers.
#[derive(Debug, Clone, PartialEq)]
pub struct Window {
    pub id: i64,
    pub reason: String,
    pub weekly: bool,
    pub start_ms: i64,
    pub end_ms: Option<i64>,
    pub ended_ms: Option<i64>,
    /// The alert event it mutes (made from the alert), if any.
    pub event_id: Option<i64>,
    pub created_by: String,
    pub created_ms: i64,
    /// Covered groups, `(id, name)` by name.
    pub groups: Vec<(i64, String)>,
    /// Covered single test cases, `(id, name)` by name.
    pub cases: Vec<(i64, String)>,
    /// A weekly window's week.
    pub week: Week,
    /// Runs it marked.
    pub runs: i64,
}

impl Window {
    /// The rule's view of it.
    pub fn rule(&self) -> MaintenanceWindow {
        MaintenanceWindow {
            id: self.id,
            start_ms: self.start_ms,
            end_ms: self.end_ms,
            ended_ms: self.ended_ms,
            week: self.weekly.then_some(self.week),
        }
    }
}

/// What a mute from an alert did: the window that covers it now, until when, and whether an
/// existing window was extended (else made).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Muted {
    pub window_id: i64,
    pub until_ms: i64,
    pub extended: bool,
}

/// A checked window as it is saved.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct WindowDraft {
    pub reason: String,
    pub weekly: bool,
    pub start_ms: i64,
    /// Once only.
    pub end_ms: Option<i64>,
    pub week: Week,
    pub group_ids: Vec<i64>,
    pub case_ids: Vec<i64>,
    /// The alert event it mutes (kept by an update).
    pub event_id: Option<i64>,
}

#[async_trait]
pub trait MaintenanceStore {
    /// The windows the scope sees, newest first.
    async fn list_windows(&self, scope: Scope, page: PageRequest) -> StoreResult<Page<Window>>;
    /// Window `id`, when the scope sees it.
    async fn window(&self, scope: Scope, id: i64) -> StoreResult<Visibility<Window>>;
    /// Windows not ended that cover now or may later (the dashboard's banner reads them).
    async fn live_windows(&self, scope: Scope, now_ms: i64) -> StoreResult<Vec<Window>>;
    /// Saves a new window as `by`; every group and test case must be the scope's
    /// (`groupIds`, `testCaseIds` field errors). The runs already stored in its period
    /// (site zone `tz` for a weekly one) are marked in the same transaction. Audited.
    async fn create_window(
        &self,
        scope: Scope,
        tz: Tz,
        draft: WindowDraft,
        by: String,
        now_ms: i64,
    ) -> StoreResult<i64>;
    /// Replaces window `id` (when the scope sees it). An ended window is a conflict. The
    /// runs it marked are marked again for what it covers now, in the same transaction.
    /// Audited.
    async fn update_window(
        &self,
        scope: Scope,
        tz: Tz,
        id: i64,
        draft: WindowDraft,
    ) -> StoreResult<Visibility<()>>;
    /// Ends window `id` now (when the scope sees it); ended already: unchanged. Audited.
    async fn end_window(&self, scope: Scope, id: i64, now_ms: i64) -> StoreResult<Visibility<()>>;
    /// Mutes open alert event `id` until `until_ms`: a once window from now on its test
    /// case, made from the event (`event_id`). A closed event is a conflict. Audited.
    /// Its reason is empty: the console words it ('Muted from alert 12 (Billing IVR)') in
    /// the reader's language from `event_id` and the test case, never in the muting
    /// user's.
    ///
    /// `target` says what it covers: the event's test case or its whole group. Muting again
    /// while a live once window covers exactly the same thing extends that window to
    /// `until_ms` (never shortens it; audited as an update) instead of adding a second one.
    async fn mute_alert(
        &self,
        scope: Scope,
        id: i64,
        target: MuteTarget,
        until_ms: i64,
        by: String,
        now_ms: i64,
    ) -> StoreResult<Visibility<Muted>>;
    /// Which of the runs `ids` are marked (stored while a window covered them).
    async fn maintenance_marks(&self, ids: Vec<i64>) -> StoreResult<HashSet<i64>>;
    /// The marked runs of group `group_id`'s test cases from `from_ms` to `to_ms` (excluded)
    /// of run type code `run_type`, each as what it added to the rollups (test case, time,
    /// status, MOS, each segment's status and step latencies): the dashboard's and the
    /// reports' figures, read from the rollups, take them out again. Marked runs
    /// are few; this reads them, never the rollups.
    async fn marked_facts_of_group(
        &self,
        group_id: i64,
        from_ms: i64,
        to_ms: i64,
        run_type: u8,
    ) -> StoreResult<Vec<RunFacts>>;
}

/// The scope (user `$1`, NULL for all) as a condition on window `w`.
const SEES: &str = "(CAST($1 AS BIGINT) IS NULL
    OR EXISTS (SELECT 1 FROM maintenance_window_groups wg
                 JOIN user_groups ug ON ug.group_id = wg.group_id
                WHERE wg.window_id = w.id AND ug.user_id = $1)
    OR EXISTS (SELECT 1 FROM maintenance_window_cases wc
                 JOIN group_cases gc ON gc.test_case_id = wc.test_case_id
                 JOIN user_groups ug ON ug.group_id = gc.group_id
                WHERE wc.window_id = w.id AND ug.user_id = $1))";

const COLUMNS: &str = "w.id, w.reason, w.weekly, w.start_ms, w.end_ms, w.ended_ms, w.event_id,
    w.created_by, w.created_ms,
    (SELECT count(*) FROM maintenance_runs m WHERE m.window_id = w.id) AS runs";

fn head(r: &Row) -> StoreResult<Window> {
    Ok(Window {
        id: r.col("id")?,
        reason: r.col("reason")?,
        weekly: r.col("weekly")?,
        start_ms: r.col("start_ms")?,
        end_ms: r.col("end_ms")?,
        ended_ms: r.col("ended_ms")?,
        event_id: r.col("event_id")?,
        created_by: r.col("created_by")?,
        created_ms: r.col("created_ms")?,
        runs: r.col("runs")?,
        groups: Vec::new(),
        cases: Vec::new(),
        week: Week::default(),
    })
}

/// `(window id, id, name)` rows of `query`, as each window's list of (id, name).
async fn named_by_window(
    c: &impl Exec,
    query: &str,
    params: &[&dyn sql::Param],
) -> StoreResult<HashMap<i64, Vec<(i64, String)>>> {
    let mut out: HashMap<i64, Vec<(i64, String)>> = HashMap::new();
    for r in c.query(query, params).await? {
        out.entry(r.get(0)?)
            .or_default()
            .push((r.get(1)?, r.get(2)?));
    }
    Ok(out)
}

/// The week masks of the windows `list` names (placeholders bound to `params`): per window,
/// (day of week, its slots as bits).
async fn schedule_masks(
    c: &impl Exec,
    list: &str,
    params: &[&dyn sql::Param],
) -> StoreResult<HashMap<i64, Vec<(u8, u64)>>> {
    let mut masks: HashMap<i64, Vec<(u8, u64)>> = HashMap::new();
    for r in c
        .query(
            &format!(
                "SELECT window_id, day_of_week, slots FROM maintenance_window_schedule
                  WHERE window_id IN ({list})"
            ),
            params,
        )
        .await?
    {
        masks.entry(r.col("window_id")?).or_default().push((
            r.col::<i64>("day_of_week")?.clamp(0, 7) as u8,
            r.col::<i64>("slots")? as u64,
        ));
    }
    Ok(masks)
}

/// Fills the targets and weeks of `items`.
async fn fill(c: &impl Exec, items: &mut [Window]) -> StoreResult<()> {
    if items.is_empty() {
        return Ok(());
    }
    let ids: Vec<i64> = items.iter().map(|w| w.id).collect();
    let params: Vec<&dyn sql::Param> = ids.iter().map(|i| i as &dyn sql::Param).collect();
    let list = sql::placeholders(1, ids.len());
    let mut groups = named_by_window(
        c,
        &format!(
            "SELECT wg.window_id, g.id, g.name FROM maintenance_window_groups wg
               JOIN test_case_groups g ON g.id = wg.group_id
              WHERE wg.window_id IN ({list}) ORDER BY g.name, g.id"
        ),
        &params,
    )
    .await?;
    let mut cases = named_by_window(
        c,
        &format!(
            "SELECT wc.window_id, tc.id, tc.name FROM maintenance_window_cases wc
               JOIN test_cases tc ON tc.id = wc.test_case_id
              WHERE wc.window_id IN ({list}) ORDER BY tc.name, tc.id"
        ),
        &params,
    )
    .await?;
    let mut masks = schedule_masks(c, &list, &params).await?;
    for w in items {
        w.groups = groups.remove(&w.id).unwrap_or_default();
        w.cases = cases.remove(&w.id).unwrap_or_default();
        w.week = Week::from_masks(masks.remove(&w.id).unwrap_or_default());
    }
    Ok(())
}

async fn one(c: &impl Exec, scope: Scope, id: i64) -> StoreResult<Visibility<Window>> {
    let Some(r) = c
        .query_opt(
            &format!("SELECT {COLUMNS}, {SEES} AS seen FROM maintenance_windows w WHERE w.id = $2"),
            &[&scope.user(), &id],
        )
        .await?
    else {
        return Ok(Visibility::Missing);
    };
    if !r.col::<bool>("seen")? {
        return Ok(Visibility::Hidden);
    }
    let mut items = vec![head(&r)?];
    fill(c, &mut items).await?;
    Ok(Visibility::Visible(items.remove(0)))
}

/// Every group and test case of the draft must exist and be the scope's.
async fn check_targets(c: &impl Exec, scope: Scope, d: &WindowDraft) -> StoreResult<()> {
    for &g in &d.group_ids {
        if !matches!(
            group_visibility(c, scope, g).await?,
            Visibility::Visible(())
        ) {
            return Err(invalid(
                "testCaseGroups",
                format!("Test case group {g} does not exist or is not yours."),
            ));
        }
    }
    for &tc in &d.case_ids {
        if !matches!(
            case_visibility(c, scope, tc).await?,
            Visibility::Visible(())
        ) {
            return Err(invalid(
                "testCases",
                format!("Test case {tc} does not exist or is not in your groups."),
            ));
        }
    }
    Ok(())
}

/// Writes the draft's targets and week for window `id` (replacing what it had).
async fn write_parts(c: &impl Exec, id: i64, d: &WindowDraft) -> StoreResult<()> {
    for table in [
        "maintenance_window_groups",
        "maintenance_window_cases",
        "maintenance_window_schedule",
    ] {
        c.execute(&format!("DELETE FROM {table} WHERE window_id = $1"), &[&id])
            .await?;
    }
    for g in &d.group_ids {
        c.execute(
            "INSERT INTO maintenance_window_groups (window_id, group_id) VALUES ($1, $2)
             ON CONFLICT DO NOTHING",
            &[&id, g],
        )
        .await?;
    }
    for tc in &d.case_ids {
        c.execute(
            "INSERT INTO maintenance_window_cases (window_id, test_case_id) VALUES ($1, $2)
             ON CONFLICT DO NOTHING",
            &[&id, tc],
        )
        .await?;
    }
    if d.weekly {
        for (day, slots) in d.week.masks() {
            let (day, slots) = (i64::from(day), slots as i64);
            c.execute(
                "INSERT INTO maintenance_window_schedule (window_id, day_of_week, slots)
                 VALUES ($1, $2, $3)",
                &[&id, &day, &slots],
            )
            .await?;
        }
    }
    Ok(())
}

/// Marks the runs already stored that window `id` (as the draft `d` has just been written)
/// covers: a window made or moved into the past covers what ran then, as ingest would have
/// marked it. A run another window marked keeps that mark. A once window is one
/// `INSERT … SELECT` over its period; a weekly one reads its cases' runs since its start
/// (the case-and-time index) and keeps those in its week's half hours.
async fn mark_stored(c: &impl Exec, tz: Tz, id: i64, d: &WindowDraft) -> StoreResult<()> {
    const CASES: &str = "r.test_case_id IN (
        SELECT gc.test_case_id FROM maintenance_window_groups wg
          JOIN group_cases gc ON gc.group_id = wg.group_id WHERE wg.window_id = $1
        UNION SELECT test_case_id FROM maintenance_window_cases WHERE window_id = $1)";
    let Some(end) = d.end_ms.filter(|_| !d.weekly) else {
        let rule = MaintenanceWindow {
            id,
            start_ms: d.start_ms,
            end_ms: None,
            ended_ms: None,
            week: Some(d.week),
        };
        let rows = c
            .query(
                &format!(
                    "SELECT r.id, r.run_time FROM test_runs r
                      WHERE {CASES} AND r.run_time >= $2
                        AND NOT EXISTS (SELECT 1 FROM maintenance_runs m WHERE m.run_id = r.id)"
                ),
                &[&id, &d.start_ms],
            )
            .await?;
        for r in &rows {
            let (run, ms): (i64, i64) = (r.col("id")?, r.col("run_time")?);
            if rule.covers_at(ms, tz) {
                c.execute(
                    "INSERT INTO maintenance_runs (run_id, window_id) VALUES ($1, $2)
                     ON CONFLICT DO NOTHING",
                    &[&run, &id],
                )
                .await?;
            }
        }
        return Ok(());
    };
    c.execute(
        &format!(
            "INSERT INTO maintenance_runs (run_id, window_id)
             SELECT r.id, $1 FROM test_runs r
              WHERE {CASES} AND r.run_time >= $2 AND r.run_time < $3
             ON CONFLICT DO NOTHING"
        ),
        &[&id, &d.start_ms, &end],
    )
    .await?;
    Ok(())
}

/// A window's audit view: the row with its targets and week.
pub(crate) async fn snapshot(c: &impl Exec, id: i64) -> StoreResult<Option<serde_json::Value>> {
    let Some(mut row) = audit::snapshot(c, "maintenance_windows", id).await? else {
        return Ok(None);
    };
    let mut items = vec![Window {
        id,
        reason: String::new(),
        weekly: false,
        start_ms: 0,
        end_ms: None,
        ended_ms: None,
        event_id: None,
        created_by: String::new(),
        created_ms: 0,
        groups: Vec::new(),
        cases: Vec::new(),
        week: Week::default(),
        runs: 0,
    }];
    fill(c, &mut items).await?;
    let w = &items[0];
    if let Some(o) = row.as_object_mut() {
        o.insert(
            "group_ids".into(),
            w.groups.iter().map(|g| g.0).collect::<Vec<_>>().into(),
        );
        o.insert(
            "test_case_ids".into(),
            w.cases.iter().map(|g| g.0).collect::<Vec<_>>().into(),
        );
        o.insert(
            "schedule".into(),
            w.week
                .masks()
                .into_iter()
                .map(|(d, s)| serde_json::json!([d, s]))
                .collect::<Vec<_>>()
                .into(),
        );
    }
    Ok(Some(row))
}

#[async_trait]
impl<S: SqlStore> MaintenanceStore for S {
    async fn list_windows(&self, scope: Scope, page: PageRequest) -> StoreResult<Page<Window>> {
        sql::read!(self, |c| {
            let total: i64 = c
                .scalar(
                    &format!("SELECT count(*) FROM maintenance_windows w WHERE {SEES}"),
                    &[&scope.user()],
                )
                .await?;
            let mut items = c
                .query(
                    &format!(
                        "SELECT {COLUMNS} FROM maintenance_windows w WHERE {SEES}
                          ORDER BY w.created_ms DESC, w.id DESC LIMIT $2 OFFSET $3"
                    ),
                    &[
                        &scope.user(),
                        &i64::from(page.size),
                        &(page.offset() as i64),
                    ],
                )
                .await?
                .iter()
                .map(head)
                .collect::<StoreResult<Vec<_>>>()?;
            fill(c, &mut items).await?;
            Ok(Page {
                items,
                total: total.max(0) as u64,
            })
        })
    }

    async fn window(&self, scope: Scope, id: i64) -> StoreResult<Visibility<Window>> {
        sql::read!(self, |c| one(c, scope, id).await)
    }

    async fn live_windows(&self, scope: Scope, now_ms: i64) -> StoreResult<Vec<Window>> {
        sql::read!(self, |c| {
            let mut items = c
                .query(
                    &format!(
                        "SELECT {COLUMNS} FROM maintenance_windows w
                          WHERE w.ended_ms IS NULL AND (w.weekly = TRUE OR w.end_ms > $2)
                            AND {SEES} ORDER BY w.start_ms, w.id"
                    ),
                    &[&scope.user(), &now_ms],
                )
                .await?
                .iter()
                .map(head)
                .collect::<StoreResult<Vec<_>>>()?;
            fill(c, &mut items).await?;
            Ok(items)
        })
    }

    async fn create_window(
        &self,
        scope: Scope,
        tz: Tz,
        draft: WindowDraft,
        by: String,
        now_ms: i64,
    ) -> StoreResult<i64> {
        sql::write!(self, [d = draft.clone(), by = by.clone()], |c| {
            check_targets(c, scope, &d).await?;
            let id: i64 = c
                .scalar(
                    "INSERT INTO maintenance_windows (reason, weekly, start_ms, end_ms,
                            created_by, created_ms, event_id)
                     VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id",
                    &[
                        &d.reason,
                        &d.weekly,
                        &d.start_ms,
                        &d.end_ms,
                        &by,
                        &now_ms,
                        &d.event_id,
                    ],
                )
                .await?;
            write_parts(c, id, &d).await?;
            mark_stored(c, tz, id, &d).await?;
            let after = snapshot(c, id).await?;
            audit::record(c, "maintenance_window", "create", id, None, after).await?;
            Ok(id)
        })
    }

    async fn update_window(
        &self,
        scope: Scope,
        tz: Tz,
        id: i64,
        draft: WindowDraft,
    ) -> StoreResult<Visibility<()>> {
        sql::write!(self, [d = draft.clone()], |c| {
            let current = match one(c, scope, id).await?.visible() {
                Ok(w) => w,
                Err(unseen) => return Ok(unseen),
            };
            if current.ended_ms.is_some() {
                return Err(StoreError::Conflict(format!(
                    "Maintenance window {id} has ended: make a new one."
                )));
            }
            check_targets(c, scope, &d).await?;
            let before = snapshot(c, id).await?;
            c.execute(
                "UPDATE maintenance_windows SET reason = $2, weekly = $3, start_ms = $4,
                        end_ms = $5 WHERE id = $1",
                &[&id, &d.reason, &d.weekly, &d.start_ms, &d.end_ms],
            )
            .await?;
            write_parts(c, id, &d).await?;
            c.execute("DELETE FROM maintenance_runs WHERE window_id = $1", &[&id])
                .await?;
            mark_stored(c, tz, id, &d).await?;
            let after = snapshot(c, id).await?;
            audit::record(c, "maintenance_window", "update", id, before, after).await?;
            Ok(Visibility::Visible(()))
        })
    }

    async fn end_window(&self, scope: Scope, id: i64, now_ms: i64) -> StoreResult<Visibility<()>> {
        sql::write!(self, |c| {
            if let Err(unseen) = one(c, scope, id).await?.visible() {
                return Ok(unseen);
            }
            let before = snapshot(c, id).await?;
            let n = c
                .execute(
                    "UPDATE maintenance_windows SET ended_ms = $2
                      WHERE id = $1 AND ended_ms IS NULL",
                    &[&id, &now_ms],
                )
                .await?;
            if n > 0 {
                let after = snapshot(c, id).await?;
                audit::record(c, "maintenance_window", "end", id, before, after).await?;
            }
            Ok(Visibility::Visible(()))
        })
    }

    async fn mute_alert(
        &self,
        scope: Scope,
        id: i64,
        target: MuteTarget,
        until_ms: i64,
        by: String,
        now_ms: i64,
    ) -> StoreResult<Visibility<Muted>> {
        sql::write!(self, [by = by.clone()], |c| {
            let Some(e) = c
                .query_opt(
                    "SELECT e.test_case_id, e.open, CAST($2 AS BIGINT) IS NULL OR EXISTS (
                            SELECT 1 FROM user_groups ug
                             WHERE ug.user_id = $2 AND ug.group_id = e.group_id),
                            e.group_id
                       FROM alert_events e WHERE e.id = $1",
                    &[&id, &scope.user()],
                )
                .await?
            else {
                return Ok(Visibility::Missing);
            };
            if !e.get::<bool>(2)? {
                return Ok(Visibility::Hidden);
            }
            if !e.get::<bool>(1)? {
                return Err(StoreError::Conflict(format!(
                    "Alert event {id} is closed: there is nothing to mute."
                )));
            }
            let case: i64 = e.get(0)?;
            let group: i64 = e.get(3)?;
            // Muting again extends the live once window that covers exactly the same thing
            // (this test case alone, or this group alone) instead of adding a second one.
            let (table, column, other, target_id) = match target {
                MuteTarget::TestCase => (
                    "maintenance_window_cases",
                    "test_case_id",
                    "maintenance_window_groups",
                    case,
                ),
                MuteTarget::Group => (
                    "maintenance_window_groups",
                    "group_id",
                    "maintenance_window_cases",
                    group,
                ),
            };
            let live = c
                .query_opt(
                    &format!(
                        "SELECT w.id, w.end_ms FROM maintenance_windows w
                          WHERE w.weekly = FALSE AND w.ended_ms IS NULL
                            AND w.start_ms <= $1 AND w.end_ms > $1
                            AND EXISTS (SELECT 1 FROM {table} t
                                         WHERE t.window_id = w.id AND t.{column} = $2)
                            AND (SELECT count(*) FROM {table} t WHERE t.window_id = w.id) = 1
                            AND NOT EXISTS (SELECT 1 FROM {other} o WHERE o.window_id = w.id)
                          ORDER BY w.end_ms DESC, w.id DESC LIMIT 1"
                    ),
                    &[&now_ms, &target_id],
                )
                .await?;
            if let Some(w) = live {
                let (wid, end): (i64, i64) = (w.col("id")?, w.col("end_ms")?);
                let Some(until) = extended_end(end, until_ms) else {
                    return Ok(Visibility::Visible(Muted {
                        window_id: wid,
                        until_ms: end,
                        extended: false,
                    }));
                };
                let before = snapshot(c, wid).await?;
                c.execute(
                    "UPDATE maintenance_windows SET end_ms = $2 WHERE id = $1",
                    &[&wid, &until],
                )
                .await?;
                let after = snapshot(c, wid).await?;
                audit::record(c, "maintenance_window", "update", wid, before, after).await?;
                return Ok(Visibility::Visible(Muted {
                    window_id: wid,
                    until_ms: until,
                    extended: true,
                }));
            }
            let wid: i64 = c
                .scalar(
                    "INSERT INTO maintenance_windows (reason, weekly, start_ms, end_ms, event_id,
                            created_by, created_ms)
                     VALUES ($1, FALSE, $2, $3, $4, $5, $2) RETURNING id",
                    &[&String::new(), &now_ms, &until_ms, &id, &by],
                )
                .await?;
            c.execute(
                &format!("INSERT INTO {table} (window_id, {column}) VALUES ($1, $2)"),
                &[&wid, &target_id],
            )
            .await?;
            let after = snapshot(c, wid).await?;
            audit::record(c, "maintenance_window", "create", wid, None, after).await?;
            Ok(Visibility::Visible(Muted {
                window_id: wid,
                until_ms,
                extended: false,
            }))
        })
    }

    async fn maintenance_marks(&self, ids: Vec<i64>) -> StoreResult<HashSet<i64>> {
        if ids.is_empty() {
            return Ok(HashSet::new());
        }
        sql::read!(self, [ids = ids.clone()], |c| {
            let params: Vec<&dyn sql::Param> = ids.iter().map(|i| i as &dyn sql::Param).collect();
            c.column(
                &format!(
                    "SELECT run_id FROM maintenance_runs WHERE run_id IN ({})",
                    sql::placeholders(1, ids.len())
                ),
                &params,
            )
            .await
            .map(|v: Vec<i64>| v.into_iter().collect())
        })
    }

    async fn marked_facts_of_group(
        &self,
        group_id: i64,
        from_ms: i64,
        to_ms: i64,
        run_type: u8,
    ) -> StoreResult<Vec<RunFacts>> {
        sql::read!(self, |c| {
            let rows = c
                .query(
                    "SELECT r.test_case_id, r.run_time, r.status, r.mos, r.script_id, r.results
                       FROM maintenance_runs m
                       JOIN test_runs r ON r.id = m.run_id
                       JOIN group_cases gc ON gc.test_case_id = r.test_case_id AND gc.group_id = $1
                      WHERE r.run_time >= $2 AND r.run_time < $3 AND r.run_type = $4
                      ORDER BY r.run_time, r.id",
                    &[&group_id, &from_ms, &to_ms, &i64::from(run_type)],
                )
                .await?;
            let mut scripts: HashMap<i64, Vec<ScriptSegment>> = HashMap::new();
            let mut out = Vec::with_capacity(rows.len());
            for r in &rows {
                let script_id: i64 = r.col("script_id")?;
                if let std::collections::hash_map::Entry::Vacant(e) = scripts.entry(script_id) {
                    let body: String = c
                        .scalar("SELECT body FROM run_scripts WHERE id = $1", &[&script_id])
                        .await?;
                    e.insert(serde_json::from_str(&body).map_err(|e| {
                        StoreError::Invalid(format!("stored script {script_id}: {e}"))
                    })?);
                }
                let results: Vec<u8> = r.col("results")?;
                out.push(facts_of_stored(
                    r.col("test_case_id")?,
                    run_type,
                    r.col("run_time")?,
                    r.col::<i64>("status")?.clamp(0, 255) as u8,
                    r.col::<Option<i64>>("mos")?
                        .map(|m| m.clamp(0, 1000) as u32),
                    &scripts[&script_id],
                    &results,
                )?);
            }
            Ok(out)
        })
    }
}

/// At ingest, in its transaction: marks the stored `runs` a window covers and returns the
/// others, which the alert engine evaluates.
pub(crate) async fn mark_in(
    c: &impl Exec,
    tz: Tz,
    runs: &[Evaluated],
) -> StoreResult<Vec<Evaluated>> {
    let (Some(first), Some(last)) = (
        runs.iter().map(|r| r.run_ms).min(),
        runs.iter().map(|r| r.run_ms).max(),
    ) else {
        return Ok(Vec::new());
    };
    let heads = c
        .query(
            "SELECT id, weekly, start_ms, end_ms, ended_ms FROM maintenance_windows
              WHERE ended_ms IS NULL OR ended_ms > $1",
            &[&first],
        )
        .await?;
    let mut windows = Vec::new();
    for r in &heads {
        let w = MaintenanceWindow {
            id: r.col("id")?,
            start_ms: r.col("start_ms")?,
            end_ms: r.col("end_ms")?,
            ended_ms: r.col("ended_ms")?,
            week: r.col::<bool>("weekly")?.then(Week::default),
        };
        if w.start_ms <= last && w.end_ms.is_none_or(|e| e > first) {
            windows.push(w);
        }
    }
    if windows.is_empty() {
        return Ok(runs.to_vec());
    }
    let ids: Vec<i64> = windows.iter().map(|w| w.id).collect();
    let params: Vec<&dyn sql::Param> = ids.iter().map(|i| i as &dyn sql::Param).collect();
    let list = sql::placeholders(1, ids.len());
    let mut masks = schedule_masks(c, &list, &params).await?;
    for w in &mut windows {
        if w.week.is_some() {
            w.week = Some(Week::from_masks(masks.remove(&w.id).unwrap_or_default()));
        }
    }
    // The windows of each covered test case.
    let mut of_case: HashMap<i64, Vec<usize>> = HashMap::new();
    let index: HashMap<i64, usize> = windows.iter().enumerate().map(|(i, w)| (w.id, i)).collect();
    for r in c
        .query(
            &format!(
                "SELECT wg.window_id, gc.test_case_id FROM maintenance_window_groups wg
                   JOIN group_cases gc ON gc.group_id = wg.group_id
                  WHERE wg.window_id IN ({list})
                 UNION
                 SELECT window_id, test_case_id FROM maintenance_window_cases
                  WHERE window_id IN ({list})"
            ),
            &params,
        )
        .await?
    {
        let (w, case): (i64, i64) = (r.col("window_id")?, r.col("test_case_id")?);
        if let Some(&i) = index.get(&w) {
            of_case.entry(case).or_default().push(i);
        }
    }
    let mut kept = Vec::with_capacity(runs.len());
    for run in runs {
        let fact = RunFact::new(run.run_id, run.run_ms, run.status_id, tz);
        let covering = of_case.get(&run.test_case_id).and_then(|ws| {
            ws.iter()
                .map(|&i| &windows[i])
                .find(|w| w.covers(fact.run_ms, fact.local))
        });
        match covering {
            Some(w) => {
                c.execute(
                    "INSERT INTO maintenance_runs (run_id, window_id) VALUES ($1, $2)
                     ON CONFLICT DO NOTHING",
                    &[&run.run_id, &w.id],
                )
                .await?;
            }
            None => kept.push(*run),
        }
    }
    Ok(kept)
}

/// The runs of `runs` no window marked (the engine's backfill over stored runs leaves the
/// marked ones alone, as ingest did).
pub(crate) async fn unmarked(c: &impl Exec, runs: Vec<Evaluated>) -> StoreResult<Vec<Evaluated>> {
    let (Some(lo), Some(hi)) = (
        runs.iter().map(|r| r.run_id).min(),
        runs.iter().map(|r| r.run_id).max(),
    ) else {
        return Ok(runs);
    };
    let marked: HashSet<i64> = c
        .column(
            "SELECT run_id FROM maintenance_runs WHERE run_id BETWEEN $1 AND $2",
            &[&lo, &hi],
        )
        .await?
        .into_iter()
        .collect();
    if marked.is_empty() {
        return Ok(runs);
    }
    Ok(runs
        .into_iter()
        .filter(|r| !marked.contains(&r.run_id))
        .collect())
}
