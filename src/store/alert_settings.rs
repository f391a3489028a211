//! Alert settings (spec §3 'Alert setting'): the paged list, one setting with its statuses
//! and weekly schedule, saves, and the alert statuses a setting may count.
//!
//! A setting belongs to one test case group: a caller whose scope does not hold that group
//! neither sees nor changes it (the same read answers existence and the right to see it).
//! Its contact group is a distribution list; `distributions.rs` refuses to delete a list a
//! setting uses. The schedule is stored as one 48-bit mask per day (`domain::schedule`).

use std::collections::HashMap;

use async_trait::async_trait;
use serde_json::Value;

use super::audit;
use super::catalog::{alert_statuses, channel, group_visibility};
use super::sql::{self, Exec, Row, SqlStore};
use super::{group_field, invalid, now_secs, StoreResult};
use crate::domain::alert_setting::{
    attach_recording_for, AlertSetting, AlertSettingDraft, AlertSettingFilter,
    AlertSettingSortField, AlertStatus, Escalation,
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
    /// The distribution lists the scope may see as `(id, name)`, by name: the form's
    /// contact groups and the schedule dialog's lists. An administrator sees every list; a
    /// restricted user only those their groups use (an alert setting of one of their groups
    /// sends or escalates to it, or a report of one is scheduled to it), not other teams'.
    async fn contact_groups(&self, scope: Scope) -> StoreResult<Vec<(i64, String)>>;
}

const COLUMNS: &str = "a.id, a.name, a.active, a.group_id, g.name, g.channel, a.distribution_id,
    d.name, a.email_subject, a.voice_message, a.sms_prefix, a.attach_recording,
    a.attach_jira_ticket, a.failure_to_alert, a.notify_on_recovery, a.jira_assignee,
    a.jira_project, a.jira_username, a.modified_at, a.escalation_distribution_id,
    a.escalation_delay_min,
    (SELECT name FROM distribution_lists x WHERE x.id = a.escalation_distribution_id)";
const FROM: &str = "alert_settings a JOIN test_case_groups g ON g.id = a.group_id
    JOIN distribution_lists d ON d.id = a.distribution_id";

fn setting_row(r: &Row) -> StoreResult<AlertSetting> {
    Ok(AlertSetting {
        id: r.get(0)?,
        name: r.get(1)?,
        active: r.get(2)?,
        group_id: r.get(3)?,
        group_name: r.get(4)?,
        channel: channel(&r.get::<String>(5)?)?,
        distribution_id: r.get(6)?,
        distribution_name: r.get(7)?,
        email_subject: r.get(8)?,
        voice_message: r.get(9)?,
        sms_prefix: r.get(10)?,
        attach_recording: r.get(11)?,
        attach_jira_ticket: r.get(12)?,
        failure_to_alert: r.get::<i64>(13)?.clamp(0, 255) as u8,
        notify_on_recovery: r.get(14)?,
        jira_assignee: r.get(15)?,
        jira_project: r.get(16)?,
        jira_username: r.get(17)?,
        modified_at: r.get(18)?,
        escalation: match (r.get::<Option<i64>>(19)?, r.get::<Option<i64>>(20)?) {
            (Some(distribution_id), Some(delay_min)) => Some(Escalation {
                distribution_id,
                delay_min,
            }),
            _ => None,
        },
        escalation_distribution_name: r.get(21)?,
        statuses: Vec::new(),
        week: Week::default(),
    })
}

/// `(setting id, column 1)` rows of `sql` for the settings `ids`, grouped by setting.
async fn by_setting<T: sql::FromValue>(
    c: &impl Exec,
    sql: &str,
    ids: &[i64],
) -> StoreResult<HashMap<i64, Vec<(T, i64)>>> {
    let mut out: HashMap<i64, Vec<(T, i64)>> = HashMap::new();
    if ids.is_empty() {
        return Ok(out);
    }
    let params: Vec<&dyn sql::Param> = ids.iter().map(|id| id as _).collect();
    let sql = sql.replace("$IDS", &sql::placeholders(1, ids.len()));
    for r in c.query(&sql, &params).await? {
        out.entry(r.get(0)?)
            .or_default()
            .push((r.get(1)?, r.get::<Option<i64>>(2)?.unwrap_or(0)));
    }
    Ok(out)
}

/// The status codes (in id order) of the settings `ids`.
async fn codes_of(c: &impl Exec, ids: &[i64]) -> StoreResult<HashMap<i64, Vec<String>>> {
    Ok(by_setting::<String>(
        c,
        "SELECT x.setting_id, st.code, NULL FROM alert_setting_statuses x
           JOIN alert_statuses st ON st.id = x.status_id
          WHERE x.setting_id IN ($IDS) ORDER BY x.setting_id, st.id",
        ids,
    )
    .await?
    .into_iter()
    .map(|(id, rows)| (id, rows.into_iter().map(|(code, _)| code).collect()))
    .collect())
}

/// The weekly schedules of the settings `ids` (the engine reads them the same way).
pub(crate) async fn weeks_of(c: &impl Exec, ids: &[i64]) -> StoreResult<HashMap<i64, Week>> {
    Ok(by_setting::<i64>(
        c,
        "SELECT setting_id, day_of_week, slots FROM alert_setting_schedule
          WHERE setting_id IN ($IDS)",
        ids,
    )
    .await?
    .into_iter()
    .map(|(id, rows)| {
        let masks = rows
            .into_iter()
            .map(|(day, slots)| (day.clamp(0, 255) as u8, slots as u64));
        (id, Week::from_masks(masks))
    })
    .collect())
}

/// The status codes and the schedules of settings.
async fn fill(c: &impl Exec, items: &mut [AlertSetting]) -> StoreResult<()> {
    let ids: Vec<i64> = items.iter().map(|s| s.id).collect();
    let mut codes = codes_of(c, &ids).await?;
    let mut weeks = weeks_of(c, &ids).await?;
    for s in items {
        s.statuses = codes.remove(&s.id).unwrap_or_default();
        s.week = weeks.remove(&s.id).unwrap_or_default();
    }
    Ok(())
}

/// How a read locks the setting's row on PostgreSQL: not at all, for an update (`FOR NO
/// KEY UPDATE`: the engine's `FOR KEY SHARE` of ingest goes on meanwhile), or for a delete
/// (`FOR UPDATE`). SQLite's one writer needs none.
#[derive(Clone, Copy)]
enum Lock {
    None,
    Update,
    Delete,
}

async fn get(c: &impl Exec, id: i64, lock: Lock) -> StoreResult<Option<AlertSetting>> {
    let lock = c.pg_only(match lock {
        Lock::None => "",
        Lock::Update => " FOR NO KEY UPDATE OF a",
        Lock::Delete => " FOR UPDATE OF a",
    });
    let sql = format!("SELECT {COLUMNS} FROM {FROM} WHERE a.id = $1{lock}");
    let Some(r) = c.query_opt(&sql, &[&id]).await? else {
        return Ok(None);
    };
    let mut s = [setting_row(&r)?];
    fill(c, &mut s).await?;
    let [s] = s;
    Ok(Some(s))
}

/// Setting `id` when it exists and the scope sees its group (its row locked as `lock`).
async fn visible(
    c: &impl Exec,
    scope: Scope,
    id: i64,
    lock: Lock,
) -> StoreResult<Visibility<AlertSetting>> {
    let Some(s) = get(c, id, lock).await? else {
        return Ok(Visibility::Missing);
    };
    Ok(group_visibility(c, scope, s.group_id).await?.map(|()| s))
}

/// The ids of the statuses `codes` names, each one that can raise an alert on a `channel`
/// group (both backends check a form this way).
pub(crate) fn status_ids(
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
/// the recording is attached (voice groups only). On PostgreSQL the group and the list are
/// locked against a delete until the save commits.
async fn check(
    c: &impl Exec,
    scope: Scope,
    d: &AlertSettingDraft,
) -> StoreResult<(Vec<i64>, bool)> {
    let seen = group_visibility(c, scope, d.group_id).await?;
    group_field("testCaseGroupId", d.group_id, seen)?;
    let share = c.pg_only(" FOR KEY SHARE");
    let list = c
        .query_opt(
            &format!("SELECT id FROM distribution_lists WHERE id = $1{share}"),
            &[&d.distribution_id],
        )
        .await?;
    if list.is_none() {
        return Err(invalid(
            "distributionId",
            format!("Distribution list {} does not exist.", d.distribution_id),
        ));
    }
    if let Some(e) = d.escalation {
        let second = c
            .query_opt(
                &format!("SELECT id FROM distribution_lists WHERE id = $1{share}"),
                &[&e.distribution_id],
            )
            .await?;
        if second.is_none() {
            return Err(invalid(
                "escalationDistributionId",
                format!("Distribution list {} does not exist.", e.distribution_id),
            ));
        }
    }
    let Some(found) = c
        .scalar_opt::<String>(
            &format!("SELECT channel FROM test_case_groups WHERE id = $1{share}"),
            &[&d.group_id],
        )
        .await?
    else {
        return Err(invalid(
            "testCaseGroupId",
            format!("Test case group {} does not exist.", d.group_id),
        ));
    };
    let channel = channel(&found)?;
    let statuses = alert_statuses(c).await?;
    let ids = status_ids(&statuses, &d.statuses, channel)?;
    Ok((ids, attach_recording_for(channel, d.attach_recording)))
}

async fn set_children(c: &impl Exec, id: i64, status_ids: &[i64], week: &Week) -> StoreResult<()> {
    c.execute(
        "DELETE FROM alert_setting_statuses WHERE setting_id = $1",
        &[&id],
    )
    .await?;
    c.execute(
        "DELETE FROM alert_setting_schedule WHERE setting_id = $1",
        &[&id],
    )
    .await?;
    for s in status_ids {
        c.execute(
            "INSERT INTO alert_setting_statuses (setting_id, status_id) VALUES ($1, $2)",
            &[&id, s],
        )
        .await?;
    }
    for (day, mask) in week.masks() {
        c.execute(
            "INSERT INTO alert_setting_schedule (setting_id, day_of_week, slots)
             VALUES ($1, $2, $3)",
            &[&id, &day, &(mask as i64)],
        )
        .await?;
    }
    Ok(())
}

/// A setting as the audit log shows it: its row, its status codes and its schedule as
/// `(day, 48-bit mask)` rows.
async fn audit_view(c: &impl Exec, id: i64) -> StoreResult<Option<Value>> {
    let Some(mut v) = audit::snapshot(c, "alert_settings", id).await? else {
        return Ok(None);
    };
    let codes = codes_of(c, &[id]).await?.remove(&id).unwrap_or_default();
    let schedule: Vec<Value> = weeks_of(c, &[id])
        .await?
        .remove(&id)
        .unwrap_or_default()
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

async fn write_row(
    c: &impl Exec,
    id: Option<i64>,
    d: &AlertSettingDraft,
    attach_recording: bool,
) -> StoreResult<i64> {
    let failure = i64::from(d.failure_to_alert);
    let now = now_secs();
    let escalation_list = d.escalation.map(|e| e.distribution_id);
    let escalation_delay = d.escalation.map(|e| e.delay_min);
    let mut values: Vec<&dyn sql::Param> = vec![
        &d.name,
        &d.active,
        &d.group_id,
        &d.distribution_id,
        &d.email_subject,
        &d.voice_message,
        &d.sms_prefix,
        &attach_recording,
        &d.attach_jira_ticket,
        &failure,
        &d.notify_on_recovery,
        &d.jira_assignee,
        &d.jira_project,
        &d.jira_username,
        &now,
        &escalation_list,
        &escalation_delay,
    ];
    match id {
        None => {
            c.scalar(
                "INSERT INTO alert_settings (name, active, group_id, distribution_id,
                        email_subject, voice_message, sms_prefix, attach_recording,
                        attach_jira_ticket, failure_to_alert, notify_on_recovery,
                        jira_assignee, jira_project, jira_username, modified_at,
                        escalation_distribution_id, escalation_delay_min)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15,
                         $16, $17)
                 RETURNING id",
                &values,
            )
            .await
        }
        Some(id) => {
            values.push(&id);
            c.execute(
                "UPDATE alert_settings SET name = $1, active = $2, group_id = $3,
                        distribution_id = $4, email_subject = $5, voice_message = $6,
                        sms_prefix = $7, attach_recording = $8, attach_jira_ticket = $9,
                        failure_to_alert = $10, notify_on_recovery = $11, jira_assignee = $12,
                        jira_project = $13, jira_username = $14, modified_at = $15,
                        escalation_distribution_id = $16, escalation_delay_min = $17
                  WHERE id = $18",
                &values,
            )
            .await?;
            Ok(id)
        }
    }
}

#[async_trait]
impl<S: SqlStore> AlertSettingStore for S {
    async fn list_alert_settings(
        &self,
        scope: Scope,
        page: PageRequest,
        filter: &AlertSettingFilter,
    ) -> StoreResult<Page<AlertSetting>> {
        let pattern = sql::search(filter.search.as_deref());
        let user = scope.user();
        let field = filter.sort.field;
        let dir = sql::dir(filter.sort.descending);
        sql::read!(self, |c| {
            let order = match field {
                AlertSettingSortField::Id => "a.id".to_string(),
                AlertSettingSortField::Name => c.nocase("a.name"),
                AlertSettingSortField::GroupName => c.nocase("g.name"),
                AlertSettingSortField::DistributionName => c.nocase("d.name"),
                AlertSettingSortField::Active => "a.active".to_string(),
            };
            let wher = format!(
                "(CAST($1 AS BIGINT) IS NULL
                  OR a.group_id IN (SELECT group_id FROM user_groups WHERE user_id = $1))
                 AND (CAST($2 AS TEXT) IS NULL OR {} LIKE $2 ESCAPE '\\'
                      OR {} LIKE $2 ESCAPE '\\' OR {} LIKE $2 ESCAPE '\\')",
                c.fold("a.name"),
                c.fold("g.name"),
                c.fold("d.name")
            );
            let total: i64 = c
                .scalar(
                    &format!("SELECT count(*) FROM {FROM} WHERE {wher}"),
                    &[&user, &pattern],
                )
                .await?;
            let mut items = c
                .query(
                    &format!(
                        "SELECT {COLUMNS} FROM {FROM} WHERE {wher}
                          ORDER BY {order} {dir}, a.id {dir} LIMIT $3 OFFSET $4"
                    ),
                    &[&user, &pattern, &page.size, &(page.offset() as i64)],
                )
                .await?
                .iter()
                .map(setting_row)
                .collect::<StoreResult<Vec<_>>>()?;
            fill(c, &mut items).await?;
            Ok(Page {
                items,
                total: total as u64,
            })
        })
    }

    async fn alert_setting(&self, scope: Scope, id: i64) -> StoreResult<Visibility<AlertSetting>> {
        sql::read!(self, |c| visible(c, scope, id, Lock::None).await)
    }

    async fn create_alert_setting(
        &self,
        scope: Scope,
        draft: &AlertSettingDraft,
    ) -> StoreResult<i64> {
        sql::write!(self, [d = draft.clone()], |c| {
            let (status_ids, attach) = check(c, scope, &d).await?;
            let id = write_row(c, None, &d, attach).await?;
            set_children(c, id, &status_ids, &d.week).await?;
            let after = audit_view(c, id).await?;
            audit::record(c, "alert_setting", "create", id, None, after).await?;
            Ok(id)
        })
    }

    async fn update_alert_setting(
        &self,
        scope: Scope,
        id: i64,
        draft: &AlertSettingDraft,
    ) -> StoreResult<Visibility<()>> {
        sql::write!(self, [d = draft.clone()], |c| {
            if let Err(unseen) = visible(c, scope, id, Lock::Update).await?.visible() {
                return Ok(unseen);
            }
            let (status_ids, attach) = check(c, scope, &d).await?;
            let before = audit_view(c, id).await?;
            write_row(c, Some(id), &d, attach).await?;
            set_children(c, id, &status_ids, &d.week).await?;
            // Tickets still waiting take the new ticket details (issue 30, item 10).
            let text = |v: &Option<String>| v.as_deref().unwrap_or_default().to_string();
            if d.attach_jira_ticket {
                super::auto_tickets::repoint_in(
                    c,
                    id,
                    &text(&d.jira_project),
                    &text(&d.jira_assignee),
                    &text(&d.jira_username),
                    super::outbox::now_ms(),
                )
                .await?;
            }
            let after = audit_view(c, id).await?;
            audit::record(c, "alert_setting", "update", id, before, after).await?;
            Ok(Visibility::Visible(()))
        })
    }

    async fn delete_alert_setting(&self, scope: Scope, id: i64) -> StoreResult<Visibility<()>> {
        sql::write!(self, |c| {
            let v = visible(c, scope, id, Lock::Delete).await?.map(|_| ());
            if v == Visibility::Visible(()) {
                let before = audit_view(c, id).await?;
                // The trigger of 0011 closes the setting's open events.
                c.execute("DELETE FROM alert_settings WHERE id = $1", &[&id])
                    .await?;
                audit::record(c, "alert_setting", "delete", id, before, None).await?;
            }
            Ok(v)
        })
    }

    async fn all_statuses(&self) -> StoreResult<Vec<AlertStatus>> {
        sql::read!(self, |c| alert_statuses(c).await)
    }

    async fn contact_groups(&self, scope: Scope) -> StoreResult<Vec<(i64, String)>> {
        sql::read!(self, |c| {
            let user = scope.user();
            let sql = format!(
                "SELECT d.id, d.name FROM distribution_lists d
                  WHERE CAST($1 AS BIGINT) IS NULL
                     OR d.id IN (SELECT a.distribution_id FROM alert_settings a
                                   JOIN user_groups ug ON ug.group_id = a.group_id
                                  WHERE ug.user_id = $1)
                     OR d.id IN (SELECT a.escalation_distribution_id FROM alert_settings a
                                   JOIN user_groups ug ON ug.group_id = a.group_id
                                  WHERE ug.user_id = $1)
                     OR d.id IN (SELECT s.distribution_id FROM report_schedules s
                                   JOIN reports r ON r.id = s.id
                                   JOIN user_groups ug ON ug.group_id = r.group_id
                                  WHERE ug.user_id = $1)
                  ORDER BY {}, d.id",
                c.nocase("d.name")
            );
            c.query(&sql, &[&user])
                .await?
                .iter()
                .map(|r| Ok((r.get(0)?, r.get(1)?)))
                .collect()
        })
    }
}
