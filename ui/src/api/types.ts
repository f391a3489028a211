// Types of the entities of the spec (§3), as the API sends them.

/** `{"code":"OK","data":...}` on success, `{"code":"...","messages":[...]}` on failure. */
export interface Envelope<T> {
  code: string;
  data?: T;
  messages?: string[];
}

/** What `POST auth/signin` and `GET auth/getToken` answer. */
export interface SignInResponse {
  id: number;
  username: string;
  roles: string[];
  accessType: string;
  accessToken: string;
  remember?: boolean;
  [extra: string]: unknown;
}

/** Channel ids as the API spells them: voice (shown Voice) and web (shown Digital). */
export type ChannelId = "voice" | "web";

export interface Channel {
  id: number | string;
  name: string;
}

export interface TestCaseRef {
  id: number;
  ivrId?: number;
  name: string;
}

export interface Group {
  id: number;
  name: string;
  channel: ChannelId | string;
  caseCount: number;
  ivrCount: number;
  testCases?: TestCaseRef[];
}

export interface IvrApplication {
  id: number;
  name: string;
  channel: ChannelId | string;
  testCases: TestCaseRef[];
}

export interface HourlyStatus {
  /** Hour timestamp. */
  hourly: string;
  successCount: number;
  warningCount: number;
  failureCount: number;
}

export interface GroupMetric {
  entityId: number;
  entityName: string;
  entityType: string;
  channel: ChannelId | string;
  periodStart: string;
  periodEnd: string;
  successCount: number;
  warningCount: number;
  failureCount: number;
  hourlyStatus: HourlyStatus[];
  segmentId?: number | null;
  segmentName?: string | null;
}

export interface NodeStatus {
  enabled: boolean;
  /** 'TRS_PASS' is pass; any other enabled status is failure. */
  status: string;
}

export interface ComponentStatus {
  name: string;
  hasComponent: boolean;
  enabled: boolean;
}

export interface ClientAppHealth {
  clientEndPoint: string;
  channel: ChannelId | string;
  lastRun?: { runTime: string } | null;
  appStatus: NodeStatus;
  telcoStatus: NodeStatus;
  agentStatus: NodeStatus;
  componentStatus: ComponentStatus[];
}

/** `GET groups/health`: one entry per channel with its client applications. */
export interface ChannelHealth {
  channel: ChannelId | string;
  clientApps: ClientAppHealth[];
}

export interface Report {
  id: number;
  name: string;
  description: string;
  reportTypeName: string;
  reportTypeID: number;
  latencyWarn: number;
  latencyFail: number;
  runType: RunType;
  testCaseGroupName: string;
  testCaseGroupID: number;
  timeframeName: string;
  timeframeBegin: string;
  timeframeEnd: string;
  lastModifiedTime?: string;
  jiraTicket?: string | null;
}

export type RunType = "Manual" | "Schedule";

export interface Page<T> {
  content: T[];
  totalElements: number;
}

export interface TestRunRef {
  runStatusId: number;
}

export interface AlertEvent {
  alertId: number;
  testCaseName: string;
  alertTime: string;
  distributionName: string;
  testRunCount: number;
  testRuns: TestRunRef[];
}

export interface AlertDetails {
  alertId: number;
  testCaseId: number;
  testCaseName: string;
  testRunCount: number;
  distributionName: string;
  jiraTicket?: string | null;
  testRuns: TestRun[];
}

export interface TestRun {
  runId: number;
  testCaseId: number;
  testCaseName: string;
  runTime: string;
  /** Seconds. */
  runDuration: number;
  runStatusId: number;
  mosCqIn?: number | null;
}

export interface AlertStatus {
  id: number;
  code: string;
  text: string;
  statusGroup: "TRS_FAIL" | "TRS_WARN" | string;
  supportChannel: string;
}

export interface ScheduleSlot {
  dayOfWeek: number | string;
  startTimeSlot: string;
  endTimeSlot: string;
}

export interface AlertSetting {
  id: number;
  name: string;
  active: boolean;
  testCaseGroupId: number;
  distributionId: number;
  testCaseGroupName: string;
  distributionName: string;
  emailSubject: string;
  voiceMessage: string;
  smsPrefix: string;
  attachRecording: boolean;
  attachJiraTicket: boolean;
  failureToAlert: number;
  notifyOnRecovery: boolean;
  alertStatus: string[];
  schedule: ScheduleSlot[];
  jiraAssignee?: string | null;
  jiraProject?: string | null;
  jiraUsername?: string | null;
}

export interface Contact {
  name: string;
  /** Contact type id: Email 1, SMS 2, Voice 4. */
  type: number;
  info: string;
}

export interface DistributionList {
  id: number;
  name: string;
  label: string[];
  type: string[];
  email: string[];
  lastModifiedTime?: string;
  contacts?: Contact[];
}

export interface User {
  id: number;
  firstName: string;
  lastName: string;
  username: string;
  roles: string[];
  accessType: string;
  testCaseGroups: { id: number; name: string }[];
  password?: string;
}
