//! The alert's life after it fires, for both backends on `store/sql.rs`:
//! acknowledgement, comments and escalation of alert events. Kept apart from the engine
//! (`store/{sqlite,pg}/alerts.rs`), which opens and closes events; the rules are
//! `domain/alerting.rs`'s (`acknowledgement`, `escalation_due_ms`).
//!
//! **Escalation.** An alert setting may name a second distribution list and a delay. The
//! escalation worker (`notify::escalations`, on `notify/jobs.rs`'s leased loop) reads when
//! the next open, unacknowledged, unescalated event is due ([`AlertLifeStore::
//! next_escalation_ms`]) and escalates the due ones ([`AlertLifeStore::escalate_due`]): in
//! one transaction it queues one notification per contact of the second list in the outbox
//! (keys `escalation:{id}:…`, queued once) and stamps `escalated_ms`. A `kill -9` before the
//! commit leaves the event due (escalated again at the next start); after it, the outbox
//! delivers. An acknowledgement before the delay stops it.

use std::collections::HashMap;

use async_trait::async_trait;
use chrono_tz::Tz;

use super::alert_settings::{settings_by_id, Lock};
use super::audit;
use super::outbox::{enqueue_kinds_in, enqueue_list_in, notifications_of_causes};
use super::sql::{self, Exec, Row, SqlStore};
use super::{StoreError, StoreResult};
use crate::domain::alert_setting::AlertSetting;
use crate::domain::alerting::{self, Acknowledgement, EscalationFacts};
use crate::domain::caller::{Scope, Visibility};
use crate::domain::notify::Notification;

/// Who acknowledged an event, and when (UTC ms).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ack {
    pub by: String,
    pub at_ms: i64,
}

/// A comment on an event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AlertComment {
    pub id: i64,
    pub author: String,
    pub text: String,
    pub at_ms: i64,
}

/// What an event's details add to the engine's: its acknowledgement, comments and
/// escalation.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct AlertLife {
    pub ack: Option<Ack>,
    /// Oldest first.
    pub comments: Vec<AlertComment>,
    /// When the escalation list was notified.
    pub escalated_ms: Option<i64>,
    /// The escalation's notifications (`escalation:{id}`).
    pub escalations: Vec<Notification>,
    /// Whether its alert setting still exists: a closed event whose setting exists was
    /// closed by a passing run (recovered); deleting a setting closes its events too.
    pub setting_exists: bool,
}

/// A past acknowledgement, comments and escalation ([`AlertLifeStore::import_alert_life`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PastLife {
    pub ack: Option<Ack>,
    /// `(author, text, at_ms)`, oldest first.
    pub comments: Vec<(String, String, i64)>,
    /// `(distribution list, at_ms)`.
    pub escalation: Option<(i64, i64)>,
}

#[async_trait]
pub trait AlertLifeStore {
    /// Acknowledges open event `id` as `username` at `now_ms`, when the scope may see its
    /// group; an event acknowledged already keeps its first acknowledgement; a closed one is
    /// a conflict. Audited when it changed.
    async fn acknowledge_alert(
        &self,
        scope: Scope,
        id: i64,
        username: String,
        now_ms: i64,
    ) -> StoreResult<Visibility<Ack>>;
    /// Adds `text` (not empty) as `author`'s comment on event `id`, and keeps it as the
    /// event's latest comment (`comment`, section 7's one comment); an empty `text` clears
    /// that latest comment and keeps the thread. Audited.
    async fn comment_alert(
        &self,
        scope: Scope,
        id: i64,
        author: String,
        text: String,
        now_ms: i64,
    ) -> StoreResult<Visibility<()>>;
    /// The acknowledgement, comments and escalation of event `id` (the caller checked that
    /// the scope sees it).
    async fn alert_life(&self, id: i64) -> StoreResult<AlertLife>;
    /// The acknowledgements of events `ids` (a list page).
    async fn alert_acks(&self, ids: Vec<i64>) -> StoreResult<HashMap<i64, Ack>>;
    /// Writes a past life of event `id` as it happened (the demo's history, where events
    /// opened and closed in the past): who acknowledged it and when, its comments, and its
    /// escalation to list `(list_id, at_ms)` with one notification per contact (queued once).
    async fn import_alert_life(
        &self,
        id: i64,
        past: PastLife,
        tz: Tz,
        public_url: String,
    ) -> StoreResult<()>;
    /// When the next escalation is due (UTC ms), if any event waits for one.
    async fn next_escalation_ms(&self) -> StoreResult<Option<i64>>;
    /// Escalates the events due at `now_ms` (at most `limit`); returns how many
    /// notifications it queued.
    async fn escalate_due(
        &self,
        tz: Tz,
        public_url: String,
        now_ms: i64,
        limit: u32,
    ) -> StoreResult<usize>;
}

/// The event's group and the user of the scope as a visibility.
async fn event_seen(c: &impl Exec, scope: Scope, id: i64) -> StoreResult<Visibility<()>> {
    let row = c
        .query_opt(
            "SELECT e.group_id, CAST($2 AS BIGINT) IS NULL OR EXISTS (
                    SELECT 1 FROM user_groups ug WHERE ug.user_id = $2 AND ug.group_id = e.group_id)
                    AS seen
               FROM alert_events e WHERE e.id = $1",
            &[&id, &scope.user()],
        )
        .await?;
    Ok(match row {
        None => Visibility::Missing,
        Some(r) if r.col::<bool>("seen")? => Visibility::Visible(()),
        Some(_) => Visibility::Hidden,
    })
}

/// What an escalation's message says of event `e` (with its test case `tc`), each column
/// by the name [`escalation_facts`] reads.
const ESCALATED: &str =
    "e.id, e.alert_ms, e.setting_id, e.setting_name, e.group_name, e.incident_id,
        coalesce(tc.name, '') AS test_case, e.distribution_name
   FROM alert_events e
   LEFT JOIN test_cases tc ON tc.id = e.test_case_id";

/// The facts of an escalation of the event of row `r` ([`ESCALATED`]), of setting `s`
/// (`None`: deleted since).
fn escalation_facts(
    r: &Row,
    s: Option<&AlertSetting>,
    delay_min: i64,
    public_url: &str,
) -> StoreResult<EscalationFacts> {
    Ok(EscalationFacts {
        event_id: r.col("id")?,
        alert_ms: r.col("alert_ms")?,
        delay_min,
        setting_name: r.col("setting_name")?,
        group: r.col("group_name")?,
        test_case: r.col("test_case")?,
        first_list: r.col("distribution_name")?,
        email_subject: s.map(|s| s.email_subject.clone()).unwrap_or_default(),
        sms_prefix: s.map(|s| s.sms_prefix.clone()).unwrap_or_default(),
        public_url: public_url.to_string(),
    })
}

/// The condition of an event waiting for its escalation, with its setting `s`.
const DUE: &str = "e.open = TRUE AND e.ack_ms IS NULL AND e.escalated_ms IS NULL
    AND s.id = e.setting_id AND s.escalation_distribution_id IS NOT NULL
    AND s.escalation_delay_min IS NOT NULL";

#[async_trait]
impl<S: SqlStore> AlertLifeStore for S {
    async fn acknowledge_alert(
        &self,
        scope: Scope,
        id: i64,
        username: String,
        now_ms: i64,
    ) -> StoreResult<Visibility<Ack>> {
        sql::write!(self, [username = username.clone()], |c| {
            if let Err(unseen) = event_seen(c, scope, id).await?.visible() {
                return Ok(unseen);
            }
            let row = c
                .query_one(
                    &format!(
                        "SELECT open, ack_user, ack_ms FROM alert_events WHERE id = $1{}",
                        c.pg_only(" FOR UPDATE")
                    ),
                    &[&id],
                )
                .await?;
            let current = match (row.col("ack_user")?, row.col("ack_ms")?) {
                (Some(by), Some(at_ms)) => Some(Ack { by, at_ms }),
                _ => None,
            };
            match alerting::acknowledgement(row.col("open")?, current.is_some()) {
                Acknowledgement::Closed => Err(StoreError::Conflict(format!(
                    "Alert event {id} is closed: there is nothing to acknowledge."
                ))),
                Acknowledgement::Already => Ok(Visibility::Visible(current.unwrap_or(Ack {
                    by: username.clone(),
                    at_ms: now_ms,
                }))),
                Acknowledgement::Now => {
                    let before = audit::snapshot(c, "alert_events", id).await?;
                    c.execute(
                        "UPDATE alert_events SET ack_user = $2, ack_ms = $3 WHERE id = $1",
                        &[&id, &username, &now_ms],
                    )
                    .await?;
                    let after = audit::snapshot(c, "alert_events", id).await?;
                    audit::record(c, "alert_event", "acknowledge", id, before, after).await?;
                    Ok(Visibility::Visible(Ack {
                        by: username.clone(),
                        at_ms: now_ms,
                    }))
                }
            }
        })
    }

    async fn comment_alert(
        &self,
        scope: Scope,
        id: i64,
        author: String,
        text: String,
        now_ms: i64,
    ) -> StoreResult<Visibility<()>> {
        sql::write!(self, [author = author.clone(), text = text.clone()], |c| {
            if let Err(unseen) = event_seen(c, scope, id).await?.visible() {
                return Ok(unseen);
            }
            let before = audit::snapshot(c, "alert_events", id).await?;
            if !text.is_empty() {
                c.execute(
                    "INSERT INTO alert_comments (event_id, author, body, created_ms)
                     VALUES ($1, $2, $3, $4)",
                    &[&id, &author, &text, &now_ms],
                )
                .await?;
            }
            c.execute(
                "UPDATE alert_events SET comment = nullif($2, '') WHERE id = $1",
                &[&id, &text],
            )
            .await?;
            let after = audit::snapshot(c, "alert_events", id).await?;
            let action = if text.is_empty() { "update" } else { "comment" };
            audit::record(c, "alert_event", action, id, before, after).await?;
            Ok(Visibility::Visible(()))
        })
    }

    async fn alert_life(&self, id: i64) -> StoreResult<AlertLife> {
        sql::read!(self, |c| {
            let Some(row) = c
                .query_opt(
                    "SELECT e.ack_user, e.ack_ms, e.escalated_ms,
                            EXISTS (SELECT 1 FROM alert_settings s WHERE s.id = e.setting_id)
                            AS setting_exists
                       FROM alert_events e WHERE e.id = $1",
                    &[&id],
                )
                .await?
            else {
                return Ok(AlertLife::default());
            };
            let ack = match (row.col("ack_user")?, row.col("ack_ms")?) {
                (Some(by), Some(at_ms)) => Some(Ack { by, at_ms }),
                _ => None,
            };
            let comments = c
                .query(
                    "SELECT id, author, body, created_ms FROM alert_comments
                      WHERE event_id = $1 ORDER BY id",
                    &[&id],
                )
                .await?
                .iter()
                .map(|r| {
                    Ok(AlertComment {
                        id: r.col("id")?,
                        author: r.col("author")?,
                        text: r.col("body")?,
                        at_ms: r.col("created_ms")?,
                    })
                })
                .collect::<StoreResult<Vec<_>>>()?;
            let escalations =
                notifications_of_causes(c, &[alerting::escalation_prefix(id)]).await?;
            Ok(AlertLife {
                ack,
                comments,
                escalated_ms: row.col("escalated_ms")?,
                escalations,
                setting_exists: row.col("setting_exists")?,
            })
        })
    }

    async fn alert_acks(&self, ids: Vec<i64>) -> StoreResult<HashMap<i64, Ack>> {
        if ids.is_empty() {
            return Ok(HashMap::new());
        }
        sql::read!(self, [ids = ids.clone()], |c| {
            let params: Vec<&dyn sql::Param> = ids.iter().map(|i| i as &dyn sql::Param).collect();
            let rows = c
                .query(
                    &format!(
                        "SELECT id, ack_user, ack_ms FROM alert_events
                          WHERE ack_ms IS NOT NULL AND id IN ({})",
                        sql::placeholders(1, ids.len())
                    ),
                    &params,
                )
                .await?;
            rows.iter()
                .map(|r| {
                    Ok((
                        r.col("id")?,
                        Ack {
                            by: r.col::<Option<String>>("ack_user")?.unwrap_or_default(),
                            at_ms: r.col("ack_ms")?,
                        },
                    ))
                })
                .collect::<StoreResult<HashMap<i64, Ack>>>()
        })
    }

    async fn import_alert_life(
        &self,
        id: i64,
        past: PastLife,
        tz: Tz,
        public_url: String,
    ) -> StoreResult<()> {
        sql::write!(
            self,
            [past = past.clone(), public_url = public_url.clone()],
            |c| {
                if let Some(a) = &past.ack {
                    c.execute(
                        "UPDATE alert_events SET ack_user = $2, ack_ms = $3 WHERE id = $1",
                        &[&id, &a.by, &a.at_ms],
                    )
                    .await?;
                }
                for (author, text, at_ms) in &past.comments {
                    c.execute(
                        "INSERT INTO alert_comments (event_id, author, body, created_ms)
                     VALUES ($1, $2, $3, $4)",
                        &[&id, author, text, at_ms],
                    )
                    .await?;
                    c.execute(
                        "UPDATE alert_events SET comment = $2 WHERE id = $1",
                        &[&id, text],
                    )
                    .await?;
                }
                if let Some((list, at_ms)) = past.escalation {
                    let Some(r) = c
                        .query_opt(&format!("SELECT {ESCALATED} WHERE e.id = $1"), &[&id])
                        .await?
                    else {
                        return Ok(());
                    };
                    // A setting deleted since: the messages go without its subject and prefix.
                    let setting = settings_by_id(c, &[r.col("setting_id")?], Lock::None)
                        .await?
                        .pop();
                    let alert_ms: i64 = r.col("alert_ms")?;
                    let delay_min = ((at_ms - alert_ms) / 60_000).max(1);
                    let facts = escalation_facts(&r, setting.as_ref(), delay_min, &public_url)?;
                    let msg = alerting::escalation_message(&facts, tz);
                    let prefix = alerting::escalation_prefix(id);
                    enqueue_list_in(c, list, &msg, &prefix, &prefix, at_ms).await?;
                    c.execute(
                        "UPDATE alert_events SET escalated_ms = $2 WHERE id = $1",
                        &[&id, &at_ms],
                    )
                    .await?;
                }
                Ok(())
            }
        )
    }

    async fn next_escalation_ms(&self) -> StoreResult<Option<i64>> {
        sql::read!(self, |c| {
            c.scalar(
                &format!(
                    "SELECT min(e.alert_ms + s.escalation_delay_min * 60000)
                       FROM alert_events e, alert_settings s WHERE {DUE}"
                ),
                &[],
            )
            .await
        })
    }

    async fn escalate_due(
        &self,
        tz: Tz,
        public_url: String,
        now_ms: i64,
        limit: u32,
    ) -> StoreResult<usize> {
        sql::write!(self, [public_url = public_url.clone()], |c| {
            let due = c
                .query(
                    &format!(
                        "SELECT {ESCALATED} JOIN alert_settings s ON {DUE}
                          WHERE e.alert_ms + s.escalation_delay_min * 60000 <= $1
                          ORDER BY e.alert_ms, e.id LIMIT $2{}",
                        c.pg_only(" FOR UPDATE OF e SKIP LOCKED")
                    ),
                    &[&now_ms, &i64::from(limit)],
                )
                .await?;
            let mut ids = due
                .iter()
                .map(|r| r.col("setting_id"))
                .collect::<StoreResult<Vec<i64>>>()?;
            ids.sort_unstable();
            ids.dedup();
            let settings: HashMap<i64, AlertSetting> = settings_by_id(c, &ids, Lock::None)
                .await?
                .into_iter()
                .map(|s| (s.id, s))
                .collect();
            let mut queued = 0;
            for r in &due {
                let id: i64 = r.col("id")?;
                // Due events have a setting with an escalation (`DUE`), read in this
                // transaction.
                let Some(s) = settings.get(&r.col::<i64>("setting_id")?) else {
                    continue;
                };
                let Some(escalation) = s.escalation else {
                    continue;
                };
                let facts = escalation_facts(r, Some(s), escalation.delay_min, &public_url)?;
                let msg = alerting::escalation_message(&facts, tz);
                let list = escalation.distribution_id;
                let prefix = alerting::escalation_prefix(id);
                // An incident's escalation to a list pages it once, at its first event
                // escalated there (earlier in this loop included): the others go to the
                // record only, as its joined alerts do.
                let paged_already = match r.col::<Option<i64>>("incident_id")? {
                    None => false,
                    Some(incident) => {
                        c.scalar::<bool>(
                            "SELECT EXISTS (
                                 SELECT 1 FROM alert_events o
                                   JOIN alert_settings os ON os.id = o.setting_id
                                  WHERE o.incident_id = $1 AND o.escalated_ms IS NOT NULL
                                    AND os.escalation_distribution_id = $2)",
                            &[&incident, &list],
                        )
                        .await?
                    }
                };
                queued += enqueue_kinds_in(c, list, &msg, &prefix, &prefix, now_ms, |kind| {
                    !paged_already || crate::domain::incident::pages_joined(kind)
                })
                .await?
                .len();
                c.execute(
                    "UPDATE alert_events SET escalated_ms = $2 WHERE id = $1",
                    &[&id, &now_ms],
                )
                .await?;
            }
            Ok(queued)
        })
    }
}
