//! Alert settings (spec §3 'Alert setting'): the paged list, one setting with its statuses
//! and weekly schedule, saves, and the alert statuses a setting may count.
//!
//! A setting belongs to one test case group: a caller whose scope does not hold that group
//! neither sees nor changes it (the same read answers existence and the right to see it).
//! Its contact group is a distribution list; `distributions.rs` refuses to delete a list a
//! setting uses. The schedule is stored as one 48-bit mask per day (`domain::schedule`).

use async_trait::async_trait;
use rusqlite::{params, Connection, OptionalExtension, Transaction};
use serde_json::Value;

use super::audit;
use super::catalog::{channel_of, group_visibility};
use super::{group_field, invalid, now_secs, Sqlite, StoreResult};
use crate::domain::alert_setting::{
    attach_recording_for, AlertSetting, AlertSettingDraft, AlertSettingFilter,
    AlertSettingSortField, AlertStatus,
};
use crate::domain::caller::{Scope, Visibility};
use crate::domain::page::{Page, PageRequest};
use crate::domain::schedule::Week;

#[async_trait]
pub trait AlertSettingStore {
    /// One page of the settings of the scope's groups that match the filter.
    async fn list_alert_settings(
        &self,
        scope: Scope,
        page: PageRequest,
        filter: &AlertSettingFilter,
    ) -> StoreResult<Page<AlertSetting>>;
    /// Setting `id`, when it exists and the scope may see its group.
    async fn alert_setting(&self, scope: Scope, id: i64) -> StoreResult<Visibility<AlertSetting>>;
    /// Adds a setting; field problems when the group is missing or not the scope's, the
    /// list is missing, or a status is unknown or does not fit the group's channel.
    async fn create_alert_setting(
        &self,
        scope: Scope,
        draft: &AlertSettingDraft,
    ) -> StoreResult<i64>;
    /// Replaces setting `id` (same checks as create; the new group must be the scope's too).
    async fn update_alert_setting(
        &self,
        scope: Scope,
        id: i64,
        draft: &AlertSettingDraft,
    ) -> StoreResult<Visibility<()>>;
    async fn delete_alert_setting(&self, scope: Scope, id: i64) -> StoreResult<Visibility<()>>;
    /// Every alert status (spec §3), by id.
    async fn all_statuses(&self) -> StoreResult<Vec<AlertStatus>>;
    /// Every distribution list as `(id, name)`, by name: the form's contact groups.
    async fn contact_groups(&self) -> StoreResult<Vec<(i64, String)>>;
}

const COLUMNS: &str = "a.id, a.name, a.active, a.group_id, g.name, g.channel, a.distribution_id,
    d.name, a.email_subject, a.voice_message, a.sms_prefix, a.attach_recording,
    a.attach_jira_ticket, a.failure_to_alert, a.notify_on_recovery, a.jira_assignee,
    a.jira_project, a.jira_username, a.modified_at";
const FROM: &str = "alert_settings a JOIN test_case_groups g ON g.id = a.group_id
    JOIN distribution_lists d ON d.id = a.distribution_id";

fn setting_row(r: &rusqlite::Row) -> rusqlite::Result<AlertSetting> {
    Ok(AlertSetting {
        id: r.get(0)?,
        name: r.get(1)?,
        active: r.get(2)?,
        group_id: r.get(3)?,
        group_name: r.get(4)?,
        channel: channel_of(&r.get::<_, String>(5)?)?,
        distribution_id: r.get(6)?,
        distribution_name: r.get(7)?,
        email_subject: r.get(8)?,
        voice_message: r.get(9)?,
        sms_prefix: r.get(10)?,
        attach_recording: r.get(11)?,
        attach_jira_ticket: r.get(12)?,
        failure_to_alert: r.get(13)?,
        notify_on_recovery: r.get(14)?,
        jira_assignee: r.get(15)?,
        jira_project: r.get(16)?,
        jira_username: r.get(17)?,
        modified_at: r.get(18)?,
        statuses: Vec::new(),
        week: Week::default(),
    })
}

/// The status codes and the schedule of a setting.
fn fill(conn: &Connection, s: &mut AlertSetting) -> StoreResult<()> {
    s.statuses = conn
        .prepare_cached(
            "SELECT st.code FROM alert_setting_statuses x JOIN alert_statuses st ON st.id = x.status_id
              WHERE x.setting_id = ?1 ORDER BY st.id",
        )?
        .query_map([s.id], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    s.week = week_of(conn, s.id)?;
    Ok(())
}

/// The weekly schedule of setting `id` (the engine reads it the same way).
pub(super) fn week_of(conn: &Connection, id: i64) -> StoreResult<Week> {
    let rows: Vec<(u8, i64)> = conn
        .prepare_cached(
            "SELECT day_of_week, slots FROM alert_setting_schedule WHERE setting_id = ?1",
        )?
        .query_map([id], |r| Ok((r.get(0)?, r.get(1)?)))?
        .collect::<Result<_, _>>()?;
    Ok(Week::from_masks(
        rows.into_iter().map(|(d, m)| (d, m as u64)),
    ))
}

fn get(conn: &Connection, id: i64) -> StoreResult<Option<AlertSetting>> {
    let s = conn
        .prepare_cached(&format!("SELECT {COLUMNS} FROM {FROM} WHERE a.id = ?1"))?
        .query_row([id], setting_row)
        .optional()?;
    let Some(mut s) = s else { return Ok(None) };
    fill(conn, &mut s)?;
    Ok(Some(s))
}

fn visible(conn: &Connection, scope: Scope, id: i64) -> StoreResult<Visibility<AlertSetting>> {
    let Some(s) = get(conn, id)? else {
        return Ok(Visibility::Missing);
    };
    Ok(match group_visibility(conn, scope, s.group_id)? {
        Visibility::Visible(()) => Visibility::Visible(s),
        Visibility::Hidden => Visibility::Hidden,
        Visibility::Missing => Visibility::Missing,
    })
}

/// The ids of the statuses `codes` names, each one that can raise an alert on a `channel`
/// group (both backends check a form this way).
pub(super) fn status_ids(
    statuses: &[AlertStatus],
    codes: &[String],
    channel: crate::domain::run::Channel,
) -> StoreResult<Vec<i64>> {
    let mut ids = Vec::new();
    for code in codes {
        match statuses.iter().find(|s| &s.code == code) {
            Some(s) if s.fits(channel) => ids.push(s.id),
            Some(s) => {
                return Err(invalid(
                    "alertStatus",
                    format!(
                        "Status {code} ({}) cannot raise an alert for a {} group.",
                        s.text,
                        channel.label()
                    ),
                ))
            }
            None => {
                return Err(invalid(
                    "alertStatus",
                    format!("Status {code} is not an alert status."),
                ))
            }
        }
    }
    Ok(ids)
}

/// The checks that need the data, in the form's order; returns the status ids and whether
/// the recording is attached (voice groups only).
fn check(tx: &Transaction, scope: Scope, d: &AlertSettingDraft) -> StoreResult<(Vec<i64>, bool)> {
    group_field(
        "testCaseGroupId",
        d.group_id,
        group_visibility(tx, scope, d.group_id)?,
    )?;
    let list: Option<i64> = tx
        .prepare_cached("SELECT id FROM distribution_lists WHERE id = ?1")?
        .query_row([d.distribution_id], |r| r.get(0))
        .optional()?;
    if list.is_none() {
        return Err(invalid(
            "distributionId",
            format!("Distribution list {} does not exist.", d.distribution_id),
        ));
    }
    let channel: String = tx.query_row(
        "SELECT channel FROM test_case_groups WHERE id = ?1",
        [d.group_id],
        |r| r.get(0),
    )?;
    let channel = channel_of(&channel)?;
    let statuses = statuses(tx)?;
    let ids = status_ids(&statuses, &d.statuses, channel)?;
    Ok((ids, attach_recording_for(channel, d.attach_recording)))
}

fn statuses(conn: &Connection) -> StoreResult<Vec<AlertStatus>> {
    Ok(conn
        .prepare_cached(
            "SELECT id, code, text, status_group, support_channel FROM alert_statuses ORDER BY id",
        )?
        .query_map([], |r| {
            Ok(AlertStatus {
                id: r.get(0)?,
                code: r.get(1)?,
                text: r.get(2)?,
                status_group: r.get(3)?,
                support_channel: r.get(4)?,
            })
        })?
        .collect::<Result<_, _>>()?)
}

fn set_children(tx: &Transaction, id: i64, status_ids: &[i64], week: &Week) -> StoreResult<()> {
    tx.execute(
        "DELETE FROM alert_setting_statuses WHERE setting_id = ?1",
        [id],
    )?;
    tx.execute(
        "DELETE FROM alert_setting_schedule WHERE setting_id = ?1",
        [id],
    )?;
    let mut ins = tx.prepare_cached(
        "INSERT INTO alert_setting_statuses (setting_id, status_id) VALUES (?1, ?2)",
    )?;
    for s in status_ids {
        ins.execute(params![id, s])?;
    }
    let mut ins = tx.prepare_cached(
        "INSERT INTO alert_setting_schedule (setting_id, day_of_week, slots) VALUES (?1, ?2, ?3)",
    )?;
    for (day, mask) in week.masks() {
        ins.execute(params![id, day, mask as i64])?;
    }
    Ok(())
}

/// A setting as the audit log shows it: its row, its status codes and its schedule as
/// `(day, 48-bit mask)` rows.
pub(super) fn audit_view(tx: &Transaction, id: i64) -> StoreResult<Option<Value>> {
    let Some(mut v) = audit::snapshot(tx, "alert_settings", id)? else {
        return Ok(None);
    };
    let codes: Vec<String> = tx
        .prepare_cached(
            "SELECT st.code FROM alert_setting_statuses x JOIN alert_statuses st ON st.id = x.status_id
              WHERE x.setting_id = ?1 ORDER BY st.id",
        )?
        .query_map([id], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    let schedule: Vec<Value> = week_of(tx, id)?
        .masks()
        .into_iter()
        .map(|(d, m)| serde_json::json!({"day_of_week": d, "slots": m}))
        .collect();
    if let Value::Object(map) = &mut v {
        map.insert("statuses".into(), codes.into());
        map.insert("schedule".into(), schedule.into());
    }
    Ok(Some(v))
}

fn list(
    conn: &Connection,
    scope: Scope,
    page: PageRequest,
    f: &AlertSettingFilter,
) -> StoreResult<Page<AlertSetting>> {
    let pattern = f
        .search
        .as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(super::like);
    let user = match scope {
        Scope::All => None,
        Scope::User(u) => Some(u),
    };
    let order = match f.sort.field {
        AlertSettingSortField::Id => "a.id",
        AlertSettingSortField::Name => "a.name COLLATE NOCASE",
        AlertSettingSortField::GroupName => "g.name COLLATE NOCASE",
        AlertSettingSortField::DistributionName => "d.name COLLATE NOCASE",
        AlertSettingSortField::Active => "a.active",
    };
    let dir = if f.sort.descending { "DESC" } else { "ASC" };
    let wher = "(?1 IS NULL OR a.group_id IN (SELECT group_id FROM user_groups WHERE user_id = ?1))
        AND (?2 IS NULL OR lower(a.name) LIKE ?2 ESCAPE '\\' OR lower(g.name) LIKE ?2 ESCAPE '\\'
             OR lower(d.name) LIKE ?2 ESCAPE '\\')";
    let total: i64 = conn.query_row(
        &format!("SELECT count(*) FROM {FROM} WHERE {wher}"),
        params![user, pattern],
        |r| r.get(0),
    )?;
    let mut items = conn
        .prepare_cached(&format!(
            "SELECT {COLUMNS} FROM {FROM} WHERE {wher}
              ORDER BY {order} {dir}, a.id {dir} LIMIT ?3 OFFSET ?4"
        ))?
        .query_map(
            params![user, pattern, page.size, page.offset() as i64],
            setting_row,
        )?
        .collect::<Result<Vec<_>, _>>()?;
    for s in &mut items {
        fill(conn, s)?;
    }
    Ok(Page {
        items,
        total: total as u64,
    })
}

fn write_row(
    tx: &Transaction,
    id: Option<i64>,
    d: &AlertSettingDraft,
    attach_recording: bool,
) -> StoreResult<i64> {
    let values = params![
        d.name,
        d.active,
        d.group_id,
        d.distribution_id,
        d.email_subject,
        d.voice_message,
        d.sms_prefix,
        attach_recording,
        d.attach_jira_ticket,
        d.failure_to_alert,
        d.notify_on_recovery,
        d.jira_assignee,
        d.jira_project,
        d.jira_username,
        now_secs(),
        id,
    ];
    match id {
        None => {
            // ?16 is NULL: SQLite gives the row the next id.
            tx.execute(
                "INSERT INTO alert_settings (name, active, group_id, distribution_id,
                        email_subject, voice_message, sms_prefix, attach_recording,
                        attach_jira_ticket, failure_to_alert, notify_on_recovery,
                        jira_assignee, jira_project, jira_username, modified_at, id)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)",
                values,
            )?;
            Ok(tx.last_insert_rowid())
        }
        Some(id) => {
            tx.execute(
                "UPDATE alert_settings SET name = ?1, active = ?2, group_id = ?3,
                        distribution_id = ?4, email_subject = ?5, voice_message = ?6,
                        sms_prefix = ?7, attach_recording = ?8, attach_jira_ticket = ?9,
                        failure_to_alert = ?10, notify_on_recovery = ?11, jira_assignee = ?12,
                        jira_project = ?13, jira_username = ?14, modified_at = ?15
                  WHERE id = ?16",
                values,
            )?;
            Ok(id)
        }
    }
}

#[async_trait]
impl AlertSettingStore for Sqlite {
    async fn list_alert_settings(
        &self,
        scope: Scope,
        page: PageRequest,
        filter: &AlertSettingFilter,
    ) -> StoreResult<Page<AlertSetting>> {
        let filter = filter.clone();
        self.read(move |c| list(c, scope, page, &filter)).await
    }

    async fn alert_setting(&self, scope: Scope, id: i64) -> StoreResult<Visibility<AlertSetting>> {
        self.read(move |c| visible(c, scope, id)).await
    }

    async fn create_alert_setting(
        &self,
        scope: Scope,
        draft: &AlertSettingDraft,
    ) -> StoreResult<i64> {
        let d = draft.clone();
        self.write(move |tx| {
            let (status_ids, attach) = check(tx, scope, &d)?;
            let id = write_row(tx, None, &d, attach)?;
            set_children(tx, id, &status_ids, &d.week)?;
            let after = audit_view(tx, id)?;
            audit::record(tx, "alert_setting", "create", id, None, after)?;
            Ok(id)
        })
        .await
    }

    async fn update_alert_setting(
        &self,
        scope: Scope,
        id: i64,
        draft: &AlertSettingDraft,
    ) -> StoreResult<Visibility<()>> {
        let d = draft.clone();
        self.write(move |tx| {
            match visible(tx, scope, id)? {
                Visibility::Visible(_) => {}
                Visibility::Hidden => return Ok(Visibility::Hidden),
                Visibility::Missing => return Ok(Visibility::Missing),
            }
            let (status_ids, attach) = check(tx, scope, &d)?;
            let before = audit_view(tx, id)?;
            write_row(tx, Some(id), &d, attach)?;
            set_children(tx, id, &status_ids, &d.week)?;
            let after = audit_view(tx, id)?;
            audit::record(tx, "alert_setting", "update", id, before, after)?;
            Ok(Visibility::Visible(()))
        })
        .await
    }

    async fn delete_alert_setting(&self, scope: Scope, id: i64) -> StoreResult<Visibility<()>> {
        self.write(move |tx| {
            let v = visible(tx, scope, id)?.map(|_| ());
            if v == Visibility::Visible(()) {
                let before = audit_view(tx, id)?;
                tx.execute("DELETE FROM alert_settings WHERE id = ?1", [id])?;
                audit::record(tx, "alert_setting", "delete", id, before, None)?;
            }
            Ok(v)
        })
        .await
    }

    async fn all_statuses(&self) -> StoreResult<Vec<AlertStatus>> {
        self.read(statuses).await
    }

    async fn contact_groups(&self) -> StoreResult<Vec<(i64, String)>> {
        self.read(|c| {
            Ok(c.prepare_cached(
                "SELECT id, name FROM distribution_lists ORDER BY name COLLATE NOCASE, id",
            )?
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<Result<_, _>>()?)
        })
        .await
    }
}
