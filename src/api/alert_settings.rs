//! `api/alerts/settings` and `api/alerts/allStatus`: alert settings (spec §2 'Settings
//! lists' Alert Settings, 'Alert setting form', §3 'Alert setting', 'Alert status', §5, §7
//! 'Alerts'). A caller sees and changes only the settings of their own test case groups;
//! read-only callers change nothing. `alerts/contactGroups` names the distribution lists a
//! setting may send to (the form's contact group select, for every signed-in caller: a
//! restricted one sees only the lists their groups use).

use chrono::{TimeZone, Utc};
use poem::web::Data;
use poem_openapi::param::{Path, Query};
use poem_openapi::payload::Json;
use poem_openapi::{Object, OpenApi};

use super::envelope::fails::*;
use super::envelope::{Answer, ApiError, ApiResult, Envelope, Listing};
use super::guard::Auth;
use super::lenient::{
    AtLeastOne, Filter, IntChoices, IntOf, Label, Name, Required, Text, TextRule,
};
use super::params;
use super::AppState;
use crate::domain::alert_setting::{
    self, AlertSetting as DomainSetting, AlertSettingFilter, AlertSettingInput,
    AlertSettingSortField, AlertStatus as DomainStatus,
};
use crate::domain::caller::{Caller, Need};
use crate::domain::page::Sort;
use crate::domain::rules::Problems;
use crate::domain::run::Channel;
use crate::domain::schedule::SlotRange;

pub struct AlertSettingsApi;

/// Settings per page when none is given (spec §9: default 10).
const SETTING_PAGE_SIZE: u32 = 10;

/// One range of the weekly schedule (site time).
#[derive(Debug, Object, Clone)]
#[oai(rename_all = "camelCase")]
pub struct ScheduleSlot {
    /// 1 Monday .. 7 Sunday (ISO 8601).
    pub day_of_week: params::Ranged<1, 7>,
    /// `HH:mm` on the half hour, `00:00` to `23:30` (a start of `24:00` is the time error);
    /// before the end.
    pub start_time_slot: Text<SlotStart>,
    /// `HH:mm` on the half hour, exclusive; `24:00` (or `00:00`) is the end of the day.
    pub end_time_slot: Text<SlotEnd>,
}

impl ScheduleSlot {
    pub fn of(r: SlotRange) -> Self {
        ScheduleSlot {
            day_of_week: params::Ranged(r.day_of_week.into()),
            start_time_slot: Text::new(r.start),
            end_time_slot: Text::new(r.end),
        }
    }

    pub fn range(&self) -> SlotRange {
        SlotRange {
            day_of_week: u8::try_from(self.day_of_week.0).unwrap_or(0),
            start: self.start_time_slot.as_str().to_string(),
            end: self.end_time_slot.as_str().to_string(),
        }
    }
}

/// The start of a half hour range: `00:00` to `23:30`.
pub struct SlotStart;

impl TextRule for SlotStart {
    const NAME: &'static str = "string(half hour)";
    const PATTERN: Option<&'static str> = Some("^([01][0-9]|2[0-3]):(00|30)$");
}

/// The end of a half hour range: `00:00` to `24:00` (`00:00` and `24:00`: the day's end).
pub struct SlotEnd;

impl TextRule for SlotEnd {
    const NAME: &'static str = "string(half hour end)";
    const PATTERN: Option<&'static str> = Some("^(([01][0-9]|2[0-3]):(00|30)|24:00)$");
}

/// `failureToAlert`: how many failing runs in a row raise an alert.
pub struct FailureChoices;

impl IntChoices for FailureChoices {
    const NAME: &'static str = "integer(failures in a row)";
    const VALUES: &'static [i64] = &[1, 2, 3, 5, 10];
}

/// An alert setting (spec §3 'Alert setting').
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct AlertSetting {
    pub id: i64,
    /// The label text.
    pub name: String,
    /// Active (true) or Inactive.
    pub active: bool,
    pub test_case_group_id: i64,
    pub test_case_group_name: String,
    /// The group's channel (attach recording is for voice).
    pub channel: Channel,
    /// The contact group: a distribution list.
    pub distribution_id: i64,
    pub distribution_name: String,
    pub email_subject: String,
    pub voice_message: String,
    pub sms_prefix: String,
    /// Voice groups only: the last run's call recording goes with the e-mail.
    pub attach_recording: bool,
    pub attach_jira_ticket: bool,
    /// Consecutive matching runs that open an alert: 1, 2, 3, 5 or 10.
    pub failure_to_alert: i64,
    pub notify_on_recovery: bool,
    /// Status codes counted (`alerts/allStatus` codes, e.g. `FAIL`, `WARN`).
    pub alert_status: Vec<String>,
    /// The selected half hours, merged into the fewest ranges, by day then time.
    pub schedule: Vec<ScheduleSlot>,
    /// Ticket assignee (absent when none).
    #[oai(skip_serializing_if_is_none)]
    pub jira_assignee: Option<String>,
    /// Ticket project key (absent when none).
    #[oai(skip_serializing_if_is_none)]
    pub jira_project: Option<String>,
    /// Ticket username (absent when none).
    #[oai(skip_serializing_if_is_none)]
    pub jira_username: Option<String>,
    /// The second distribution list notified when an event stays open and unacknowledged
    /// (cxwatch's addition), null when none.
    #[oai(nullable)]
    pub escalation_distribution_id: Option<i64>,
    #[oai(nullable)]
    pub escalation_distribution_name: Option<String>,
    /// Minutes after the event opened (1 to 10080), null when no escalation.
    #[oai(nullable)]
    pub escalation_delay_min: Option<i64>,
    /// RFC 3339 UTC.
    pub last_modified_time: String,
}

impl From<DomainSetting> for AlertSetting {
    fn from(s: DomainSetting) -> AlertSetting {
        AlertSetting {
            id: s.id,
            name: s.name,
            active: s.active,
            test_case_group_id: s.group_id,
            test_case_group_name: s.group_name,
            channel: s.channel,
            distribution_id: s.distribution_id,
            distribution_name: s.distribution_name,
            email_subject: s.email_subject,
            voice_message: s.voice_message,
            sms_prefix: s.sms_prefix,
            attach_recording: s.attach_recording,
            attach_jira_ticket: s.attach_jira_ticket,
            failure_to_alert: s.failure_to_alert.into(),
            notify_on_recovery: s.notify_on_recovery,
            alert_status: s.statuses,
            schedule: s.week.ranges().into_iter().map(ScheduleSlot::of).collect(),
            jira_assignee: s.jira_assignee,
            jira_project: s.jira_project,
            jira_username: s.jira_username,
            escalation_distribution_id: s.escalation.map(|e| e.distribution_id),
            escalation_distribution_name: s.escalation_distribution_name,
            escalation_delay_min: s.escalation.map(|e| e.delay_min),
            last_modified_time: params::time(
                Utc.timestamp_opt(s.modified_at, 0)
                    .single()
                    .unwrap_or_default(),
            ),
        }
    }
}

/// Body of `POST alerts/settings` and `PUT alerts/settings/{id}`. Checked in the form's
/// order (spec §5): name, testCaseGroupId, distributionId, failureToAlert, emailSubject,
/// voiceMessage, smsPrefix ('Required'), alertStatus ('at least one failure/warnings is
/// required'), schedule ('at least one half hour of the schedule is required').
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct AlertSettingSave {
    /// Ignored on create; on update absent or the id of the path.
    #[oai(nullable)]
    pub id: Option<i64>,
    /// 1 to 200 characters, no control or text-direction characters.
    pub name: Required<Text<Name<{ alert_setting::NAME_MAX }>>>,
    /// Default true.
    #[oai(nullable)]
    pub active: Option<bool>,
    pub test_case_group_id: Required<params::Id>,
    /// Ignored (follows testCaseGroupId).
    #[oai(nullable)]
    pub test_case_group_name: Option<String>,
    pub distribution_id: Required<params::Id>,
    /// Ignored (follows distributionId).
    #[oai(nullable)]
    pub distribution_name: Option<String>,
    /// 1 to 200 characters, no control or text-direction characters.
    pub email_subject: Required<Text<Name<{ alert_setting::NAME_MAX }>>>,
    /// 1 to 1000 characters, no control or text-direction characters.
    pub voice_message: Required<Text<Name<{ alert_setting::VOICE_MAX }>>>,
    /// 1 to 60 characters, no control or text-direction characters.
    pub sms_prefix: Required<Text<Name<{ alert_setting::SMS_PREFIX_MAX }>>>,
    /// Kept for voice groups only. Default false.
    #[oai(nullable)]
    pub attach_recording: Option<bool>,
    /// Default false.
    #[oai(nullable)]
    pub attach_jira_ticket: Option<bool>,
    /// 1, 2, 3, 5 or 10.
    pub failure_to_alert: Required<IntOf<FailureChoices>>,
    /// Default false.
    #[oai(nullable)]
    pub notify_on_recovery: Option<bool>,
    /// Status codes: failure or warning statuses that support the group's channel (at
    /// least one).
    pub alert_status: Required<AtLeastOne<String>>,
    /// Ranges of selected half hours; overlapping ranges merge. At least one half hour
    /// (without one, 'at least one half hour of the schedule is required').
    pub schedule: Required<AtLeastOne<ScheduleSlot>>,
    /// At most 200 characters; blank is none.
    #[oai(nullable)]
    pub jira_assignee: Option<Text<Label<{ alert_setting::NAME_MAX }>>>,
    #[oai(nullable)]
    pub jira_project: Option<Text<Label<{ alert_setting::NAME_MAX }>>>,
    #[oai(nullable)]
    pub jira_username: Option<Text<Label<{ alert_setting::NAME_MAX }>>>,
    /// The escalation's distribution list; with `escalationDelayMin`, or neither.
    #[oai(nullable)]
    pub escalation_distribution_id: Option<params::Id>,
    /// Minutes, 1 to 10080.
    #[oai(nullable)]
    pub escalation_delay_min: Option<params::Ranged<1, { alert_setting::ESCALATION_DELAY_MAX }>>,
}

impl AlertSettingSave {
    fn draft(&self, p: &mut Problems) -> Option<alert_setting::AlertSettingDraft> {
        let statuses = self.alert_status.0.clone().map(|l| l.0).unwrap_or_default();
        let schedule: Vec<SlotRange> = self
            .schedule
            .iter()
            .flat_map(|l| l.iter())
            .map(ScheduleSlot::range)
            .collect();
        alert_setting::check_alert_setting(
            p,
            &AlertSettingInput {
                name: self.name.as_deref(),
                active: self.active,
                group_id: self.test_case_group_id.map(|g| g.0),
                distribution_id: self.distribution_id.map(|d| d.0),
                failure_to_alert: self.failure_to_alert.map(|f| f.0),
                email_subject: self.email_subject.as_deref(),
                voice_message: self.voice_message.as_deref(),
                sms_prefix: self.sms_prefix.as_deref(),
                attach_recording: self.attach_recording,
                attach_jira_ticket: self.attach_jira_ticket,
                notify_on_recovery: self.notify_on_recovery,
                statuses: &statuses,
                schedule: &schedule,
                jira_assignee: self.jira_assignee.as_deref(),
                jira_project: self.jira_project.as_deref(),
                jira_username: self.jira_username.as_deref(),
                escalation_distribution_id: self.escalation_distribution_id.map(|d| d.0),
                escalation_delay_min: self.escalation_delay_min.map(|d| d.0),
            },
        )
    }
}

/// An alert status (spec §3 'Alert status'): failure 7, pass 3, warning 4.
#[derive(Debug, Object)]
#[oai(rename_all = "camelCase")]
pub struct AlertStatus {
    pub id: i64,
    pub code: String,
    pub text: String,
    /// `TRS_FAIL`, `TRS_WARN` or `TRS_PASS`; a setting counts failure and warning statuses.
    pub status_group: String,
    /// Comma-separated channels the status applies to: `ivr`, `voice`, `web`.
    pub support_channel: String,
}

impl From<DomainStatus> for AlertStatus {
    fn from(s: DomainStatus) -> AlertStatus {
        AlertStatus {
            id: s.id,
            code: s.code,
            text: s.text,
            status_group: s.status_group,
            support_channel: s.support_channel,
        }
    }
}

/// A distribution list a setting may send to.
#[derive(Debug, Object)]
pub struct ContactGroup {
    pub id: i64,
    pub name: String,
}

async fn found(state: &AppState, caller: &Caller, id: i64) -> ApiResult<DomainSetting> {
    let v = state.store.alert_setting(caller.scope(), id).await?;
    params::visible(v, format_args!("Alert setting {id}"))
}

#[OpenApi(prefix_path = "/alerts", tag = "super::ApiTags::Alerts")]
impl AlertSettingsApi {
    /// Alert settings of the caller's test case groups, one page at a time, default by
    /// label.
    #[oai(path = "/settings", method = "get", operation_id = "listAlertSettings")]
    async fn list(
        &self,
        auth: Auth,
        state: Data<&AppState>,
        /// Page number, 0-based (default 0).
        #[oai(name = "pageNo")]
        page_no: Query<Option<params::PageNo>>,
        /// Settings per page, 1 to 1000 (default 10).
        #[oai(name = "pageSize")]
        page_size: Query<Option<params::PageSize>>,
        /// Part of the label, the group's or the contact group's name, without case.
        search: Query<Option<Filter>>,
        /// `field,direction`: field `id`, `name`, `testCaseGroupName`, `distributionName`
        /// or `active` (default `name,asc`).
        sort: Query<Option<Text<params::AlertSettingSort>>>,
    ) -> Answer<Json<Envelope<Listing<AlertSetting>>>, { BAD_REQUEST | INTERNAL }> {
        let caller = auth.require(Need::SignedIn)?;
        let mut p = Problems::default();
        let page = params::listing(
            params::value(page_no.0),
            params::value(page_size.0),
            SETTING_PAGE_SIZE,
            &mut p,
        );
        let sort = params::sort(
            sort.0.as_deref(),
            AlertSettingSortField::parse,
            Sort {
                field: AlertSettingSortField::Name,
                descending: false,
            },
            &mut p,
        );
        p.check()?;
        let list = page.ok_or_else(|| ApiError::bad_request("Bad paging."))?;
        let page = list.page;
        let filter = AlertSettingFilter {
            search: search.0.map(Filter::into_string),
            sort,
        };
        let settings = state
            .store
            .list_alert_settings(caller.scope(), page, &filter)
            .await?;
        Ok(Listing::ok(list, settings))
    }

    /// One alert setting of the caller's groups.
    #[oai(
        path = "/settings/:id",
        method = "get",
        operation_id = "getAlertSetting"
    )]
    async fn get(
        &self,
        auth: Auth,
        state: Data<&AppState>,
        id: Path<i64>,
    ) -> Answer<Json<Envelope<AlertSetting>>, { FORBIDDEN | NOT_FOUND | INTERNAL }> {
        let caller = auth.require(Need::SignedIn)?;
        Ok(Envelope::ok(found(&state, caller, id.0).await?.into()))
    }

    /// Creates an alert setting on one of the caller's groups (read-write access).
    #[oai(
        path = "/settings",
        method = "post",
        operation_id = "createAlertSetting"
    )]
    async fn create(
        &self,
        auth: Auth,
        state: Data<&AppState>,
        body: Json<AlertSettingSave>,
    ) -> Answer<Json<Envelope<AlertSetting>>, { BAD_REQUEST | FORBIDDEN | INTERNAL }> {
        let caller = auth.require(Need::Write)?;
        let mut p = Problems::default();
        let draft = body.draft(&mut p);
        p.check()?;
        let draft =
            draft.ok_or_else(|| ApiError::bad_request("The alert setting is incomplete."))?;
        let id = state
            .store
            .create_alert_setting(caller.scope(), &draft)
            .await?;
        Ok(Envelope::ok(found(&state, caller, id).await?.into()))
    }

    /// Replaces an alert setting of one of the caller's groups (read-write access); the
    /// engine reads the change from the next run.
    #[oai(
        path = "/settings/:id",
        method = "put",
        operation_id = "updateAlertSetting"
    )]
    async fn update(
        &self,
        auth: Auth,
        state: Data<&AppState>,
        id: Path<i64>,
        body: Json<AlertSettingSave>,
    ) -> Answer<Json<Envelope<AlertSetting>>, { BAD_REQUEST | FORBIDDEN | NOT_FOUND | INTERNAL }>
    {
        let caller = auth.require(Need::Write)?;
        let mut p = Problems::default();
        p.same_id(id.0, body.id, "alert setting");
        let draft = body.draft(&mut p);
        p.check()?;
        let draft =
            draft.ok_or_else(|| ApiError::bad_request("The alert setting is incomplete."))?;
        let v = state
            .store
            .update_alert_setting(caller.scope(), id.0, &draft)
            .await?;
        params::visible(v, format_args!("Alert setting {}", id.0))?;
        Ok(Envelope::ok(found(&state, caller, id.0).await?.into()))
    }

    /// Deletes an alert setting of one of the caller's groups (read-write access).
    #[oai(
        path = "/settings/:id",
        method = "delete",
        operation_id = "deleteAlertSetting"
    )]
    async fn delete(
        &self,
        auth: Auth,
        state: Data<&AppState>,
        id: Path<i64>,
    ) -> Answer<Json<Envelope<i64>>, { FORBIDDEN | NOT_FOUND | INTERNAL }> {
        let caller = auth.require(Need::Write)?;
        let v = state
            .store
            .delete_alert_setting(caller.scope(), id.0)
            .await?;
        params::visible(v, format_args!("Alert setting {}", id.0))?;
        Ok(Envelope::ok(id.0))
    }

    /// Every alert status (spec §3 'Alert status'), by id.
    #[oai(
        path = "/allStatus",
        method = "get",
        operation_id = "listAlertStatuses"
    )]
    async fn all_status(
        &self,
        auth: Auth,
        state: Data<&AppState>,
    ) -> Answer<Json<Envelope<Vec<AlertStatus>>>, { INTERNAL }> {
        auth.require(Need::SignedIn)?;
        let all = state.store.all_statuses().await?;
        Ok(Envelope::ok(all.into_iter().map(Into::into).collect()))
    }

    /// The distribution lists the caller may send to (id and name, by name): the alert
    /// setting form's contact groups and the report schedule's lists. Administrators get
    /// every list; a restricted user only the lists their groups use (an alert setting of
    /// one of their groups sends or escalates to it, or a report of one is scheduled to it).
    #[oai(
        path = "/contactGroups",
        method = "get",
        operation_id = "listContactGroups"
    )]
    async fn contact_groups(
        &self,
        auth: Auth,
        state: Data<&AppState>,
    ) -> Answer<Json<Envelope<Vec<ContactGroup>>>, { INTERNAL }> {
        let caller = auth.require(Need::SignedIn)?;
        let all = state.store.contact_groups(caller.scope()).await?;
        Ok(Envelope::ok(
            all.into_iter()
                .map(|(id, name)| ContactGroup { id, name })
                .collect(),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_documented_failure_counts_are_the_domain_ones() {
        let domain: Vec<i64> = alert_setting::FAILURE_CHOICES
            .iter()
            .map(|c| i64::from(*c))
            .collect();
        assert_eq!(FailureChoices::VALUES, domain.as_slice());
    }
}
