//! What the operator sees of an outage, for both backends on `store/sql.rs`: each failing
//! group's alert facts for the dashboard's failing-now bar (open events and who acknowledged
//! them, the mutes active now, each setting's consecutive-failure count against its
//! threshold), the mute an alert shows, the handover (what opened, closed, was acknowledged or
//! muted since a time) and each user's previous sign-in. Read-only; the rules are
//! `domain/opstate.rs`'s.

use std::collections::HashMap;

use async_trait::async_trait;

use super::alerts::CaseRows;
use super::sql::{self, Exec, SqlStore};
use super::StoreResult;
use crate::domain::caller::Scope;
use crate::domain::opstate::{ActiveMute, GroupFacts, OpenEvent, SettingCount};

/// What a handover entry tells.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum HandoverKind {
    Opened,
    Acknowledged,
    Muted,
    Closed,
}

/// One thing that happened to an alert in the handover's period.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HandoverItem {
    pub kind: HandoverKind,
    pub at_ms: i64,
    pub event_id: i64,
    pub test_case_name: String,
    pub group_id: i64,
    pub group_name: String,
    /// Who acknowledged or muted.
    pub by: Option<String>,
    /// Muted: until when, and whether the whole group.
    pub until_ms: Option<i64>,
    pub whole_group: bool,
}

/// The handover's answer: its items oldest first, and whether there were more than asked.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Handover {
    pub items: Vec<HandoverItem>,
    pub truncated: bool,
}

#[async_trait]
pub trait OpStateStore {
    /// The alert facts of groups `ids` at `now_ms` (the caller sees them): open events with
    /// their acknowledgement, once windows active now on the group or one of its test cases,
    /// and each active setting's count against its threshold. Every group asked has an entry.
    async fn group_facts(
        &self,
        ids: Vec<i64>,
        now_ms: i64,
    ) -> StoreResult<HashMap<i64, GroupFacts>>;
    /// The once window active at `now_ms` that covers test case `case` or group `group`
    /// (the whole group's first, then the one ending last), if any.
    async fn active_mute(
        &self,
        case: i64,
        group: i64,
        now_ms: i64,
    ) -> StoreResult<Option<ActiveMute>>;
    /// What happened to the scope's alert events from `from_ms` to `to_ms` (excluded), oldest
    /// first, at most `limit` items.
    async fn handover(
        &self,
        scope: Scope,
        from_ms: i64,
        to_ms: i64,
        limit: usize,
    ) -> StoreResult<Handover>;
    /// Records user `user_id`'s sign-in at `at_ms`: their last sign-in becomes the previous.
    async fn record_sign_in(&self, user_id: i64, at_ms: i64) -> StoreResult<()>;
    /// The sign-in before user `user_id`'s last one (UTC ms), if any.
    async fn previous_sign_in(&self, user_id: i64) -> StoreResult<Option<i64>>;
}

/// Once windows not ended and covering `$1` (now): `w`.
const ACTIVE: &str =
    "w.weekly = FALSE AND w.ended_ms IS NULL AND w.start_ms <= $1 AND w.end_ms > $1";

/// The scope (user `$1`, NULL for all) as a condition on event `e`.
const SEES_EVENT: &str = "(CAST($1 AS BIGINT) IS NULL
    OR e.group_id IN (SELECT group_id FROM user_groups WHERE user_id = $1))";

/// Records a sign-in inside a session's transaction (`store/auth.rs`).
pub(super) async fn sign_in_in(c: &impl Exec, user_id: i64, at_ms: i64) -> StoreResult<()> {
    c.execute(
        "INSERT INTO sign_ins (user_id, last_ms) VALUES ($1, $2)
         ON CONFLICT (user_id) DO UPDATE SET previous_ms = sign_ins.last_ms, last_ms = $2",
        &[&user_id, &at_ms],
    )
    .await?;
    Ok(())
}

#[async_trait]
impl<S: SqlStore> OpStateStore for S {
    async fn group_facts(
        &self,
        ids: Vec<i64>,
        now_ms: i64,
    ) -> StoreResult<HashMap<i64, GroupFacts>> {
        let seed: HashMap<i64, GroupFacts> =
            ids.iter().map(|&g| (g, GroupFacts::default())).collect();
        if ids.is_empty() {
            return Ok(seed);
        }
        sql::read!(self, [ids = ids.clone()], |c| {
            let mut out = seed.clone();
            let by_id: Vec<&dyn sql::Param> = ids.iter().map(|i| i as &dyn sql::Param).collect();
            let list = sql::placeholders(1, ids.len());
            let mut at_now: Vec<&dyn sql::Param> = vec![&now_ms];
            at_now.extend(ids.iter().map(|i| i as &dyn sql::Param));
            let list_after_now = sql::placeholders(2, ids.len());
            for r in c
                .query(
                    &format!(
                        "SELECT e.group_id, e.id, e.alert_ms, e.ack_user, e.ack_ms
                           FROM alert_events e
                          WHERE e.open = TRUE AND e.group_id IN ({list})"
                    ),
                    &by_id,
                )
                .await?
            {
                let ack = match (
                    r.col::<Option<String>>("ack_user")?,
                    r.col::<Option<i64>>("ack_ms")?,
                ) {
                    (Some(by), Some(at)) => Some((by, at)),
                    _ => None,
                };
                if let Some(f) = out.get_mut(&r.col::<i64>("group_id")?) {
                    f.open.push(OpenEvent {
                        id: r.col("id")?,
                        alert_ms: r.col("alert_ms")?,
                        ack,
                    });
                }
            }
            // Windows on the group, then on one of its test cases.
            for (whole, join) in [
                (
                    true,
                    "JOIN maintenance_window_groups wg ON wg.window_id = w.id
                      WHERE wg.group_id IN",
                ),
                (
                    false,
                    "JOIN maintenance_window_cases wc ON wc.window_id = w.id
                     JOIN group_cases wg ON wg.test_case_id = wc.test_case_id
                      WHERE wg.group_id IN",
                ),
            ] {
                for r in c
                    .query(
                        &format!(
                            "SELECT DISTINCT wg.group_id, w.id, w.end_ms, w.created_by, w.event_id
                               FROM maintenance_windows w {join} ({list_after_now}) AND {ACTIVE}"
                        ),
                        &at_now,
                    )
                    .await?
                {
                    if let Some(f) = out.get_mut(&r.col::<i64>("group_id")?) {
                        f.mutes.push(ActiveMute {
                            window_id: r.col("id")?,
                            until_ms: r.col("end_ms")?,
                            by: r.col("created_by")?,
                            event_id: r.col("event_id")?,
                            whole_group: whole,
                        });
                    }
                }
            }
            // A test case with an open event counts on in the engine; the bar names that
            // event instead, so only the others' counts say how near a new alert is.
            for r in c
                .query(
                    &format!(
                        "SELECT group_id, id, failure_to_alert FROM alert_settings
                          WHERE active = TRUE AND group_id IN ({list})"
                    ),
                    &by_id,
                )
                .await?
            {
                if let Some(f) = out.get_mut(&r.col::<i64>("group_id")?) {
                    f.settings.push(SettingCount {
                        setting_id: r.col("id")?,
                        threshold: r.col("failure_to_alert")?,
                        count: 0,
                    });
                }
            }
            for r in c
                .query(
                    &format!(
                        "SELECT gc.group_id, m.test_case_id, m.states
                           FROM alert_memory m
                           JOIN group_cases gc ON gc.test_case_id = m.test_case_id
                          WHERE gc.group_id IN ({list}) AND m.states <> '{{}}'"
                    ),
                    &by_id,
                )
                .await?
            {
                let Some(f) = out.get_mut(&r.col::<i64>("group_id")?) else {
                    continue;
                };
                let states: String = r.col("states")?;
                let memory = CaseRows::parse(r.col("test_case_id")?, None, &states)?;
                for s in &mut f.settings {
                    if let Some(st) = memory.rows.get(&s.setting_id) {
                        if st.open_event.is_none() {
                            s.count = s.count.max(i64::from(st.count));
                        }
                    }
                }
            }
            Ok(out)
        })
    }

    async fn active_mute(
        &self,
        case: i64,
        group: i64,
        now_ms: i64,
    ) -> StoreResult<Option<ActiveMute>> {
        sql::read!(self, |c| {
            let rows = c
                .query(
                    &format!(
                        "SELECT w.id, w.end_ms, w.created_by, w.event_id,
                                EXISTS (SELECT 1 FROM maintenance_window_groups wg
                                         WHERE wg.window_id = w.id AND wg.group_id = $3)
                                    AS whole_group
                           FROM maintenance_windows w
                          WHERE {ACTIVE}
                            AND (EXISTS (SELECT 1 FROM maintenance_window_cases wc
                                          WHERE wc.window_id = w.id AND wc.test_case_id = $2)
                                 OR EXISTS (SELECT 1 FROM maintenance_window_groups wg
                                             WHERE wg.window_id = w.id AND wg.group_id = $3))"
                    ),
                    &[&now_ms, &case, &group],
                )
                .await?;
            let mut best: Option<ActiveMute> = None;
            for r in rows {
                let m = ActiveMute {
                    window_id: r.col("id")?,
                    until_ms: r.col("end_ms")?,
                    by: r.col("created_by")?,
                    event_id: r.col("event_id")?,
                    whole_group: r.col("whole_group")?,
                };
                let key = |m: &ActiveMute| (m.whole_group, m.until_ms, m.window_id);
                if best.as_ref().is_none_or(|b| key(&m) > key(b)) {
                    best = Some(m);
                }
            }
            Ok(best)
        })
    }

    async fn handover(
        &self,
        scope: Scope,
        from_ms: i64,
        to_ms: i64,
        limit: usize,
    ) -> StoreResult<Handover> {
        sql::read!(self, |c| {
            let user = scope.user();
            let cap = (limit + 1) as i64;
            let mut items = Vec::new();
            let names = "e.id AS event_id, COALESCE(tc.name, '') AS test_case_name, e.group_id,
                         e.group_name";
            let from_events =
                "FROM alert_events e LEFT JOIN test_cases tc ON tc.id = e.test_case_id";
            for (kind, at, by) in [
                (HandoverKind::Opened, "e.alert_ms", "NULL"),
                (HandoverKind::Acknowledged, "e.ack_ms", "e.ack_user"),
                (HandoverKind::Closed, "e.closed_ms", "NULL"),
            ] {
                for r in c
                    .query(
                        &format!(
                            "SELECT {at} AS at_ms, {names}, CAST({by} AS TEXT) AS by_user
                               {from_events}
                              WHERE {SEES_EVENT} AND {at} >= $2 AND {at} < $3
                              ORDER BY {at}, e.id LIMIT $4"
                        ),
                        &[&user, &from_ms, &to_ms, &cap],
                    )
                    .await?
                {
                    items.push(HandoverItem {
                        kind,
                        at_ms: r.col("at_ms")?,
                        event_id: r.col("event_id")?,
                        test_case_name: r.col("test_case_name")?,
                        group_id: r.col("group_id")?,
                        group_name: r.col("group_name")?,
                        by: r.col("by_user")?,
                        until_ms: None,
                        whole_group: false,
                    });
                }
            }
            for r in c
                .query(
                    &format!(
                        "SELECT w.created_ms, {names}, w.created_by, w.end_ms,
                                EXISTS (SELECT 1 FROM maintenance_window_groups wg
                                         WHERE wg.window_id = w.id) AS whole_group
                           FROM maintenance_windows w JOIN alert_events e ON e.id = w.event_id
                           LEFT JOIN test_cases tc ON tc.id = e.test_case_id
                          WHERE {SEES_EVENT} AND w.created_ms >= $2 AND w.created_ms < $3
                          ORDER BY w.created_ms, w.id LIMIT $4"
                    ),
                    &[&user, &from_ms, &to_ms, &cap],
                )
                .await?
            {
                items.push(HandoverItem {
                    kind: HandoverKind::Muted,
                    at_ms: r.col("created_ms")?,
                    event_id: r.col("event_id")?,
                    test_case_name: r.col("test_case_name")?,
                    group_id: r.col("group_id")?,
                    group_name: r.col("group_name")?,
                    by: r.col("created_by")?,
                    until_ms: r.col("end_ms")?,
                    whole_group: r.col("whole_group")?,
                });
            }
            items.sort_by_key(|i| (i.at_ms, i.event_id, i.kind));
            let truncated = items.len() > limit;
            items.truncate(limit);
            Ok(Handover { items, truncated })
        })
    }

    async fn record_sign_in(&self, user_id: i64, at_ms: i64) -> StoreResult<()> {
        sql::write!(self, |c| sign_in_in(c, user_id, at_ms).await)
    }

    async fn previous_sign_in(&self, user_id: i64) -> StoreResult<Option<i64>> {
        sql::read!(self, |c| {
            Ok(c.scalar_opt::<Option<i64>>(
                "SELECT previous_ms FROM sign_ins WHERE user_id = $1",
                &[&user_id],
            )
            .await?
            .flatten())
        })
    }
}
