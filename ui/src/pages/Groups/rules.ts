// Test case group save (spec §5): a name, a channel and at least one test case; otherwise the
// fields show their errors and nothing is sent. Pure, in the order the form shows them.
import type { ChannelId, GroupDependents, Ivr } from "../../api/types";

export const MAX_NAME = 200;
/** The test case grid's page size (spec §9): fixed. */
export const CASE_GRID_SIZE = 100;

export interface GroupForm {
  id?: number;
  name: string;
  channel: "" | ChannelId;
  /** Optional: narrows the test case grid. */
  ivrId: number | null;
  testCaseIds: number[];
}

export type GroupField = "name" | "channel" | "testCases";
export type GroupProblem = "required" | "tooLong";
export type GroupProblems = Partial<Record<GroupField, GroupProblem>>;

export const emptyGroupForm = (): GroupForm => ({ name: "", channel: "", ivrId: null, testCaseIds: [] });

export function groupProblems(f: GroupForm): GroupProblems {
  const p: GroupProblems = {};
  const name = f.name.trim();
  if (!name) p.name = "required";
  else if ([...name].length > MAX_NAME) p.name = "tooLong";
  if (!f.channel) p.channel = "required";
  if (f.testCaseIds.length === 0) p.testCases = "required";
  return p;
}

/** The body of POST/PUT groups, or null when the form has problems. */
export function groupBody(
  f: GroupForm,
): { id?: number; name: string; channel: ChannelId; testCases: { id: number }[] } | null {
  if (Object.keys(groupProblems(f)).length) return null;
  return {
    ...(f.id ? { id: f.id } : {}),
    name: f.name.trim(),
    // Not empty: groupProblems names a missing channel.
    channel: f.channel as ChannelId,
    testCases: f.testCaseIds.map((id) => ({ id })),
  };
}

export interface CaseRow {
  id: number;
  name: string;
  ivrId: number;
  ivrName: string;
}

/** The test cases the grid offers: those of the channel's IVR applications, or of the one chosen. */
export function caseRows(ivrs: Ivr[], channel: "" | ChannelId, ivrId: number | null): CaseRow[] {
  if (!channel) return [];
  return ivrs
    .filter((i) => i.channel === channel && (ivrId === null || i.id === ivrId))
    .flatMap((i) => i.testCases.map((c) => ({ id: c.id, name: c.name, ivrId: i.id, ivrName: i.name })))
    .sort((a, b) => a.name.localeCompare(b.name) || a.id - b.id);
}

/** Changing the channel keeps only the chosen test cases of the new channel. */
export function withChannel(f: GroupForm, ivrs: Ivr[], channel: "" | ChannelId): GroupForm {
  const allowed = new Set(caseRows(ivrs, channel, null).map((c) => c.id));
  return { ...f, channel, ivrId: null, testCaseIds: f.testCaseIds.filter((id) => allowed.has(id)) };
}

/** Whether anything uses the group: the server deletes it only with what uses it. */
export const groupInUse = (u: GroupDependents): boolean =>
  u.alertSettings.length + u.reports.length + u.users.length + u.maintenanceWindows.length > 0;
