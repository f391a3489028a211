//! `api/maintenance`: maintenance windows (cxwatch's addition): planned work
//! during which no alert opens or notifies for the test case groups and test cases a window
//! covers; their runs are stored and marked. A window is once (start, end) or weekly (the
//! alert settings' week of half hours, site time). Listed, created, edited and ended early
//! (never deleted); `maintenance/now` gives the dashboard's banner: the windows active now and
//! those starting within 24 hours. `POST alerts/{id}/mute` (in `alerts.rs`) makes one from an
//! alert.

use chrono::{DateTime, Utc};
use poem::web::Data;
use poem_openapi::param::{Path, Query};
use poem_openapi::payload::Json;
use poem_openapi::{Object, OpenApi};

use super::alert_settings::ScheduleSlot;
use super::envelope::fails::*;
use super::envelope::{Answer, ApiError, Envelope, Page};
use super::guard::Auth;
use super::lenient::{DateTimeRule, Name, Required, Text};
use super::params;
use super::users::GroupRef;
use super::AppState;
use crate::clock::now_ms;
use crate::domain::caller::Need;
use crate::domain::rules::{Problems, Rule};
use crate::domain::schedule::{SlotRange, Week};
use crate::store::maintenance::{Window, WindowDraft};

pub struct MaintenanceApi;

/// Longest reason, in characters.
pub const MAX_REASON: usize = 500;
/// Longest once window: 31 days.
const MAX_ONCE_MS: i64 = 31 * 24 * 3_600_000;
/// How far ahead the banner looks for the next window.
pub const NEXT_WITHIN_MS: i64 = 24 * 3_600_000;
const PAGE_SIZE: u32 = 10;

/// Once or every week.
#[derive(Debug, Clone, Copy, PartialEq, Eq, poem_openapi::Enum)]
#[oai(rename_all = "lowercase")]
pub enum WindowKind {
    Once,
    Weekly,
}

/// Where a window stands now.
#[derive(Debug, Clone, Copy, PartialEq, Eq, poem_openapi::Enum)]
#[oai(rename_all = "lowercase")]
pub enum WindowState {
    /// It covers now.
    Active,
    /// It will cover later (a weekly window between its weeks' slots too).
    Scheduled,
    /// Ended early, or a once window past its end.
    Ended,
}

/// A test case a window covers.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct CaseRef {
    pub id: i64,
    #[oai(default)]
    pub name: String,
}

/// A maintenance window.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct MaintenanceWindow {
    pub id: i64,
    /// What someone typed; empty for a mute made from an alert (`alertId`), which the
    /// console words in the reader's language from the alert and its test case.
    pub reason: String,
    pub kind: WindowKind,
    pub state: WindowState,
    /// Once: its start; weekly: from when its week applies. RFC 3339 UTC.
    pub start_time: String,
    /// Once: its end (excluded), RFC 3339 UTC; weekly: null.
    #[oai(nullable)]
    pub end_time: Option<String>,
    /// When it was ended early, null when it was not.
    #[oai(nullable)]
    pub ended_time: Option<String>,
    /// Weekly: the half hours of the week it covers (site time).
    pub schedule: Vec<ScheduleSlot>,
    pub test_case_groups: Vec<GroupRef>,
    pub test_cases: Vec<CaseRef>,
    /// The alert it was made from ('mute'), null otherwise.
    #[oai(nullable)]
    pub alert_id: Option<i64>,
    pub created_by: String,
    pub created_time: String,
    /// Runs stored while it covered them (marked 'maintenance').
    pub run_count: i64,
    /// When it next begins to cover, within 24 hours; null otherwise.
    #[oai(nullable)]
    pub next_start_time: Option<String>,
}

fn ms_time(ms: i64) -> String {
    DateTime::<Utc>::from_timestamp_millis(ms)
        .map(params::time)
        .unwrap_or_default()
}

impl MaintenanceWindow {
    fn of(w: Window, now: i64, tz: chrono_tz::Tz) -> Self {
        let rule = w.rule();
        let over = w.ended_ms.is_some_and(|e| e <= now) || w.end_ms.is_some_and(|e| e <= now);
        let state = if over {
            WindowState::Ended
        } else if rule.covers_at(now, tz) {
            WindowState::Active
        } else {
            WindowState::Scheduled
        };
        MaintenanceWindow {
            id: w.id,
            reason: w.reason,
            kind: if w.weekly {
                WindowKind::Weekly
            } else {
                WindowKind::Once
            },
            state,
            start_time: ms_time(w.start_ms),
            end_time: w.end_ms.map(ms_time),
            ended_time: w.ended_ms.map(ms_time),
            schedule: if w.weekly {
                w.week.ranges().into_iter().map(ScheduleSlot::of).collect()
            } else {
                Vec::new()
            },
            test_case_groups: w
                .groups
                .into_iter()
                .map(|(id, name)| GroupRef { id, name })
                .collect(),
            test_cases: w
                .cases
                .into_iter()
                .map(|(id, name)| CaseRef { id, name })
                .collect(),
            alert_id: w.event_id,
            created_by: w.created_by,
            created_time: ms_time(w.created_ms),
            run_count: w.runs,
            next_start_time: (state != WindowState::Ended)
                .then(|| rule.next_start(now, NEXT_WITHIN_MS, tz))
                .flatten()
                .map(ms_time),
        }
    }
}

/// A window as a client saves it.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct MaintenanceWindowSave {
    /// Why: 1 to 500 characters, no control or text-direction characters.
    pub reason: Required<Text<Name<MAX_REASON>>>,
    pub kind: Required<WindowKind>,
    /// Once: the start, RFC 3339; weekly: from when (default now).
    #[oai(nullable)]
    pub start_time: Option<Text<DateTimeRule>>,
    /// Once: the end (after the start and now, at most 31 days after the start).
    #[oai(nullable)]
    pub end_time: Option<Text<DateTimeRule>>,
    /// Weekly: the half hours covered (at least one).
    #[oai(nullable)]
    pub schedule: Option<Vec<ScheduleSlot>>,
    /// Covered groups (names ignored); with testCases, at least one in all.
    #[oai(nullable)]
    pub test_case_groups: Option<Vec<GroupRef>>,
    #[oai(nullable)]
    pub test_cases: Option<Vec<CaseRef>>,
}

fn parse_time(p: &mut Problems, field: &str, v: Option<&str>) -> Option<i64> {
    let v = v.map(str::trim).filter(|v| !v.is_empty())?;
    match DateTime::parse_from_rfc3339(v) {
        Ok(t) => Some(t.timestamp_millis()),
        Err(_) => {
            p.push(
                field,
                Rule::Invalid,
                format!("{field} {v:?} is not an RFC 3339 time."),
            );
            None
        }
    }
}

impl MaintenanceWindowSave {
    fn draft(&self, p: &mut Problems, now: i64) -> Option<WindowDraft> {
        let reason = p.text("reason", self.reason.as_deref(), MAX_REASON);
        let kind = *self.kind;
        if kind.is_none() {
            p.push("kind", Rule::Required, "kind is required: once or weekly.");
        }
        let start = parse_time(p, "startTime", self.start_time.as_deref());
        let end = parse_time(p, "endTime", self.end_time.as_deref());
        let mut week = Week::default();
        match kind {
            Some(WindowKind::Once) => match (start, end) {
                (None, _) => p.push("startTime", Rule::Required, "startTime is required."),
                (_, None) => p.push("endTime", Rule::Required, "endTime is required."),
                (Some(s), Some(e)) if e <= s => {
                    p.push("endTime", Rule::Invalid, "endTime must be after startTime.")
                }
                (Some(s), Some(e)) if e - s > MAX_ONCE_MS => p.push(
                    "endTime",
                    Rule::Invalid,
                    "A window lasts at most 31 days (use a weekly one).",
                ),
                (Some(_), Some(e)) if e <= now => {
                    p.push("endTime", Rule::Invalid, "endTime is in the past.")
                }
                _ => {}
            },
            Some(WindowKind::Weekly) => {
                let ranges: Vec<SlotRange> = self
                    .schedule
                    .iter()
                    .flatten()
                    .map(ScheduleSlot::range)
                    .collect();
                match Week::from_ranges(&ranges) {
                    Ok(w) if w.is_empty() => p.push(
                        "schedule",
                        Rule::Required,
                        "A weekly window needs at least one half hour.",
                    ),
                    Ok(w) => week = w,
                    Err(e) => p.push("schedule", Rule::Invalid, format!("schedule: {e}.")),
                }
            }
            None => {}
        }
        let group_ids: Vec<i64> = self
            .test_case_groups
            .iter()
            .flatten()
            .map(|g| g.id)
            .collect();
        let case_ids: Vec<i64> = self.test_cases.iter().flatten().map(|c| c.id).collect();
        if group_ids.is_empty() && case_ids.is_empty() {
            p.push(
                "testCaseGroups",
                Rule::Required,
                "Choose at least one test case group or test case.",
            );
        }
        if !p.is_empty() {
            return None;
        }
        let weekly = kind? == WindowKind::Weekly;
        Some(WindowDraft {
            reason: reason?,
            weekly,
            start_ms: if weekly { start.unwrap_or(now) } else { start? },
            end_ms: if weekly { None } else { end },
            week,
            group_ids,
            case_ids,
            event_id: None,
        })
    }
}

/// The dashboard's banner: what covers now and what starts within 24 hours.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct MaintenanceNow {
    pub active: Vec<MaintenanceWindow>,
    /// Ordered by nextStartTime.
    pub next: Vec<MaintenanceWindow>,
}

async fn found(state: &AppState, auth: &Auth, id: i64) -> Result<MaintenanceWindow, ApiError> {
    let caller = auth.require(Need::SignedIn)?;
    let v = state.store.window(caller.scope(), id).await?;
    let w = params::visible(v, format_args!("Maintenance window {id}"))?;
    Ok(MaintenanceWindow::of(w, now_ms(), state.config.tz()))
}

#[OpenApi(prefix_path = "/maintenance", tag = "super::ApiTags::Alerts")]
impl MaintenanceApi {
    /// Maintenance windows of the caller's groups, newest first.
    #[oai(
        path = "/windows",
        method = "get",
        operation_id = "listMaintenanceWindows"
    )]
    async fn list(
        &self,
        auth: Auth,
        state: Data<&AppState>,
        #[oai(name = "pageNo")] page_no: Query<Option<params::PageNo>>,
        #[oai(name = "pageSize")] page_size: Query<Option<params::PageSize>>,
    ) -> Answer<Json<Envelope<Page<MaintenanceWindow>>>, { BAD_REQUEST | INTERNAL }> {
        let caller = auth.require(Need::SignedIn)?;
        let mut p = Problems::default();
        let page = params::paging(
            params::value(page_no.0),
            params::value(page_size.0),
            PAGE_SIZE,
            &mut p,
        );
        p.check()?;
        let page = page.ok_or_else(|| ApiError::bad_request("Bad paging."))?;
        let found = state.store.list_windows(caller.scope(), page).await?;
        let (now, tz) = (now_ms(), state.config.tz());
        Ok(Envelope::ok(Page {
            total_elements: found.total,
            content: found
                .items
                .into_iter()
                .map(|w| MaintenanceWindow::of(w, now, tz))
                .collect(),
        }))
    }

    /// The windows covering now and those starting within 24 hours (the dashboard's banner).
    #[oai(path = "/now", method = "get", operation_id = "maintenanceNow")]
    async fn now(
        &self,
        auth: Auth,
        state: Data<&AppState>,
    ) -> Answer<Json<Envelope<MaintenanceNow>>, { INTERNAL }> {
        let caller = auth.require(Need::SignedIn)?;
        let (now, tz) = (now_ms(), state.config.tz());
        let mut active = Vec::new();
        let mut next = Vec::new();
        for w in state.store.live_windows(caller.scope(), now).await? {
            let item = MaintenanceWindow::of(w, now, tz);
            if item.state == WindowState::Active {
                active.push(item);
            } else if item.next_start_time.is_some() {
                next.push(item);
            }
        }
        next.sort_by(|a, b| a.next_start_time.cmp(&b.next_start_time));
        Ok(Envelope::ok(MaintenanceNow { active, next }))
    }

    /// One maintenance window.
    #[oai(
        path = "/windows/:id",
        method = "get",
        operation_id = "getMaintenanceWindow"
    )]
    async fn get(
        &self,
        auth: Auth,
        state: Data<&AppState>,
        id: Path<i64>,
    ) -> Answer<Json<Envelope<MaintenanceWindow>>, { FORBIDDEN | NOT_FOUND | INTERNAL }> {
        Ok(Envelope::ok(found(&state, &auth, id.0).await?))
    }

    /// Creates a window on the caller's groups and test cases (read-write access).
    #[oai(
        path = "/windows",
        method = "post",
        operation_id = "createMaintenanceWindow"
    )]
    async fn create(
        &self,
        auth: Auth,
        state: Data<&AppState>,
        body: Json<MaintenanceWindowSave>,
    ) -> Answer<Json<Envelope<MaintenanceWindow>>, { BAD_REQUEST | FORBIDDEN | NOT_FOUND | INTERNAL }>
    {
        let caller = auth.require(Need::Write)?;
        let now = now_ms();
        let mut p = Problems::default();
        let draft = body.0.draft(&mut p, now);
        p.check()?;
        let draft = draft.ok_or_else(|| ApiError::bad_request("Bad window."))?;
        let id = state
            .store
            .create_window(
                caller.scope(),
                state.config.tz(),
                draft,
                caller.username.clone(),
                now,
            )
            .await?;
        Ok(Envelope::ok(found(&state, &auth, id).await?))
    }

    /// Replaces window `id` (read-write access); an ended window is a conflict.
    #[oai(
        path = "/windows/:id",
        method = "put",
        operation_id = "updateMaintenanceWindow"
    )]
    async fn update(
        &self,
        auth: Auth,
        state: Data<&AppState>,
        id: Path<i64>,
        body: Json<MaintenanceWindowSave>,
    ) -> Answer<
        Json<Envelope<MaintenanceWindow>>,
        { BAD_REQUEST | FORBIDDEN | NOT_FOUND | CONFLICT | INTERNAL },
    > {
        let caller = auth.require(Need::Write)?;
        let mut p = Problems::default();
        let draft = body.0.draft(&mut p, now_ms());
        p.check()?;
        let draft = draft.ok_or_else(|| ApiError::bad_request("Bad window."))?;
        let done = state
            .store
            .update_window(caller.scope(), state.config.tz(), id.0, draft)
            .await?;
        params::visible(done, format_args!("Maintenance window {}", id.0))?;
        Ok(Envelope::ok(found(&state, &auth, id.0).await?))
    }

    /// Ends window `id` now (read-write access): nothing from now on is covered.
    #[oai(
        path = "/windows/:id/end",
        method = "post",
        operation_id = "endMaintenanceWindow"
    )]
    async fn end(
        &self,
        auth: Auth,
        state: Data<&AppState>,
        id: Path<i64>,
    ) -> Answer<Json<Envelope<MaintenanceWindow>>, { FORBIDDEN | NOT_FOUND | INTERNAL }> {
        let caller = auth.require(Need::Write)?;
        let done = state
            .store
            .end_window(caller.scope(), id.0, now_ms())
            .await?;
        params::visible(done, format_args!("Maintenance window {}", id.0))?;
        Ok(Envelope::ok(found(&state, &auth, id.0).await?))
    }
}
