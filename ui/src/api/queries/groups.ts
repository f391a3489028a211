// Test case groups, their health and their metrics (spec §7 'Groups and metrics').
import { queryOptions, useQuery } from "@tanstack/react-query";
import { createGate } from "../../lib/gate";
import { client } from "../index";
import { usePagedList } from "../lists";
import { resource } from "../resource";
import type { CallOptions } from "../typed";
import type {
  ChannelHealth,
  Group,
  GroupDependents,
  GroupHourly,
  GroupMetric,
  GroupRef,
  RecentStatus,
  RunType,
  SpecGroup,
} from "../types";

export const groupKeys = {
  all: ["groups"] as const,
  list: () => [...groupKeys.all, "list"] as const,
  health: () => [...groupKeys.all, "health"] as const,
  metric: (id: number, date: string, runType: RunType) => [...groupKeys.all, "metric", id, date, runType] as const,
  recent: (minutes: number, runType: RunType) => [...groupKeys.all, "recent", minutes, runType] as const,
  hourly: (date: string, runType: RunType) => [...groupKeys.all, "hourly", date, runType] as const,
};

/** Every visible group's runs in the last `minutes` of one run type (the status strip). */
export function fetchRecent(minutes: number, runType: RunType, opts: CallOptions = {}): Promise<RecentStatus> {
  return client.get("/trs/v1/groups/recent", { ...opts, query: { minutes, caseRunType: runType } });
}

export const recentQuery = (minutes: number, runType: RunType, opts: CallOptions = {}) =>
  queryOptions({
    queryKey: groupKeys.recent(minutes, runType),
    queryFn: ({ signal }) => fetchRecent(minutes, runType, { ...opts, signal }),
  });

export function fetchGroups(opts: CallOptions = {}): Promise<Group[]> {
  return client.get("/trs/v1/groups", opts);
}

export function fetchHealth(opts: CallOptions = {}): Promise<ChannelHealth[]> {
  return client.get("/trs/v1/groups/health", opts);
}

export function fetchGroupMetric(
  groupId: number,
  startDate: string,
  runType: RunType,
  opts: CallOptions = {},
): Promise<GroupMetric[]> {
  return client.get("/trs/v1/groups/{id}/metric", {
    ...opts,
    path: { id: groupId },
    query: { level: "case", startDate, caseRunType: runType },
  });
}

/** The group list; `opts` shapes the call (quiet, in the background) when it is made. */
export const groupsQuery = (opts: CallOptions = {}) =>
  queryOptions({ queryKey: groupKeys.list(), queryFn: ({ signal }) => fetchGroups({ ...opts, signal }) });

export const healthQuery = (opts: CallOptions = {}) =>
  queryOptions({ queryKey: groupKeys.health(), queryFn: ({ signal }) => fetchHealth({ ...opts, signal }) });

/**
 * At most this many metric calls in flight, whoever asks. The console speaks HTTP/2, so they
 * share one connection; with 100 groups, more at once hides the browser's own cost per call
 * (about 5 ms each on the 2-core test machine, where 24 at once loaded 100 groups about 10 %
 * sooner than 6). Over HTTP/1.1 the browser queues what its 6 connections cannot take. Calls
 * wait their turn in the order they were asked for; one given up while waiting (its query no
 * longer shown) is never sent.
 */
export const METRIC_CONCURRENCY = 16;
const metricGate = createGate(METRIC_CONCURRENCY);

/** One group's metric for a day and run type, at most METRIC_CONCURRENCY in flight. */
export const groupMetricQuery = (id: number, date: string, runType: RunType, opts: CallOptions = {}) =>
  queryOptions({
    queryKey: groupKeys.metric(id, date, runType),
    queryFn: ({ signal }) => metricGate.run(() => fetchGroupMetric(id, date, runType, { ...opts, signal }), signal),
  });

/**
 * Every visible group's counts and 24 hour slots for a day and run type, in one call: cxwatch's
 * `groups/hourly` (the dashboard's table under flavour "cxwatch"; a spec-only API has no such
 * call, and the dashboard asks `groups/{id}/metric` for each group there).
 */
export function fetchGroupsHourly(startDate: string, runType: RunType, opts: CallOptions = {}): Promise<GroupHourly[]> {
  return client.get("/trs/v1/groups/hourly", { ...opts, query: { startDate, caseRunType: runType } });
}

export const groupsHourlyQuery = (date: string, runType: RunType, opts: CallOptions = {}) =>
  queryOptions({
    queryKey: groupKeys.hourly(date, runType),
    queryFn: ({ signal }) => fetchGroupsHourly(date, runType, { ...opts, signal }),
  });

/** The groups as choices of a form (id and name). */
export function useGroupChoices() {
  return useQuery({
    ...groupsQuery({ background: true }),
    select: (groups): GroupRef[] => groups.map((g) => ({ id: g.id, name: g.name })),
  });
}

// The test case groups editor (Settings, list 2): the paged list, one group, IVR applications
// with their test cases, save and delete. Mutations refresh every group query (the dashboard's
// list included).

export type GroupSortField = "id" | "name" | "caseCount";

export interface GroupListParams {
  /** 0-based, as the server counts. */
  pageNo: number;
  pageSize: number;
  search: string;
  sort: { field: GroupSortField; dir: "asc" | "desc" };
}

export const groupEditKeys = {
  pages: () => [...groupKeys.all, "page"] as const,
  detail: (id: number) => [...groupKeys.all, "detail", id] as const,
  ivrs: () => ["ivrs"] as const,
};

/**
 * One page of groups; the page shown stays while the next one loads. cxwatch's API pages them
 * (`GET trs/v1/groups/page`); under flavour "spec" the list is section 7's `GET trs/v1/groups`,
 * paged here.
 */
export function usePagedGroups(p: GroupListParams) {
  return usePagedList<SpecGroup, "/trs/v1/groups/page">({
    key: groupEditKeys.pages(),
    path: "/trs/v1/groups/page",
    specPath: "/trs/v1/groups",
    paged: {
      pageNo: p.pageNo,
      pageSize: p.pageSize,
      search: p.search || undefined,
      sort: `${p.sort.field},${p.sort.dir}`,
    },
    local: {
      pageNo: p.pageNo,
      pageSize: p.pageSize,
      search: p.search,
      searchIn: (g) => [g.name, g.id],
      sort: p.sort,
    },
  });
}

// Mutations refresh every group query (the dashboard's list included).
const groups = resource({
  collection: "/trs/v1/groups",
  item: "/trs/v1/groups/{id}",
  keys: { detail: (id: number) => groupEditKeys.detail(id), lists: () => groupKeys.all },
});

/** One group with its test cases; id 0 (a new group) asks for nothing. */
export const useGroup = groups.useOne;

/** IVR applications (and chatbots) with their test cases. */
export function useIvrs() {
  return useQuery({
    queryKey: groupEditKeys.ivrs(),
    queryFn: ({ signal }) => client.get("/trs/v1/ivrs", { signal }),
  });
}

/** Creates (no id) or updates a group; field failures are shown by the form. */
export const useSaveGroup = groups.useSave;

/** Deletes one group: true when the server answered a success (status and code), whatever the value it returns. */
export const deleteGroup = groups.remove;

/**
 * What deleting a group takes (cxwatch's addition): its alert settings and reports, the users
 * and maintenance windows that have it. Asked before a delete is confirmed: the server refuses to
 * delete a group in use unless the cascade is asked, and the screen names them first.
 */
export function groupDependents(id: number): Promise<GroupDependents> {
  return client.get("/trs/v1/groups/{id}/dependents", { path: { id }, quiet: true });
}

/** Deletes a group and what uses it (`?cascade=true`), once the screen has named them. */
export function deleteGroupWithDependents(id: number): Promise<boolean> {
  return client.remove("/trs/v1/groups/{id}", { path: { id }, query: { cascade: true } });
}
