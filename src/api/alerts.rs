//! `api/alerts/events`: alert events the engine opened (spec §2 'Alerts list', 'Alert
//! details', §3 'Alert event', 'Alert details'), newest first, filtered by the first run's
//! status, limited to the caller's groups; `api/alerts/events/open`: how many are open;
//! `PUT api/alerts/{id}` (spec §7): an event's comment and ticket key;
//! `POST api/alerts/{id}/acknowledge`: someone has it.

use poem::web::Data;
use poem_openapi::param::{Path, Query};
use poem_openapi::payload::Json;
use poem_openapi::{Object, OpenApi};

use super::envelope::fails::*;
use super::envelope::{Answer, ApiError, Envelope, Page};
use super::guard::Auth;
use super::lenient::{IntChoices, IntOf, OneOf, Required, Text, TextRule, UpTo};
use super::notifications::Notification;
use super::params;
use super::runs::RunItem;
use super::AppState;
use crate::clock::now_ms;
use crate::domain::caller::Need;
use crate::domain::opstate::{self as opstate, EventState, MuteTarget};
use crate::domain::rules::{Problems, Rule};
use crate::store::alert_life::AlertLife;
use crate::store::alerts::{AlertEvent as DomainEvent, AlertEventDetail, AlertEventFilter};
use crate::store::opstate::{HandoverItem, HandoverKind};

pub struct AlertsApi;
/// `PUT alerts/{id}`: outside `alerts/events`, where the spec puts it.
pub struct AlertUpdateApi;

/// Longest comment on an alert event, in characters.
pub const MAX_COMMENT: usize = 4000;

const PAGE_SIZE: u32 = 10;

/// A run of an event as the list shows it: its alert status.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct EventRunStatus {
    /// 3 pass, 4 warning, 7 failure.
    pub run_status_id: i64,
}

/// An alert event (spec §3 'Alert event').
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct AlertEvent {
    pub alert_id: i64,
    pub test_case_id: i64,
    pub test_case_name: String,
    /// When the event opened, RFC 3339 UTC.
    pub alert_time: String,
    pub distribution_name: String,
    /// Runs in the event (those that opened it and those that joined it).
    pub test_run_count: u64,
    /// The first run (its status gives the event's status).
    pub test_runs: Vec<EventRunStatus>,
    /// The first run's status id: 7 failure, 4 warning, 3 pass.
    pub status_id: i64,
    /// Its text: 'Failure', 'Warning', 'Pass'.
    pub status: String,
    /// Open until a passing run closes it (or its setting is deleted).
    pub open: bool,
    /// When it closed, RFC 3339 UTC.
    #[oai(skip_serializing_if_is_none)]
    pub closed_time: Option<String>,
    pub alert_setting_id: i64,
    pub alert_setting_name: String,
    pub test_case_group_id: i64,
    pub test_case_group_name: String,
    /// Who acknowledged the event (cxwatch's addition), null when nobody has.
    #[oai(nullable)]
    pub acknowledged_by: Option<String>,
    /// When it was acknowledged, RFC 3339 UTC, null when it was not.
    #[oai(nullable)]
    pub acknowledged_time: Option<String>,
    /// The incident the event belongs to (cxwatch's addition: `alerts/incidents/{id}`), null
    /// for an event opened before incidents were kept.
    #[oai(nullable)]
    pub incident_id: Option<i64>,
}

/// An event with its runs and notifications (spec §3 'Alert details').
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct AlertDetails {
    #[oai(flatten)]
    pub event: AlertEventBase,
    /// The issue-tracker ticket of the event (the tickets issue), null when none.
    #[oai(nullable)]
    pub jira_ticket: Option<String>,
    /// A user's comment on the event (`PUT alerts/{id}`), null when none.
    #[oai(nullable)]
    pub comment: Option<String>,
    /// Time of the first run, RFC 3339 UTC.
    #[oai(skip_serializing_if_is_none)]
    pub from: Option<String>,
    /// Time of the last run, RFC 3339 UTC.
    #[oai(skip_serializing_if_is_none)]
    pub to: Option<String>,
    /// The event's runs, oldest first.
    pub test_runs: Vec<RunItem>,
    /// Its notifications (`alert:{id}`, `recovery:{id}`, then `escalation:{id}`) and their
    /// state.
    pub notifications: Vec<Notification>,
    /// Who acknowledged the event (cxwatch's addition), null when nobody has.
    #[oai(nullable)]
    pub acknowledged_by: Option<String>,
    /// When it was acknowledged, RFC 3339 UTC, null when it was not.
    #[oai(nullable)]
    pub acknowledged_time: Option<String>,
    /// When the setting's escalation list was notified, RFC 3339 UTC, null when it was not.
    #[oai(nullable)]
    pub escalated_time: Option<String>,
    /// The comments on the event, oldest first.
    pub comments: Vec<AlertComment>,
    /// What happened to the event, oldest first.
    pub timeline: Vec<TimelineEntry>,
    /// The mute active now on the event's test case or its whole group (cxwatch's
    /// addition), null when none: the alert page shows it and offers extend and unmute.
    #[oai(nullable)]
    pub mute: Option<ActiveMuteItem>,
}

/// A once maintenance window active now that mutes an alert's test case or group.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct ActiveMuteItem {
    /// The window (`api/maintenance/windows/{id}`; `POST …/{id}/end` unmutes).
    pub window_id: i64,
    /// Its end, RFC 3339 UTC.
    pub until: String,
    /// Who made it.
    pub by: String,
    /// The alert it was made from, null when it was planned.
    #[oai(nullable)]
    pub alert_id: Option<i64>,
    /// What it covers: the alert's test case or its whole group.
    pub target: MuteTargetKind,
}

impl From<opstate::ActiveMute> for ActiveMuteItem {
    fn from(m: opstate::ActiveMute) -> Self {
        ActiveMuteItem {
            window_id: m.window_id,
            until: ms_time(m.until_ms),
            by: m.by,
            alert_id: m.event_id,
            target: if m.whole_group {
                MuteTargetKind::Group
            } else {
                MuteTargetKind::TestCase
            },
        }
    }
}

/// What a mute covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, poem_openapi::Enum)]
#[oai(rename_all = "camelCase")]
pub enum MuteTargetKind {
    /// The alert's test case.
    TestCase,
    /// The alert's whole test case group.
    Group,
}

/// The alert statuses an event's first run may have (spec §3 'Alert status'): failure 7,
/// pass 3, warning 4.
pub struct AlertStatusIds;

impl IntChoices for AlertStatusIds {
    const NAME: &'static str = "integer(alert status id)";
    const VALUES: &'static [i64] = &[3, 4, 7];
}

/// The alert list's state filter (cxwatch's addition).
#[derive(Debug, Clone, Copy, PartialEq, Eq, poem_openapi::Enum)]
#[oai(rename_all = "lowercase")]
pub enum AlertStateFilter {
    /// Open events.
    Open,
    /// Open events nobody acknowledged.
    Unacknowledged,
    /// Events the caller acknowledged, commented on or muted.
    Mine,
}

/// What a handover entry tells.
#[derive(Debug, Clone, Copy, PartialEq, Eq, poem_openapi::Enum)]
#[oai(rename_all = "lowercase")]
pub enum HandoverEntryKind {
    Opened,
    Acknowledged,
    Muted,
    Closed,
}

/// One thing that happened to an alert since the handover's start.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct HandoverEntry {
    pub kind: HandoverEntryKind,
    /// RFC 3339 UTC.
    pub time: String,
    pub alert_id: i64,
    pub test_case_name: String,
    pub test_case_group_id: i64,
    pub test_case_group_name: String,
    /// Who acknowledged or muted, null otherwise.
    #[oai(nullable)]
    pub by: Option<String>,
    /// Muted: until when (RFC 3339 UTC), null otherwise.
    #[oai(nullable)]
    pub until: Option<String>,
    /// Muted: the whole group (else the test case), null otherwise.
    #[oai(nullable)]
    pub target: Option<MuteTargetKind>,
}

impl From<HandoverItem> for HandoverEntry {
    fn from(i: HandoverItem) -> Self {
        let muted = i.kind == HandoverKind::Muted;
        HandoverEntry {
            kind: match i.kind {
                HandoverKind::Opened => HandoverEntryKind::Opened,
                HandoverKind::Acknowledged => HandoverEntryKind::Acknowledged,
                HandoverKind::Muted => HandoverEntryKind::Muted,
                HandoverKind::Closed => HandoverEntryKind::Closed,
            },
            time: ms_time(i.at_ms),
            alert_id: i.event_id,
            test_case_name: i.test_case_name,
            test_case_group_id: i.group_id,
            test_case_group_name: i.group_name,
            by: i.by,
            until: i.until_ms.map(ms_time),
            target: muted.then_some(if i.whole_group {
                MuteTargetKind::Group
            } else {
                MuteTargetKind::TestCase
            }),
        }
    }
}

/// Where the handover's start came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, poem_openapi::Enum)]
#[oai(rename_all = "camelCase")]
pub enum HandoverSince {
    /// `since` as asked.
    Given,
    /// The caller's sign-in before this one.
    PreviousSignIn,
    /// No previous sign-in: the last 12 hours.
    Default,
}

/// What happened to the caller's alerts from `since` to now, oldest first.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct Handover {
    /// RFC 3339 UTC.
    pub since: String,
    pub since_source: HandoverSince,
    /// Now, RFC 3339 UTC.
    pub to: String,
    pub entries: Vec<HandoverEntry>,
    /// More happened than the 500 entries listed: ask a later `since`.
    pub truncated: bool,
}

/// The handover's longest list.
const HANDOVER_MAX: usize = 500;
/// The handover's start without a previous sign-in: 12 hours ago.
const HANDOVER_DEFAULT_MS: i64 = 12 * 3_600_000;
/// The handover's earliest start: 31 days ago.
const HANDOVER_LONGEST_MS: i64 = 31 * 24 * 3_600_000;

/// A comment on an alert event.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct AlertComment {
    pub id: i64,
    /// The author's username.
    pub author: String,
    pub text: String,
    /// RFC 3339 UTC.
    pub time: String,
}

/// What a timeline entry tells.
#[derive(Debug, Clone, Copy, PartialEq, Eq, poem_openapi::Enum)]
#[oai(rename_all = "lowercase")]
pub enum TimelineKind {
    Opened,
    Notified,
    Acknowledged,
    Commented,
    Escalated,
    Recovered,
    Closed,
}

/// One thing that happened to an alert event.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct TimelineEntry {
    pub kind: TimelineKind,
    /// RFC 3339 UTC.
    pub time: String,
    /// Who (acknowledged, commented), null otherwise.
    #[oai(nullable)]
    pub by: Option<String>,
    /// The comment (commented), the distribution list (opened, escalated), null otherwise.
    #[oai(nullable)]
    pub text: Option<String>,
    /// The notification (notified): its contact, channel, cause, state and reason.
    #[oai(nullable)]
    pub notification: Option<Notification>,
}

/// The fields an event and its details share.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct AlertEventBase {
    pub alert_id: i64,
    pub test_case_id: i64,
    pub test_case_name: String,
    /// When the event opened, RFC 3339 UTC.
    pub alert_time: String,
    pub distribution_name: String,
    pub test_run_count: u64,
    /// The first run's status id: 7 failure, 4 warning, 3 pass.
    pub status_id: i64,
    /// Its text: 'Failure', 'Warning', 'Pass'.
    pub status: String,
    pub open: bool,
    /// When it closed, RFC 3339 UTC.
    #[oai(skip_serializing_if_is_none)]
    pub closed_time: Option<String>,
    pub alert_setting_id: i64,
    pub alert_setting_name: String,
    pub test_case_group_id: i64,
    pub test_case_group_name: String,
    /// The incident the event belongs to (cxwatch's addition: `alerts/incidents/{id}`), null
    /// for an event opened before incidents were kept.
    #[oai(nullable)]
    pub incident_id: Option<i64>,
}

/// How many events are open (the shell's Alerts entry).
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct OpenAlerts {
    pub open: i64,
}

impl From<DomainEvent> for AlertEventBase {
    fn from(e: DomainEvent) -> Self {
        AlertEventBase {
            alert_id: e.id,
            test_case_id: e.test_case_id,
            test_case_name: e.test_case_name,
            alert_time: params::time(e.alert_time),
            distribution_name: e.distribution_name,
            test_run_count: e.run_count,
            status_id: e.status_id,
            status: e.status_text,
            open: e.open,
            closed_time: e.closed_time.map(params::time),
            alert_setting_id: e.setting_id,
            alert_setting_name: e.setting_name,
            test_case_group_id: e.group_id,
            test_case_group_name: e.group_name,
            incident_id: e.incident_id,
        }
    }
}

impl From<DomainEvent> for AlertEvent {
    fn from(e: DomainEvent) -> Self {
        let b = AlertEventBase::from(e);
        AlertEvent {
            test_runs: vec![EventRunStatus {
                run_status_id: b.status_id,
            }],
            alert_id: b.alert_id,
            test_case_id: b.test_case_id,
            test_case_name: b.test_case_name,
            alert_time: b.alert_time,
            distribution_name: b.distribution_name,
            test_run_count: b.test_run_count,
            status_id: b.status_id,
            status: b.status,
            open: b.open,
            closed_time: b.closed_time,
            alert_setting_id: b.alert_setting_id,
            alert_setting_name: b.alert_setting_name,
            test_case_group_id: b.test_case_group_id,
            test_case_group_name: b.test_case_group_name,
            acknowledged_by: None,
            acknowledged_time: None,
            incident_id: b.incident_id,
        }
    }
}

pub(super) fn ms_time(ms: i64) -> String {
    chrono::DateTime::<chrono::Utc>::from_timestamp_millis(ms)
        .map(params::time)
        .unwrap_or_default()
}

/// The event's timeline, oldest first (ties in the order things happen: opened, notified,
/// acknowledged, commented, escalated, recovered or closed). A closed event whose setting
/// still exists recovered (a passing run closed it); one whose setting was deleted closed.
fn timeline(d: &AlertEventDetail, life: &AlertLife, show: Recipients) -> Vec<TimelineEntry> {
    let e = &d.event;
    let mut out: Vec<(i64, u8, TimelineEntry)> = Vec::new();
    let entry = |kind, ms: i64, by: Option<String>, text: Option<String>| TimelineEntry {
        kind,
        time: ms_time(ms),
        by,
        text,
        notification: None,
    };
    let opened = e.alert_time.timestamp_millis();
    out.push((
        opened,
        0,
        entry(
            TimelineKind::Opened,
            opened,
            None,
            Some(e.distribution_name.clone()),
        ),
    ));
    for n in d.notifications.iter().chain(&life.escalations) {
        let ms = n.sent_ms.unwrap_or(n.created_ms);
        let mut t = entry(TimelineKind::Notified, ms, None, None);
        t.notification = Some(show.apply(Notification::from(n.clone())));
        out.push((ms, 1, t));
    }
    if let Some(a) = &life.ack {
        out.push((
            a.at_ms,
            2,
            entry(
                TimelineKind::Acknowledged,
                a.at_ms,
                Some(a.by.clone()),
                None,
            ),
        ));
    }
    for c in &life.comments {
        out.push((
            c.at_ms,
            3,
            entry(
                TimelineKind::Commented,
                c.at_ms,
                Some(c.author.clone()),
                Some(c.text.clone()),
            ),
        ));
    }
    if let Some(ms) = life.escalated_ms {
        out.push((ms, 0, entry(TimelineKind::Escalated, ms, None, None)));
    }
    if let (false, Some(closed)) = (e.open, e.closed_time) {
        // A pass closes an event without joining it; deleting the setting closes it too.
        let kind = if life.setting_exists {
            TimelineKind::Recovered
        } else {
            TimelineKind::Closed
        };
        let ms = closed.timestamp_millis();
        out.push((ms, 4, entry(kind, ms, None, None)));
    }
    out.sort_by_key(|(ms, order, _)| (*ms, *order));
    out.into_iter().map(|(_, _, t)| t).collect()
}

/// Whether a caller sees each notification's recipient and reason: administrators do
/// (outside a kiosk session, a wall anyone may read); others see the list's name, the
/// channel, the outcome and its code, and a webhook's scheme and host at most.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Recipients {
    Shown,
    Masked,
}

impl Recipients {
    fn for_caller(caller: &crate::domain::caller::Caller) -> Recipients {
        if caller.require(Need::Admin).is_ok() && !caller.kiosk {
            Recipients::Shown
        } else {
            Recipients::Masked
        }
    }

    fn apply(self, n: Notification) -> Notification {
        match self {
            Recipients::Shown => n,
            Recipients::Masked => n.masked(),
        }
    }
}

impl AlertDetails {
    fn of(
        d: AlertEventDetail,
        life: AlertLife,
        mute: Option<opstate::ActiveMute>,
        show: Recipients,
    ) -> Self {
        let timeline = timeline(&d, &life, show);
        let jira_ticket = d.event.jira_ticket.clone();
        let comment = d.event.comment.clone();
        let from = d.runs.first().map(|r| params::time(r.run_time));
        let to = d.runs.last().map(|r| params::time(r.run_time));
        AlertDetails {
            event: d.event.into(),
            jira_ticket,
            comment,
            from,
            to,
            test_runs: d.runs.into_iter().map(RunItem::from).collect(),
            notifications: d
                .notifications
                .into_iter()
                .chain(life.escalations)
                .map(|n| show.apply(Notification::from(n)))
                .collect(),
            acknowledged_by: life.ack.as_ref().map(|a| a.by.clone()),
            acknowledged_time: life.ack.as_ref().map(|a| ms_time(a.at_ms)),
            escalated_time: life.escalated_ms.map(ms_time),
            comments: life
                .comments
                .into_iter()
                .map(|c| AlertComment {
                    id: c.id,
                    author: c.author,
                    text: c.text,
                    time: ms_time(c.at_ms),
                })
                .collect(),
            timeline,
            mute: mute.map(ActiveMuteItem::from),
        }
    }
}

/// Event `id` with its life, as `GET alerts/events/{id}` answers it.
async fn details(
    state: &AppState,
    caller: &crate::domain::caller::Caller,
    id: i64,
) -> Result<AlertDetails, ApiError> {
    let v = state.store.alert_event(caller.scope(), id).await?;
    let d = params::visible(v, format_args!("Alert event {id}"))?;
    let life = state.store.alert_life(id).await?;
    let mute = if d.event.open {
        state
            .store
            .active_mute(d.event.test_case_id, d.event.group_id, now_ms())
            .await?
    } else {
        None
    };
    Ok(AlertDetails::of(
        d,
        life,
        mute,
        Recipients::for_caller(caller),
    ))
}

#[OpenApi(prefix_path = "/alerts/events", tag = "super::ApiTags::Alerts")]
impl AlertsApi {
    /// Alert events of the caller's groups, newest first.
    #[oai(path = "/", method = "get", operation_id = "listAlertEvents")]
    async fn list(
        &self,
        auth: Auth,
        state: Data<&AppState>,
        /// Page number, 0-based (default 0).
        #[oai(name = "pageNo")]
        page_no: Query<Option<params::PageNo>>,
        /// Events per page, 1 to 1000 (default 10).
        #[oai(name = "pageSize")]
        page_size: Query<Option<params::PageSize>>,
        /// Only events whose first run has this status: 7 failure, 3 pass, 4 warning.
        status: Query<Option<IntOf<AlertStatusIds>>>,
        /// Only open events, open events nobody acknowledged, or the caller's (events they
        /// acknowledged, commented on or muted) (cxwatch's addition).
        #[oai(name = "state")]
        state_filter: Query<Option<OneOf<AlertStateFilter>>>,
    ) -> Answer<Json<Envelope<Page<AlertEvent>>>, { BAD_REQUEST | INTERNAL }> {
        let caller = auth.require(Need::SignedIn)?;
        let mut p = Problems::default();
        let page = params::paging(
            params::value(page_no.0),
            params::value(page_size.0),
            PAGE_SIZE,
            &mut p,
        );
        let status = status.0.map(|s| s.0);
        if let Some(s) = status.filter(|s| !AlertStatusIds::VALUES.contains(s)) {
            p.push(
                "status",
                Rule::Invalid,
                format!("status {s} is not 7 (Failure), 3 (Pass) or 4 (Warning)."),
            );
        }
        let event_state = match state_filter.0.as_deref() {
            None => None,
            Some("open") => Some(EventState::Open),
            Some("unacknowledged") => Some(EventState::Unacknowledged),
            Some("mine") => Some(EventState::Mine),
            Some(other) => {
                p.push(
                    "state",
                    Rule::Invalid,
                    format!("state {other:?} is not open, unacknowledged or mine."),
                );
                None
            }
        };
        p.check()?;
        let page = page.ok_or_else(|| ApiError::bad_request("Bad paging."))?;
        let filter = AlertEventFilter {
            status,
            state: event_state,
            me: (event_state == Some(EventState::Mine)).then(|| caller.username.clone()),
        };
        let page = state
            .store
            .list_alert_events(caller.scope(), page, filter)
            .await?;
        let acks = state
            .store
            .alert_acks(page.items.iter().map(|e| e.id).collect())
            .await?;
        let page = crate::domain::page::Page {
            total: page.total,
            items: page
                .items
                .into_iter()
                .map(|e| {
                    let ack = acks.get(&e.id).cloned();
                    let mut e = AlertEvent::from(e);
                    e.acknowledged_time = ack.as_ref().map(|a| ms_time(a.at_ms));
                    e.acknowledged_by = ack.map(|a| a.by);
                    e
                })
                .collect::<Vec<AlertEvent>>(),
        };
        Ok(Page::ok(page))
    }

    /// How many alert events of the caller's groups are open.
    #[oai(path = "/open", method = "get", operation_id = "countOpenAlertEvents")]
    async fn open(
        &self,
        auth: Auth,
        state: Data<&AppState>,
    ) -> Answer<Json<Envelope<OpenAlerts>>, { INTERNAL }> {
        let caller = auth.require(Need::SignedIn)?;
        let open = state.store.open_alert_count(caller.scope()).await?;
        Ok(Envelope::ok(OpenAlerts { open }))
    }

    /// One alert event with its runs and the state of each of its notifications.
    #[oai(path = "/:id", method = "get", operation_id = "getAlertEvent")]
    async fn get(
        &self,
        auth: Auth,
        state: Data<&AppState>,
        id: Path<i64>,
    ) -> Answer<Json<Envelope<AlertDetails>>, { FORBIDDEN | NOT_FOUND | INTERNAL }> {
        let caller = auth.require(Need::SignedIn)?;
        Ok(Envelope::ok(details(&state, caller, id.0).await?))
    }
}

/// What `PUT alerts/{id}` changes (spec §7): the event's comment and its ticket key; a
/// field left out stays as it is. Other fields of the event (a console may send the whole
/// alert) are ignored.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct AlertChange {
    /// A comment on the event, at most 4000 characters; an empty text removes it.
    #[oai(nullable)]
    pub comment: Option<Text<UpTo<MAX_COMMENT>>>,
    /// The key of the event's issue-tracker ticket (`OPS-123`), once it was created. An
    /// event with another ticket already is a conflict (409). Give it or `comment`.
    #[oai(nullable)]
    pub jira_ticket: Option<Text<IssueKey>>,
}

/// How long `POST alerts/{id}/mute` mutes an alert: until `until`.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct AlertMute {
    /// RFC 3339; after now, at most 7 days ahead (the console offers 1 h, 4 h and tomorrow
    /// 08:00 site time).
    pub until: Required<params::Instant>,
    /// What to mute: the alert's test case (the default) or its whole group (cxwatch's
    /// addition). A live mute on the same thing is extended instead of doubled.
    #[oai(nullable)]
    pub target: Option<MuteTargetKind>,
}

/// The longest mute, in milliseconds.
const MAX_MUTE_MS: i64 = 7 * 24 * 3_600_000;

/// The window a mute made.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct AlertMuted {
    /// The maintenance window (`api/maintenance/windows/{id}`).
    pub window_id: i64,
    /// RFC 3339 UTC: the window's end (a mute shorter than a live one keeps its end).
    pub until: String,
    /// A live window on the same thing was extended (else one was made).
    pub extended: bool,
}

/// A mute's end (`until`, RFC 3339) read and checked against `now`: after it, at most
/// [`MAX_MUTE_MS`] ahead (an alert's mute and an incident's).
pub(super) fn mute_until(until: Option<&str>, now: i64) -> Result<i64, ApiError> {
    let mut p = Problems::default();
    let until = match until.map(str::trim) {
        None | Some("") => {
            p.push("until", Rule::Required, "until is required.");
            None
        }
        Some(v) => match chrono::DateTime::parse_from_rfc3339(v) {
            Ok(t) if t.timestamp_millis() <= now => {
                p.push("until", Rule::Invalid, "until is not in the future.");
                None
            }
            Ok(t) if t.timestamp_millis() > now + MAX_MUTE_MS => {
                p.push("until", Rule::Invalid, "A mute lasts at most 7 days.");
                None
            }
            Ok(t) => Some(t.timestamp_millis()),
            Err(_) => {
                p.push(
                    "until",
                    Rule::Invalid,
                    format!("until {v:?} is not an RFC 3339 time."),
                );
                None
            }
        },
    };
    p.check()?;
    until.ok_or_else(|| ApiError::bad_request("Bad until."))
}

/// What a mute covers: the event's test case unless the whole group is asked for.
pub(super) fn mute_target(kind: Option<MuteTargetKind>) -> MuteTarget {
    match kind {
        Some(MuteTargetKind::Group) => MuteTarget::Group,
        Some(MuteTargetKind::TestCase) | None => MuteTarget::TestCase,
    }
}

/// `jiraTicket`: an issue key ([`is_issue_key`]), or empty.
pub struct IssueKey;

impl TextRule for IssueKey {
    const NAME: &'static str = "string(issue key)";
    const PATTERN: Option<&'static str> = Some("^([A-Za-z][A-Za-z0-9_]{0,49}-[0-9]{1,18})?$");
}

/// Whether `key` looks like an issue key: a project key (a letter, then letters, digits or
/// `_`), a dash and a number.
fn is_issue_key(key: &str) -> bool {
    let Some((project, number)) = key.split_once('-') else {
        return false;
    };
    project.len() <= 50
        && project.starts_with(|c: char| c.is_ascii_alphabetic())
        && project
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !number.is_empty()
        && number.len() <= 18
        && number.chars().all(|c| c.is_ascii_digit())
}

#[OpenApi(prefix_path = "/alerts", tag = "super::ApiTags::Alerts")]
impl AlertUpdateApi {
    /// Stores a comment and/or the ticket key on alert event `id` of the caller's groups
    /// (read-write access); answers the event as `GET alerts/events/{id}` does.
    #[oai(path = "/:id", method = "put", operation_id = "updateAlert")]
    async fn update(
        &self,
        auth: Auth,
        state: Data<&AppState>,
        id: Path<i64>,
        body: Json<AlertChange>,
    ) -> Answer<
        Json<Envelope<AlertDetails>>,
        { BAD_REQUEST | FORBIDDEN | NOT_FOUND | CONFLICT | INTERNAL },
    > {
        let caller = auth.require(Need::Write)?;
        let AlertChange {
            comment,
            jira_ticket,
        } = body.0;
        let comment = comment.map(|c| c.trim().to_string());
        let ticket = jira_ticket
            .map(Text::into_string)
            .map(|k| k.trim().to_string())
            .filter(|k| !k.is_empty());
        let mut p = Problems::default();
        if comment
            .as_ref()
            .is_some_and(|c| c.chars().count() > MAX_COMMENT)
        {
            p.push(
                "comment",
                Rule::TooLong,
                format!("comment is longer than {MAX_COMMENT} characters."),
            );
        }
        if let Some(k) = ticket.as_deref().filter(|k| !is_issue_key(k)) {
            p.push(
                "jiraTicket",
                Rule::Invalid,
                format!("jiraTicket {k:?} is not an issue key (e.g. OPS-123)."),
            );
        }
        if comment.is_none() && ticket.is_none() {
            p.push(
                "comment",
                Rule::Required,
                "Give comment or jiraTicket.".to_string(),
            );
        }
        p.check()?;
        let scope = caller.scope();
        let what = format_args!("Alert event {}", id.0).to_string();
        if ticket.is_some() {
            let done = state.store.update_alert(scope, id.0, None, ticket).await?;
            params::visible(done, &what)?;
        }
        if let Some(text) = comment {
            let done = state
                .store
                .comment_alert(scope, id.0, caller.username.clone(), text, now_ms())
                .await?;
            params::visible(done, &what)?;
        }
        Ok(Envelope::ok(details(&state, caller, id.0).await?))
    }

    /// Mutes open alert event `id` of the caller's groups until `until` (read-write
    /// access): an ad-hoc maintenance window from now on its test case, during which no
    /// alert opens or notifies for it and its runs are marked. A closed event is a conflict.
    #[oai(path = "/:id/mute", method = "post", operation_id = "muteAlert")]
    async fn mute(
        &self,
        auth: Auth,
        state: Data<&AppState>,
        id: Path<i64>,
        body: Json<AlertMute>,
    ) -> Answer<
        Json<Envelope<AlertMuted>>,
        { BAD_REQUEST | FORBIDDEN | NOT_FOUND | CONFLICT | INTERNAL },
    > {
        let caller = auth.require(Need::Write)?;
        let now = now_ms();
        let until = mute_until(body.0.until.as_deref(), now)?;
        let target = mute_target(body.0.target);
        let done = state
            .store
            .mute_alert(
                caller.scope(),
                id.0,
                target,
                until,
                caller.username.clone(),
                now,
            )
            .await?;
        let muted = params::visible(done, format_args!("Alert event {}", id.0))?;
        Ok(Envelope::ok(AlertMuted {
            window_id: muted.window_id,
            until: ms_time(muted.until_ms),
            extended: muted.extended,
        }))
    }

    /// The handover (cxwatch's addition): what opened, was acknowledged, muted or closed
    /// among the caller's alerts from `since` to now, oldest first (at most 500). Without
    /// `since`: from the caller's previous sign-in, else the last 12 hours. At most 31 days.
    #[oai(path = "/handover", method = "get", operation_id = "alertHandover")]
    async fn handover(
        &self,
        auth: Auth,
        state: Data<&AppState>,
        /// Start, RFC 3339.
        since: Query<Option<params::Instant>>,
    ) -> Answer<Json<Envelope<Handover>>, { BAD_REQUEST | INTERNAL }> {
        let caller = auth.require(Need::SignedIn)?;
        let now = now_ms();
        let mut p = Problems::default();
        let since = since.0.map(Text::into_string);
        let given = match since.as_deref().map(str::trim) {
            None | Some("") => None,
            Some(v) => match chrono::DateTime::parse_from_rfc3339(v) {
                Ok(t) if t.timestamp_millis() > now => {
                    p.push("since", Rule::Invalid, "since is in the future.");
                    None
                }
                Ok(t) if t.timestamp_millis() < now - HANDOVER_LONGEST_MS => {
                    p.push("since", Rule::Invalid, "since is more than 31 days ago.");
                    None
                }
                Ok(t) => Some(t.timestamp_millis()),
                Err(_) => {
                    p.push(
                        "since",
                        Rule::Invalid,
                        format!("since {v:?} is not an RFC 3339 time."),
                    );
                    None
                }
            },
        };
        p.check()?;
        let (from, source) = match given {
            Some(ms) => (ms, HandoverSince::Given),
            None => match state.store.previous_sign_in(caller.user_id).await? {
                Some(ms) if ms < now && ms >= now - HANDOVER_LONGEST_MS => {
                    (ms, HandoverSince::PreviousSignIn)
                }
                _ => (now - HANDOVER_DEFAULT_MS, HandoverSince::Default),
            },
        };
        let h = state
            .store
            .handover(caller.scope(), from, now + 1, HANDOVER_MAX)
            .await?;
        Ok(Envelope::ok(Handover {
            since: ms_time(from),
            since_source: source,
            to: ms_time(now),
            entries: h.items.into_iter().map(HandoverEntry::from).collect(),
            truncated: h.truncated,
        }))
    }

    /// Acknowledges open alert event `id` of the caller's groups (read-write access): who
    /// and when are recorded, and its escalation will not happen. An event acknowledged
    /// already keeps its first acknowledgement; a closed one is a conflict (409). Answers
    /// the event as `GET alerts/events/{id}` does.
    #[oai(
        path = "/:id/acknowledge",
        method = "post",
        operation_id = "acknowledgeAlert"
    )]
    async fn acknowledge(
        &self,
        auth: Auth,
        state: Data<&AppState>,
        id: Path<i64>,
    ) -> Answer<Json<Envelope<AlertDetails>>, { FORBIDDEN | NOT_FOUND | CONFLICT | INTERNAL }> {
        let caller = auth.require(Need::Write)?;
        let scope = caller.scope();
        let done = state
            .store
            .acknowledge_alert(scope, id.0, caller.username.clone(), now_ms())
            .await?;
        params::visible(done, format_args!("Alert event {}", id.0))?;
        Ok(Envelope::ok(details(&state, caller, id.0).await?))
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn issue_keys() {
        for ok in ["OPS-1", "A_B2-123456", "ops-7"] {
            assert!(super::is_issue_key(ok), "{ok}");
        }
        for bad in [
            "", "OPS", "OPS-", "-1", "1OPS-1", "OPS-1a", "OPS 1", "O-1-2",
        ] {
            assert!(!super::is_issue_key(bad), "{bad}");
        }
    }
}
