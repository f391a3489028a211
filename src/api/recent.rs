//! `api/trs/v1/groups/recent`: the dashboard's status strip, every group the caller sees with
//! how many of its runs passed, warned and failed in the last minutes (15 by default).

use chrono::DateTime;
use poem::web::Data;
use poem_openapi::param::Query;
use poem_openapi::payload::Json;
use poem_openapi::{Object, OpenApi};

use super::envelope::fails::*;
use super::envelope::{Answer, Envelope};
use super::guard::Auth;
use super::lenient::OneOf;
use super::params;
use super::AppState;
use crate::domain::caller::Need;
use crate::domain::rules::{Problems, Rule};
use crate::domain::run::Channel;
use crate::domain::run::RunType;
use crate::store::recent::{GroupRecent, RecentQuery};

pub struct RecentApi;

/// Minutes of the window when none is given.
pub const RECENT_MINUTES: i64 = 15;
/// Longest window (a day).
pub const RECENT_MINUTES_MAX: i64 = 1440;

/// Every group the caller sees, with its runs in the window `[from, to)`.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct RecentStatus {
    /// Start of the window (UTC).
    pub from: String,
    /// End of the window: now (UTC).
    pub to: String,
    /// By group name.
    pub groups: Vec<GroupRecentItem>,
}

/// One group's runs in the window.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct GroupRecentItem {
    pub group_id: i64,
    pub name: String,
    pub channel: Channel,
    pub success_count: i64,
    pub warning_count: i64,
    /// Failed and stopped runs.
    pub failure_count: i64,
    /// Runs stored while a maintenance window covered them (cxwatch's addition, issue 28):
    /// left out of the counts above. Absent when none.
    #[oai(skip_serializing_if_is_none)]
    pub maintenance_count: Option<i64>,
    /// Time of the latest run in the window (UTC); absent without runs.
    #[oai(nullable)]
    pub last_run_time: Option<String>,
}

impl From<GroupRecent> for GroupRecentItem {
    fn from(g: GroupRecent) -> Self {
        GroupRecentItem {
            group_id: g.id,
            name: g.name,
            channel: g.channel,
            success_count: g.pass,
            warning_count: g.warn,
            failure_count: g.fail,
            maintenance_count: (g.maintenance > 0).then_some(g.maintenance),
            last_run_time: g
                .last_run_ms
                .and_then(DateTime::from_timestamp_millis)
                .map(params::time),
        }
    }
}

#[OpenApi(prefix_path = "/trs/v1", tag = "super::ApiTags::Groups")]
impl RecentApi {
    /// Every group the caller sees (a restricted user: their groups), by name, with how many
    /// of its runs passed, warned and failed (failed and stopped) in the last `minutes`
    /// (default 15, at most 1440), of one run type or both.
    #[oai(path = "/groups/recent", method = "get", operation_id = "groupsRecent")]
    async fn recent(
        &self,
        auth: Auth,
        state: Data<&AppState>,
        /// Length of the window ending now, 1 to 1440 (default 15).
        minutes: Query<Option<params::Ranged<1, RECENT_MINUTES_MAX>>>,
        /// Only runs of this type (default: both).
        #[oai(name = "caseRunType")]
        case_run_type: Query<Option<OneOf<RunType>>>,
    ) -> Answer<Json<Envelope<RecentStatus>>, { BAD_REQUEST | INTERNAL }> {
        let caller = auth.require(Need::SignedIn)?;
        let mut p = Problems::default();
        let minutes = params::value(minutes.0).unwrap_or(RECENT_MINUTES);
        if !(1..=RECENT_MINUTES_MAX).contains(&minutes) {
            p.push(
                "minutes",
                Rule::Invalid,
                format!("minutes must be 1 to {RECENT_MINUTES_MAX} ({minutes} given)."),
            );
        }
        let run_type = params::run_type(case_run_type.0.as_deref(), &mut p);
        p.check()?;
        let to = crate::clock::now();
        let q = RecentQuery {
            from_ms: to.timestamp_millis() - minutes * 60_000,
            to_ms: to.timestamp_millis() + 1,
            run_type: run_type.flatten(),
        };
        let groups = state.store.recent_status(caller.scope(), q).await?;
        Ok(Envelope::ok(RecentStatus {
            from: params::time(DateTime::from_timestamp_millis(q.from_ms).unwrap_or(to)),
            to: params::time(to),
            groups: groups.into_iter().map(GroupRecentItem::from).collect(),
        }))
    }
}
