//! `api/trs/v1/groups/hourly`: every group the caller sees with its pass, warning and failure
//! counts and 24 local hour slots over site-local dates, in one answer (the dashboard's table;
//! the same sums as each group's `groups/{id}/metric` added over its test cases).

use poem::web::Data;
use poem_openapi::param::Query;
use poem_openapi::payload::Json;
use poem_openapi::{Object, OpenApi};

use super::envelope::fails::*;
use super::envelope::{Answer, ApiError, Envelope};
use super::guard::Auth;
use super::lenient::OneOf;
use super::params;
use super::AppState;
use crate::domain::caller::Need;
use crate::domain::rules::Problems;
use crate::domain::run::RunType;
use crate::store::hourly::{GroupHourly, HourlyQuery};

pub struct HourlyApi;

/// One group's runs over the range: counts, and per site-local hour slot 0 to 23.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct GroupHourlyItem {
    pub group_id: i64,
    pub success_count: u64,
    pub warning_count: u64,
    /// Failed and stopped runs.
    pub failure_count: u64,
    /// 24 numbers, local hours 0 to 23 (over several days each sums that hour of every day).
    pub success_by_hour: Vec<u64>,
    pub warning_by_hour: Vec<u64>,
    /// Failed and stopped runs.
    pub failure_by_hour: Vec<u64>,
    /// Runs stored while a maintenance window covered them: left out of the
    /// counts and slots above, as `groups/{id}/metric` leaves them out. Absent when none.
    #[oai(skip_serializing_if_is_none)]
    pub maintenance_count: Option<u64>,
}

impl From<GroupHourly> for GroupHourlyItem {
    fn from(g: GroupHourly) -> Self {
        let col = |k: usize| g.hourly.iter().map(|h| h[k]).collect();
        GroupHourlyItem {
            group_id: g.id,
            success_count: g.counts[0],
            warning_count: g.counts[1],
            failure_count: g.counts[2],
            success_by_hour: col(0),
            warning_by_hour: col(1),
            failure_by_hour: col(2),
            maintenance_count: None,
        }
    }
}

#[OpenApi(prefix_path = "/trs/v1", tag = "super::ApiTags::Metrics")]
impl HourlyApi {
    /// Every group the caller sees (a restricted user: their groups), by id, with its pass /
    /// warning / failure counts and 24 site-local hour slots over `startDate`..`endDate`
    /// (default: `startDate`), for one run type (default Manual): what `groups/{id}/metric`
    /// gives each group, added over its test cases, in one call.
    #[oai(path = "/groups/hourly", method = "get", operation_id = "groupsHourly")]
    async fn hourly(
        &self,
        auth: Auth,
        state: Data<&AppState>,
        /// `YYYY-MM-DD`, site-local.
        #[oai(name = "startDate")]
        start_date: Query<params::Date>,
        /// `YYYY-MM-DD`, site-local; at most 400 days after startDate.
        #[oai(name = "endDate")]
        end_date: Query<Option<params::Date>>,
        /// Default `Manual`.
        #[oai(name = "caseRunType")]
        case_run_type: Query<Option<OneOf<RunType>>>,
    ) -> Answer<Json<Envelope<Vec<GroupHourlyItem>>>, { BAD_REQUEST | INTERNAL }> {
        let caller = auth.require(Need::SignedIn)?;
        let mut p = Problems::default();
        let range = params::date_range(Some(start_date.0.as_str()), end_date.0.as_deref(), &mut p);
        let run_type = params::run_type(case_run_type.0.as_deref(), &mut p);
        p.check()?;
        let (Some((from, to)), Some(run_type)) = (range, run_type) else {
            return Err(ApiError::bad_request("Bad parameters.").into());
        };
        let q = HourlyQuery {
            from,
            to,
            run_type: run_type.unwrap_or(RunType::Manual),
        };
        let code = q.run_type.code();
        let groups = state.store.groups_hourly(caller.scope(), q).await?;
        let tz = state.config.tz();
        let (from_ms, to_ms) = crate::domain::buckets::local_range_ms(tz, from, to);
        let mut out = Vec::with_capacity(groups.len());
        for g in groups {
            let marked = state
                .store
                .marked_facts_of_group(g.id, from_ms, to_ms, code)
                .await?;
            let mut item = GroupHourlyItem::from(g);
            leave_out_maintenance(&mut item, &marked, tz);
            out.push(item);
        }
        Ok(Envelope::ok(out))
    }
}

/// Takes each marked run from its status's count and local hour slot, and counts it as
/// maintenance instead (as `groups/{id}/metric` does).
fn leave_out_maintenance(
    item: &mut GroupHourlyItem,
    marked: &[crate::store::rollups::RunFacts],
    tz: chrono_tz::Tz,
) {
    use chrono::Timelike;
    for f in marked {
        let (ms, status) = (f.run_ms, f.status);
        let hour = chrono::DateTime::<chrono::Utc>::from_timestamp_millis(ms)
            .unwrap_or_default()
            .with_timezone(&tz)
            .hour() as usize;
        let (count, by_hour) = match status {
            0 => (&mut item.success_count, &mut item.success_by_hour),
            1 => (&mut item.warning_count, &mut item.warning_by_hour),
            _ => (&mut item.failure_count, &mut item.failure_by_hour),
        };
        *count = count.saturating_sub(1);
        if let Some(h) = by_hour.get_mut(hour) {
            *h = h.saturating_sub(1);
        }
        *item.maintenance_count.get_or_insert(0) += 1;
    }
}
