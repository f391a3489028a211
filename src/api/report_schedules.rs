//! `api/reports/{id}/schedule`: scheduled report mail, cxwatch's
//! addition to the spec (the vendor's API has no schedules; the console offers them only on
//! cxwatch's own API). A caller who sees the report reads its schedule; administrators with
//! read-write access set and remove it (it mails a distribution list, theirs to manage);
//! any caller with read-write access who sees the report sends a copy to themself now.

use std::time::Duration;

use chrono::Utc;
use poem::web::Data;
use poem_openapi::param::Path;
use poem_openapi::payload::Json;
use poem_openapi::{Object, OpenApi};

use super::envelope::fails::*;
use super::envelope::{Answer, ApiError, ApiResult, Envelope, ErrorCode};
use super::guard::Auth;
use super::lenient::{OneOf, OptionalJson, Required, Text, TextRule};
use super::params;
use super::AppState;
use crate::domain::caller::{Caller, Need};
use crate::domain::distribution::ContactType;
use crate::domain::notify::{NewNotification, NotificationState};
use crate::domain::report::{today_in, Report as DomainReport};
use crate::domain::report_mail::Origin;
use crate::domain::report_schedule::{
    check_schedule, format_time, next_slot, Frequency, Language, Schedule, ScheduleInput,
};
use crate::domain::rules::{check_email, Problems};
use crate::notify::reports::{render, send_now_wait};
use crate::store::StoreError;

pub struct ReportSchedulesApi;

/// A report's delivery schedule and the state of its deliveries.
#[derive(Debug, Clone, Object)]
#[oai(rename_all = "camelCase")]
pub struct ReportSchedule {
    /// `daily`, `weekly` or `monthly`.
    pub frequency: Frequency,
    /// Local time of the site, `HH:MM`.
    pub time: String,
    /// 1 (Monday) to 7 (Sunday): the day of a weekly schedule.
    pub day_of_week: u32,
    /// 1 to 31: the day of a monthly schedule (the month's last day when it is shorter).
    pub day_of_month: u32,
    #[oai(rename = "distributionID")]
    pub distribution_id: i64,
    pub distribution_name: String,
    /// The mail's language: `en` or `fr`.
    pub language: Language,
    /// Paused schedules send nothing.
    pub active: bool,
    /// RFC 3339 UTC of the next delivery (null when paused).
    #[oai(nullable)]
    pub next_delivery: Option<String>,
    /// RFC 3339 UTC of the last slot delivered (null before the first).
    #[oai(nullable)]
    pub last_delivery: Option<String>,
    /// What became of the last delivery's messages: `queued`, `sent`, or `failed` when any
    /// contact's failed (null before the first).
    #[oai(nullable)]
    pub last_outcome: Option<NotificationState>,
}

impl From<Schedule> for ReportSchedule {
    fn from(s: Schedule) -> Self {
        let time = |ms: i64| {
            chrono::DateTime::<Utc>::from_timestamp_millis(ms)
                .map(params::time)
                .unwrap_or_default()
        };
        ReportSchedule {
            frequency: s.draft.cadence.frequency,
            time: format_time(s.draft.cadence.minute),
            day_of_week: s.draft.cadence.weekday,
            day_of_month: s.draft.cadence.month_day,
            distribution_id: s.draft.distribution_id,
            distribution_name: s.distribution_name,
            language: s.draft.language,
            active: s.draft.active,
            next_delivery: s.next_ms.map(time),
            last_delivery: s.last_slot_ms.map(time),
            last_outcome: s.last_state.as_deref().and_then(NotificationState::parse),
        }
    }
}

/// The envelope of `GET reports/{id}/schedule`: the generic [`Envelope`]'s shape with a
/// `data` the document marks nullable, since a report without a schedule answers `null`
/// (the console reads it as 'no schedule'; the report exists, so not a 404).
#[derive(Debug, Object)]
pub struct MaybeSchedule {
    /// `OK`.
    pub code: String,
    /// The schedule, null when the report has none.
    #[oai(nullable)]
    pub data: Option<ReportSchedule>,
    /// Informational messages (usually empty).
    pub messages: Vec<String>,
}

/// Body of `PUT reports/{id}/schedule`. Checked in the form's order: frequency, time, day
/// (of the week for weekly, of the month for monthly), distribution list, language.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct ScheduleSave {
    /// `daily`, `weekly` or `monthly`.
    pub frequency: Required<OneOf<Frequency>>,
    /// `HH:MM`, the site's local time.
    pub time: Required<Text<TimeOfDay>>,
    /// 1 (Monday) to 7 (Sunday), required for weekly.
    #[oai(nullable)]
    pub day_of_week: Option<params::Ranged<1, 7>>,
    /// 1 to 31, required for monthly.
    #[oai(nullable)]
    pub day_of_month: Option<params::Ranged<1, 31>>,
    /// A distribution list.
    #[oai(rename = "distributionID")]
    pub distribution_id: Required<params::Id>,
    /// `en` (default) or `fr`.
    #[oai(nullable)]
    pub language: Option<OneOf<Language>>,
    /// Default true.
    #[oai(nullable)]
    pub active: Option<bool>,
}

/// `time` of a schedule: `HH:MM`, 00:00 to 23:59.
pub struct TimeOfDay;

impl TextRule for TimeOfDay {
    const NAME: &'static str = "string(HH:MM)";
    const PATTERN: Option<&'static str> = Some("^([01][0-9]|2[0-3]):[0-5][0-9]$");
}

/// Body of `POST reports/{id}/schedule/send`, which may be left out (or empty).
#[derive(Debug, Default, Object)]
pub struct SendNowRequest {
    /// The copy's language: `en` or `fr` (default: the schedule's, else `en`).
    #[oai(nullable)]
    pub language: Option<OneOf<Language>>,
}

/// What became of a copy sent now.
#[derive(Debug, Object)]
pub struct SendNowResult {
    /// The notification in the outbox (`GET notifications/{id}`).
    pub id: i64,
    /// `sent`.
    pub state: NotificationState,
    /// The address it went to: the caller's user name.
    pub to: String,
}

async fn visible(state: &AppState, caller: &Caller, id: i64) -> ApiResult<DomainReport> {
    let v = state.store.report(caller.scope(), id).await?;
    params::visible(v, format_args!("Report {id}"))
}

fn random_key() -> String {
    use rand::RngCore;
    let mut b = [0u8; 12];
    rand::thread_rng().fill_bytes(&mut b);
    hex::encode(b)
}

#[OpenApi(prefix_path = "/reports", tag = "super::ApiTags::Reports")]
impl ReportSchedulesApi {
    /// A report's delivery schedule (null when it has none), with its next and last
    /// delivery.
    #[oai(
        path = "/:id/schedule",
        method = "get",
        operation_id = "getReportSchedule"
    )]
    async fn get(
        &self,
        auth: Auth,
        state: Data<&AppState>,
        id: Path<i64>,
    ) -> Answer<Json<MaybeSchedule>, { FORBIDDEN | NOT_FOUND | INTERNAL }> {
        let caller = auth.require(Need::SignedIn)?;
        visible(&state, caller, id.0).await?;
        let s = state.store.report_schedule(id.0).await?;
        Ok(Json(MaybeSchedule {
            code: "OK".into(),
            data: s.map(ReportSchedule::from),
            messages: Vec::new(),
        }))
    }

    /// Sets a report's schedule (administrators with read-write access): the next delivery
    /// is the first slot from now, in the site's time zone.
    #[oai(
        path = "/:id/schedule",
        method = "put",
        operation_id = "setReportSchedule"
    )]
    async fn put(
        &self,
        auth: Auth,
        state: Data<&AppState>,
        id: Path<i64>,
        body: Json<ScheduleSave>,
    ) -> Answer<Json<Envelope<ReportSchedule>>, { BAD_REQUEST | FORBIDDEN | NOT_FOUND | INTERNAL }>
    {
        let caller = auth.require(Need::AdminWrite)?;
        visible(&state, caller, id.0).await?;
        let b = &body.0;
        let mut p = Problems::default();
        let draft = check_schedule(
            &mut p,
            &ScheduleInput {
                frequency: b.frequency.as_deref(),
                time: b.time.as_deref(),
                day_of_week: b.day_of_week.map(|d| d.0),
                day_of_month: b.day_of_month.map(|d| d.0),
                distribution_id: b.distribution_id.map(|d| d.0),
                language: b.language.as_deref(),
                active: b.active,
            },
        );
        p.check()?;
        let draft = draft.ok_or_else(|| ApiError::bad_request("Bad schedule."))?;
        let next =
            next_slot(&draft.cadence, state.config.tz(), crate::clock::now()).timestamp_millis();
        match state.store.set_report_schedule(id.0, draft, next).await {
            Ok(()) => {}
            Err(StoreError::Invalid(m)) => {
                let mut p = Problems::default();
                p.push(
                    "distributionID",
                    crate::domain::rules::Rule::Invalid,
                    m.trim_start_matches("distributionID: ").to_string(),
                );
                p.check()?;
            }
            Err(e) => return Err(e.into()),
        }
        let s = state
            .store
            .report_schedule(id.0)
            .await?
            .ok_or_else(|| ApiError::internal("the schedule just saved is missing"))?;
        Ok(Envelope::ok(s.into()))
    }

    /// Removes a report's schedule (administrators with read-write access).
    #[oai(
        path = "/:id/schedule",
        method = "delete",
        operation_id = "deleteReportSchedule"
    )]
    async fn delete(
        &self,
        auth: Auth,
        state: Data<&AppState>,
        id: Path<i64>,
    ) -> Answer<Json<Envelope<bool>>, { FORBIDDEN | NOT_FOUND | INTERNAL }> {
        let caller = auth.require(Need::AdminWrite)?;
        visible(&state, caller, id.0).await?;
        if !state.store.delete_report_schedule(id.0).await? {
            return Err(ApiError::not_found(format!("Report {} has no schedule.", id.0)).into());
        }
        Ok(Envelope::ok(true))
    }

    /// Renders the report as its schedule would now and mails a copy to the caller (their
    /// user name is their e-mail address), through the outbox; the copy says it was sent on
    /// request, not on the schedule. The body may be left out. The answer waits for the
    /// mail server: 200 when it took it, 502 with its reason when not. 409 with code
    /// `NOT_CONFIGURED` without a mail server.
    #[oai(
        path = "/:id/schedule/send",
        method = "post",
        operation_id = "sendReportNow"
    )]
    async fn send(
        &self,
        auth: Auth,
        state: Data<&AppState>,
        id: Path<i64>,
        body: OptionalJson<SendNowRequest>,
    ) -> Answer<
        Json<Envelope<SendNowResult>>,
        { BAD_REQUEST | FORBIDDEN | NOT_FOUND | CONFLICT | INTERNAL | BAD_GATEWAY },
    > {
        let caller = auth.require(Need::Write)?;
        let report = visible(&state, caller, id.0).await?;
        let mut p = Problems::default();
        let body = body.0.unwrap_or_default();
        let language = match body.language.as_deref() {
            Some(l) => Language::parse(l).or_else(|| {
                p.push(
                    "language",
                    crate::domain::rules::Rule::Invalid,
                    format!("language '{l}' is not en or fr."),
                );
                None
            }),
            None => Some(
                state
                    .store
                    .report_schedule(id.0)
                    .await?
                    .map_or(Language::En, |s| s.draft.language),
            ),
        };
        p.check()?;
        let language = language.unwrap_or(Language::En);
        let to = check_email("username", &caller.username).map_err(|_| {
            ApiError::new(
                ErrorCode::Conflict,
                vec![format!(
                    "Your user name '{}' is not an e-mail address: a copy cannot be mailed to you.",
                    caller.username
                )],
                Vec::new(),
            )
        })?;
        if !state.notifier.configured(ContactType::Email) {
            return Err(ApiError::new(
                ErrorCode::NotConfigured,
                vec![
                    "No mail server is configured (notify.smtp.host): a report cannot be mailed."
                        .into(),
                ],
                Vec::new(),
            )
            .into());
        }
        let today = today_in(state.config.tz(), crate::clock::now());
        let origin = Origin::Copy(caller.username.clone());
        let msg = render(
            &state.store,
            &state.config,
            &report,
            today,
            language,
            &origin,
        )
        .await?;
        let mut vars = std::collections::BTreeMap::new();
        vars.insert("message".into(), msg.subject.clone());
        vars.insert("link".into(), msg.link.clone());
        let n = NewNotification {
            key: format!("report-copy:{}:{}", id.0, random_key()),
            channel: ContactType::Email,
            recipient: to.clone(),
            subject: msg.subject,
            text: msg.text,
            html: msg.html,
            vars,
            attachments: msg.attachments,
            cause: format!("reportCopy:{}", id.0),
        };
        let within: Duration = send_now_wait(&state.config);
        let (nid, outcome) = state.notifier.send_one(&state.store, n, within).await?;
        match outcome {
            Some(o) => match o.failure {
                None => Ok(Envelope::ok(SendNowResult {
                    id: nid,
                    state: NotificationState::Sent,
                    to,
                })),
                Some(reason) => Err(ApiError::new(
                    ErrorCode::BadGateway,
                    vec![format!("{reason} (notification {nid})")],
                    Vec::new(),
                )
                .into()),
            },
            None => Err(ApiError::new(
                ErrorCode::BadGateway,
                vec![format!(
                    "The copy is still being sent; see notification {nid} for its state."
                )],
                Vec::new(),
            )
            .into()),
        }
    }
}
