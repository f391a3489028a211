// Names for the API's shapes. Every type here is the generated schema's (schema.d.ts, from the
// server's OpenAPI document by scripts/gen-api.sh); nothing is typed by hand a second time.

import type { AccessType as KeptAccessType, Role as KeptRole } from "../lib/types";
import type { components } from "./schema";

type Generated = components["schemas"];
/** A schema of the server's OpenAPI document, by name. */
export type Schema<K extends keyof Generated> = Generated[K];

/**
 * A shape as the spec's section 3 promises it: the fields it names, every other one optional (a
 * vendor's API behind the proxy sends only those). A narrow view of a generated schema.
 */
export type Section3<T, K extends keyof T> = Pick<T, K> & Partial<Omit<T, K>>;

export type SignedInUser = Schema<"SignedInUser">;
export type SignInRequest = Schema<"SignInRequest">;
export type ErrorBody = Schema<"ErrorBody">;

export type Group = Schema<"GroupItem">;
export type GroupMetric = Schema<"GroupMetric">;
export type GroupHourly = Schema<"GroupHourlyItem">;
export type RecentStatus = Schema<"RecentStatus">;
export type GroupRecentItem = Schema<"GroupRecentItem">;
/** An hour slot's counts; `maintenanceCount` is cxwatch's, absent from a vendor's API. */
export type HourlyStatus = Omit<Schema<"HourlyStatus">, "maintenanceCount"> & { maintenanceCount?: number };
export type ChannelHealth = Schema<"ChannelHealth">;
export type ClientAppHealth = Schema<"ClientAppItem">;
export type StatusFlag = Schema<"StatusItem">;
export type ComponentPresence = Schema<"ComponentItem">;

export type RunItem = Schema<"RunItem">;
export type RunPage = Schema<"Page_RunItem">;
/** A test run with section 3's fields only sure (runStatus, runType, runResult may be missing). */
export type SpecRun = Section3<
  RunItem,
  "runId" | "testCaseId" | "testCaseName" | "runTime" | "runDuration" | "runStatusId" | "mosCqIn"
>;
export type RunDetail = Schema<"RunDetailItem">;
export type RunSegment = Schema<"SegmentItem">;
export type RunStep = Schema<"StepItem">;
export type GroupDetail = Schema<"GroupDetail">;
/** A group of the list: section 7's `GET groups` promises id, name and channel only. */
export type SpecGroup = Section3<Group, "id" | "name" | "channel">;
export type GroupSave = Schema<"GroupSave">;
export type GroupPage = Schema<"Page_GroupItem">;
export type TestCaseRef = Schema<"CaseItem">;
export type Ivr = Schema<"IvrItem">;

export type User = Schema<"User">;
export type UserSave = Schema<"UserSave">;
export type GroupRef = Schema<"GroupRef">;
export type PasswordChange = Schema<"PasswordChange">;
export type UserPage = Schema<"Page_User">;

/** Channel ids as the API spells them: voice (shown Voice) and web (shown Digital). */
export type ChannelId = Schema<"Channel">;
export type Role = Schema<"Role">;
export type AccessType = Schema<"AccessType">;
export type RunType = Schema<"RunType">;
export type RunStatus = Schema<"RunStatus">;
export type Timeframe = Schema<"Timeframe">;
export type NotificationState = Schema<"NotificationState">;
/** The `code` of cxwatch's error answers. */
export type ErrorCode = Schema<"ErrorCode">;
/** The rule a field broke (`fields[].rule` of an error answer). */
export type FieldRule = Schema<"Rule">;

// lib/ keeps the logged-in user and imports nothing above it: its Role and AccessType must be
// the generated ones (a type error here when the server's enums change).
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Assert<T extends true> = T;
export type KeptRoleIsGenerated = Assert<Same<KeptRole, Role>>;
export type KeptAccessTypeIsGenerated = Assert<Same<KeptAccessType, AccessType>>;

export type Distribution = Schema<"Distribution">;
export type DistributionSave = Schema<"DistributionSave">;
export type DistributionPage = Schema<"Page_Distribution">;
export type DistributionType = Schema<"DistributionType">;
export type DistributionDependents = Schema<"DistributionDependents">;
export type GroupDependents = Schema<"GroupDependents">;
export type ContactSave = Schema<"ContactSave">;
export type TestContactResult = Schema<"TestContactResult">;
export type Notification = Schema<"Notification">;
export type Report = Schema<"Report">;
export type ReportSave = Schema<"ReportSave">;
export type ReportPage = Schema<"Page_Report">;
export type ReportTypeItem = Schema<"ReportTypeItem">;
export type LatencyThreshold = Schema<"LatencyThreshold">;
export type LatencyReport = Schema<"LatencyReport">;
export type LatencyByHr = Schema<"LatencyByHr">;
export type MosRow = Schema<"MosRow">;
export type RunItemPage = Schema<"Page_RunItem">;

export type AlertSetting = Schema<"AlertSetting">;
export type AlertSettingSave = Schema<"AlertSettingSave">;
export type AlertSettingPage = Schema<"Page_AlertSetting">;
export type AlertStatus = Schema<"AlertStatus">;
export type ContactGroup = Schema<"ContactGroup">;
export type ScheduleSlot = Schema<"ScheduleSlot">;
export type AlertEvent = Schema<"AlertEvent">;
export type AlertEventPage = Schema<"Page_AlertEvent">;
export type AlertDetails = Schema<"AlertDetails">;
/** An alert event as section 3 names it (`open`, `statusId` and the rest may be missing). */
export type SpecAlertEvent = Section3<
  AlertEvent,
  "alertId" | "testCaseName" | "alertTime" | "distributionName" | "testRunCount"
>;
/** Alert details as section 3 names them (`notifications`, `open`, ... may be missing). */
export type SpecAlertDetails = Omit<
  Section3<AlertDetails, "alertId" | "testCaseId" | "testCaseName" | "testRunCount" | "distributionName">,
  "testRuns"
> & { testRuns?: SpecRun[] };
export type OpenAlerts = Schema<"OpenAlerts">;
export type AlertComment = Schema<"AlertComment">;
export type TimelineEntry = Schema<"TimelineEntry">;
export type MaintenanceWindow = Schema<"MaintenanceWindow">;
// What the operator sees of an outage (cxwatch's additions): a failing group's alert state,
// an alert's active mute, the handover.
export type GroupAlert = Schema<"GroupAlert">;
export type ActiveMute = Schema<"ActiveMuteItem">;
export type MuteTarget = Schema<"MuteTargetKind">;
export type AlertStateFilter = Schema<"AlertStateFilter">;
export type Handover = Schema<"Handover">;
export type HandoverEntry = Schema<"HandoverEntry">;
export type MaintenanceWindowSave = Schema<"MaintenanceWindowSave">;
export type MaintenanceNow = Schema<"MaintenanceNow">;
export type JiraSettings = Schema<"JiraSettings">;
export type JiraUser = Schema<"JiraUser">;
export type JiraProject = Schema<"JiraProject">;
export type IssueData = Schema<"IssueData">;
export type IssueKey = Schema<"IssueKey">;
export type IssueView = Schema<"IssueView">;
export type AutoTicket = Schema<"AutoTicket">;
export type WaitingAutoTicket = Schema<"WaitingAutoTicket">;
export type AutoTicketPage = Schema<"Page_AutoTicket">;
// The site page (cxwatch's addition).
export type SiteChecklist = Schema<"SiteChecklist">;
export type ApiKey = Schema<"ApiKey">;
export type ApiKeyCreated = Schema<"ApiKeyCreated">;
export type SiteChannel = Schema<"SiteChannel">;
export type SiteChannelKind = Schema<"SiteChannelKind">;
export type SiteChannelTested = Schema<"SiteChannelTested">;
export type AuditEntry = Schema<"AuditEntry">;
