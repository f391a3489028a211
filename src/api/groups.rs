//! `api/trs/v1/groups...` and `api/trs/v1/ivrs`: test case groups, channels, IVR
//! applications, client-application health, and a group's metric and MOS per hour.
//! A restricted user (first role ROLE_USER) sees only the groups assigned to them.

use poem::web::Data;
use poem_openapi::param::{Path, Query};
use poem_openapi::payload::Json;
use poem_openapi::{ApiResponse, Object, OpenApi};

use super::params::{self, Problems};
use super::AppState;
use crate::domain::buckets::{self, SLOTS};
use crate::domain::dist::Summary;
use crate::error::{ApiResult, Envelope};
use crate::domain::run::Channel;
use crate::domain::ingest::{ClientAppHealth, ComponentState};
use crate::store::auth::Session;
use crate::store::catalog::{self, CaseRef, Scope};
use crate::store::{health, metrics};

pub struct GroupsApi;

/// A test case group in the list.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct GroupItem {
    pub id: i64,
    pub name: String,
    /// `voice` or `web`.
    pub channel: String,
    /// Number of test cases in the group.
    pub case_count: i64,
    /// Number of IVR applications (chatbots) those test cases call.
    pub ivr_count: i64,
}

/// A test case of a group or IVR application.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct CaseItem {
    pub id: i64,
    pub ivr_id: i64,
    pub name: String,
}

/// One group with its test cases.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct GroupDetail {
    pub id: i64,
    pub name: String,
    pub channel: String,
    pub case_count: i64,
    pub ivr_count: i64,
    pub test_cases: Vec<CaseItem>,
}

/// A channel: id `voice` (shown 'Voice') or `web` (shown 'Digital').
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct ChannelItem {
    pub id: String,
    /// Numeric code: 1 voice, 2 web.
    pub code: i64,
    pub name: String,
}

/// An IVR application (voice) or chatbot (web) with its test cases.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct IvrItem {
    pub id: i64,
    pub name: String,
    pub channel: String,
    pub test_cases: Vec<CaseItem>,
}

/// Client applications of one channel.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct ChannelHealth {
    pub channel: String,
    pub client_apps: Vec<ClientAppItem>,
}

/// Latest health of a client application (spec §3).
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct ClientAppItem {
    pub client_end_point: String,
    pub channel: String,
    /// Time of the application's last run (UTC).
    pub last_run: String,
    pub app_status: StatusItem,
    pub telco_status: StatusItem,
    pub agent_status: StatusItem,
    pub component_status: Vec<ComponentItem>,
}

/// `TRS_PASS` is pass; any other status of an enabled component is a failure.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct StatusItem {
    pub enabled: bool,
    pub status: String,
}

#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct ComponentItem {
    pub name: String,
    pub has_component: bool,
    pub enabled: bool,
}

/// Counts of one local hour slot.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct HourlyStatus {
    /// `YYYY-MM-DDTHH:00:00`, site-local, on the range's first date.
    pub hourly: String,
    pub success_count: u64,
    pub warning_count: u64,
    pub failure_count: u64,
}

/// Group metric of one test case (level `case`) or one segment of a test case (level
/// `segment`) over the date range (spec §3 'Group metric'), plus latency and MOS figures.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct GroupMetric {
    /// The test case id.
    pub entity_id: i64,
    /// The test case name.
    pub entity_name: String,
    /// `case` or `segment` (the level asked for).
    pub entity_type: String,
    pub channel: String,
    /// First date of the range, `YYYY-MM-DD`.
    pub period_start: String,
    /// Last date of the range, `YYYY-MM-DD`.
    pub period_end: String,
    pub success_count: u64,
    pub warning_count: u64,
    /// Failed and stopped runs.
    pub failure_count: u64,
    /// Always 24 slots, local hours 0 to 23; over several days each slot sums that hour
    /// of every day.
    pub hourly_status: Vec<HourlyStatus>,
    /// Segment id (null on case level).
    pub segment_id: Option<i64>,
    /// Segment name (null on case level).
    pub segment_name: Option<String>,
    /// Stopped runs (already counted in failureCount).
    pub stopped_count: u64,
    /// Number of step latencies measured.
    pub latency_count: u64,
    /// Step latency in seconds, 2 decimals; null without measurements.
    pub avg_latency: Option<f64>,
    pub min_latency: Option<f64>,
    pub max_latency: Option<f64>,
    pub median_latency: Option<f64>,
    /// Runs with a MOS (case level; 0 on segment level).
    pub mos_count: u64,
    /// mosCqIn, 1 decimal; null without runs that have one.
    pub avg_mos_cq: Option<f64>,
    pub min_mos_cq: Option<f64>,
    pub max_mos_cq: Option<f64>,
    pub median_mos_cq: Option<f64>,
}

/// MOS of a group's runs in one local hour slot (spec §3 'MOS row').
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct MosRow {
    /// `YYYY-MM-DDTHH:00:00`, site-local, on the range's first date.
    pub hourly: String,
    /// 1 decimal; null when no run in that hour has a MOS.
    pub min_mos_cq: Option<f64>,
    pub max_mos_cq: Option<f64>,
    pub avg_mos_cq: Option<f64>,
    pub median_mos_cq: Option<f64>,
    /// Runs with a MOS in that hour.
    pub run_count: u64,
}

#[derive(ApiResponse)]
enum ListResponse<T: poem_openapi::types::ToJSON + poem_openapi::types::ParseFromJSON + Send + Sync>
{
    #[oai(status = 200)]
    Ok(Json<Envelope<Vec<T>>>),
}

#[derive(ApiResponse)]
enum GroupResponse {
    #[oai(status = 200)]
    Ok(Json<Envelope<GroupDetail>>),
}

#[derive(ApiResponse)]
enum DeletedResponse {
    /// The group is gone.
    #[oai(status = 200)]
    Ok(Json<Envelope<bool>>),
}

/// A test case of a group being saved.
#[derive(Debug, Object)]
pub struct CaseIdItem {
    pub id: i64,
}

/// Body of `POST groups` and `PUT groups/{id}`.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct GroupSave {
    /// Ignored on create; on update it must be absent or equal to the path's id.
    pub id: Option<i64>,
    pub name: Option<String>,
    /// `voice` or `web`.
    pub channel: Option<String>,
    pub test_cases: Option<Vec<CaseIdItem>>,
}

/// Checks a group body; every problem is named.
fn group_input(body: &GroupSave) -> ApiResult<(String, Channel, Vec<i64>)> {
    let mut p = Problems::default();
    let name = body.name.as_deref().map(str::trim).unwrap_or("");
    if name.is_empty() {
        p.push("name is required.");
    } else if name.chars().count() > catalog::MAX_NAME {
        p.push(format!(
            "name may have at most {} characters.",
            catalog::MAX_NAME
        ));
    }
    let channel = match body.channel.as_deref().map(str::trim) {
        None | Some("") => {
            p.push("channel is required (voice or web).");
            None
        }
        Some(c) => {
            let ch = Channel::parse(c);
            if ch.is_none() {
                p.push(format!("channel {c:?} is not a channel (voice or web)."));
            }
            ch
        }
    };
    let ids: Vec<i64> = body.test_cases.iter().flatten().map(|c| c.id).collect();
    if ids.is_empty() {
        p.push("testCases needs at least one test case.");
    }
    p.check()?;
    Ok((name.to_string(), channel.unwrap_or(Channel::Voice), ids))
}

/// Only administrators with read-write access change groups.
fn may_edit(session: &Session) -> ApiResult<()> {
    if session.is_restricted() || !session.can_write() {
        return Err(crate::error::ApiError::forbidden(
            "Only administrators with read-write access may change test case groups.",
        ));
    }
    Ok(())
}

async fn group_detail(state: &AppState, id: i64) -> ApiResult<GroupDetail> {
    let found = state.store.read(move |c| catalog::group(c, id)).await?;
    let Some((g, cases)) = found else {
        return Err(crate::error::ApiError::not_found(format!(
            "Group {id} does not exist."
        )));
    };
    Ok(GroupDetail {
        id: g.id,
        name: g.name,
        channel: g.channel.as_str().into(),
        case_count: g.case_count,
        ivr_count: g.ivr_count,
        test_cases: cases.into_iter().map(case_item).collect(),
    })
}

fn case_item(c: CaseRef) -> CaseItem {
    CaseItem {
        id: c.id,
        ivr_id: c.ivr_id,
        name: c.name,
    }
}

fn status_item(s: ComponentState) -> StatusItem {
    StatusItem {
        enabled: s.enabled,
        status: s.status,
    }
}

fn app_item(a: ClientAppHealth) -> ClientAppItem {
    ClientAppItem {
        client_end_point: a.client_end_point,
        channel: a.channel.as_str().into(),
        last_run: params::time(a.last_run),
        app_status: status_item(a.app_status),
        telco_status: status_item(a.telco_status),
        agent_status: status_item(a.agent_status),
        component_status: a
            .component_status
            .into_iter()
            .map(|c| ComponentItem {
                name: c.name,
                has_component: c.has_component,
                enabled: c.enabled,
            })
            .collect(),
    }
}

fn hour_labels(from: chrono::NaiveDate) -> impl Iterator<Item = String> {
    (0..SLOTS).map(move |h| buckets::hour_label(from, h))
}

fn latency_fields(s: Option<Summary>) -> (u64, [Option<f64>; 4]) {
    match s {
        None => (0, [None; 4]),
        Some(s) => {
            let v = s.latency_secs();
            (s.n, [Some(v.avg), Some(v.min), Some(v.max), Some(v.median)])
        }
    }
}

fn mos_fields(s: Option<Summary>) -> (u64, [Option<f64>; 4]) {
    match s {
        None => (0, [None; 4]),
        Some(s) => {
            let v = s.mos();
            (s.n, [Some(v.avg), Some(v.min), Some(v.max), Some(v.median)])
        }
    }
}

/// Checks that the group exists (404) and the caller may see it (403).
async fn visible_group(state: &AppState, session: &Session, id: i64) -> ApiResult<()> {
    let scope = Scope::of(session);
    let access = state
        .store
        .read(move |c| catalog::group_access(c, scope, id))
        .await?;
    params::require(access, &format!("Group {id}"))
}

#[OpenApi(prefix_path = "/trs/v1", tag = "super::ApiTags::Groups")]
impl GroupsApi {
    /// Test case groups the caller may see, by name.
    #[oai(path = "/groups", method = "get", operation_id = "listGroups")]
    async fn list(
        &self,
        state: Data<&AppState>,
        session: Data<&Session>,
    ) -> ApiResult<ListResponse<GroupItem>> {
        let scope = Scope::of(&session);
        let groups = state
            .store
            .read(move |c| catalog::list_groups(c, scope))
            .await?;
        Ok(ListResponse::Ok(Envelope::ok(
            groups
                .into_iter()
                .map(|g| GroupItem {
                    id: g.id,
                    name: g.name,
                    channel: g.channel.as_str().into(),
                    case_count: g.case_count,
                    ivr_count: g.ivr_count,
                })
                .collect(),
        )))
    }

    /// The channels: voice ('Voice') and web ('Digital').
    #[oai(
        path = "/groups/channels",
        method = "get",
        operation_id = "listChannels"
    )]
    async fn channels(&self) -> ApiResult<ListResponse<ChannelItem>> {
        Ok(ListResponse::Ok(Envelope::ok(
            Channel::ALL
                .iter()
                .enumerate()
                .map(|(i, c)| ChannelItem {
                    id: c.as_str().into(),
                    code: i as i64 + 1,
                    name: c.label().into(),
                })
                .collect(),
        )))
    }

    /// Latest health of every client application, by channel (voice, then web).
    #[oai(path = "/groups/health", method = "get", operation_id = "groupsHealth")]
    async fn health(&self, state: Data<&AppState>) -> ApiResult<ListResponse<ChannelHealth>> {
        let all = state.store.read(health::list).await?;
        Ok(ListResponse::Ok(Envelope::ok(
            all.into_iter()
                .map(|(channel, apps)| ChannelHealth {
                    channel: channel.as_str().into(),
                    client_apps: apps.into_iter().map(app_item).collect(),
                })
                .collect(),
        )))
    }

    /// One group with its test cases.
    #[oai(path = "/groups/:id", method = "get", operation_id = "getGroup")]
    async fn get(
        &self,
        state: Data<&AppState>,
        session: Data<&Session>,
        id: Path<i64>,
    ) -> ApiResult<GroupResponse> {
        let id = id.0;
        visible_group(&state, &session, id).await?;
        Ok(GroupResponse::Ok(Envelope::ok(
            group_detail(&state, id).await?,
        )))
    }

    /// Creates a test case group of existing test cases of its channel (administrators with
    /// read-write access).
    #[oai(path = "/groups", method = "post", operation_id = "createGroup")]
    async fn create(
        &self,
        state: Data<&AppState>,
        session: Data<&Session>,
        body: Json<GroupSave>,
    ) -> ApiResult<GroupResponse> {
        may_edit(&session)?;
        let (name, channel, ids) = group_input(&body)?;
        let id = state
            .store
            .write(move |tx| catalog::create_group(tx, &name, channel, &ids))
            .await?;
        Ok(GroupResponse::Ok(Envelope::ok(
            group_detail(&state, id).await?,
        )))
    }

    /// Renames a group and replaces its channel and test cases.
    #[oai(path = "/groups/:id", method = "put", operation_id = "updateGroup")]
    async fn update(
        &self,
        state: Data<&AppState>,
        session: Data<&Session>,
        id: Path<i64>,
        body: Json<GroupSave>,
    ) -> ApiResult<GroupResponse> {
        may_edit(&session)?;
        let id = id.0;
        if body.id.is_some_and(|b| b != id) {
            return Err(crate::error::ApiError::bad_request(format!(
                "id {} in the body is not the group {id} of the path.",
                body.id.unwrap_or_default()
            )));
        }
        let (name, channel, ids) = group_input(&body)?;
        state
            .store
            .write(move |tx| catalog::update_group(tx, id, &name, channel, &ids))
            .await?;
        Ok(GroupResponse::Ok(Envelope::ok(
            group_detail(&state, id).await?,
        )))
    }

    /// Deletes a group (its assignments to users go with it; test cases and runs stay).
    #[oai(path = "/groups/:id", method = "delete", operation_id = "deleteGroup")]
    async fn delete(
        &self,
        state: Data<&AppState>,
        session: Data<&Session>,
        id: Path<i64>,
    ) -> ApiResult<DeletedResponse> {
        may_edit(&session)?;
        let id = id.0;
        state
            .store
            .write(move |tx| catalog::delete_group(tx, id))
            .await?;
        Ok(DeletedResponse::Ok(Envelope::ok(true)))
    }

    /// The group's pass / warning / failure counts per test case (`level=case`) or per
    /// segment of a test case (`level=segment`, segments with runs in the range) over site-local
    /// dates `startDate`..`endDate` (default: `startDate`), for one run type (default
    /// Manual), with 24 hour slots and latency and MOS figures.
    #[oai(
        path = "/groups/:id/metric",
        method = "get",
        operation_id = "groupMetric"
    )]
    #[allow(clippy::too_many_arguments)]
    async fn metric(
        &self,
        state: Data<&AppState>,
        session: Data<&Session>,
        id: Path<i64>,
        /// `case` (default) or `segment`.
        level: Query<Option<String>>,
        /// `YYYY-MM-DD`, site-local.
        #[oai(name = "startDate")]
        start_date: Query<Option<String>>,
        /// `YYYY-MM-DD`, site-local; at most 400 days after startDate.
        #[oai(name = "endDate")]
        end_date: Query<Option<String>>,
        /// `Manual` (default) or `Schedule`.
        #[oai(name = "caseRunType")]
        case_run_type: Query<Option<String>>,
    ) -> ApiResult<ListResponse<GroupMetric>> {
        let mut p = Problems::default();
        let level = match level.0.as_deref().map(str::trim).filter(|s| !s.is_empty()) {
            None => Some(metrics::Level::Case),
            Some(s) => {
                let l = metrics::Level::parse(s);
                if l.is_none() {
                    p.push(format!("level {s:?} is not a level (case or segment)."));
                }
                l
            }
        };
        let range = params::date_range(start_date.0.as_deref(), end_date.0.as_deref(), &mut p);
        let run_type = params::run_type(case_run_type.0.as_deref(), &mut p);
        p.check()?;
        let (Some(level), Some((from, to)), Some(run_type)) = (level, range, run_type) else {
            return Err(crate::error::ApiError::bad_request("Bad parameters."));
        };
        let id = id.0;
        visible_group(&state, &session, id).await?;
        let q = metrics::MetricQuery {
            group_id: id,
            level,
            from,
            to,
            run_type,
        };
        let entities = state
            .store
            .read(move |c| metrics::group_metric(c, &q))
            .await?;
        let (start, end) = (from.to_string(), to.to_string());
        let out = entities
            .into_iter()
            .map(|e| {
                let (latency_count, [avg_l, min_l, max_l, med_l]) = latency_fields(e.latency);
                let (mos_count, [avg_m, min_m, max_m, med_m]) = mos_fields(e.mos);
                GroupMetric {
                    entity_id: e.test_case_id,
                    entity_name: e.test_case_name,
                    entity_type: level.as_str().into(),
                    channel: e.channel.as_str().into(),
                    period_start: start.clone(),
                    period_end: end.clone(),
                    success_count: e.counts[0],
                    warning_count: e.counts[1],
                    failure_count: e.counts[2] + e.counts[3],
                    hourly_status: hour_labels(from)
                        .zip(e.hourly.iter())
                        .map(|(hourly, c)| HourlyStatus {
                            hourly,
                            success_count: c[0],
                            warning_count: c[1],
                            failure_count: c[2] + c[3],
                        })
                        .collect(),
                    segment_id: e.segment.as_ref().map(|s| s.0),
                    segment_name: e.segment.map(|s| s.1),
                    stopped_count: e.counts[3],
                    latency_count,
                    avg_latency: avg_l,
                    min_latency: min_l,
                    max_latency: max_l,
                    median_latency: med_l,
                    mos_count,
                    avg_mos_cq: avg_m,
                    min_mos_cq: min_m,
                    max_mos_cq: max_m,
                    median_mos_cq: med_m,
                }
            })
            .collect();
        Ok(ListResponse::Ok(Envelope::ok(out)))
    }

    /// MOS (mosCqIn) of the group's runs per site-local hour slot over the range: always
    /// 24 rows; values are null for an hour without runs that have a MOS.
    #[oai(path = "/groups/:id/mos", method = "get", operation_id = "groupMos")]
    async fn mos(
        &self,
        state: Data<&AppState>,
        session: Data<&Session>,
        id: Path<i64>,
        #[oai(name = "startDate")] start_date: Query<Option<String>>,
        #[oai(name = "endDate")] end_date: Query<Option<String>>,
        #[oai(name = "caseRunType")] case_run_type: Query<Option<String>>,
    ) -> ApiResult<ListResponse<MosRow>> {
        let mut p = Problems::default();
        let range = params::date_range(start_date.0.as_deref(), end_date.0.as_deref(), &mut p);
        let run_type = params::run_type(case_run_type.0.as_deref(), &mut p);
        p.check()?;
        let (Some((from, to)), Some(run_type)) = (range, run_type) else {
            return Err(crate::error::ApiError::bad_request("Bad parameters."));
        };
        let id = id.0;
        visible_group(&state, &session, id).await?;
        let hours = state
            .store
            .read(move |c| metrics::group_mos(c, id, from, to, run_type))
            .await?;
        let rows = hour_labels(from)
            .zip(hours)
            .map(|(hourly, s)| {
                let (n, [avg, min, max, median]) = mos_fields(s);
                MosRow {
                    hourly,
                    min_mos_cq: min,
                    max_mos_cq: max,
                    avg_mos_cq: avg,
                    median_mos_cq: median,
                    run_count: n,
                }
            })
            .collect();
        Ok(ListResponse::Ok(Envelope::ok(rows)))
    }

    /// IVR applications (voice) and chatbots (web) with their test cases. A restricted user
    /// sees only the test cases of their groups.
    #[oai(path = "/ivrs", method = "get", operation_id = "listIvrs")]
    async fn ivrs(
        &self,
        state: Data<&AppState>,
        session: Data<&Session>,
    ) -> ApiResult<ListResponse<IvrItem>> {
        let scope = Scope::of(&session);
        let ivrs = state.store.read(move |c| catalog::ivrs(c, scope)).await?;
        Ok(ListResponse::Ok(Envelope::ok(
            ivrs.into_iter()
                .map(|i| IvrItem {
                    id: i.id,
                    name: i.name,
                    channel: i.channel.as_str().into(),
                    test_cases: i.test_cases.into_iter().map(case_item).collect(),
                })
                .collect(),
        )))
    }
}
