// Test case groups, their health and their metrics (spec §7 'Groups and metrics').
import { queryOptions, useQuery } from "@tanstack/react-query";
import { api, type RequestOptions } from "../index";
import type { ChannelHealth, Group, GroupMetric, GroupRef, RunType } from "../types";

export const groupKeys = {
  all: ["groups"] as const,
  list: () => [...groupKeys.all, "list"] as const,
  health: () => [...groupKeys.all, "health"] as const,
  metric: (id: number, date: string, runType: RunType) => [...groupKeys.all, "metric", id, date, runType] as const,
};

export function fetchGroups(opts: RequestOptions = {}): Promise<Group[]> {
  return api.get<Group[]>("trs/v1/groups", opts);
}

export function fetchHealth(opts: RequestOptions = {}): Promise<ChannelHealth[]> {
  return api.get<ChannelHealth[]>("trs/v1/groups/health", opts);
}

export function fetchGroupMetric(
  groupId: number,
  startDate: string,
  runType: RunType,
  opts: RequestOptions = {},
): Promise<GroupMetric[]> {
  return api.get<GroupMetric[]>(`trs/v1/groups/${groupId}/metric`, {
    ...opts,
    query: { level: "case", startDate, caseRunType: runType },
  });
}

/** The group list; `opts` shapes the call (quiet, in the background) when it is made. */
export const groupsQuery = (opts: RequestOptions = {}) =>
  queryOptions({ queryKey: groupKeys.list(), queryFn: ({ signal }) => fetchGroups({ ...opts, signal }) });

export const healthQuery = (opts: RequestOptions = {}) =>
  queryOptions({ queryKey: groupKeys.health(), queryFn: ({ signal }) => fetchHealth({ ...opts, signal }) });

export const groupMetricQuery = (id: number, date: string, runType: RunType, opts: RequestOptions = {}) =>
  queryOptions({
    queryKey: groupKeys.metric(id, date, runType),
    queryFn: ({ signal }) => fetchGroupMetric(id, date, runType, { ...opts, signal }),
  });

/** The groups as choices of a form (id and name). */
export function useGroupChoices() {
  return useQuery({
    ...groupsQuery({ background: true }),
    select: (groups): GroupRef[] => groups.map((g) => ({ id: g.id, name: g.name })),
  });
}
