//! `api/alerts/incidents` (cxwatch's addition; `docs/alerting.md` 'Incidents'): alert events
//! that opened close together and share a cause, as one outage: the paged list (open or
//! resolved), one incident with its events, and acknowledging or muting an incident, which
//! acts on each of its open events as `alerts/{id}/acknowledge` and `alerts/{id}/mute` do.

use std::collections::BTreeMap;

use poem::web::Data;
use poem_openapi::param::{Path, Query};
use poem_openapi::payload::Json;
use poem_openapi::{Enum, Object, OpenApi};

use super::alerts::{ms_time, mute_target, mute_until, AlertMute};
use super::envelope::fails::*;
use super::envelope::{Answer, ApiError, Envelope, Page};
use super::guard::Auth;
use super::lenient::OneOf;
use super::params;
use super::AppState;
use crate::clock::now_ms;
use crate::domain::caller::{Need, Scope};
use crate::domain::incident::{State, Title};
use crate::domain::rules::{Problems, Rule};
use crate::store::incidents::{Incident as StoredIncident, IncidentFilter};

pub struct IncidentsApi;

const PAGE_SIZE: u32 = 10;

/// Where an incident stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Enum)]
#[oai(rename_all = "lowercase")]
pub enum IncidentState {
    /// An open alert nobody acknowledged.
    Open,
    /// Every open alert acknowledged.
    Acknowledged,
    /// Every alert closed.
    Resolved,
}

/// The incident list's state filter.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Enum)]
#[oai(rename_all = "lowercase")]
pub enum IncidentStateFilter {
    /// An alert still open.
    Open,
    /// Every alert closed.
    Resolved,
}

/// What an incident's title names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Enum)]
#[oai(rename_all = "camelCase")]
pub enum IncidentTitleKind {
    /// The client application (IVR application or chatbot) all its alerts share.
    EntryPoint,
    /// A test case group.
    Group,
}

/// A group or test case an incident affects.
#[derive(Debug, Object)]
pub struct IncidentPart {
    pub id: i64,
    pub name: String,
}

/// One alert of an incident.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct IncidentAlert {
    pub alert_id: i64,
    pub alert_setting_name: String,
    pub test_case_id: i64,
    pub test_case_name: String,
    pub test_case_group_id: i64,
    pub test_case_group_name: String,
    /// When it opened, RFC 3339 UTC.
    pub alert_time: String,
    pub open: bool,
    /// When it closed, RFC 3339 UTC, null while open.
    #[oai(nullable)]
    pub closed_time: Option<String>,
    #[oai(nullable)]
    pub acknowledged_by: Option<String>,
    #[oai(nullable)]
    pub acknowledged_time: Option<String>,
}

/// An incident: alerts that opened close together and share a cause.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct Incident {
    pub incident_id: i64,
    /// The shared entry point's name, else the group's.
    pub title: String,
    pub title_kind: IncidentTitleKind,
    /// When its first alert opened, RFC 3339 UTC.
    pub first_failure: String,
    pub state: IncidentState,
    /// Who acknowledged it first, when every open alert is acknowledged; else null.
    #[oai(nullable)]
    pub acknowledged_by: Option<String>,
    #[oai(nullable)]
    pub acknowledged_time: Option<String>,
    /// When its last alert closed, RFC 3339 UTC, null while open.
    #[oai(nullable)]
    pub resolved_time: Option<String>,
    /// The end of the longest running mute made from one of its alerts, null when none runs.
    #[oai(nullable)]
    pub muted_until: Option<String>,
    #[oai(nullable)]
    pub muted_by: Option<String>,
    pub alert_count: u64,
    pub open_alert_count: u64,
    pub acknowledged_alert_count: u64,
    /// The groups and test cases it affects, by name.
    pub groups: Vec<IncidentPart>,
    pub test_cases: Vec<IncidentPart>,
    /// Its alerts in the caller's groups, oldest first.
    pub alerts: Vec<IncidentAlert>,
}

impl From<StoredIncident> for Incident {
    fn from(i: StoredIncident) -> Self {
        let (state, ack, resolved) = match i.state {
            State::Open => (IncidentState::Open, None, None),
            State::Acknowledged { by, at_ms } => {
                (IncidentState::Acknowledged, Some((by, at_ms)), None)
            }
            State::Resolved { at_ms } => (IncidentState::Resolved, None, Some(at_ms)),
        };
        let parts = |f: &dyn Fn(&crate::store::incidents::IncidentAlert) -> (i64, String)| {
            let m: BTreeMap<String, i64> = i
                .alerts
                .iter()
                .map(|a| {
                    let (id, name) = f(a);
                    (name, id)
                })
                .collect();
            m.into_iter()
                .map(|(name, id)| IncidentPart { id, name })
                .collect::<Vec<_>>()
        };
        let groups = parts(&|a| (a.group_id, a.group_name.clone()));
        let test_cases = parts(&|a| (a.test_case_id, a.test_case_name.clone()));
        Incident {
            incident_id: i.id,
            title: i.title_name,
            title_kind: match i.title {
                Title::Entry(_) => IncidentTitleKind::EntryPoint,
                Title::Group(_) => IncidentTitleKind::Group,
            },
            first_failure: ms_time(i.first_ms),
            state,
            acknowledged_time: ack.as_ref().map(|(_, at)| ms_time(*at)),
            acknowledged_by: ack.map(|(by, _)| by),
            resolved_time: resolved.map(ms_time),
            muted_until: i.mute.as_ref().map(|m| ms_time(m.until_ms)),
            muted_by: i.mute.map(|m| m.by),
            alert_count: i.alerts.len() as u64,
            open_alert_count: i.alerts.iter().filter(|a| a.open).count() as u64,
            acknowledged_alert_count: i.alerts.iter().filter(|a| a.ack.is_some()).count() as u64,
            groups,
            test_cases,
            alerts: i
                .alerts
                .into_iter()
                .map(|a| IncidentAlert {
                    alert_id: a.id,
                    alert_setting_name: a.setting_name,
                    test_case_id: a.test_case_id,
                    test_case_name: a.test_case_name,
                    test_case_group_id: a.group_id,
                    test_case_group_name: a.group_name,
                    alert_time: ms_time(a.alert_ms),
                    open: a.open,
                    closed_time: a.closed_ms.map(ms_time),
                    acknowledged_time: a.ack.as_ref().map(|k| ms_time(k.at_ms)),
                    acknowledged_by: a.ack.map(|k| k.by),
                })
                .collect(),
        }
    }
}

/// Incident `id` as `GET alerts/incidents/{id}` answers it.
async fn one(state: &AppState, scope: Scope, id: i64) -> Result<Incident, ApiError> {
    let v = state.store.incident(scope, id, now_ms()).await?;
    Ok(params::visible(v, format_args!("Incident {id}"))?.into())
}

#[OpenApi(prefix_path = "/alerts/incidents", tag = "super::ApiTags::Alerts")]
impl IncidentsApi {
    /// Incidents with an alert in the caller's groups, newest first (by first failure).
    #[oai(path = "/", method = "get", operation_id = "listIncidents")]
    async fn list(
        &self,
        auth: Auth,
        state: Data<&AppState>,
        /// Page number, 0-based (default 0).
        #[oai(name = "pageNo")]
        page_no: Query<Option<params::PageNo>>,
        /// Incidents per page, 1 to 1000 (default 10).
        #[oai(name = "pageSize")]
        page_size: Query<Option<params::PageSize>>,
        /// `open` (an alert still open) or `resolved`; both when absent.
        #[oai(name = "state")]
        which: Query<Option<OneOf<IncidentStateFilter>>>,
    ) -> Answer<Json<Envelope<Page<Incident>>>, { BAD_REQUEST | INTERNAL }> {
        let caller = auth.require(Need::SignedIn)?;
        let mut p = Problems::default();
        let page = params::paging(
            params::value(page_no.0),
            params::value(page_size.0),
            PAGE_SIZE,
            &mut p,
        );
        let open = match which.0.as_deref() {
            None => None,
            Some("open") => Some(true),
            Some("resolved") => Some(false),
            Some(other) => {
                p.push(
                    "state",
                    Rule::Invalid,
                    format!("state {other:?} is not open or resolved."),
                );
                None
            }
        };
        p.check()?;
        let page = page.ok_or_else(|| ApiError::bad_request("Bad paging."))?;
        let page = state
            .store
            .list_incidents(caller.scope(), page, IncidentFilter { open }, now_ms())
            .await?;
        Ok(Page::ok(crate::domain::page::Page {
            total: page.total,
            items: page.items.into_iter().map(Incident::from).collect(),
        }))
    }

    /// One incident with its alerts in the caller's groups.
    #[oai(path = "/:id", method = "get", operation_id = "getIncident")]
    async fn get(
        &self,
        auth: Auth,
        state: Data<&AppState>,
        id: Path<i64>,
    ) -> Answer<Json<Envelope<Incident>>, { FORBIDDEN | NOT_FOUND | INTERNAL }> {
        let caller = auth.require(Need::SignedIn)?;
        Ok(Envelope::ok(one(&state, caller.scope(), id.0).await?))
    }

    /// Acknowledges every open alert of incident `id` in the caller's groups (read-write
    /// access), each as `alerts/{id}/acknowledge` does; a resolved incident is a conflict
    /// (409). Answers the incident.
    #[oai(
        path = "/:id/acknowledge",
        method = "post",
        operation_id = "acknowledgeIncident"
    )]
    async fn acknowledge(
        &self,
        auth: Auth,
        state: Data<&AppState>,
        id: Path<i64>,
    ) -> Answer<Json<Envelope<Incident>>, { FORBIDDEN | NOT_FOUND | CONFLICT | INTERNAL }> {
        let caller = auth.require(Need::Write)?;
        let scope = caller.scope();
        let done = state
            .store
            .acknowledge_incident(scope, id.0, caller.username.clone(), now_ms())
            .await?;
        params::visible(done, format_args!("Incident {}", id.0))?;
        Ok(Envelope::ok(one(&state, scope, id.0).await?))
    }

    /// Mutes every open alert of incident `id` in the caller's groups until `until`
    /// (read-write access), each as `alerts/{id}/mute` does; a resolved incident is a
    /// conflict (409). Answers the incident.
    #[oai(path = "/:id/mute", method = "post", operation_id = "muteIncident")]
    async fn mute(
        &self,
        auth: Auth,
        state: Data<&AppState>,
        id: Path<i64>,
        body: Json<AlertMute>,
    ) -> Answer<
        Json<Envelope<Incident>>,
        { BAD_REQUEST | FORBIDDEN | NOT_FOUND | CONFLICT | INTERNAL },
    > {
        let caller = auth.require(Need::Write)?;
        let now = now_ms();
        let until = mute_until(body.0.until.as_deref(), now)?;
        let scope = caller.scope();
        let done = state
            .store
            .mute_incident(
                scope,
                id.0,
                mute_target(body.0.target),
                until,
                caller.username.clone(),
                now,
            )
            .await?;
        params::visible(done, format_args!("Incident {}", id.0))?;
        Ok(Envelope::ok(one(&state, scope, id.0).await?))
    }
}
