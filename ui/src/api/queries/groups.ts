// Test case groups, their health and their metrics (spec §7 'Groups and metrics').
import { queryOptions, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { createGate } from "../../lib/gate";
import { api, type RequestOptions } from "../index";
import { usePagedList } from "../lists";
import type {
  ChannelHealth,
  Group,
  GroupDetail,
  GroupMetric,
  GroupRef,
  GroupSave,
  Ivr,
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
};

/** Every visible group's runs in the last `minutes` of one run type (the status strip). */
export function fetchRecent(minutes: number, runType: RunType, opts: RequestOptions = {}): Promise<RecentStatus> {
  return api.get<RecentStatus>("trs/v1/groups/recent", { ...opts, query: { minutes, caseRunType: runType } });
}

export const recentQuery = (minutes: number, runType: RunType, opts: RequestOptions = {}) =>
  queryOptions({
    queryKey: groupKeys.recent(minutes, runType),
    queryFn: ({ signal }) => fetchRecent(minutes, runType, { ...opts, signal }),
  });

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
export const groupMetricQuery = (id: number, date: string, runType: RunType, opts: RequestOptions = {}) =>
  queryOptions({
    queryKey: groupKeys.metric(id, date, runType),
    queryFn: ({ signal }) => metricGate.run(() => fetchGroupMetric(id, date, runType, { ...opts, signal }), signal),
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
  return usePagedList<SpecGroup>({
    key: groupEditKeys.pages(),
    path: "trs/v1/groups/page",
    specPath: "trs/v1/groups",
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

/** One group with its test cases; id 0 (a new group) asks for nothing. */
export function useGroup(id: number) {
  return useQuery({
    queryKey: groupEditKeys.detail(id),
    queryFn: ({ signal }) => api.get<GroupDetail>(`trs/v1/groups/${id}`, { signal }),
    enabled: id > 0,
    staleTime: 0,
  });
}

/** IVR applications (and chatbots) with their test cases. */
export function useIvrs() {
  return useQuery({
    queryKey: groupEditKeys.ivrs(),
    queryFn: ({ signal }) => api.get<Ivr[]>("trs/v1/ivrs", { signal }),
  });
}

/** Creates (no id) or updates a group; field failures are shown by the form. */
export function useSaveGroup() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: GroupSave) =>
      body.id
        ? api.put<GroupDetail>(`trs/v1/groups/${body.id}`, body, { quiet: true })
        : api.post<GroupDetail>("trs/v1/groups", body, { quiet: true }),
    onSuccess: (g) => {
      qc.setQueryData(groupEditKeys.detail(g.id), g);
      return qc.invalidateQueries({ queryKey: groupKeys.all });
    },
  });
}

/** Deletes one group: true when the server answered a success (status and code), whatever the value it returns. */
export function deleteGroup(id: number): Promise<boolean> {
  return api.remove(`trs/v1/groups/${id}`);
}
