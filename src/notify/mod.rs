//! Delivery: the sender that empties the outbox (`store::outbox`), e-mail over SMTP
//! ([`smtp`]), SMS and voice through the site's HTTP gateway ([`gateway`]), and the chat
//! and webhook channels (generic JSON, Microsoft Teams, Slack, Mattermost: [`webhook`]).
//!
//! The sender leases due notifications, delivers up to `notify.concurrency` at a time, and
//! marks each sent, due again after a back-off (`retry_first_secs`, doubling, at most
//! `retry_max_secs`), or failed with the reason after `max_attempts` or a permanent refusal.
//! A channel without a server fails at once with a reason that says so, and the others still
//! go. It wakes when told ([`Notifier::wake`]) and otherwise looks every `poll_ms`. At start
//! it takes back the leases a killed process left, so nothing queued is lost.

pub mod escalations;
pub mod gateway;
pub mod jobs;
pub mod reports;
pub mod smtp;
pub mod tickets;
pub mod webhook;

use std::sync::Arc;
use std::time::Duration;

use futures_util::StreamExt;
use tokio::sync::{broadcast, Notify};

use crate::config::{Config, NotifyConfig};
use crate::domain::distribution::ContactType;
use crate::domain::notify::retry_delay_ms;
use crate::store::outbox::{now_ms, Claimed, Recorded};
use crate::store::{Store, StoreResult};

/// Why an attempt failed, and whether trying again can help.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    pub reason: String,
    pub permanent: bool,
}

/// What became of one attempt (for callers waiting on it, e.g. a Confirm).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    pub id: i64,
    /// `None` when delivered.
    pub failure: Option<String>,
    /// Another attempt will follow.
    pub will_retry: bool,
}

/// The handle the API and the alerting engine hold: wakes the sender, tells outcomes.
#[derive(Clone)]
pub struct Notifier {
    inner: Arc<Inner>,
}

struct Inner {
    wake: Notify,
    outcomes: broadcast::Sender<Outcome>,
    /// Which channels have a server configured.
    configured: [(ContactType, bool); 7],
}

/// What a channel without a server says.
pub fn not_configured(kind: ContactType) -> String {
    match kind {
        ContactType::Email => "No mail server is configured (notify.smtp.host): notifications are recorded but not sent.".into(),
        ContactType::Sms => "No SMS gateway is configured (notify.sms.url): notifications are recorded but not sent.".into(),
        ContactType::Voice => "No voice gateway is configured (notify.voice.url): notifications are recorded but not sent.".into(),
        _ => format!("Webhooks are off (notify.webhook.enabled): {} notifications are recorded but not sent.", kind.name()),
    }
}

impl Notifier {
    /// A handle without a sender (nothing is delivered until [`Notifier::start`]).
    pub fn new(config: &NotifyConfig) -> Notifier {
        let (outcomes, _) = broadcast::channel(1024);
        Notifier {
            inner: Arc::new(Inner {
                wake: Notify::new(),
                outcomes,
                configured: [
                    (ContactType::Email, !config.smtp.host.trim().is_empty()),
                    (ContactType::Sms, !config.sms.url.trim().is_empty()),
                    (ContactType::Voice, !config.voice.url.trim().is_empty()),
                    (ContactType::Webhook, config.webhook.enabled),
                    (ContactType::Teams, config.webhook.enabled),
                    (ContactType::Slack, config.webhook.enabled),
                    (ContactType::Mattermost, config.webhook.enabled),
                ],
            }),
        }
    }

    /// Starts the sender on the current tokio runtime and returns its handle.
    pub fn start(store: Store, config: &Config) -> anyhow::Result<Notifier> {
        let notifier = Notifier::new(&config.notify);
        let channels = Channels {
            smtp: smtp::Smtp::from_config(&config.notify.smtp)?,
            sms: gateway::Gateway::from_config("notify.sms", &config.notify.sms)?,
            voice: gateway::Gateway::from_config("notify.voice", &config.notify.voice)?,
            webhooks: webhook::Webhooks::from_config(&config.notify.webhook)?,
        };
        for (kind, ok) in notifier.inner.configured {
            // One line for the four webhook channels.
            if !ok && (!kind.is_webhook() || kind == ContactType::Webhook) {
                tracing::info!(channel = kind.name(), "{}", not_configured(kind));
            }
        }
        let sender = Sender {
            store,
            config: config.notify.clone(),
            channels: Arc::new(channels),
            notifier: notifier.clone(),
        };
        tokio::spawn(jobs::run(sender));
        Ok(notifier)
    }

    /// Tells the sender something was queued.
    pub fn wake(&self) {
        self.inner.wake.notify_one();
    }

    /// Queues one notification now and waits up to `within` for its first attempt (the
    /// console's 'send a test' and 'send now'): its id, and the outcome unless `within` passed.
    pub async fn send_one(
        &self,
        store: &Store,
        n: crate::domain::notify::NewNotification,
        within: Duration,
    ) -> StoreResult<(i64, Option<Outcome>)> {
        // Subscribed before it is queued: the sender may be quicker than this task.
        let mut outcomes = self.inner.outcomes.subscribe();
        let id = store
            .enqueue(vec![n])
            .await?
            .into_iter()
            .next()
            .ok_or_else(|| crate::store::StoreError::Invalid("enqueue returned no id".into()))?;
        self.wake();
        Ok((id, Self::outcome_of(&mut outcomes, id, within).await))
    }

    /// Whether a channel has a server configured.
    pub fn configured(&self, kind: ContactType) -> bool {
        self.inner
            .configured
            .iter()
            .any(|(k, ok)| *k == kind && *ok)
    }

    /// Waits for the next attempt on notification `id` (subscribed before it was queued);
    /// `None` after `within`.
    async fn outcome_of(
        rx: &mut broadcast::Receiver<Outcome>,
        id: i64,
        within: Duration,
    ) -> Option<Outcome> {
        let wait = async {
            loop {
                match rx.recv().await {
                    Ok(o) if o.id == id => return Some(o),
                    Ok(_) | Err(broadcast::error::RecvError::Lagged(_)) => continue,
                    Err(broadcast::error::RecvError::Closed) => return None,
                }
            }
        };
        tokio::time::timeout(within, wait).await.ok().flatten()
    }
}

struct Channels {
    smtp: Option<smtp::Smtp>,
    sms: Option<gateway::Gateway>,
    voice: Option<gateway::Gateway>,
    webhooks: Option<webhook::Webhooks>,
}

impl Channels {
    async fn send(&self, item: &Claimed) -> Result<(), Failure> {
        let kind = item.notification.channel;
        let unconfigured = || Failure {
            reason: not_configured(kind),
            permanent: true,
        };
        match kind {
            ContactType::Email => match &self.smtp {
                Some(s) => s.send(item).await,
                None => Err(unconfigured()),
            },
            ContactType::Sms => match &self.sms {
                Some(g) => g.send(item).await,
                None => Err(unconfigured()),
            },
            ContactType::Voice => match &self.voice {
                Some(g) => g.send(item).await,
                None => Err(unconfigured()),
            },
            _ => match &self.webhooks {
                Some(w) => w.send(item).await,
                None => Err(unconfigured()),
            },
        }
    }
}

struct Sender {
    store: Store,
    config: NotifyConfig,
    channels: Arc<Channels>,
    notifier: Notifier,
}

#[async_trait::async_trait]
impl jobs::Queue for Sender {
    type Job = Claimed;
    const LEASE: &'static str = "notify";

    fn store(&self) -> &Store {
        &self.store
    }

    fn poll_ms(&self) -> u64 {
        self.config.poll_ms
    }

    /// Only the lease's holder sends from this database: the rows leased by an instance
    /// that died (or lost its lease) are void and due again.
    async fn resume(&self) {
        if let Err(e) = self.store.release_leases().await {
            tracing::error!(error = %e, "outbox: cannot take back old leases");
        }
    }

    async fn next_due_ms(&self) -> StoreResult<Option<i64>> {
        self.store.next_due_ms().await
    }

    async fn claim(&self, now_ms: i64) -> StoreResult<Vec<Claimed>> {
        let batch = (self.config.concurrency * 4).min(1000) as u32;
        self.store.claim_due(now_ms, self.lease_ms(), batch).await
    }

    /// Delivers up to `concurrency` at a time; the outcomes are recorded by a group commit
    /// ([`Sender::record`]): the first outcome at once, in a transaction of its own, and those
    /// that come in while a transaction is written together in the next one (issue 25: one
    /// commit per notification made the sender PostgreSQL's main writer). An outcome waits
    /// for no other delivery, so a `kill -9` leaves at most the outcomes of one commit
    /// unrecorded, as before: their rows are delivered again when the lease runs out.
    async fn work(&self, claimed: Vec<Claimed>) {
        let (done, mut outcomes) = tokio::sync::mpsc::unbounded_channel();
        let deliveries = async move {
            futures_util::stream::iter(claimed)
                .for_each_concurrent(self.config.concurrency, |item| {
                    let done = done.clone();
                    async move {
                        let _ = done.send(self.deliver(item).await);
                    }
                })
                .await;
        };
        let records = async {
            while let Some(first) = outcomes.recv().await {
                let mut batch = vec![first];
                while let Ok(more) = outcomes.try_recv() {
                    batch.push(more);
                }
                self.record(batch).await;
            }
        };
        tokio::join!(deliveries, records);
    }

    /// Until the time is up or a cause queues something (`Notifier::wake`).
    async fn wait(&self, ms: u64) {
        tokio::select! {
            _ = self.notifier.inner.wake.notified() => {}
            _ = tokio::time::sleep(Duration::from_millis(ms)) => {}
        }
    }
}

impl Sender {
    /// How long a lease lasts: longer than any attempt can take (each SMTP step and the
    /// gateway request have their own time-outs).
    fn lease_ms(&self) -> i64 {
        let c = &self.config;
        let longest = (c.smtp.timeout_secs * 6)
            .max(c.sms.timeout_secs * 2)
            .max(c.voice.timeout_secs * 2)
            .max(c.webhook.timeout_secs * 2);
        (longest as i64 + 30) * 1000
    }

    /// One attempt: what to record and what to tell.
    async fn deliver(&self, item: Claimed) -> (Recorded, Outcome) {
        let n = &item.notification;
        let (id, attempts) = (n.id, n.attempts);
        let result = self.channels.send(&item).await;
        match result {
            Ok(()) => {
                tracing::debug!(id, channel = n.channel.name(), "notification sent");
                (
                    Recorded::Sent {
                        id,
                        at_ms: now_ms(),
                    },
                    Outcome {
                        id,
                        failure: None,
                        will_retry: false,
                    },
                )
            }
            Err(f) => {
                let retry = !f.permanent && attempts < self.config.max_attempts;
                let at = retry.then(|| {
                    now_ms()
                        + retry_delay_ms(
                            attempts,
                            self.config.retry_first_secs,
                            self.config.retry_max_secs,
                        )
                });
                tracing::warn!(id, attempts, retry, reason = %f.reason, "notification not delivered");
                (
                    Recorded::Failed {
                        id,
                        reason: f.reason.clone(),
                        retry_at_ms: at,
                    },
                    Outcome {
                        id,
                        failure: Some(f.reason),
                        will_retry: retry,
                    },
                )
            }
        }
    }

    /// Records the outcomes in one transaction (one statement), then tells them (a caller
    /// told an outcome finds it recorded).
    async fn record(&self, batch: Vec<(Recorded, Outcome)>) {
        let (records, outcomes): (Vec<Recorded>, Vec<Outcome>) = batch.into_iter().unzip();
        let count = records.len();
        if let Err(e) = self.store.record_outcomes(records).await {
            tracing::error!(count, error = %e, "outbox: cannot record what became of notifications");
        }
        for outcome in outcomes {
            let _ = self.notifier.inner.outcomes.send(outcome);
        }
    }
}
