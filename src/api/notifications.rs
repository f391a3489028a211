//! `api/notifications`: the outbox as the screens read it: each notification's state
//! (`queued`, `sent`, `failed`), attempts and the reason of the last failure
//! (administrators).

use chrono::{TimeZone, Utc};
use poem::web::Data;
use poem_openapi::param::{Path, Query};
use poem_openapi::payload::Json;
use poem_openapi::{Object, OpenApi};

use super::envelope::fails::*;
use super::envelope::{Answer, ApiError, Envelope, Page};
use super::guard::Auth;
use super::lenient::{Filter, OneOf};
use super::params;
use super::AppState;
use crate::domain::caller::Need;
use crate::domain::delivery::{masked_recipient, ReasonCode};
use crate::domain::distribution::ContactType;
use crate::domain::notify::{Notification as DomainNotification, NotificationState};
use crate::domain::rules::{Problems, Rule};
use crate::store::outbox::NotificationFilter;

pub struct NotificationsApi;

const PAGE_SIZE: u32 = 10;

/// One message to one contact.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct Notification {
    pub id: i64,
    /// Unique per notification: the e-mail's Message-ID, the gateway's `{key}`.
    pub key: String,
    /// Contact type id: 1 Email, 2 SMS, 4 Voice.
    #[oai(rename = "type")]
    pub kind: i64,
    /// The e-mail address, number or webhook URL (administrators). Others get a webhook's
    /// scheme and host (`https://hooks.example.com/…`) and nothing of an address or number
    /// (`recipientHidden`): the list's name and the channel stand for them.
    pub recipient: String,
    /// The recipient is masked for this caller.
    pub recipient_hidden: bool,
    pub subject: String,
    /// What caused it: `testContact`, `alert:{id}`, …
    pub cause: String,
    pub state: NotificationState,
    /// Attempts made so far.
    pub attempts: u32,
    /// Why the last attempt failed (also while queued for a retry), in English
    /// (administrators; null for others).
    #[oai(nullable)]
    pub reason: Option<String>,
    /// The same as a stable code the console words in the reader's language:
    /// `untrusted_certificate`, `http_status` (with `reasonStatus`), `rate_limited`,
    /// `timeout`, `unreachable`, `bad_address`, `authentication_failed`, `mail_refused`,
    /// `mail_deferred`, `not_configured`, `blocked_host`, `failed`.
    #[oai(nullable)]
    pub reason_code: Option<String>,
    /// The HTTP status of an `http_status` reason.
    #[oai(nullable)]
    pub reason_status: Option<u16>,
    /// RFC 3339, UTC.
    pub created_time: String,
    /// When it is tried next (queued only).
    #[oai(nullable)]
    pub next_attempt_time: Option<String>,
    #[oai(nullable)]
    pub sent_time: Option<String>,
}

fn time_ms(ms: i64) -> Option<String> {
    Utc.timestamp_millis_opt(ms).single().map(params::time)
}

/// A reason's code and status as answered (`reasonCode`, `reasonStatus`); a reason stored
/// before codes were is `failed`.
pub fn reason_code(code: Option<&str>, reason: Option<&str>) -> (Option<String>, Option<u16>) {
    match (code, reason) {
        (Some(c), _) => {
            let c = ReasonCode::parse(c);
            (Some(c.name().to_string()), c.status())
        }
        (None, Some(_)) => (Some(ReasonCode::Failed.name().to_string()), None),
        (None, None) => (None, None),
    }
}

impl Notification {
    /// As a caller who is not an administrator sees it: no address, number or webhook path,
    /// no English reason (which may quote them); the reason's code stays.
    pub fn masked(mut self) -> Self {
        let channel = ContactType::of_id(self.kind).unwrap_or(ContactType::Email);
        self.recipient = masked_recipient(channel, &self.recipient);
        self.recipient_hidden = true;
        self.reason = None;
        self
    }
}

impl From<DomainNotification> for Notification {
    fn from(n: DomainNotification) -> Self {
        let (reason_code, reason_status) =
            reason_code(n.reason_code.as_deref(), n.reason.as_deref());
        Notification {
            id: n.id,
            key: n.key,
            kind: n.channel.id(),
            recipient: n.recipient,
            recipient_hidden: false,
            subject: n.subject,
            cause: n.cause,
            state: n.state,
            attempts: n.attempts,
            reason: n.reason,
            reason_code,
            reason_status,
            created_time: time_ms(n.created_ms).unwrap_or_default(),
            next_attempt_time: (n.state == NotificationState::Queued)
                .then(|| time_ms(n.next_ms))
                .flatten(),
            sent_time: n.sent_ms.and_then(time_ms),
        }
    }
}

#[OpenApi(prefix_path = "/notifications", tag = "super::ApiTags::Notifications")]
impl NotificationsApi {
    /// Notifications, newest first (administrators).
    #[oai(path = "/", method = "get", operation_id = "listNotifications")]
    async fn list(
        &self,
        auth: Auth,
        state: Data<&AppState>,
        /// Page number, 0-based (default 0).
        #[oai(name = "pageNo")]
        page_no: Query<Option<params::PageNo>>,
        /// Notifications per page, 1 to 1000 (default 10).
        #[oai(name = "pageSize")]
        page_size: Query<Option<params::PageSize>>,
        /// Only those of this cause (`testContact`, `alert:{id}`).
        cause: Query<Option<Filter>>,
        /// Only those in this state.
        #[oai(name = "state")]
        only: Query<Option<OneOf<NotificationState>>>,
    ) -> Answer<Json<Envelope<Page<Notification>>>, { BAD_REQUEST | FORBIDDEN | INTERNAL }> {
        auth.require(Need::Admin)?;
        let mut p = Problems::default();
        let page = params::paging(
            params::value(page_no.0),
            params::value(page_size.0),
            PAGE_SIZE,
            &mut p,
        );
        let st = only.0.as_deref().filter(|s| !s.is_empty()).and_then(|s| {
            NotificationState::parse(s).or_else(|| {
                p.push(
                    "state",
                    Rule::Invalid,
                    format!("state {s:?} is not queued, sent or failed."),
                );
                None
            })
        });
        p.check()?;
        let page = page.ok_or_else(|| ApiError::bad_request("Bad paging."))?;
        let filter = NotificationFilter {
            cause: cause.0.map(Filter::into_string).filter(|c| !c.is_empty()),
            state: st,
        };
        Ok(Page::ok(
            state.store.list_notifications(page, &filter).await?,
        ))
    }

    /// One notification and its state.
    #[oai(path = "/:id", method = "get", operation_id = "getNotification")]
    async fn get(
        &self,
        auth: Auth,
        state: Data<&AppState>,
        id: Path<i64>,
    ) -> Answer<Json<Envelope<Notification>>, { FORBIDDEN | NOT_FOUND | INTERNAL }> {
        auth.require(Need::Admin)?;
        let n =
            state.store.notification(id.0).await?.ok_or_else(|| {
                ApiError::not_found(format!("Notification {} does not exist.", id.0))
            })?;
        Ok(Envelope::ok(n.into()))
    }
}
