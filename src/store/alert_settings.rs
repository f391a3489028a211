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

/// The columns of an alert setting's own row (`alert_settings`): every read selects them
/// ([`select`]) and [`setting_row`] reads each by its name; the save binds its values by
/// these names ([`row_fields`]), and `the_save_writes_every_column_of_the_list` fails when
/// the two disagree. A new field of the engine's or the API's is one name here.
pub(crate) const COLUMNS: &[&str] = &[
    "id",
    "name",
    "active",
    "group_id",
    "distribution_id",
    "email_subject",
    "voice_message",
    "sms_prefix",
    "attach_recording",
    "attach_jira_ticket",
    "failure_to_alert",
    "notify_on_recovery",
    "jira_assignee",
    "jira_project",
    "jira_username",
    "modified_at",
    "escalation_distribution_id",
    "escalation_delay_min",
];

/// What a setting names of other rows: its group (and its channel) and its lists.
const JOINED: &str = "g.name AS group_name, g.channel, d.name AS distribution_name,
    (SELECT name FROM distribution_lists x WHERE x.id = a.escalation_distribution_id)
        AS escalation_distribution_name";
const FROM: &str = "alert_settings a JOIN test_case_groups g ON g.id = a.group_id
    JOIN distribution_lists d ON d.id = a.distribution_id";

/// The select list of a setting read from [`FROM`].
fn select() -> String {
    let own: Vec<String> = COLUMNS.iter().map(|c| format!("a.{c}")).collect();
    format!("{}, {JOINED}", own.join(", "))
}

/// A setting's row (without its statuses and schedule, which [`fill`] adds).
fn setting_row(r: &Row) -> StoreResult<AlertSetting> {
    Ok(AlertSetting {
        id: r.col("id")?,
        name: r.col("name")?,
        active: r.col("active")?,
        group_id: r.col("group_id")?,
        group_name: r.col("group_name")?,
        channel: channel(&r.col::<String>("channel")?)?,
        distribution_id: r.col("distribution_id")?,
        distribution_name: r.col("distribution_name")?,
        email_subject: r.col("email_subject")?,
        voice_message: r.col("voice_message")?,
        sms_prefix: r.col("sms_prefix")?,
        attach_recording: r.col("attach_recording")?,
        attach_jira_ticket: r.col("attach_jira_ticket")?,
        failure_to_alert: r.col::<i64>("failure_to_alert")?.clamp(0, 255) as u8,
        notify_on_recovery: r.col("notify_on_recovery")?,
        jira_assignee: r.col("jira_assignee")?,
        jira_project: r.col("jira_project")?,
        jira_username: r.col("jira_username")?,
        modified_at: r.col("modified_at")?,
        escalation: match (
            r.col::<Option<i64>>("escalation_distribution_id")?,
            r.col::<Option<i64>>("escalation_delay_min")?,
        ) {
            (Some(distribution_id), Some(delay_min)) => Some(Escalation {
                distribution_id,
                delay_min,
            }),
            _ => None,
        },
        escalation_distribution_name: r.col("escalation_distribution_name")?,
        statuses: Vec::new(),
        week: Week::default(),
    })
}

/// The settings `ids` that exist, in id order, each row as [`setting_row`] reads it
/// (without statuses and schedule) and locked as `lock` says: the one reader of a setting
/// for the API, both backends' engines and the alert's life.
pub(crate) async fn settings_by_id(
    c: &impl Exec,
    ids: &[i64],
    lock: Lock,
) -> StoreResult<Vec<AlertSetting>> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let sql = format!(
        "SELECT {} FROM {FROM} WHERE a.id IN ({}) ORDER BY a.id{}",
        select(),
        sql::placeholders(1, ids.len()),
        lock.sql(c)
    );
    let params: Vec<&dyn sql::Param> = ids.iter().map(|id| id as _).collect();
    c.query(&sql, &params)
        .await?
        .iter()
        .map(setting_row)
        .collect()
}

/// `(value, extra)` of the rows of `sql` (columns `setting_id`, `value`, `extra`) for the
/// settings `ids`, grouped by setting.
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
        out.entry(r.col("setting_id")?)
            .or_default()
            .push((r.col("value")?, r.col::<Option<i64>>("extra")?.unwrap_or(0)));
    }
    Ok(out)
}

/// The status codes (in id order) of the settings `ids`.
async fn codes_of(c: &impl Exec, ids: &[i64]) -> StoreResult<HashMap<i64, Vec<String>>> {
    Ok(by_setting::<String>(
        c,
        "SELECT x.setting_id, st.code AS value, NULL AS extra FROM alert_setting_statuses x
           JOIN alert_statuses st ON st.id = x.status_id
          WHERE x.setting_id IN ($IDS) ORDER BY x.setting_id, st.id",
        ids,
    )
    .await?
    .into_iter()
    .map(|(id, rows)| (id, rows.into_iter().map(|(code, _)| code).collect()))
    .collect())
}

/// The ids of the statuses the settings `ids` count, in id order (the engine's rules).
pub(crate) async fn status_ids_of(
    c: &impl Exec,
    ids: &[i64],
) -> StoreResult<HashMap<i64, Vec<i64>>> {
    Ok(by_setting::<i64>(
        c,
        "SELECT setting_id, status_id AS value, NULL AS extra FROM alert_setting_statuses
          WHERE setting_id IN ($IDS) ORDER BY setting_id, status_id",
        ids,
    )
    .await?
    .into_iter()
    .map(|(id, rows)| (id, rows.into_iter().map(|(status, _)| status).collect()))
    .collect())
}

/// The weekly schedules of the settings `ids` (the engine reads them the same way).
pub(crate) async fn weeks_of(c: &impl Exec, ids: &[i64]) -> StoreResult<HashMap<i64, Week>> {
    Ok(by_setting::<i64>(
        c,
        "SELECT setting_id, day_of_week AS value, slots AS extra FROM alert_setting_schedule
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
/// KEY UPDATE`: the engine's `FOR KEY SHARE` of ingest, `alerts::hold_settings`, goes on
/// meanwhile), or for a delete (`FOR UPDATE`). SQLite's one writer needs none.
#[derive(Clone, Copy)]
pub(crate) enum Lock {
    None,
    Update,
    Delete,
}

impl Lock {
    fn sql(self, c: &impl Exec) -> &'static str {
        c.pg_only(match self {
            Lock::None => "",
            Lock::Update => " FOR NO KEY UPDATE OF a",
            Lock::Delete => " FOR UPDATE OF a",
        })
    }
}

async fn get(c: &impl Exec, id: i64, lock: Lock) -> StoreResult<Option<AlertSetting>> {
    let mut s = settings_by_id(c, &[id], lock).await?;
    fill(c, &mut s).await?;
    Ok(s.pop())
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
pub(crate) async fn audit_view(c: &impl Exec, id: i64) -> StoreResult<Option<Value>> {
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

/// The values of a setting's row, each by its column's name ([`COLUMNS`] but `id`).
fn row_fields<'a>(d: &'a AlertSettingDraft, v: &'a RowValues) -> sql::Fields<'a> {
    sql::Fields::default()
        .set("name", &d.name)
        .set("active", &d.active)
        .set("group_id", &d.group_id)
        .set("distribution_id", &d.distribution_id)
        .set("email_subject", &d.email_subject)
        .set("voice_message", &d.voice_message)
        .set("sms_prefix", &d.sms_prefix)
        .set("attach_recording", &v.attach_recording)
        .set("attach_jira_ticket", &d.attach_jira_ticket)
        .set("failure_to_alert", &v.failure_to_alert)
        .set("notify_on_recovery", &d.notify_on_recovery)
        .set("jira_assignee", &d.jira_assignee)
        .set("jira_project", &d.jira_project)
        .set("jira_username", &d.jira_username)
        .set("modified_at", &v.modified_at)
        .set("escalation_distribution_id", &v.escalation_list)
        .set("escalation_delay_min", &v.escalation_delay)
}

/// What a setting's row stores that the draft does not hold as such.
struct RowValues {
    attach_recording: bool,
    failure_to_alert: i64,
    modified_at: i64,
    escalation_list: Option<i64>,
    escalation_delay: Option<i64>,
}

impl RowValues {
    fn of(d: &AlertSettingDraft, attach_recording: bool) -> RowValues {
        RowValues {
            attach_recording,
            failure_to_alert: i64::from(d.failure_to_alert),
            modified_at: now_secs(),
            escalation_list: d.escalation.map(|e| e.distribution_id),
            escalation_delay: d.escalation.map(|e| e.delay_min),
        }
    }
}

async fn write_row(
    c: &impl Exec,
    id: Option<i64>,
    d: &AlertSettingDraft,
    attach_recording: bool,
) -> StoreResult<i64> {
    let values = RowValues::of(d, attach_recording);
    let fields = row_fields(d, &values);
    match id {
        None => fields.insert(c, "alert_settings", "id").await,
        Some(id) => {
            fields.update(c, "alert_settings", ("id", &id)).await?;
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
                        "SELECT {} FROM {FROM} WHERE {wher}
                          ORDER BY {order} {dir}, a.id {dir} LIMIT $3 OFFSET $4",
                        select()
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
            // Tickets still waiting take the new ticket details.
            let text = |v: &Option<String>| v.as_deref().unwrap_or_default().to_string();
            if d.attach_jira_ticket {
                super::auto_tickets::repoint_in(
                    c,
                    id,
                    &text(&d.jira_project),
                    &text(&d.jira_assignee),
                    &text(&d.jira_username),
                    crate::clock::now_ms(),
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
                .map(|r| Ok((r.col("id")?, r.col("name")?)))
                .collect()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A column added to the list and not to the save (or the other way round) fails here:
    /// the value would be dropped with every other test green.
    #[test]
    fn the_save_writes_every_column_of_the_list() {
        let draft = AlertSettingDraft::default();
        let values = RowValues::of(&draft, false);
        let mut written: Vec<&str> = row_fields(&draft, &values).names().to_vec();
        written.sort_unstable();
        let mut listed: Vec<&str> = COLUMNS.iter().copied().filter(|c| *c != "id").collect();
        listed.sort_unstable();
        assert_eq!(written, listed);
    }
}
