//! What the site page reads (cxwatch's addition): how far a fresh install
//! has come (keys, runs, groups, distribution lists, alert settings) and what became of the
//! latest message of each outbound channel and of the latest Jira ticket job.
//!
//! Written once for both backends (`store/sql.rs`); read-only.

use async_trait::async_trait;

use super::sql::{self, Exec, SqlStore};
use super::StoreResult;

/// How many of each thing the first-run checklist asks for exist.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SiteCounts {
    pub api_keys: i64,
    pub runs: i64,
    /// When the newest run ran, milliseconds since the epoch.
    pub last_run_ms: Option<i64>,
    pub groups: i64,
    pub distribution_lists: i64,
    pub alert_settings: i64,
}

/// What became of the latest message (or ticket job) that is no longer waiting for its first
/// attempt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LastOutcome {
    /// `sent` or `failed`, or `queued` when it failed and will be tried again.
    pub state: String,
    /// When it was sent, else when it was made, in milliseconds since the epoch.
    pub at_ms: i64,
    /// Why its last attempt failed.
    pub reason: Option<String>,
    /// The same as a stable code (`domain::delivery::ReasonCode`; none for ticket jobs).
    pub code: Option<String>,
}

#[async_trait]
pub trait SiteStore {
    /// The first-run checklist's counts.
    async fn site_counts(&self) -> StoreResult<SiteCounts>;
    /// The latest attempted message of any of the contact types `channels` (1 e-mail, 2 SMS,
    /// 4 voice, 8–64 the webhooks).
    async fn last_delivery(&self, channels: Vec<i64>) -> StoreResult<Option<LastOutcome>>;
    /// The latest attempted Jira ticket job (auto tickets).
    async fn last_ticket_job(&self) -> StoreResult<Option<LastOutcome>>;
}

#[async_trait]
impl<S: SqlStore> SiteStore for S {
    async fn site_counts(&self) -> StoreResult<SiteCounts> {
        sql::read!(self, |c| {
            let count = |table: &'static str| async move {
                c.scalar::<i64>(&format!("SELECT count(*) FROM {table}"), &[])
                    .await
            };
            Ok(SiteCounts {
                api_keys: count("api_keys").await?,
                runs: count("test_runs").await?,
                last_run_ms: c
                    .scalar_opt::<Option<i64>>("SELECT max(run_time) FROM test_runs", &[])
                    .await?
                    .flatten(),
                groups: count("test_case_groups").await?,
                distribution_lists: count("distribution_lists").await?,
                alert_settings: count("alert_settings").await?,
            })
        })
    }

    async fn last_delivery(&self, channels: Vec<i64>) -> StoreResult<Option<LastOutcome>> {
        if channels.is_empty() {
            return Ok(None);
        }
        sql::read!(self, |c| {
            let params: Vec<&dyn sql::Param> =
                channels.iter().map(|c| c as &dyn sql::Param).collect();
            let row = c
                .query_opt(
                    &format!(
                        "SELECT state, COALESCE(sent_ms, created_ms) AS at_ms, reason, reason_code FROM outbox
                          WHERE channel IN ({}) AND (state <> 'queued' OR attempts > 0)
                          ORDER BY id DESC LIMIT 1",
                        sql::placeholders(1, channels.len())
                    ),
                    &params,
                )
                .await?;
            row.map(|r| outcome(&r)).transpose()
        })
    }

    async fn last_ticket_job(&self) -> StoreResult<Option<LastOutcome>> {
        sql::read!(self, |c| {
            let row = c
                .query_opt(
                    "SELECT CASE WHEN state = 'done' THEN 'sent' ELSE state END AS state,
                            created_ms AS at_ms, reason, CAST(NULL AS TEXT) AS reason_code
                       FROM ticket_jobs WHERE state = 'done' OR attempts > 0
                      ORDER BY id DESC LIMIT 1",
                    &[],
                )
                .await?;
            row.map(|r| outcome(&r)).transpose()
        })
    }
}

fn outcome(r: &sql::Row) -> StoreResult<LastOutcome> {
    Ok(LastOutcome {
        state: r.col("state")?,
        at_ms: r.col("at_ms")?,
        reason: r.col("reason")?,
        code: r.col("reason_code")?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::distribution::ContactType;
    use crate::domain::notify::NewNotification;
    use crate::store::outbox::Recorded;

    fn mail(key: &str) -> NewNotification {
        NewNotification {
            key: key.into(),
            channel: ContactType::Email,
            recipient: "ops@example.com".into(),
            subject: "s".into(),
            text: "t".into(),
            html: None,
            vars: Default::default(),
            attachments: Vec::new(),
            cause: "testContact".into(),
        }
    }

    #[tokio::test]
    async fn a_fresh_store_counts_nothing_and_the_last_delivery_is_the_last_attempted() {
        let (_dir, store) = crate::store::testing::store().await;
        assert_eq!(store.site_counts().await.unwrap(), SiteCounts::default());
        store.add_api_key("engine-1").await.unwrap();
        assert_eq!(store.site_counts().await.unwrap().api_keys, 1);
        assert_eq!(store.last_delivery(vec![1]).await.unwrap(), None);
        let ids = store.enqueue(vec![mail("a"), mail("b")]).await.unwrap();
        // Queued and never tried: nothing to tell yet.
        assert_eq!(store.last_delivery(vec![1]).await.unwrap(), None);
        store
            .record_outcomes(vec![Recorded::Failed {
                id: ids[0],
                reason: "550 no such user".into(),
                code: "mail_refused".into(),
                retry_at_ms: None,
            }])
            .await
            .unwrap();
        let last = store.last_delivery(vec![1]).await.unwrap().unwrap();
        assert_eq!(last.state, "failed");
        assert_eq!(last.reason.as_deref(), Some("550 no such user"));
        store
            .record_outcomes(vec![Recorded::Sent {
                id: ids[1],
                at_ms: 1_700_000_000_000,
            }])
            .await
            .unwrap();
        let last = store.last_delivery(vec![1]).await.unwrap().unwrap();
        assert_eq!(
            (last.state.as_str(), last.at_ms),
            ("sent", 1_700_000_000_000)
        );
        assert_eq!(store.last_delivery(vec![2, 4]).await.unwrap(), None);
        assert_eq!(store.last_ticket_job().await.unwrap(), None);
    }
}
