// Names for the API's shapes. Every type here is the generated schema's (schema.d.ts, from the
// server's OpenAPI document by scripts/gen-api.sh); nothing is typed by hand a second time.

import type { components } from "./schema";

type Generated = components["schemas"];
/** A schema of the server's OpenAPI document, by name. */
export type Schema<K extends keyof Generated> = Generated[K];

export type SignedInUser = Schema<"SignedInUser">;
export type SignInRequest = Schema<"SignInRequest">;
export type ErrorBody = Schema<"ErrorBody">;

export type Group = Schema<"GroupItem">;
export type GroupMetric = Schema<"GroupMetric">;
export type RecentStatus = Schema<"RecentStatus">;
export type GroupRecentItem = Schema<"GroupRecentItem">;
export type HourlyStatus = Schema<"HourlyStatus">;
export type ChannelHealth = Schema<"ChannelHealth">;
export type ClientAppHealth = Schema<"ClientAppItem">;
export type StatusFlag = Schema<"StatusItem">;
export type ComponentPresence = Schema<"ComponentItem">;

export type RunItem = Schema<"RunItem">;
export type RunPage = Schema<"Page_RunItem">;
export type RunDetail = Schema<"RunDetailItem">;
export type RunSegment = Schema<"SegmentItem">;
export type RunStep = Schema<"StepItem">;
export type GroupDetail = Schema<"GroupDetail">;
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
export type ChannelId = "voice" | "web";
export type Role = "ROLE_ADMIN" | "ROLE_USER";
export type AccessType = "read-write" | "read-only";
export type RunType = "Manual" | "Schedule";

export type Distribution = Schema<"Distribution">;
export type DistributionSave = Schema<"DistributionSave">;
export type DistributionPage = Schema<"Page_Distribution">;
export type DistributionType = Schema<"DistributionType">;
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
export type OpenAlerts = Schema<"OpenAlerts">;
export type JiraSettings = Schema<"JiraSettings">;
export type JiraUser = Schema<"JiraUser">;
export type JiraProject = Schema<"JiraProject">;
export type IssueData = Schema<"IssueData">;
export type IssueKey = Schema<"IssueKey">;
export type IssueView = Schema<"IssueView">;
export type AutoTicket = Schema<"AutoTicket">;
export type AutoTicketPage = Schema<"Page_AutoTicket">;
