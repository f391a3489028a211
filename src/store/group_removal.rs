//! Deleting test case groups, and what each takes with it ([`GroupUses`]): alert settings
//! and reports of the group, the users it is assigned to, the maintenance windows that
//! cover it. A group that anything uses is refused (a conflict naming them) unless the
//! cascade is asked; then each dependent is deleted or changed and audited on its own, with
//! its contents, in the same transaction as the group.

use async_trait::async_trait;
use serde_json::Value;

use super::sql::{self, Exec, SqlStore};
use super::{alert_settings, audit, maintenance, now_secs, StoreError, StoreResult};
use crate::domain::group::GroupUses;

#[async_trait]
pub trait GroupRemovalStore {
    /// What uses group `id`; `None` when it does not exist.
    async fn group_uses(&self, id: i64) -> StoreResult<Option<GroupUses>>;
    /// Deletes the groups `ids`, each audited, in one transaction: when one does not exist,
    /// none is deleted (a not-found naming it). Without `cascade`, a group that anything
    /// uses is a conflict naming what ([`GroupUses::refusal`]) and nothing is deleted; with
    /// it, its alert settings and reports are deleted, it is taken from its users and from
    /// the maintenance windows that cover it (a window left covering nothing is ended),
    /// each of those audited. Its test cases and their runs stay.
    async fn delete_groups(&self, ids: Vec<i64>, cascade: bool) -> StoreResult<()>;
}

fn missing(id: i64) -> StoreError {
    StoreError::NotFound(format!("Group {id} does not exist."))
}

/// What uses group `id`, each by name (windows: those not ended at `now_ms`).
async fn uses_of(c: &impl Exec, id: i64, now_ms: i64) -> StoreResult<GroupUses> {
    let named = move |sql: String, with_now: bool| async move {
        let rows = if with_now {
            c.query(&sql, &[&id, &now_ms]).await?
        } else {
            c.query(&sql, &[&id]).await?
        };
        rows.iter()
            .map(|r| Ok((r.col("id")?, r.col("name")?)))
            .collect::<StoreResult<Vec<(i64, String)>>>()
    };
    Ok(GroupUses {
        alert_settings: named(
            format!(
                "SELECT id, name FROM alert_settings WHERE group_id = $1 ORDER BY {}, id",
                c.nocase("name")
            ),
            false,
        )
        .await?,
        open_alerts: c
            .scalar(
                "SELECT count(*) FROM alert_events e JOIN alert_settings s ON s.id = e.setting_id
                  WHERE s.group_id = $1 AND e.open = TRUE",
                &[&id],
            )
            .await?,
        reports: named(
            format!(
                "SELECT id, name FROM reports WHERE group_id = $1 ORDER BY {}, id",
                c.nocase("name")
            ),
            false,
        )
        .await?,
        users: named(
            format!(
                "SELECT u.id AS id, u.username AS name FROM user_groups ug
                   JOIN users u ON u.id = ug.user_id
                  WHERE ug.group_id = $1 ORDER BY {}, u.id",
                c.nocase("u.username")
            ),
            false,
        )
        .await?,
        windows: named(
            "SELECT w.id AS id, w.reason AS name FROM maintenance_window_groups wg
               JOIN maintenance_windows w ON w.id = wg.window_id
              WHERE wg.group_id = $1 AND w.ended_ms IS NULL
                AND (w.weekly = TRUE OR w.end_ms > $2)
              ORDER BY w.id"
                .to_string(),
            true,
        )
        .await?,
    })
}

/// A report as the log shows it: its row and its schedule, if it has one.
async fn report_view(c: &impl Exec, id: i64) -> StoreResult<Option<Value>> {
    let Some(mut v) = audit::snapshot(c, "reports", id).await? else {
        return Ok(None);
    };
    let schedule = audit::snapshot(c, "report_schedules", id).await?;
    if let Value::Object(map) = &mut v {
        map.insert("schedule".into(), schedule.unwrap_or(Value::Null));
    }
    Ok(Some(v))
}

/// Deletes or changes what uses group `id` (`uses`), each audited.
async fn cascade(c: &impl Exec, id: i64, uses: &GroupUses, now_ms: i64) -> StoreResult<()> {
    for &(setting, _) in &uses.alert_settings {
        let before = alert_settings::audit_view(c, setting).await?;
        // The trigger of 0011 closes the setting's open events; its history stays.
        c.execute("DELETE FROM alert_settings WHERE id = $1", &[&setting])
            .await?;
        audit::record(c, "alert_setting", "delete", setting, before, None).await?;
    }
    for &(report, _) in &uses.reports {
        let before = report_view(c, report).await?;
        c.execute("DELETE FROM reports WHERE id = $1", &[&report])
            .await?;
        audit::record(c, "report", "delete", report, before, None).await?;
    }
    for &(user, _) in &uses.users {
        let before = audit::user(c, user).await?;
        c.execute(
            "DELETE FROM user_groups WHERE user_id = $1 AND group_id = $2",
            &[&user, &id],
        )
        .await?;
        let after = audit::user(c, user).await?;
        audit::record(c, "user", "update", user, before, after).await?;
    }
    for &(window, _) in &uses.windows {
        let before = maintenance::snapshot(c, window).await?;
        c.execute(
            "DELETE FROM maintenance_window_groups WHERE window_id = $1 AND group_id = $2",
            &[&window, &id],
        )
        .await?;
        // Covering nothing, it would only wait: it is ended instead.
        let ended = c
            .execute(
                "UPDATE maintenance_windows SET ended_ms = $2
                  WHERE id = $1 AND ended_ms IS NULL
                    AND NOT EXISTS (SELECT 1 FROM maintenance_window_groups WHERE window_id = $1)
                    AND NOT EXISTS (SELECT 1 FROM maintenance_window_cases WHERE window_id = $1)",
                &[&window, &now_ms],
            )
            .await?;
        let after = maintenance::snapshot(c, window).await?;
        let action = if ended > 0 { "end" } else { "update" };
        audit::record(c, "maintenance_window", action, window, before, after).await?;
    }
    Ok(())
}

#[async_trait]
impl<S: SqlStore> GroupRemovalStore for S {
    async fn group_uses(&self, id: i64) -> StoreResult<Option<GroupUses>> {
        let now_ms = now_secs() * 1000;
        sql::read!(self, |c| {
            let exists: Option<i64> = c
                .scalar_opt("SELECT id FROM test_case_groups WHERE id = $1", &[&id])
                .await?;
            match exists {
                None => Ok(None),
                Some(_) => Ok(Some(uses_of(c, id, now_ms).await?)),
            }
        })
    }

    async fn delete_groups(&self, ids: Vec<i64>, cascade_asked: bool) -> StoreResult<()> {
        let now_ms = now_secs() * 1000;
        sql::write!(self, |c| {
            for &id in &ids {
                // The group's row locked first (PostgreSQL): a setting or report saved
                // meanwhile for it waits for the delete, then fails on the missing group.
                let exists = c
                    .query_opt(
                        &format!(
                            "SELECT id FROM test_case_groups WHERE id = $1{}",
                            c.pg_only(" FOR UPDATE")
                        ),
                        &[&id],
                    )
                    .await?;
                if exists.is_none() {
                    return Err(missing(id));
                }
                let uses = uses_of(c, id, now_ms).await?;
                if cascade_asked {
                    cascade(c, id, &uses, now_ms).await?;
                } else if let Some(refusal) = uses.refusal(id) {
                    return Err(StoreError::Conflict(refusal));
                }
                let before = audit::group(c, id).await?;
                c.execute("DELETE FROM test_case_groups WHERE id = $1", &[&id])
                    .await?;
                audit::record(c, "group", "delete", id, before, None).await?;
            }
            Ok(())
        })
    }
}
