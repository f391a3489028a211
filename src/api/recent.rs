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
use crate::domain::opstate::{group_state, GroupAlertState};
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
    /// Runs stored while a maintenance window covered them (cxwatch's addition):
    /// left out of the counts above. Absent when none.
    #[oai(skip_serializing_if_is_none)]
    pub maintenance_count: Option<i64>,
    /// Time of the latest run in the window (UTC); absent without runs.
    #[oai(nullable)]
    pub last_run_time: Option<String>,
    /// A failing group's alert state now (cxwatch's addition): present when a run of the
    /// window failed. The dashboard's failing-now bar names it.
    #[oai(skip_serializing_if_is_none)]
    pub alert: Option<GroupAlert>,
}

/// Where a failing group's alerting stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, poem_openapi::Enum)]
#[oai(rename_all = "camelCase")]
pub enum GroupAlertKind {
    /// A mute covers the group or one of its test cases: `until`, `by`, `windowId`,
    /// `wholeGroup`, `alertId` (the alert it was made from, when it was).
    Muted,
    /// An open alert nobody acknowledged: `alertId` (the one waiting longest).
    Open,
    /// Every open alert is acknowledged: `alertId`, `by`, `time` (the last one).
    Acknowledged,
    /// No alert open: `failures` of `threshold` consecutive failures of `alertSettingId`,
    /// the setting nearest to opening one.
    NotYet,
    /// No active alert setting covers the group.
    NoSetting,
}

/// A failing group's alert state (`domain::opstate::group_state`).
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct GroupAlert {
    pub state: GroupAlertKind,
    #[oai(skip_serializing_if_is_none)]
    pub alert_id: Option<i64>,
    /// Who acknowledged or muted.
    #[oai(skip_serializing_if_is_none)]
    pub by: Option<String>,
    /// Acknowledged: when (RFC 3339 UTC).
    #[oai(skip_serializing_if_is_none)]
    pub time: Option<String>,
    /// Muted: until when (RFC 3339 UTC).
    #[oai(skip_serializing_if_is_none)]
    pub until: Option<String>,
    #[oai(skip_serializing_if_is_none)]
    pub window_id: Option<i64>,
    #[oai(skip_serializing_if_is_none)]
    pub whole_group: Option<bool>,
    #[oai(skip_serializing_if_is_none)]
    pub failures: Option<i64>,
    #[oai(skip_serializing_if_is_none)]
    pub threshold: Option<i64>,
    #[oai(skip_serializing_if_is_none)]
    pub alert_setting_id: Option<i64>,
}

fn ms_time(ms: i64) -> Option<String> {
    DateTime::from_timestamp_millis(ms).map(params::time)
}

impl From<GroupAlertState> for GroupAlert {
    fn from(s: GroupAlertState) -> Self {
        let empty = |state| GroupAlert {
            state,
            alert_id: None,
            by: None,
            time: None,
            until: None,
            window_id: None,
            whole_group: None,
            failures: None,
            threshold: None,
            alert_setting_id: None,
        };
        match s {
            GroupAlertState::Muted(m) => GroupAlert {
                alert_id: m.event_id,
                by: Some(m.by),
                until: ms_time(m.until_ms),
                window_id: Some(m.window_id),
                whole_group: Some(m.whole_group),
                ..empty(GroupAlertKind::Muted)
            },
            GroupAlertState::Open { event_id } => GroupAlert {
                alert_id: Some(event_id),
                ..empty(GroupAlertKind::Open)
            },
            GroupAlertState::Acknowledged {
                event_id,
                by,
                at_ms,
            } => GroupAlert {
                alert_id: Some(event_id),
                by: Some(by),
                time: ms_time(at_ms),
                ..empty(GroupAlertKind::Acknowledged)
            },
            GroupAlertState::NotYet(c) => GroupAlert {
                failures: Some(c.count),
                threshold: Some(c.threshold),
                alert_setting_id: Some(c.setting_id),
                ..empty(GroupAlertKind::NotYet)
            },
            GroupAlertState::NoSetting => empty(GroupAlertKind::NoSetting),
        }
    }
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
            alert: None,
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
        // One read for every failing group's alert facts, not one per group.
        let failing: Vec<i64> = groups.iter().filter(|g| g.fail > 0).map(|g| g.id).collect();
        let facts = state
            .store
            .group_facts(failing, to.timestamp_millis())
            .await?;
        Ok(Envelope::ok(RecentStatus {
            from: params::time(DateTime::from_timestamp_millis(q.from_ms).unwrap_or(to)),
            to: params::time(to),
            groups: groups
                .into_iter()
                .map(|g| {
                    let alert = facts.get(&g.id).map(|f| GroupAlert::from(group_state(f)));
                    GroupRecentItem {
                        alert,
                        ..GroupRecentItem::from(g)
                    }
                })
                .collect(),
        }))
    }
}
