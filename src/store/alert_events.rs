//! Alert events as the console reads and edits them, once for both backends on `sql.rs`:
//! the list, one event with its runs and notifications, its comment and ticket. The engine
//! that opens and closes them (`evaluate`, its bulk writes and the backfill) stays in
//! `sqlite/alerts.rs` and `pg/alerts.rs`, where measured speed needs each dialect; it
//! reaches this file's trait through [`AlertEngine`].

use std::collections::BTreeMap;

use async_trait::async_trait;
use chrono_tz::Tz;

use super::alerts::{
    state_condition, AlertEvent, AlertEventDetail, AlertEventFilter, AlertEventStore, AlertOptions,
    EngineOutcome,
};
use super::audit;
use super::catalog::status_texts;
use super::outbox::notifications_of_causes;
use super::runs::{ms_to_time, RunRow};
use super::sql::{self, Exec, Row, SqlStore};
use super::{takes_ticket, StoreResult};
use crate::domain::caller::{Scope, Visibility};
use crate::domain::page::{Page, PageRequest};
use crate::domain::run::{RunStatus, RunType};

/// What each backend's engine does for [`AlertEventStore`]: take its options, and run
/// over the runs stored already (both in `sqlite/alerts.rs` and `pg/alerts.rs`).
#[async_trait]
pub trait AlertEngine {
    /// [`AlertEventStore::configure_alerts`].
    fn configure_engine(&self, options: AlertOptions);
    /// [`AlertEventStore::backfill_alerts`].
    async fn backfill_engine(
        &self,
        tz: Tz,
        ids: Vec<i64>,
        from_ms: i64,
    ) -> StoreResult<EngineOutcome>;
}

/// An event's columns, each by the name [`event_row`] reads.
const EVENT_COLUMNS: &str = "e.id, e.setting_id, e.setting_name, e.group_id, e.group_name,
       e.test_case_id, coalesce(tc.name, '') AS test_case_name, e.distribution_id,
       e.distribution_name, e.status_id, e.alert_ms, e.open, e.closed_ms, e.jira_ticket,
       (SELECT count(*) FROM alert_event_runs r WHERE r.event_id = e.id) AS run_count,
       e.comment, e.incident_id";

fn event_row(texts: &BTreeMap<i64, String>, r: &Row) -> StoreResult<AlertEvent> {
    let status_id: i64 = r.col("status_id")?;
    Ok(AlertEvent {
        id: r.col("id")?,
        setting_id: r.col("setting_id")?,
        setting_name: r.col("setting_name")?,
        group_id: r.col("group_id")?,
        group_name: r.col("group_name")?,
        test_case_id: r.col("test_case_id")?,
        test_case_name: r.col("test_case_name")?,
        distribution_id: r.col("distribution_id")?,
        distribution_name: r.col("distribution_name")?,
        status_id,
        status_text: texts.get(&status_id).cloned().unwrap_or_default(),
        alert_time: ms_to_time(r.col("alert_ms")?),
        open: r.col("open")?,
        closed_time: r.col::<Option<i64>>("closed_ms")?.map(ms_to_time),
        jira_ticket: r.col("jira_ticket")?,
        run_count: r.col::<i64>("run_count")?.max(0) as u64,
        comment: r.col("comment")?,
        incident_id: r.col("incident_id")?,
    })
}

/// The scope as a condition on `e.group_id`, the user `$1` (NULL: every group).
const SCOPE: &str = "(CAST($1 AS BIGINT) IS NULL
    OR e.group_id IN (SELECT group_id FROM user_groups WHERE user_id = $1))";

/// A run's columns, each by the name [`run_row`] reads.
const RUN_COLUMNS: &str = "t.id, t.test_case_id, t.run_time, t.duration_ms, t.status,
       t.run_type, t.mos";

/// A run of an event, its test case named `case_name`.
pub(crate) fn run_row(
    r: &Row,
    texts: &BTreeMap<i64, String>,
    case_name: &str,
) -> StoreResult<RunRow> {
    let code = |name| -> StoreResult<Option<u8>> { Ok(u8::try_from(r.col::<i64>(name)?).ok()) };
    let status = code("status")?
        .and_then(RunStatus::from_code)
        .unwrap_or(RunStatus::Fail);
    Ok(RunRow {
        id: r.col("id")?,
        test_case_id: r.col("test_case_id")?,
        test_case_name: case_name.to_string(),
        run_time: ms_to_time(r.col("run_time")?),
        duration_ms: r.col("duration_ms")?,
        status,
        run_type: code("run_type")?
            .and_then(RunType::from_code)
            .unwrap_or(RunType::Manual),
        mos: r
            .col::<Option<i64>>("mos")?
            .and_then(|m| u32::try_from(m).ok()),
        status_text: texts.get(&status.status_id()).cloned().unwrap_or_default(),
    })
}

/// The runs of event `id`, oldest first. On PostgreSQL each run is found by its key in
/// `test_runs` whatever the tables' statistics say (the `LATERAL` subquery kept apart by
/// `OFFSET 0`: as the engine's `EVENT_RUNS` in `pg/alerts.rs`, whose documentation says
/// why; `event_runs_never_scan_the_runs_as_the_table_grows` there holds it). SQLite plans
/// the join by the keys already.
pub(crate) async fn event_runs(
    c: &impl Exec,
    texts: &BTreeMap<i64, String>,
    id: i64,
    case_name: &str,
) -> StoreResult<Vec<RunRow>> {
    let sql = if c.postgres() {
        format!(
            "SELECT {RUN_COLUMNS} FROM alert_event_runs r
              CROSS JOIN LATERAL (SELECT {RUN_COLUMNS} FROM test_runs t
                                   WHERE t.id = r.run_id OFFSET 0) AS t
              WHERE r.event_id = $1 ORDER BY t.run_time, t.id"
        )
    } else {
        format!(
            "SELECT {RUN_COLUMNS} FROM alert_event_runs r JOIN test_runs t ON t.id = r.run_id
              WHERE r.event_id = $1 ORDER BY t.run_time, t.id"
        )
    };
    c.query(&sql, &[&id])
        .await?
        .iter()
        .map(|r| run_row(r, texts, case_name))
        .collect()
}

/// Whether the scope may see an event of group `group`. The group need not exist any more:
/// events stay in the history after their group goes (an administrator still sees them).
async fn scope_sees(c: &impl Exec, scope: Scope, group: i64) -> StoreResult<bool> {
    let Scope::User(user) = scope else {
        return Ok(true);
    };
    Ok(c.query_opt(
        "SELECT 1 FROM user_groups WHERE user_id = $1 AND group_id = $2",
        &[&user, &group],
    )
    .await?
    .is_some())
}

/// The ticket of event `id`, when the scope may see the event's group (on PostgreSQL the
/// row is locked for the change that follows).
async fn event_ticket(
    c: &impl Exec,
    scope: Scope,
    id: i64,
) -> StoreResult<Visibility<Option<String>>> {
    let sql = format!(
        "SELECT group_id, jira_ticket FROM alert_events WHERE id = $1{}",
        c.pg_only(" FOR NO KEY UPDATE")
    );
    let Some(row) = c.query_opt(&sql, &[&id]).await? else {
        return Ok(Visibility::Missing);
    };
    if !scope_sees(c, scope, row.col("group_id")?).await? {
        return Ok(Visibility::Hidden);
    }
    Ok(Visibility::Visible(row.col("jira_ticket")?))
}

#[async_trait]
impl<S: SqlStore + AlertEngine> AlertEventStore for S {
    fn configure_alerts(&self, options: AlertOptions) {
        self.configure_engine(options);
    }

    async fn list_alert_events(
        &self,
        scope: Scope,
        page: PageRequest,
        filter: AlertEventFilter,
    ) -> StoreResult<Page<AlertEvent>> {
        let user = scope.user();
        let cond = format!("{SCOPE} AND (CAST($2 AS BIGINT) IS NULL OR e.status_id = $2)");
        sql::read!(self, |c| {
            let texts = status_texts(c).await?;
            let total: i64 = c
                .scalar(
                    &format!(
                        "SELECT count(*) FROM alert_events e WHERE {cond} AND {}",
                        state_condition(filter.state, "$3")
                    ),
                    &[&user, &filter.status, &filter.me],
                )
                .await?;
            let items = c
                .query(
                    &format!(
                        "SELECT {EVENT_COLUMNS} FROM alert_events e
                           LEFT JOIN test_cases tc ON tc.id = e.test_case_id
                          WHERE {cond} AND {}
                          ORDER BY e.alert_ms DESC, e.id DESC LIMIT $3 OFFSET $4",
                        state_condition(filter.state, "$5")
                    ),
                    &[
                        &user,
                        &filter.status,
                        &page.size,
                        &(page.offset() as i64),
                        &filter.me,
                    ],
                )
                .await?
                .iter()
                .map(|r| event_row(&texts, r))
                .collect::<StoreResult<_>>()?;
            Ok(Page {
                items,
                total: total.max(0) as u64,
            })
        })
    }

    async fn alert_event(
        &self,
        scope: Scope,
        id: i64,
    ) -> StoreResult<Visibility<AlertEventDetail>> {
        sql::read!(self, |c| {
            let texts = status_texts(c).await?;
            let sql = format!(
                "SELECT {EVENT_COLUMNS} FROM alert_events e
                   LEFT JOIN test_cases tc ON tc.id = e.test_case_id WHERE e.id = $1"
            );
            let Some(row) = c.query_opt(&sql, &[&id]).await? else {
                return Ok(Visibility::Missing);
            };
            let event = event_row(&texts, &row)?;
            if !scope_sees(c, scope, event.group_id).await? {
                return Ok(Visibility::Hidden);
            }
            let runs = event_runs(c, &texts, id, &event.test_case_name).await?;
            let causes = [format!("alert:{id}"), format!("recovery:{id}")];
            let notifications = notifications_of_causes(c, &causes).await?;
            Ok(Visibility::Visible(AlertEventDetail {
                event,
                runs,
                notifications,
            }))
        })
    }

    async fn open_alert_count(&self, scope: Scope) -> StoreResult<i64> {
        let user = scope.user();
        sql::read!(self, |c| {
            c.scalar(
                &format!("SELECT count(*) FROM alert_events e WHERE e.open = TRUE AND {SCOPE}"),
                &[&user],
            )
            .await
        })
    }

    async fn set_alert_ticket(
        &self,
        scope: Scope,
        id: i64,
        key: &str,
    ) -> StoreResult<Visibility<()>> {
        sql::write!(self, [key = key.to_string()], |c| {
            let ticket = match event_ticket(c, scope, id).await?.visible() {
                Ok(t) => t,
                Err(unseen) => return Ok(unseen),
            };
            if !takes_ticket("Alert", id, ticket.as_deref(), &key)? {
                return Ok(Visibility::Visible(()));
            }
            let before = audit::snapshot(c, "alert_events", id).await?;
            c.execute(
                "UPDATE alert_events SET jira_ticket = $2 WHERE id = $1",
                &[&id, &key],
            )
            .await?;
            let after = audit::snapshot(c, "alert_events", id).await?;
            audit::record(c, "alert_event", "ticket", id, before, after).await?;
            Ok(Visibility::Visible(()))
        })
    }

    async fn update_alert(
        &self,
        scope: Scope,
        id: i64,
        comment: Option<String>,
        ticket: Option<String>,
    ) -> StoreResult<Visibility<()>> {
        sql::write!(
            self,
            [comment = comment.clone(), ticket = ticket.clone()],
            |c| {
                let current = match event_ticket(c, scope, id).await?.visible() {
                    Ok(t) => t,
                    Err(unseen) => return Ok(unseen),
                };
                let before = audit::snapshot(c, "alert_events", id).await?;
                if let Some(key) = &ticket {
                    if takes_ticket("Alert", id, current.as_deref(), key)? {
                        c.execute(
                            "UPDATE alert_events SET jira_ticket = $2 WHERE id = $1",
                            &[&id, key],
                        )
                        .await?;
                    }
                }
                if let Some(comment) = &comment {
                    c.execute(
                        "UPDATE alert_events SET comment = nullif($2, '') WHERE id = $1",
                        &[&id, comment],
                    )
                    .await?;
                }
                let after = audit::snapshot(c, "alert_events", id).await?;
                if before != after {
                    audit::record(c, "alert_event", "update", id, before, after).await?;
                }
                Ok(Visibility::Visible(()))
            }
        )
    }

    async fn alert_with_ticket(&self, scope: Scope, key: &str) -> StoreResult<Visibility<i64>> {
        let user = scope.user();
        sql::read!(self, [key = key.to_string()], |c| {
            // Several events may share a ticket key only through old data; the first the
            // scope may see answers.
            let rows = c
                .query(
                    "SELECT e.id, CAST($2 AS BIGINT) IS NULL OR EXISTS (
                            SELECT 1 FROM user_groups ug
                             WHERE ug.user_id = $2 AND ug.group_id = e.group_id) AS seen
                       FROM alert_events e WHERE e.jira_ticket = $1 ORDER BY e.id",
                    &[&key, &user],
                )
                .await?;
            let mut seen = Vec::with_capacity(rows.len());
            for r in &rows {
                seen.push(if r.col::<bool>("seen")? {
                    Visibility::Visible(r.col("id")?)
                } else {
                    Visibility::Hidden
                });
            }
            Ok(Visibility::first(seen))
        })
    }

    async fn backfill_alerts(
        &self,
        tz: Tz,
        ids: Vec<i64>,
        from_ms: i64,
    ) -> StoreResult<EngineOutcome> {
        self.backfill_engine(tz, ids, from_ms).await
    }
}
