//! Report schedules, written once for both backends (`store/sql.rs`):
//! a report's schedule and the scheduler's queue.
//!
//! **Exactly one mail per slot.** The scheduler (`notify::reports`) leases the due
//! schedules as the outbox's sender leases notifications ([`sql::lease_due`]), renders the
//! report, then [`ReportScheduleStore::deliver_schedule`] queues its mail to the list's
//! contacts (outbox keys `report:{id}:{slot}:{row}`) and moves `next_ms` to the next slot in
//! one transaction. A process killed before that commit leaves the slot due (its lease
//! expires, or is taken back at start): it is rendered again and mailed once. Killed after
//! it, the slot is done and the outbox delivers what was queued. A slot missed while
//! cxwatch was down is mailed once, at start; the next slot is the first one after then.

use std::collections::HashMap;

use async_trait::async_trait;

use super::outbox::enqueue_list_in;
use super::sql::{self, Exec, Row, SqlStore};
use super::{StoreError, StoreResult};
use crate::domain::notify::Message;
use crate::domain::report_schedule::{Cadence, Frequency, Language, Schedule, ScheduleDraft};

#[async_trait]
pub trait ReportScheduleStore {
    /// A report's schedule, if it has one.
    async fn report_schedule(&self, report_id: i64) -> StoreResult<Option<Schedule>>;
    /// The schedules of these reports (for the list).
    async fn report_schedules(&self, report_ids: Vec<i64>) -> StoreResult<HashMap<i64, Schedule>>;
    /// Saves a report's schedule, due at `next_ms`; `Invalid` naming `distributionID` when
    /// the list does not exist.
    async fn set_report_schedule(
        &self,
        report_id: i64,
        draft: ScheduleDraft,
        next_ms: i64,
    ) -> StoreResult<()>;
    /// Removes a report's schedule; false when it had none.
    async fn delete_report_schedule(&self, report_id: i64) -> StoreResult<bool>;
    /// When the next active schedule is due (leased ones: when their lease ends).
    async fn next_schedule_due_ms(&self) -> StoreResult<Option<i64>>;
    /// Leases up to `limit` due schedules until `lease_until_ms`.
    async fn claim_schedules(
        &self,
        now_ms: i64,
        lease_until_ms: i64,
        limit: u32,
    ) -> StoreResult<Vec<Schedule>>;
    /// Queues slot `slot_ms`'s mail to the list and moves the schedule to `next_ms`, in one
    /// transaction; returns the notifications' ids. A slot already delivered (the schedule
    /// is past it) queues nothing.
    async fn deliver_schedule(
        &self,
        report_id: i64,
        slot_ms: i64,
        next_ms: i64,
        msg: Message,
    ) -> StoreResult<Vec<i64>>;
    /// A slot that could not be rendered: due again at `retry_ms`, with the reason.
    async fn schedule_failed(
        &self,
        report_id: i64,
        reason: String,
        retry_ms: i64,
    ) -> StoreResult<()>;
    /// Ends every schedule's lease (at the scheduler's start).
    async fn release_schedule_leases(&self) -> StoreResult<u64>;
}

/// The outbox cause of slot `slot_ms` of report `id`'s schedule.
pub fn slot_cause(id: i64, slot_ms: i64) -> String {
    format!("report:{id}:{slot_ms}")
}

const COLUMNS: &str = "s.id, s.frequency, s.minute, s.weekday, s.month_day, s.distribution_id,
                       s.language, s.state, s.next_ms, s.last_slot_ms, s.last_cause,
                       d.name AS distribution_name";

/// The state of a delivery's notifications: `failed` when any failed, `queued` while any
/// waits, else `sent`; none without notifications.
const LAST_STATE: &str = "(SELECT CASE WHEN count(*) = 0 THEN NULL
                                       WHEN count(*) FILTER (WHERE o.state = 'failed') > 0 THEN 'failed'
                                       WHEN count(*) FILTER (WHERE o.state = 'queued') > 0 THEN 'queued'
                                       ELSE 'sent' END
                            FROM outbox o WHERE o.cause = s.last_cause)";

fn row(r: &Row) -> StoreResult<Schedule> {
    let frequency: String = r.col("frequency")?;
    let language: String = r.col("language")?;
    let state: String = r.col("state")?;
    let active = state == "queued";
    let next: i64 = r.col("next_ms")?;
    Ok(Schedule {
        report_id: r.col("id")?,
        draft: ScheduleDraft {
            cadence: Cadence {
                frequency: Frequency::parse(&frequency).unwrap_or(Frequency::Weekly),
                minute: r.col::<i64>("minute")?.clamp(0, 1439) as u32,
                weekday: r.col::<i64>("weekday")?.clamp(1, 7) as u32,
                month_day: r.col::<i64>("month_day")?.clamp(1, 31) as u32,
            },
            distribution_id: r.col("distribution_id")?,
            language: Language::parse(&language).unwrap_or(Language::En),
            active,
        },
        distribution_name: r.col("distribution_name")?,
        next_ms: active.then_some(next),
        last_slot_ms: r.col("last_slot_ms")?,
        last_cause: r.col("last_cause")?,
        last_state: r.col("last_state")?,
    })
}

fn select(wher: &str) -> String {
    format!(
        "SELECT {COLUMNS}, {LAST_STATE} AS last_state FROM report_schedules s
           JOIN distribution_lists d ON d.id = s.distribution_id
          WHERE {wher}"
    )
}

async fn one(c: &impl Exec, id: i64) -> StoreResult<Option<Schedule>> {
    c.query_opt(&select("s.id = $1"), &[&id])
        .await?
        .as_ref()
        .map(row)
        .transpose()
}

#[async_trait]
impl<S: SqlStore> ReportScheduleStore for S {
    async fn report_schedule(&self, report_id: i64) -> StoreResult<Option<Schedule>> {
        sql::read!(self, |c| one(c, report_id).await)
    }

    async fn report_schedules(&self, report_ids: Vec<i64>) -> StoreResult<HashMap<i64, Schedule>> {
        if report_ids.is_empty() {
            return Ok(HashMap::new());
        }
        sql::read!(self, |c| {
            let params: Vec<&dyn sql::Param> = report_ids.iter().map(|id| id as _).collect();
            let rows = c
                .query(
                    &select(&format!(
                        "s.id IN ({})",
                        sql::placeholders(1, report_ids.len())
                    )),
                    &params,
                )
                .await?;
            rows.iter()
                .map(|r| row(r).map(|s| (s.report_id, s)))
                .collect()
        })
    }

    async fn set_report_schedule(
        &self,
        report_id: i64,
        draft: ScheduleDraft,
        next_ms: i64,
    ) -> StoreResult<()> {
        sql::write!(self, |c| {
            let list: Option<i64> = c
                .scalar_opt(
                    "SELECT id FROM distribution_lists WHERE id = $1",
                    &[&draft.distribution_id],
                )
                .await?;
            if list.is_none() {
                return Err(StoreError::Invalid(format!(
                    "distributionID: Distribution list {} does not exist.",
                    draft.distribution_id
                )));
            }
            let before = one(c, report_id).await?;
            let k = &draft.cadence;
            let state = if draft.active { "queued" } else { "paused" };
            let now = crate::clock::now_ms() / 1000;
            c.execute(
                "INSERT INTO report_schedules (id, frequency, minute, weekday, month_day,
                                               distribution_id, language, state, next_ms,
                                               modified_at)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
                 ON CONFLICT (id) DO UPDATE SET
                    frequency = excluded.frequency, minute = excluded.minute,
                    weekday = excluded.weekday, month_day = excluded.month_day,
                    distribution_id = excluded.distribution_id, language = excluded.language,
                    state = excluded.state, next_ms = excluded.next_ms, lease_ms = NULL,
                    attempts = 0, reason = NULL, modified_at = excluded.modified_at",
                &[
                    &report_id,
                    &k.frequency.as_str(),
                    &i64::from(k.minute),
                    &i64::from(k.weekday),
                    &i64::from(k.month_day),
                    &draft.distribution_id,
                    &draft.language.as_str(),
                    &state,
                    &next_ms,
                    &now,
                ],
            )
            .await?;
            let audit_of = |s: &ScheduleDraft| {
                serde_json::json!({
                    "frequency": s.cadence.frequency.as_str(),
                    "time": crate::domain::report_schedule::format_time(s.cadence.minute),
                    "dayOfWeek": s.cadence.weekday,
                    "dayOfMonth": s.cadence.month_day,
                    "distributionId": s.distribution_id,
                    "language": s.language.as_str(),
                    "active": s.active,
                })
            };
            super::audit::record(
                c,
                "report_schedule",
                if before.is_some() { "update" } else { "create" },
                report_id,
                before.as_ref().map(|b| audit_of(&b.draft)),
                Some(audit_of(&draft)),
            )
            .await
        })
    }

    async fn delete_report_schedule(&self, report_id: i64) -> StoreResult<bool> {
        sql::write!(self, |c| {
            let n = c
                .execute("DELETE FROM report_schedules WHERE id = $1", &[&report_id])
                .await?;
            if n > 0 {
                super::audit::record(c, "report_schedule", "delete", report_id, None, None).await?;
            }
            Ok(n > 0)
        })
    }

    async fn next_schedule_due_ms(&self) -> StoreResult<Option<i64>> {
        sql::read!(self, |c| {
            c.scalar(
                "SELECT min(CASE WHEN next_ms > coalesce(lease_ms, 0) THEN next_ms
                                 ELSE coalesce(lease_ms, 0) END)
                   FROM report_schedules WHERE state = 'queued'",
                &[],
            )
            .await
        })
    }

    async fn claim_schedules(
        &self,
        now_ms: i64,
        lease_until_ms: i64,
        limit: u32,
    ) -> StoreResult<Vec<Schedule>> {
        sql::write!(self, |c| {
            let ids: Vec<i64> =
                sql::lease_due(c, "report_schedules", "id", now_ms, limit, lease_until_ms)
                    .await?
                    .iter()
                    .map(|r| r.col::<i64>("id"))
                    .collect::<StoreResult<_>>()?;
            let mut out = Vec::with_capacity(ids.len());
            for id in ids {
                if let Some(s) = one(c, id).await? {
                    out.push(s);
                }
            }
            out.sort_by_key(|s| (s.next_ms, s.report_id));
            Ok(out)
        })
    }

    async fn deliver_schedule(
        &self,
        report_id: i64,
        slot_ms: i64,
        next_ms: i64,
        msg: Message,
    ) -> StoreResult<Vec<i64>> {
        sql::write!(self, |c| {
            let current: Option<Row> = c
                .query_opt(
                    &format!(
                        "SELECT next_ms, distribution_id FROM report_schedules
                          WHERE id = $1 AND state = 'queued'{}",
                        c.pg_only(" FOR UPDATE")
                    ),
                    &[&report_id],
                )
                .await?;
            let Some(current) = current else {
                return Ok(Vec::new());
            };
            // Changed or delivered meanwhile: this slot is no longer the schedule's.
            if current.col::<i64>("next_ms")? != slot_ms {
                return Ok(Vec::new());
            }
            let list: i64 = current.col("distribution_id")?;
            let cause = slot_cause(report_id, slot_ms);
            let ids =
                enqueue_list_in(c, list, &msg, &cause, &cause, crate::clock::now_ms()).await?;
            c.execute(
                "UPDATE report_schedules SET next_ms = $2, lease_ms = NULL, attempts = 0,
                        last_slot_ms = $3, last_cause = $4, reason = NULL
                  WHERE id = $1",
                &[&report_id, &next_ms, &slot_ms, &cause],
            )
            .await?;
            Ok(ids)
        })
    }

    async fn schedule_failed(
        &self,
        report_id: i64,
        reason: String,
        retry_ms: i64,
    ) -> StoreResult<()> {
        sql::write!(self, |c| {
            c.execute(
                "UPDATE report_schedules SET lease_ms = $2, reason = $3 WHERE id = $1",
                &[&report_id, &retry_ms, &reason],
            )
            .await
            .map(drop)
        })
    }

    async fn release_schedule_leases(&self) -> StoreResult<u64> {
        sql::write!(self, |c| {
            c.execute(
                "UPDATE report_schedules SET lease_ms = NULL
                  WHERE state = 'queued' AND lease_ms IS NOT NULL",
                &[],
            )
            .await
        })
    }
}
