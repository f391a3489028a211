//! PostgreSQL: [`AlertSettingStore`](crate::store::AlertSettingStore), as
//! `store/alert_settings.rs` has it for SQLite: a setting belongs to one test case group and
//! a caller whose scope does not hold that group neither sees nor changes it; every save is
//! audited in its transaction.
use std::collections::HashMap;

use async_trait::async_trait;
use deadpool_postgres::GenericClient;
use serde_json::Value;
use tokio_postgres::Row;

use super::catalog::{channel, group_visibility, nocase, scope_user};
use super::{audit, Postgres};
use crate::domain::alert_setting::{
    attach_recording_for, AlertSetting, AlertSettingDraft, AlertSettingFilter,
    AlertSettingSortField, AlertStatus,
};
use crate::domain::caller::{Scope, Visibility};
use crate::domain::page::{Page, PageRequest};
use crate::domain::schedule::Week;
use crate::store::alert_settings::status_ids;
use crate::store::AlertSettingStore;
use crate::store::{group_field, invalid, now_secs, StoreResult};

const COLUMNS: &str = "a.id, a.name, a.active, a.group_id, g.name, g.channel, a.distribution_id,
    d.name, a.email_subject, a.voice_message, a.sms_prefix, a.attach_recording,
    a.attach_jira_ticket, a.failure_to_alert, a.notify_on_recovery, a.jira_assignee,
    a.jira_project, a.jira_username, a.modified_at";
const FROM: &str = "alert_settings a JOIN test_case_groups g ON g.id = a.group_id
    JOIN distribution_lists d ON d.id = a.distribution_id";

fn setting_row(r: &Row) -> StoreResult<AlertSetting> {
    Ok(AlertSetting {
        id: r.get(0),
        name: r.get(1),
        active: r.get(2),
        group_id: r.get(3),
        group_name: r.get(4),
        channel: channel(r.get(5))?,
        distribution_id: r.get(6),
        distribution_name: r.get(7),
        email_subject: r.get(8),
        voice_message: r.get(9),
        sms_prefix: r.get(10),
        attach_recording: r.get(11),
        attach_jira_ticket: r.get(12),
        failure_to_alert: r.get::<_, i64>(13).clamp(0, 255) as u8,
        notify_on_recovery: r.get(14),
        jira_assignee: r.get(15),
        jira_project: r.get(16),
        jira_username: r.get(17),
        modified_at: r.get(18),
        statuses: Vec::new(),
        week: Week::default(),
    })
}

/// The status codes (in id order) of the settings `ids`.
async fn codes_of(c: &impl GenericClient, ids: &[i64]) -> StoreResult<HashMap<i64, Vec<String>>> {
    let stmt = c
        .prepare_cached(
            "SELECT x.setting_id, st.code FROM alert_setting_statuses x
               JOIN alert_statuses st ON st.id = x.status_id
              WHERE x.setting_id = ANY($1) ORDER BY x.setting_id, st.id",
        )
        .await?;
    let mut out: HashMap<i64, Vec<String>> = HashMap::new();
    for r in c.query(&stmt, &[&ids]).await? {
        out.entry(r.get(0)).or_default().push(r.get(1));
    }
    Ok(out)
}

/// The weekly schedules of the settings `ids` (the engine reads them the same way).
pub(super) async fn weeks_of(
    c: &impl GenericClient,
    ids: &[i64],
) -> StoreResult<HashMap<i64, Week>> {
    let stmt = c
        .prepare_cached(
            "SELECT setting_id, day_of_week, slots FROM alert_setting_schedule
              WHERE setting_id = ANY($1)",
        )
        .await?;
    let mut masks: HashMap<i64, Vec<(u8, u64)>> = HashMap::new();
    for r in c.query(&stmt, &[&ids]).await? {
        let (day, slots): (i64, i64) = (r.get(1), r.get(2));
        masks
            .entry(r.get(0))
            .or_default()
            .push((day.clamp(0, 255) as u8, slots as u64));
    }
    Ok(masks
        .into_iter()
        .map(|(id, m)| (id, Week::from_masks(m)))
        .collect())
}

/// The status codes and the schedules of settings.
async fn fill(c: &impl GenericClient, items: &mut [AlertSetting]) -> StoreResult<()> {
    let ids: Vec<i64> = items.iter().map(|s| s.id).collect();
    let mut codes = codes_of(c, &ids).await?;
    let mut weeks = weeks_of(c, &ids).await?;
    for s in items {
        s.statuses = codes.remove(&s.id).unwrap_or_default();
        s.week = weeks.remove(&s.id).unwrap_or_default();
    }
    Ok(())
}

/// How a read locks the setting's row: not at all, for an update (`FOR NO KEY UPDATE`: the
/// engine's `FOR KEY SHARE` of ingest goes on meanwhile), or for a delete (`FOR UPDATE`).
#[derive(Clone, Copy)]
enum Lock {
    None,
    Update,
    Delete,
}

async fn get(c: &impl GenericClient, id: i64, lock: Lock) -> StoreResult<Option<AlertSetting>> {
    let stmt = c
        .prepare_cached(&format!(
            "SELECT {COLUMNS} FROM {FROM} WHERE a.id = $1{}",
            match lock {
                Lock::None => "",
                Lock::Update => " FOR NO KEY UPDATE OF a",
                Lock::Delete => " FOR UPDATE OF a",
            }
        ))
        .await?;
    let Some(r) = c.query_opt(&stmt, &[&id]).await? else {
        return Ok(None);
    };
    let mut s = [setting_row(&r)?];
    fill(c, &mut s).await?;
    let [s] = s;
    Ok(Some(s))
}

/// Setting `id` when it exists and the scope sees its group (its row locked as `lock`).
async fn visible(
    c: &impl GenericClient,
    scope: Scope,
    id: i64,
    lock: Lock,
) -> StoreResult<Visibility<AlertSetting>> {
    let Some(s) = get(c, id, lock).await? else {
        return Ok(Visibility::Missing);
    };
    Ok(match group_visibility(c, scope, s.group_id).await? {
        Visibility::Visible(()) => Visibility::Visible(s),
        Visibility::Hidden => Visibility::Hidden,
        Visibility::Missing => Visibility::Missing,
    })
}

/// The checks that need the data, in the form's order; returns the status ids and whether
/// the recording is attached (voice groups only). The group and the list are locked
/// against a delete until the save commits.
async fn check(
    tx: &impl GenericClient,
    scope: Scope,
    d: &AlertSettingDraft,
) -> StoreResult<(Vec<i64>, bool)> {
    let seen = group_visibility(tx, scope, d.group_id).await?;
    group_field("testCaseGroupId", d.group_id, seen)?;
    let list = tx
        .query_opt(
            "SELECT id FROM distribution_lists WHERE id = $1 FOR KEY SHARE",
            &[&d.distribution_id],
        )
        .await?;
    if list.is_none() {
        return Err(invalid(
            "distributionId",
            format!("Distribution list {} does not exist.", d.distribution_id),
        ));
    }
    let Some(row) = tx
        .query_opt(
            "SELECT channel FROM test_case_groups WHERE id = $1 FOR KEY SHARE",
            &[&d.group_id],
        )
        .await?
    else {
        return Err(invalid(
            "testCaseGroupId",
            format!("Test case group {} does not exist.", d.group_id),
        ));
    };
    let channel = channel(row.get(0))?;
    let statuses = statuses(tx).await?;
    let ids = status_ids(&statuses, &d.statuses, channel)?;
    Ok((ids, attach_recording_for(channel, d.attach_recording)))
}

async fn statuses(c: &impl GenericClient) -> StoreResult<Vec<AlertStatus>> {
    let stmt = c
        .prepare_cached(
            "SELECT id, code, text, status_group, support_channel FROM alert_statuses ORDER BY id",
        )
        .await?;
    Ok(c.query(&stmt, &[])
        .await?
        .iter()
        .map(|r| AlertStatus {
            id: r.get(0),
            code: r.get(1),
            text: r.get(2),
            status_group: r.get(3),
            support_channel: r.get(4),
        })
        .collect())
}

async fn set_children(
    tx: &impl GenericClient,
    id: i64,
    status_ids: &[i64],
    week: &Week,
) -> StoreResult<()> {
    tx.execute(
        "DELETE FROM alert_setting_statuses WHERE setting_id = $1",
        &[&id],
    )
    .await?;
    tx.execute(
        "DELETE FROM alert_setting_schedule WHERE setting_id = $1",
        &[&id],
    )
    .await?;
    tx.execute(
        "INSERT INTO alert_setting_statuses (setting_id, status_id)
         SELECT $1::BIGINT, unnest($2::BIGINT[])",
        &[&id, &status_ids],
    )
    .await?;
    let (days, masks): (Vec<i64>, Vec<i64>) = week
        .masks()
        .into_iter()
        .map(|(d, m)| (i64::from(d), m as i64))
        .unzip();
    tx.execute(
        "INSERT INTO alert_setting_schedule (setting_id, day_of_week, slots)
         SELECT $1::BIGINT, * FROM unnest($2::BIGINT[], $3::BIGINT[])",
        &[&id, &days, &masks],
    )
    .await?;
    Ok(())
}

/// A setting as the audit log shows it: its row, its status codes and its schedule as
/// `(day, 48-bit mask)` rows.
async fn audit_view(tx: &impl GenericClient, id: i64) -> StoreResult<Option<Value>> {
    let Some(mut v) = audit::snapshot(tx, "alert_settings", id).await? else {
        return Ok(None);
    };
    let codes = codes_of(tx, &[id]).await?.remove(&id).unwrap_or_default();
    let schedule: Vec<Value> = weeks_of(tx, &[id])
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
    tx: &impl GenericClient,
    id: Option<i64>,
    d: &AlertSettingDraft,
    attach_recording: bool,
) -> StoreResult<i64> {
    let failure = i64::from(d.failure_to_alert);
    let now = now_secs();
    let values: [&(dyn tokio_postgres::types::ToSql + Sync); 15] = [
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
    ];
    match id {
        None => Ok(tx
            .query_one(
                "INSERT INTO alert_settings (name, active, group_id, distribution_id,
                        email_subject, voice_message, sms_prefix, attach_recording,
                        attach_jira_ticket, failure_to_alert, notify_on_recovery,
                        jira_assignee, jira_project, jira_username, modified_at)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)
                 RETURNING id",
                &values,
            )
            .await?
            .get(0)),
        Some(id) => {
            let mut all = values.to_vec();
            all.push(&id);
            tx.execute(
                "UPDATE alert_settings SET name = $1, active = $2, group_id = $3,
                        distribution_id = $4, email_subject = $5, voice_message = $6,
                        sms_prefix = $7, attach_recording = $8, attach_jira_ticket = $9,
                        failure_to_alert = $10, notify_on_recovery = $11, jira_assignee = $12,
                        jira_project = $13, jira_username = $14, modified_at = $15
                  WHERE id = $16",
                &all,
            )
            .await?;
            Ok(id)
        }
    }
}

#[async_trait]
impl AlertSettingStore for Postgres {
    async fn list_alert_settings(
        &self,
        scope: Scope,
        page: PageRequest,
        filter: &AlertSettingFilter,
    ) -> StoreResult<Page<AlertSetting>> {
        let c = self.client().await?;
        let pattern = filter
            .search
            .as_deref()
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(crate::store::like);
        let user = scope_user(scope);
        // SQLite's COLLATE NOCASE.
        let order = match filter.sort.field {
            AlertSettingSortField::Id => "a.id".to_string(),
            AlertSettingSortField::Name => nocase("a.name"),
            AlertSettingSortField::GroupName => nocase("g.name"),
            AlertSettingSortField::DistributionName => nocase("d.name"),
            AlertSettingSortField::Active => "a.active".to_string(),
        };
        let dir = if filter.sort.descending {
            "DESC"
        } else {
            "ASC"
        };
        let wher = format!(
            "($1::BIGINT IS NULL
              OR a.group_id IN (SELECT group_id FROM user_groups WHERE user_id = $1))
             AND ($2::TEXT IS NULL OR {} LIKE $2 OR {} LIKE $2 OR {} LIKE $2)",
            nocase("a.name"),
            nocase("g.name"),
            nocase("d.name")
        );
        let total: i64 = c
            .query_one(
                &format!("SELECT count(*) FROM {FROM} WHERE {wher}"),
                &[&user, &pattern],
            )
            .await?
            .get(0);
        let stmt = c
            .prepare_cached(&format!(
                "SELECT {COLUMNS} FROM {FROM} WHERE {wher}
                  ORDER BY {order} {dir}, a.id {dir} LIMIT $3 OFFSET $4"
            ))
            .await?;
        let mut items = c
            .query(
                &stmt,
                &[
                    &user,
                    &pattern,
                    &i64::from(page.size),
                    &(page.offset() as i64),
                ],
            )
            .await?
            .iter()
            .map(setting_row)
            .collect::<StoreResult<Vec<_>>>()?;
        fill(&c, &mut items).await?;
        Ok(Page {
            items,
            total: total as u64,
        })
    }

    async fn alert_setting(&self, scope: Scope, id: i64) -> StoreResult<Visibility<AlertSetting>> {
        let c = self.client().await?;
        visible(&c, scope, id, Lock::None).await
    }

    async fn create_alert_setting(
        &self,
        scope: Scope,
        draft: &AlertSettingDraft,
    ) -> StoreResult<i64> {
        let mut c = self.client().await?;
        let tx = c.transaction().await?;
        let (status_ids, attach) = check(&tx, scope, draft).await?;
        let id = write_row(&tx, None, draft, attach).await?;
        set_children(&tx, id, &status_ids, &draft.week).await?;
        let after = audit_view(&tx, id).await?;
        audit::record(&tx, "alert_setting", "create", id, None, after).await?;
        tx.commit().await?;
        Ok(id)
    }

    async fn update_alert_setting(
        &self,
        scope: Scope,
        id: i64,
        draft: &AlertSettingDraft,
    ) -> StoreResult<Visibility<()>> {
        let mut c = self.client().await?;
        let tx = c.transaction().await?;
        match visible(&tx, scope, id, Lock::Update).await? {
            Visibility::Visible(_) => {}
            Visibility::Hidden => return Ok(Visibility::Hidden),
            Visibility::Missing => return Ok(Visibility::Missing),
        }
        let (status_ids, attach) = check(&tx, scope, draft).await?;
        let before = audit_view(&tx, id).await?;
        write_row(&tx, Some(id), draft, attach).await?;
        set_children(&tx, id, &status_ids, &draft.week).await?;
        let after = audit_view(&tx, id).await?;
        audit::record(&tx, "alert_setting", "update", id, before, after).await?;
        tx.commit().await?;
        Ok(Visibility::Visible(()))
    }

    async fn delete_alert_setting(&self, scope: Scope, id: i64) -> StoreResult<Visibility<()>> {
        let mut c = self.client().await?;
        let tx = c.transaction().await?;
        let v = visible(&tx, scope, id, Lock::Delete).await?.map(|_| ());
        if v == Visibility::Visible(()) {
            let before = audit_view(&tx, id).await?;
            // The trigger of 0011 closes the setting's open events.
            tx.execute("DELETE FROM alert_settings WHERE id = $1", &[&id])
                .await?;
            audit::record(&tx, "alert_setting", "delete", id, before, None).await?;
        }
        tx.commit().await?;
        Ok(v)
    }

    async fn all_statuses(&self) -> StoreResult<Vec<AlertStatus>> {
        let c = self.client().await?;
        statuses(&c).await
    }

    async fn contact_groups(&self) -> StoreResult<Vec<(i64, String)>> {
        let c = self.client().await?;
        Ok(c.query(
            &format!(
                "SELECT id, name FROM distribution_lists ORDER BY {}, id",
                nocase("name")
            ),
            &[],
        )
        .await?
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect())
    }
}
