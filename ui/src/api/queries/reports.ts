// Reports (spec §7 'Reports'): the paged list, one report, save, delete, the lookups of the
// form (types, timeframes, latency thresholds), the data of the views and the runs behind
// them. Types other than 6 read the group metric and MOS calls with the report's range.
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { type ListPage, type LocalListParams, toListPage } from "../../lib/listPage";
import { NEWEST_FIRST, runSortValue, type SortState, sortParam } from "../../lib/runSort";
import { useApiFlavor } from "../../lib/tenant";
import { client } from "../index";
import { usePagedList } from "../lists";
import { resource } from "../resource";
import type { GetQuery } from "../typed";
import type { ChannelId, Report, SpecRun } from "../types";

export type ReportSortField =
  | "id"
  | "name"
  | "reportTypeName"
  | "testCaseGroupName"
  | "timeframeName"
  | "lastModifiedTime";

export interface ReportFilter {
  reportType: number[];
  groupName: string[];
  startDate: string;
  endDate: string;
  timeframe: string[];
}

export interface ReportListParams extends ReportFilter {
  /** 0-based, as the server counts. */
  pageNo: number;
  pageSize: number;
  search: string;
  sort: { field: ReportSortField; dir: "asc" | "desc" };
}

/** The query of `reports/{id}/testruns` (spec §7 variants). */
/** A latency bucket id of `latencyThres` (or -1, any), as the document lists them. */
export type LatencyBucketId = NonNullable<GetQuery<"/reports/{id}/testruns">["latencyThres"]>;

export interface ReportRunsParams {
  startDate?: string;
  endDate?: string;
  segmentId?: number;
  /** A bucket id read from the address or a view; the server names one it does not know. */
  latencyThres?: number;
  hrSlot?: number;
  perfStatus?: string;
  minMos?: number;
  maxMos?: number;
  pageNo: number;
  pageSize: number;
  /** The order (default newest first): the server's under "cxwatch", the browser's under "spec". */
  sort?: SortState;
}

export const reportKeys = {
  all: ["reports"] as const,
  lists: () => [...reportKeys.all, "list"] as const,
  detail: (id: number) => [...reportKeys.all, "detail", id] as const,
  types: (channel: string) => [...reportKeys.all, "types", channel] as const,
  timeframes: () => [...reportKeys.all, "timeframes"] as const,
  thresholds: () => [...reportKeys.all, "thresholds"] as const,
  latency: (id: number) => [...reportKeys.all, "latency", id] as const,
  metric: (r: Report, level: string) =>
    [
      ...reportKeys.all,
      "metric",
      r.id,
      level,
      r.timeframeBegin,
      r.timeframeEnd,
      r.runType,
      r.lastModifiedTime,
    ] as const,
  mos: (r: Report) => [...reportKeys.all, "mos", r.id, r.timeframeBegin, r.timeframeEnd, r.runType] as const,
  runs: (id: number, p: ReportRunsParams) => [...reportKeys.all, "runs", id, p] as const,
};

const list = (v: (string | number)[]) => (v.length ? v.join(",") : undefined);

/** cxwatch's paged call's parameters. */
export function reportsQuery(p: ReportListParams): GetQuery<"/reports"> {
  return {
    pageNo: p.pageNo,
    pageSize: p.pageSize,
    search: p.search || undefined,
    reportType: list(p.reportType),
    groupName: list(p.groupName),
    startDate: p.startDate || undefined,
    endDate: p.endDate || undefined,
    timeframe: list(p.timeframe),
    sort: `${p.sort.field},${p.sort.dir}`,
  };
}

/** How the browser filters and pages the spec's array of reports (as the server does a page). */
export function reportsLocally(p: ReportListParams): LocalListParams<Report> {
  const groups = p.groupName.map((g) => g.toLowerCase());
  const filter = (r: Report) =>
    (!p.reportType.length || p.reportType.includes(r.reportTypeID)) &&
    (!groups.length || groups.includes(String(r.testCaseGroupName ?? "").toLowerCase())) &&
    (!p.timeframe.length || p.timeframe.includes(r.timeframeName)) &&
    (!p.startDate || !r.timeframeBegin || r.timeframeBegin >= p.startDate) &&
    (!p.endDate || !r.timeframeEnd || r.timeframeEnd <= p.endDate);
  return {
    pageNo: p.pageNo,
    pageSize: p.pageSize,
    search: p.search,
    searchIn: (r) => [r.id, r.name],
    filter,
    sort: p.sort,
  };
}

/** One page of reports (a page of the server's, or of the whole list); the page shown stays while the next one loads. */
export function useReports(p: ReportListParams) {
  return usePagedList<Report, "/reports">({
    key: reportKeys.lists(),
    path: "/reports",
    paged: reportsQuery(p),
    local: reportsLocally(p),
  });
}

const reports = resource({ collection: "/reports", item: "/reports/{id}", keys: reportKeys });

/** One report; id 0 (a new report) asks for nothing. */
export const useReport = reports.useOne;

export function useReportTypes(channel: ChannelId | undefined) {
  return useQuery({
    queryKey: reportKeys.types(channel ?? ""),
    queryFn: ({ signal }) => client.get("/reports/types", { signal, query: { channel } }),
    staleTime: Number.POSITIVE_INFINITY,
  });
}

export function useTimeframes() {
  return useQuery({
    queryKey: reportKeys.timeframes(),
    queryFn: ({ signal }) => client.get("/reports/timeframes", { signal }),
    staleTime: Number.POSITIVE_INFINITY,
  });
}

export function useLatencyThresholds() {
  return useQuery({
    queryKey: reportKeys.thresholds(),
    queryFn: ({ signal }) => client.get("/reports/latencythresholds", { signal }),
    staleTime: Number.POSITIVE_INFINITY,
  });
}

/** Creates (no id) or updates a report; field failures are shown beside the fields. */
export const useSaveReport = reports.useSave;

/** Deletes one report: true when the server answered a success (status and code), whatever the value it returns. */
export const deleteReport = reports.remove;

/** The group metric over the report's range (types other than 6 and 7). */
export function useReportMetric(r: Report | undefined, level: "case" | "segment") {
  return useQuery({
    queryKey: r ? reportKeys.metric(r, level) : ["reports", "metric", "none"],
    queryFn: ({ signal }) =>
      client.get("/trs/v1/groups/{id}/metric", {
        signal,
        path: { id: r?.testCaseGroupID ?? 0 },
        query: { level, startDate: r?.timeframeBegin ?? "", endDate: r?.timeframeEnd, caseRunType: r?.runType },
      }),
    enabled: !!r,
  });
}

/** MOS per hour over the report's range (type 7). */
export function useReportMos(r: Report | undefined) {
  return useQuery({
    queryKey: r ? reportKeys.mos(r) : ["reports", "mos", "none"],
    queryFn: ({ signal }) =>
      client.get("/trs/v1/groups/{id}/mos", {
        signal,
        path: { id: r?.testCaseGroupID ?? 0 },
        query: { startDate: r?.timeframeBegin ?? "", endDate: r?.timeframeEnd, caseRunType: r?.runType },
      }),
    enabled: !!r,
  });
}

/** The latency heat map (type 6). */
export function useReportLatency(id: number, enabled: boolean) {
  return useQuery({
    queryKey: reportKeys.latency(id),
    queryFn: ({ signal }) => client.get("/reports/{id}/latency", { signal, path: { id } }),
    enabled,
  });
}

/**
 * One page of the runs behind a view's cell. Under flavour "cxwatch" the server pages; under
 * "spec" the call carries only section 7's parameters and its array is paged here, newest first.
 */
/** The filters as the call types them: the bucket is passed on as given (the server checks it). */
function bucketed(f: Omit<ReportRunsParams, "pageNo" | "pageSize" | "sort">) {
  return { ...f, latencyThres: f.latencyThres as LatencyBucketId | undefined };
}

export function useReportRuns(id: number, p: ReportRunsParams) {
  const cxwatch = useApiFlavor() === "cxwatch";
  const { pageNo, pageSize, sort, ...filters } = p;
  return useQuery({
    queryKey: cxwatch ? reportKeys.runs(id, p) : [...reportKeys.all, "runs", id, "all", filters],
    queryFn: ({ signal }): Promise<SpecRun[] | ListPage<SpecRun>> =>
      client.get("/reports/{id}/testruns", {
        signal,
        path: { id },
        query: cxwatch
          ? { ...bucketed(filters), pageNo, pageSize, ...(sort ? { sort: sortParam(sort) } : {}) }
          : bucketed(filters),
      }),
    placeholderData: keepPreviousData,
    select: (answer) =>
      toListPage(answer, {
        pageNo,
        pageSize,
        sort: { field: (sort ?? NEWEST_FIRST).key, dir: (sort ?? NEWEST_FIRST).dir },
        sortValue: runSortValue,
      }) ?? { content: [], totalElements: 0 },
  });
}

/** The file name of a Content-Disposition header (`filename="…"`), or `fallback`. */
export function fileNameOf(disposition: string | null, fallback: string): string {
  const m = disposition ? /filename="?([^";]+)"?/i.exec(disposition) : null;
  return m?.[1] ?? fallback;
}

/** Downloads the report's CSV under the file name the server gives. */
export async function downloadReport(id: number): Promise<string> {
  const res = await client.raw("/reports/{id}/export", { path: { id }, timeoutMs: 600000 });
  const name = fileNameOf(res.headers.get("Content-Disposition"), `report-${id}.csv`);
  const blob = await res.blob();
  const url = URL.createObjectURL(blob);
  const a = document.createElement("a");
  a.href = url;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
  return name;
}
