//! Delivery: the sender that empties the outbox (`store::outbox`), e-mail over SMTP
//! ([`smtp`]), SMS and voice through the site's HTTP gateway ([`gateway`]), and the chat
//! and webhook channels (generic JSON, Microsoft Teams, Slack, Mattermost: [`webhook`]).
//!
//! The sender leases due notifications, delivers up to `notify.concurrency` at a time (at
//! most `notify.per_destination` to one mail server, gateway or webhook host), and marks
//! each sent, due again after a back-off (`retry_first_secs`, doubling, at most
//! `retry_max_secs`, or the receiver's `Retry-After` within the same bound), or failed with
//! the reason after `max_attempts` or a refusal that no retry can heal. Each delivery goes on
//! its own: the sender leases again as soon as a slot is free, so a notification queued
//! while a receiver hangs is sent at once (only that receiver's slots wait for it). A channel
//! without a server fails at once with a reason that says so, and the others still go. It
//! wakes when told ([`Notifier::wake`]) and otherwise looks every `poll_ms`. At start it
//! takes back the leases a killed process left, so nothing queued is lost.

pub mod escalations;
pub mod gateway;
pub mod jobs;
pub mod reports;
pub mod smtp;
pub mod tickets;
pub mod webhook;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::{broadcast, mpsc, Notify, Semaphore};

use crate::clock::now_ms;
use crate::config::{Config, NotifyConfig};
use crate::domain::delivery::{next_attempt_delay_ms, ReasonCode};
use crate::domain::distribution::ContactType;
use crate::store::outbox::{Claimed, Recorded};
use crate::store::{Store, StoreResult};

/// Why an attempt failed, and whether trying again can help.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// In English, for the log and the clients that do not know the code; never a secret
    /// (a webhook's path, a gateway's query, a password).
    pub reason: String,
    pub code: ReasonCode,
    pub permanent: bool,
    /// The receiver's `Retry-After` (429, 503), in seconds.
    pub retry_after_secs: Option<u64>,
}

impl Failure {
    pub fn new(code: ReasonCode, reason: String, permanent: bool) -> Failure {
        Failure {
            reason,
            code,
            permanent,
            retry_after_secs: None,
        }
    }
}

/// A request that got no answer, as a failure of `who` (`Slack webhook https://host/…`,
/// `notify.sms gateway https://host/path`): a refused certificate fails at once, naming
/// `section`'s keys; a time-out or a closed port is tried again. The URL is never in the
/// reason (reqwest's own text carries it whole, secret path and query included).
pub(crate) fn request_failure(e: reqwest::Error, who: &str, section: &str) -> Failure {
    let e = e.without_url();
    if let Some(why) = crate::trust::untrusted(&e) {
        return Failure::new(
            ReasonCode::UntrustedCertificate,
            format!("{who}: {}", crate::trust::untrusted_reason(section, &why)),
            true,
        );
    }
    let (code, what) = if e.is_timeout() {
        (ReasonCode::Timeout, "timed out")
    } else if e.is_connect() {
        (ReasonCode::Unreachable, "cannot be reached")
    } else {
        (ReasonCode::Failed, "failed")
    };
    Failure::new(
        code,
        format!("{who} {what}: {}", crate::trust::describe(&e)),
        false,
    )
}

/// A receiver's answer that is not 2xx, as a failure of `who`: 401, 403, 404 and the other
/// 4xx but 408 and 429 fail at once (`contact` and `auth` name what to fix); 429 and 503
/// are tried again after their `Retry-After` when given. The body is not quoted: it is the
/// receiver's, and a test message would turn cxwatch into a reader of internal pages.
pub(crate) fn status_failure(
    resp: &reqwest::Response,
    who: &str,
    contact: &str,
    auth: &str,
) -> Failure {
    let status = resp.status();
    let (code, permanent) = crate::domain::delivery::http_failure(status.as_u16());
    let retry_after_secs = matches!(status.as_u16(), 429 | 503)
        .then(|| {
            resp.headers()
                .get(reqwest::header::RETRY_AFTER)
                .and_then(|v| v.to_str().ok())
                .and_then(|v| crate::domain::delivery::retry_after_secs(v, chrono::Utc::now()))
        })
        .flatten();
    let code = if status.as_u16() == 503 && retry_after_secs.is_some() {
        ReasonCode::RateLimited
    } else {
        code
    };
    Failure {
        reason: format!(
            "{who} answered {status}{}",
            crate::domain::delivery::http_advice(status.as_u16(), contact, auth)
        ),
        code,
        permanent,
        retry_after_secs,
    }
}

/// What became of one attempt (for callers waiting on it, e.g. a Confirm).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    pub id: i64,
    /// `None` when delivered.
    pub failure: Option<String>,
    /// The failure's code (`ReasonCode::as_stored`).
    pub code: Option<String>,
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
        let (done, outcomes) = mpsc::unbounded_channel();
        let sender = Sender {
            shared: Arc::new(Shared {
                store,
                config: config.notify.clone(),
                channels,
                notifier: notifier.clone(),
                slots: Arc::new(Semaphore::new(config.notify.concurrency)),
                busy: Mutex::new(HashMap::new()),
                freed: Notify::new(),
                done,
            }),
        };
        tokio::spawn(sender.shared.clone().recorder(outcomes));
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
        let unconfigured = || Failure::new(ReasonCode::NotConfigured, not_configured(kind), true);
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
    shared: Arc<Shared>,
}

/// What the sender's loop and its delivery tasks share.
struct Shared {
    store: Store,
    config: NotifyConfig,
    channels: Channels,
    notifier: Notifier,
    /// One permit per delivery under way (`notify.concurrency`).
    slots: Arc<Semaphore>,
    /// Deliveries under way per destination (`Claimed::dest`), at most
    /// `notify.per_destination` each.
    busy: Mutex<HashMap<String, usize>>,
    /// Told when a delivery ends (a slot is free).
    freed: Notify,
    /// The outcomes, to the recorder's group commit.
    done: mpsc::UnboundedSender<(Recorded, Outcome)>,
}

#[async_trait::async_trait]
impl jobs::Queue for Sender {
    type Job = Claimed;
    const LEASE: &'static str = "notify";

    fn store(&self) -> &Store {
        &self.shared.store
    }

    fn poll_ms(&self) -> u64 {
        self.shared.config.poll_ms
    }

    /// Only the lease's holder sends from this database: the rows leased by an instance
    /// that died (or lost its lease) are void and due again. This instance's own
    /// deliveries (a lease lost and taken back) end first, so none is sent twice.
    async fn resume(&self) {
        let s = &self.shared;
        while s.slots.available_permits() < s.config.concurrency {
            let freed = s.freed.notified();
            if s.slots.available_permits() >= s.config.concurrency {
                break;
            }
            let _ = tokio::time::timeout(Duration::from_millis(s.config.poll_ms), freed).await;
        }
        if let Err(e) = s.store.release_leases().await {
            tracing::error!(error = %e, "outbox: cannot take back old leases");
        }
    }

    /// The next due row whose destination has a free slot: a row waiting for a busy
    /// receiver is leased when one of its deliveries ends (which wakes the sender).
    async fn next_due_ms(&self) -> StoreResult<Option<i64>> {
        self.shared
            .store
            .next_due_ms_except(&self.shared.busy_now())
            .await
    }

    /// Waits for a free slot, then leases as many due rows as there are free slots, none
    /// for a destination whose slots are all taken.
    async fn claim(&self, now_ms: i64) -> StoreResult<Vec<Claimed>> {
        let s = &self.shared;
        s.fail_unsendable(now_ms).await?;
        loop {
            let freed = s.freed.notified();
            if s.slots.available_permits() > 0 {
                break;
            }
            freed.await;
        }
        let free = s.slots.available_permits().min(1000) as u32;
        s.store
            .claim_due(now_ms, s.lease_ms(), free, &s.busy_now())
            .await
    }

    /// Starts each delivery on its own task and returns: the loop leases again while they
    /// run. A row whose destination filled up meanwhile (several of one host in a lease)
    /// is given back unattempted.
    async fn work(&self, claimed: Vec<Claimed>) {
        let s = &self.shared;
        let mut back = Vec::new();
        for item in claimed {
            let permit = {
                let mut busy = s.busy.lock().expect("busy map");
                let n = busy.entry(item.dest.clone()).or_insert(0);
                if *n >= s.config.per_destination {
                    None
                } else {
                    match s.slots.clone().try_acquire_owned() {
                        Ok(p) => {
                            *n += 1;
                            Some(p)
                        }
                        Err(_) => None,
                    }
                }
            };
            let Some(permit) = permit else {
                back.push(item.notification.id);
                continue;
            };
            let shared = s.clone();
            tokio::spawn(async move {
                let dest = item.dest.clone();
                let outcome = shared.deliver(item).await;
                let _ = shared.done.send(outcome);
                let was_full = {
                    let mut busy = shared.busy.lock().expect("busy map");
                    let n = busy.entry(dest.clone()).or_insert(1);
                    let full = *n >= shared.config.per_destination;
                    *n = n.saturating_sub(1);
                    if *n == 0 {
                        busy.remove(&dest);
                    }
                    full
                };
                let all_taken = shared.slots.available_permits() == 0;
                drop(permit);
                shared.freed.notify_one();
                if was_full || all_taken {
                    // Rows may wait for this destination or for any slot: look again.
                    shared.notifier.wake();
                }
            });
        }
        if !back.is_empty() {
            if let Err(e) = s.store.unclaim(back).await {
                tracing::error!(error = %e, "outbox: cannot give back leased notifications");
            }
        }
    }

    /// Until the time is up or a cause queues something (`Notifier::wake`).
    async fn wait(&self, ms: u64) {
        tokio::select! {
            _ = self.shared.notifier.inner.wake.notified() => {}
            _ = tokio::time::sleep(Duration::from_millis(ms)) => {}
        }
    }
}

impl Shared {
    /// How long a lease lasts: longer than any attempt can take (each SMTP step and the
    /// gateway request have their own time-outs; a leased row starts at once).
    fn lease_ms(&self) -> i64 {
        let c = &self.config;
        let longest = (c.smtp.timeout_secs * 6)
            .max(c.sms.timeout_secs * 2)
            .max(c.voice.timeout_secs * 2)
            .max(c.webhook.timeout_secs * 2);
        (longest as i64 + 30) * 1000
    }

    /// Fails at once, in one statement, the due rows of the channels without a server: each
    /// would otherwise take a slot, a lease and a commit of its own only to fail the same
    /// way, and in a storm keep the slots from the channels that reach someone.
    async fn fail_unsendable(&self, now_ms: i64) -> StoreResult<()> {
        let unsendable: Vec<(ContactType, String)> = self
            .notifier
            .inner
            .configured
            .iter()
            .filter(|(_, ok)| !ok)
            .map(|(kind, _)| (*kind, not_configured(*kind)))
            .collect();
        let code = ReasonCode::NotConfigured.as_stored();
        let failed = self
            .store
            .fail_unsendable(now_ms, &unsendable, &code)
            .await?;
        let mut by_channel: HashMap<ContactType, usize> = HashMap::new();
        for (id, kind) in failed {
            *by_channel.entry(kind).or_default() += 1;
            let _ = self.notifier.inner.outcomes.send(Outcome {
                id,
                failure: Some(not_configured(kind)),
                code: Some(code.clone()),
                will_retry: false,
            });
        }
        for (kind, count) in by_channel {
            tracing::warn!(channel = kind.name(), count, code = %code, "notifications not delivered: {}", not_configured(kind));
        }
        Ok(())
    }

    /// The destinations whose slots are all taken.
    fn busy_now(&self) -> Vec<String> {
        let busy = self.busy.lock().expect("busy map");
        busy.iter()
            .filter(|(_, n)| **n >= self.config.per_destination)
            .map(|(d, _)| d.clone())
            .collect()
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
                        code: None,
                        will_retry: false,
                    },
                )
            }
            Err(f) => {
                let retry = !f.permanent && attempts < self.config.max_attempts;
                let at = retry.then(|| {
                    now_ms()
                        + next_attempt_delay_ms(
                            attempts,
                            self.config.retry_first_secs,
                            self.config.retry_max_secs,
                            f.retry_after_secs,
                        )
                });
                let code = f.code.as_stored();
                tracing::warn!(id, attempts, retry, code = %code, reason = %f.reason, "notification not delivered");
                (
                    Recorded::Failed {
                        id,
                        reason: f.reason.clone(),
                        code: code.clone(),
                        retry_at_ms: at,
                    },
                    Outcome {
                        id,
                        failure: Some(f.reason),
                        code: Some(code),
                        will_retry: retry,
                    },
                )
            }
        }
    }

    /// Records the outcomes as they come: the first at once, in a transaction of its own,
    /// and those that come in while it is written together in the next one (one commit per
    /// notification made the sender PostgreSQL's main writer). An outcome waits for no
    /// other delivery, so a `kill -9` leaves at most the outcomes of one commit unrecorded:
    /// their rows are delivered again when their lease runs out.
    async fn recorder(self: Arc<Self>, mut outcomes: mpsc::UnboundedReceiver<(Recorded, Outcome)>) {
        while let Some(first) = outcomes.recv().await {
            let mut batch = vec![first];
            while let Ok(more) = outcomes.try_recv() {
                batch.push(more);
            }
            self.record(batch).await;
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
