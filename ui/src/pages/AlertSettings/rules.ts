// The alert setting form's rules (spec §5 'Alert setting form', 'Schedule'), pure: the check
// order and its messages' keys, which statuses a group's channel offers, when attach recording
// shows, and what is sent. The server applies the same rules (src/domain/alert_setting.rs).
import type { AlertSetting, AlertSettingSave, AlertStatus } from "../../api/types";
import type { Form } from "../../lib/form";
import { countSelected, emptyWeek, fromRanges, type SlotRange, toRanges, type Week } from "../../lib/schedule";

/** Number of failures choices (spec §5). */
export const FAILURE_CHOICES = [1, 2, 3, 5, 10] as const;

export interface AlertSettingFormValues {
  name: string;
  /** 0 until chosen. */
  groupId: number;
  distributionId: number;
  failureToAlert: number;
  emailSubject: string;
  voiceMessage: string;
  smsPrefix: string;
  attachRecording: boolean;
  attachJiraTicket: boolean;
  notifyOnRecovery: boolean;
  active: boolean;
  alertStatus: string[];
  week: Week;
  jiraAssignee: string;
  jiraProject: string;
  jiraUsername: string;
  /** cxwatch's escalation: the second list, 0 for none, and its delay in minutes. */
  escalationDistributionId: number;
  escalationDelayMin: number;
}

/** The form's state, as its field groups share it. */
export type SettingForm = Form<AlertSettingFormValues, FieldName, Rule>;
/** A field's message in the reader's language, when it has one. */
export type FieldMessage = (field: FieldName) => string | undefined;
/** One form on the page: stable ids (the browser tests read the messages by them). */
export const fid = (k: string) => `alert-${k}`;

/** The longest escalation delay in minutes (a week; src/domain/alert_setting.rs). */
export const ESCALATION_DELAY_MAX = 7 * 24 * 60;

/** The server's field names, in the form's order. */
export type FieldName =
  | "name"
  | "testCaseGroupId"
  | "distributionId"
  | "failureToAlert"
  | "emailSubject"
  | "voiceMessage"
  | "smsPrefix"
  | "alertStatus"
  | "schedule"
  | "escalationDistributionId"
  | "escalationDelayMin";

/** delay: the escalation delay's range;  failures: 'number of failures is required'; statuses: 'at least one
 * failure/warnings is required'; time: the schedule's 24:00 error; hours: a schedule without a half hour
 * (a setting that would never alert); invalid: the server's text. */
export type Rule = "required" | "failures" | "statuses" | "time" | "hours" | "delay" | "invalid";
export type Errors = Partial<Record<FieldName, Rule>>;

export const emptyForm = (): AlertSettingFormValues => ({
  name: "",
  groupId: 0,
  distributionId: 0,
  failureToAlert: 0,
  emailSubject: "",
  voiceMessage: "",
  smsPrefix: "",
  attachRecording: false,
  attachJiraTicket: false,
  notifyOnRecovery: false,
  active: true,
  alertStatus: [],
  week: emptyWeek(),
  jiraAssignee: "",
  jiraProject: "",
  jiraUsername: "",
  escalationDistributionId: 0,
  escalationDelayMin: 30,
});

/** Checks in the spec's order; every problem at once. */
export function validateAlertSetting(v: AlertSettingFormValues): Errors {
  const e: Errors = {};
  if (!v.name.trim()) e.name = "required";
  if (!(v.groupId >= 1)) e.testCaseGroupId = "required";
  if (!(v.distributionId >= 1)) e.distributionId = "required";
  if (!(FAILURE_CHOICES as readonly number[]).includes(v.failureToAlert)) e.failureToAlert = "failures";
  if (!v.emailSubject.trim()) e.emailSubject = "required";
  if (!v.voiceMessage.trim()) e.voiceMessage = "required";
  if (!v.smsPrefix.trim()) e.smsPrefix = "required";
  if (!v.alertStatus.length) e.alertStatus = "statuses";
  if (countSelected(v.week) === 0) e.schedule = "hours";
  if (
    v.escalationDistributionId >= 1 &&
    !(
      Number.isInteger(v.escalationDelayMin) &&
      v.escalationDelayMin >= 1 &&
      v.escalationDelayMin <= ESCALATION_DELAY_MAX
    )
  )
    e.escalationDelayMin = "delay";
  return e;
}

/** A saved setting whose schedule has no half hour: it never alerts. A setting read without its
 * schedule (a list row of the vendor's API may leave it out) is not said to. */
export function neverAlerts(s: { schedule?: SlotRange[] | null }): boolean {
  if (!Array.isArray(s.schedule)) return false;
  const read = fromRanges(s.schedule);
  return "week" in read && countSelected(read.week) === 0;
}

/** The channel's names in supportChannel: a voice group is voice or ivr; none chosen yet means
 * the spec's default, ivr and voice. */
function channelNames(channel: string | undefined): string[] {
  if (channel === "web") return ["web"];
  return ["ivr", "voice"];
}

/** Failure and warning statuses that support the group's channel. */
export function statusesFor(all: AlertStatus[], channel: string | undefined): AlertStatus[] {
  const names = channelNames(channel);
  return all.filter(
    (s) =>
      (s.statusGroup === "TRS_FAIL" || s.statusGroup === "TRS_WARN") &&
      s.supportChannel.split(",").some((c) => names.includes(c.trim())),
  );
}

/** Attach recording shows for a voice group, or before a group is chosen. */
export const showsAttachRecording = (channel: string | undefined): boolean =>
  channel === undefined || channel === "voice" || channel === "ivr";

export function fromSetting(s: AlertSetting): AlertSettingFormValues {
  const read = fromRanges(s.schedule);
  return {
    name: s.name,
    groupId: s.testCaseGroupId,
    distributionId: s.distributionId,
    failureToAlert: s.failureToAlert,
    emailSubject: s.emailSubject,
    voiceMessage: s.voiceMessage,
    smsPrefix: s.smsPrefix,
    attachRecording: s.attachRecording,
    attachJiraTicket: s.attachJiraTicket,
    notifyOnRecovery: s.notifyOnRecovery,
    active: s.active,
    alertStatus: s.alertStatus,
    week: "week" in read ? read.week : emptyWeek(),
    jiraAssignee: s.jiraAssignee ?? "",
    jiraProject: s.jiraProject ?? "",
    jiraUsername: s.jiraUsername ?? "",
    escalationDistributionId: s.escalationDistributionId ?? 0,
    escalationDelayMin: s.escalationDelayMin ?? 30,
  };
}

/** What is sent: statuses the channel no longer offers and a recording a digital group cannot
 * attach are dropped; the escalation only to cxwatch's API (`escalation`), null when none. */
export function toSave(
  v: AlertSettingFormValues,
  offered: AlertStatus[],
  channel: string | undefined,
  escalation = false,
): AlertSettingSave {
  const codes = offered.map((s) => s.code);
  return {
    name: v.name.trim(),
    active: v.active,
    testCaseGroupId: v.groupId,
    distributionId: v.distributionId,
    // One of FAILURE_CHOICES: validate() refuses any other before a save.
    failureToAlert: v.failureToAlert as AlertSettingSave["failureToAlert"],
    emailSubject: v.emailSubject.trim(),
    voiceMessage: v.voiceMessage.trim(),
    smsPrefix: v.smsPrefix.trim(),
    attachRecording: showsAttachRecording(channel) && v.attachRecording,
    attachJiraTicket: v.attachJiraTicket,
    notifyOnRecovery: v.notifyOnRecovery,
    alertStatus: v.alertStatus.filter((c) => codes.includes(c)),
    schedule: toRanges(v.week),
    jiraAssignee: v.jiraAssignee.trim() || undefined,
    jiraProject: v.jiraProject.trim() || undefined,
    jiraUsername: v.jiraUsername.trim() || undefined,
    ...(escalation
      ? v.escalationDistributionId >= 1
        ? { escalationDistributionId: v.escalationDistributionId, escalationDelayMin: v.escalationDelayMin }
        : { escalationDistributionId: null, escalationDelayMin: null }
      : {}),
  };
}
