//! Alert settings (spec §3 'Alert setting', §5 'Alert setting form', 'Schedule'): which runs
//! of a test case group raise an alert (the statuses counted and how many in a row), when
//! (the weekly schedule, `schedule.rs`) and whom it tells (a distribution list, the
//! 'contact group').
//!
//! The form's rules are checked here in the spec's order and words: label text, test case
//! group, contact group, number of failures, email subject, voice message, sms prefix (each
//! 'Required'), the alert statuses ('at least one failure/warnings is required'), then the
//! schedule (no range starting at 24:00, and at least one half hour: a setting without one
//! would be listed active and never alert). Rules that need the data (the group and list exist, the group is the caller's,
//! the statuses fit the group's channel) are the store's.

use super::page::Sort;
use super::rules::{check_text, Problems, Rule};
use super::run::Channel;
use super::schedule::{SlotRange, Week};

/// The spec's message for an empty required field.
pub const REQUIRED: &str = "Required";
/// The spec's message when no failure or warning status is chosen.
pub const STATUS_REQUIRED: &str = "at least one failure/warnings is required";
/// The spec's message when the number of failures is missing.
pub const FAILURES_REQUIRED: &str = "number of failures is required";
/// The message, in the spec's words, when the schedule has no half hour.
pub const SCHEDULE_REQUIRED: &str = "at least one half hour of the schedule is required";

/// The choices of 'number of failures' (spec §5).
pub const FAILURE_CHOICES: [u8; 5] = [1, 2, 3, 5, 10];

/// Longest label, e-mail subject or ticket field.
pub const NAME_MAX: usize = 200;
/// Longest voice message.
pub const VOICE_MAX: usize = 1000;
/// Longest sms prefix.
pub const SMS_PREFIX_MAX: usize = 60;

/// A status group an alert setting may count (spec §3 'Alert status').
pub const FAIL_GROUP: &str = "TRS_FAIL";
pub const WARN_GROUP: &str = "TRS_WARN";

/// One alert status (spec §3): failure 7, pass 3, warning 4.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AlertStatus {
    pub id: i64,
    pub code: String,
    pub text: String,
    /// `TRS_FAIL`, `TRS_WARN` (or `TRS_PASS`, which no setting counts).
    pub status_group: String,
    /// Comma-separated channels: `ivr,voice,web`.
    pub support_channel: String,
}

impl AlertStatus {
    /// May a setting count it: a failure or warning status that supports the channel
    /// (a voice group matches `voice` and `ivr`, a digital group `web`).
    pub fn fits(&self, channel: Channel) -> bool {
        (self.status_group == FAIL_GROUP || self.status_group == WARN_GROUP)
            && self
                .support_channel
                .split(',')
                .map(str::trim)
                .any(|c| match channel {
                    Channel::Voice => c == "voice" || c == "ivr",
                    Channel::Web => c == "web",
                })
    }
}

/// A saved setting with the names the list shows.
#[derive(Debug, Clone, PartialEq)]
pub struct AlertSetting {
    pub id: i64,
    pub name: String,
    pub active: bool,
    pub group_id: i64,
    pub group_name: String,
    /// The group's channel: attach recording is for voice only.
    pub channel: Channel,
    pub distribution_id: i64,
    pub distribution_name: String,
    pub email_subject: String,
    pub voice_message: String,
    pub sms_prefix: String,
    pub attach_recording: bool,
    pub attach_jira_ticket: bool,
    pub failure_to_alert: u8,
    pub notify_on_recovery: bool,
    /// Status codes counted, in id order.
    pub statuses: Vec<String>,
    pub week: Week,
    pub jira_assignee: Option<String>,
    pub jira_project: Option<String>,
    pub jira_username: Option<String>,
    /// The second list notified when an event stays open and unacknowledged.
    pub escalation: Option<Escalation>,
    /// Its name.
    pub escalation_distribution_name: Option<String>,
    /// Seconds since the epoch of the last save.
    pub modified_at: i64,
}

/// An alert setting's escalation: list `distribution_id` is notified when an event is
/// still open and unacknowledged `delay_min` minutes after it opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Escalation {
    pub distribution_id: i64,
    pub delay_min: i64,
}

/// The longest escalation delay, in minutes (a week).
pub const ESCALATION_DELAY_MAX: i64 = 7 * 24 * 60;

/// A checked setting as it is saved. `Default` is an inactive setting of no group with no
/// statuses, never in the week: code that makes drafts names what it sets and takes the
/// rest from it, so a new field is an edit of the form and the store only.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct AlertSettingDraft {
    pub name: String,
    pub active: bool,
    pub group_id: i64,
    pub distribution_id: i64,
    pub email_subject: String,
    pub voice_message: String,
    pub sms_prefix: String,
    pub attach_recording: bool,
    pub attach_jira_ticket: bool,
    pub failure_to_alert: u8,
    pub notify_on_recovery: bool,
    /// Status codes, without duplicates.
    pub statuses: Vec<String>,
    pub week: Week,
    pub jira_assignee: Option<String>,
    pub jira_project: Option<String>,
    pub jira_username: Option<String>,
    pub escalation: Option<Escalation>,
}

/// A setting as a client sends it (each part may be missing).
#[derive(Debug, Clone, Default)]
pub struct AlertSettingInput<'a> {
    pub name: Option<&'a str>,
    /// Default true.
    pub active: Option<bool>,
    pub group_id: Option<i64>,
    pub distribution_id: Option<i64>,
    pub failure_to_alert: Option<i64>,
    pub email_subject: Option<&'a str>,
    pub voice_message: Option<&'a str>,
    pub sms_prefix: Option<&'a str>,
    pub attach_recording: Option<bool>,
    pub attach_jira_ticket: Option<bool>,
    pub notify_on_recovery: Option<bool>,
    pub statuses: &'a [String],
    pub schedule: &'a [SlotRange],
    pub jira_assignee: Option<&'a str>,
    pub jira_project: Option<&'a str>,
    pub jira_username: Option<&'a str>,
    pub escalation_distribution_id: Option<i64>,
    pub escalation_delay_min: Option<i64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AlertSettingSortField {
    Id,
    Name,
    GroupName,
    DistributionName,
    Active,
}

impl AlertSettingSortField {
    pub fn parse(s: &str) -> Option<AlertSettingSortField> {
        Some(match s {
            "id" => AlertSettingSortField::Id,
            "name" => AlertSettingSortField::Name,
            "testCaseGroupName" => AlertSettingSortField::GroupName,
            "distributionName" => AlertSettingSortField::DistributionName,
            "active" => AlertSettingSortField::Active,
            _ => return None,
        })
    }
}

/// The list's search and order.
#[derive(Debug, Clone, PartialEq)]
pub struct AlertSettingFilter {
    /// Part of the label, the group's or the list's name, without case.
    pub search: Option<String>,
    pub sort: Sort<AlertSettingSortField>,
}

/// A required text: trimmed, not blank ('Required'), at most `max` characters.
fn required(p: &mut Problems, field: &str, value: Option<&str>, max: usize) -> Option<String> {
    let v = value.map(str::trim).unwrap_or("");
    if v.is_empty() {
        p.push(field, Rule::Required, REQUIRED);
        return None;
    }
    match check_text(field, v, max) {
        Ok(()) => Some(v.to_string()),
        Err(e) => {
            p.0.push(e);
            None
        }
    }
}

/// An id of at least 1 ('Required' when missing or below 1).
fn required_id(p: &mut Problems, field: &str, value: Option<i64>) -> Option<i64> {
    match value {
        Some(id) if id >= 1 => Some(id),
        _ => {
            p.push(field, Rule::Required, REQUIRED);
            None
        }
    }
}

/// An optional text (a ticket field): trimmed, empty is none.
fn optional(p: &mut Problems, field: &str, value: Option<&str>) -> Option<String> {
    let v = value.map(str::trim).filter(|v| !v.is_empty())?;
    match check_text(field, v, NAME_MAX) {
        Ok(()) => Some(v.to_string()),
        Err(e) => {
            p.0.push(e);
            None
        }
    }
}

/// The number of failures: one of 1, 2, 3, 5, 10.
pub fn check_failures(p: &mut Problems, value: Option<i64>) -> Option<u8> {
    let Some(n) = value else {
        p.push("failureToAlert", Rule::Required, FAILURES_REQUIRED);
        return None;
    };
    match FAILURE_CHOICES.into_iter().find(|c| i64::from(*c) == n) {
        Some(c) => Some(c),
        None if n < 1 => {
            p.push("failureToAlert", Rule::Required, FAILURES_REQUIRED);
            None
        }
        None => {
            p.push(
                "failureToAlert",
                Rule::Invalid,
                format!("failureToAlert {n} is not one of 1, 2, 3, 5 or 10."),
            );
            None
        }
    }
}

/// The alert statuses: at least one code, duplicates dropped, order kept.
pub fn check_statuses(p: &mut Problems, codes: &[String]) -> Option<Vec<String>> {
    let mut out: Vec<String> = Vec::new();
    for c in codes.iter().map(|c| c.trim()).filter(|c| !c.is_empty()) {
        if !out.iter().any(|o| o == c) {
            out.push(c.to_string());
        }
    }
    if out.is_empty() {
        p.push("alertStatus", Rule::Required, STATUS_REQUIRED);
        return None;
    }
    Some(out)
}

/// The schedule: ranges on the half hour, none starting at 24:00 (the time error), and at
/// least one half hour (an empty week never alerts).
pub fn check_schedule(p: &mut Problems, ranges: &[SlotRange]) -> Option<Week> {
    match Week::from_ranges(ranges) {
        Ok(w) if w.is_empty() => {
            p.push("schedule", Rule::Required, SCHEDULE_REQUIRED);
            None
        }
        Ok(w) => Some(w),
        Err(e) => {
            p.push("schedule", Rule::Invalid, format!("schedule: {e}."));
            None
        }
    }
}

/// Checks a setting in the form's order (spec §5); every problem is collected.
pub fn check_alert_setting(
    p: &mut Problems,
    i: &AlertSettingInput<'_>,
) -> Option<AlertSettingDraft> {
    let name = required(p, "name", i.name, NAME_MAX);
    let group_id = required_id(p, "testCaseGroupId", i.group_id);
    let distribution_id = required_id(p, "distributionId", i.distribution_id);
    let failure_to_alert = check_failures(p, i.failure_to_alert);
    let email_subject = required(p, "emailSubject", i.email_subject, NAME_MAX);
    let voice_message = required(p, "voiceMessage", i.voice_message, VOICE_MAX);
    let sms_prefix = required(p, "smsPrefix", i.sms_prefix, SMS_PREFIX_MAX);
    let statuses = check_statuses(p, i.statuses);
    let week = check_schedule(p, i.schedule);
    let jira_assignee = optional(p, "jiraAssignee", i.jira_assignee);
    let jira_project = optional(p, "jiraProject", i.jira_project);
    let jira_username = optional(p, "jiraUsername", i.jira_username);
    let escalation = check_escalation(p, i.escalation_distribution_id, i.escalation_delay_min);
    if !p.is_empty() {
        return None;
    }
    Some(AlertSettingDraft {
        name: name?,
        active: i.active.unwrap_or(true),
        group_id: group_id?,
        distribution_id: distribution_id?,
        email_subject: email_subject?,
        voice_message: voice_message?,
        sms_prefix: sms_prefix?,
        attach_recording: i.attach_recording.unwrap_or(false),
        attach_jira_ticket: i.attach_jira_ticket.unwrap_or(false),
        failure_to_alert: failure_to_alert?,
        notify_on_recovery: i.notify_on_recovery.unwrap_or(false),
        statuses: statuses?,
        week: week?,
        jira_assignee,
        jira_project,
        jira_username,
        escalation,
    })
}

/// The escalation: a list and a delay of 1 minute to a week, both or neither.
pub fn check_escalation(
    p: &mut Problems,
    list: Option<i64>,
    delay_min: Option<i64>,
) -> Option<Escalation> {
    match (list, delay_min) {
        (None, None) => None,
        (Some(l), _) if l < 1 => {
            p.push(
                "escalationDistributionId",
                Rule::Invalid,
                "escalationDistributionId must be a distribution list id (at least 1).",
            );
            None
        }
        (Some(_), None) => {
            p.push(
                "escalationDelayMin",
                Rule::Required,
                "escalationDelayMin is required with an escalation list.",
            );
            None
        }
        (None, Some(_)) => {
            p.push(
                "escalationDistributionId",
                Rule::Required,
                "escalationDistributionId is required with an escalation delay.",
            );
            None
        }
        (Some(_), Some(d)) if !(1..=ESCALATION_DELAY_MAX).contains(&d) => {
            p.push(
                "escalationDelayMin",
                Rule::Invalid,
                format!("escalationDelayMin must be 1 to {ESCALATION_DELAY_MAX} minutes."),
            );
            None
        }
        (Some(distribution_id), Some(delay_min)) => Some(Escalation {
            distribution_id,
            delay_min,
        }),
    }
}

/// Attach recording is kept only for a voice group (spec §5: the box shows for voice).
pub fn attach_recording_for(channel: Channel, asked: bool) -> bool {
    asked && channel == Channel::Voice
}

#[cfg(test)]
mod tests {
    use super::*;

    fn codes(c: &[&str]) -> Vec<String> {
        c.iter().map(|s| s.to_string()).collect()
    }

    fn full<'a>(statuses: &'a [String], schedule: &'a [SlotRange]) -> AlertSettingInput<'a> {
        AlertSettingInput {
            name: Some(" Billing down "),
            active: None,
            group_id: Some(2),
            distribution_id: Some(3),
            failure_to_alert: Some(3),
            email_subject: Some("Billing IVR failing"),
            voice_message: Some("The billing line is failing."),
            sms_prefix: Some("[cxwatch]"),
            attach_recording: Some(true),
            attach_jira_ticket: None,
            notify_on_recovery: Some(true),
            statuses,
            schedule,
            jira_assignee: Some("  "),
            jira_project: Some("OPS"),
            jira_username: None,
            escalation_distribution_id: None,
            escalation_delay_min: None,
        }
    }

    #[test]
    fn an_escalation_names_a_list_and_a_delay_of_a_minute_to_a_week() {
        let mut p = Problems::default();
        assert_eq!(check_escalation(&mut p, None, None), None);
        assert_eq!(
            check_escalation(&mut p, Some(4), Some(1)),
            Some(Escalation {
                distribution_id: 4,
                delay_min: 1
            })
        );
        assert!(check_escalation(&mut p, Some(4), Some(ESCALATION_DELAY_MAX)).is_some());
        assert!(p.is_empty());
        for (list, delay, field) in [
            (Some(4), None, "escalationDelayMin"),
            (None, Some(5), "escalationDistributionId"),
            (Some(4), Some(0), "escalationDelayMin"),
            (
                Some(4),
                Some(ESCALATION_DELAY_MAX + 1),
                "escalationDelayMin",
            ),
            (Some(0), Some(5), "escalationDistributionId"),
        ] {
            let mut p = Problems::default();
            assert_eq!(check_escalation(&mut p, list, delay), None);
            assert_eq!(p.check().unwrap_err()[0].field, field, "{list:?} {delay:?}");
        }
    }

    #[test]
    fn an_empty_form_fails_in_the_spec_order_and_words() {
        let mut p = Problems::default();
        assert!(check_alert_setting(&mut p, &AlertSettingInput::default()).is_none());
        let got: Vec<_> =
            p.0.iter()
                .map(|e| (e.field.as_str(), e.rule, e.message.as_str()))
                .collect();
        assert_eq!(
            got,
            [
                ("name", Rule::Required, "Required"),
                ("testCaseGroupId", Rule::Required, "Required"),
                ("distributionId", Rule::Required, "Required"),
                (
                    "failureToAlert",
                    Rule::Required,
                    "number of failures is required"
                ),
                ("emailSubject", Rule::Required, "Required"),
                ("voiceMessage", Rule::Required, "Required"),
                ("smsPrefix", Rule::Required, "Required"),
                (
                    "alertStatus",
                    Rule::Required,
                    "at least one failure/warnings is required"
                ),
                (
                    "schedule",
                    Rule::Required,
                    "at least one half hour of the schedule is required"
                ),
            ]
        );
    }

    #[test]
    fn a_schedule_without_a_half_hour_is_refused() {
        let statuses = codes(&["FAIL"]);
        let mut p = Problems::default();
        assert!(check_alert_setting(&mut p, &full(&statuses, &[])).is_none());
        let got: Vec<_> =
            p.0.iter()
                .map(|e| (e.field.as_str(), e.rule, e.message.as_str()))
                .collect();
        assert_eq!(got, [("schedule", Rule::Required, SCHEDULE_REQUIRED)]);
        // One half hour is enough: the last of Sunday.
        let last = [SlotRange {
            day_of_week: 7,
            start: "23:30".into(),
            end: "24:00".into(),
        }];
        let mut p = Problems::default();
        let d = check_alert_setting(&mut p, &full(&statuses, &last)).unwrap();
        assert!(p.is_empty());
        assert!(d.week.has(7, 47) && !d.week.is_empty());
    }

    #[test]
    fn ids_must_be_at_least_one_and_failures_a_choice() {
        let statuses = codes(&["FAIL"]);
        let all_day = [SlotRange {
            day_of_week: 1,
            start: "00:00".into(),
            end: "24:00".into(),
        }];
        let mut i = full(&statuses, &all_day);
        i.group_id = Some(0);
        i.distribution_id = Some(-4);
        i.failure_to_alert = Some(4);
        let mut p = Problems::default();
        assert!(check_alert_setting(&mut p, &i).is_none());
        let got: Vec<_> = p.0.iter().map(|e| (e.field.as_str(), e.rule)).collect();
        assert_eq!(
            got,
            [
                ("testCaseGroupId", Rule::Required),
                ("distributionId", Rule::Required),
                ("failureToAlert", Rule::Invalid),
            ]
        );
        for n in FAILURE_CHOICES {
            let mut p = Problems::default();
            assert_eq!(check_failures(&mut p, Some(n.into())), Some(n));
        }
        let mut p = Problems::default();
        assert_eq!(check_failures(&mut p, Some(0)), None);
        assert_eq!(p.0[0].message, FAILURES_REQUIRED);
    }

    #[test]
    fn a_good_form_is_trimmed_and_defaults_apply() {
        let statuses = codes(&["FAIL", " WARN", "FAIL", ""]);
        let schedule = [SlotRange {
            day_of_week: 1,
            start: "08:00".into(),
            end: "24:00".into(),
        }];
        let mut p = Problems::default();
        let d = check_alert_setting(&mut p, &full(&statuses, &schedule)).unwrap();
        assert!(p.is_empty());
        assert_eq!(d.name, "Billing down");
        assert!(d.active, "active by default");
        assert_eq!(d.statuses, ["FAIL", "WARN"]);
        assert_eq!(d.failure_to_alert, 3);
        assert_eq!(d.jira_assignee, None);
        assert_eq!(d.jira_project.as_deref(), Some("OPS"));
        assert!(d.week.has(1, 16) && d.week.has(1, 47) && !d.week.has(1, 15));
    }

    #[test]
    fn a_schedule_starting_at_24_00_is_the_time_error() {
        let statuses = codes(&["FAIL"]);
        let schedule = [SlotRange {
            day_of_week: 7,
            start: "24:00".into(),
            end: "24:00".into(),
        }];
        let mut p = Problems::default();
        assert!(check_alert_setting(&mut p, &full(&statuses, &schedule)).is_none());
        assert_eq!(p.0.len(), 1);
        assert_eq!(p.0[0].field, "schedule");
        assert!(p.0[0].message.contains("24:00"), "{}", p.0[0].message);
    }

    #[test]
    fn statuses_fit_the_channel() {
        let s = |group: &str, channels: &str| AlertStatus {
            id: 7,
            code: "FAIL".into(),
            text: "Failure".into(),
            status_group: group.into(),
            support_channel: channels.into(),
        };
        assert!(s(FAIL_GROUP, "ivr,voice,web").fits(Channel::Voice));
        assert!(s(WARN_GROUP, "ivr").fits(Channel::Voice));
        assert!(!s(WARN_GROUP, "ivr").fits(Channel::Web));
        assert!(!s("TRS_PASS", "ivr,voice,web").fits(Channel::Web));
        assert!(attach_recording_for(Channel::Voice, true));
        assert!(!attach_recording_for(Channel::Web, true));
    }
}
