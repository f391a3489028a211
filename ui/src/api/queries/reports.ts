// Reports (spec §7 'Reports'): the paged list, one report, save, delete, the lookups of the
// form (types, timeframes, latency thresholds), the data of the views and the runs behind
// them. Types other than 6 read the group metric and MOS calls with the report's range.
import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api } from "../index";
import type {
  GroupMetric,
  LatencyReport,
  LatencyThreshold,
  MosRow,
  Report,
  ReportPage,
  ReportSave,
  ReportTypeItem,
  RunItemPage,
} from "../types";

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
export interface ReportRunsParams {
  startDate?: string;
  endDate?: string;
  segmentId?: number;
  latencyThres?: number;
  hrSlot?: number;
  perfStatus?: string;
  minMos?: number;
  maxMos?: number;
  pageNo: number;
  pageSize: number;
}

export const reportKeys = {
  all: ["reports"] as const,
  lists: () => [...reportKeys.all, "list"] as const,
  list: (p: ReportListParams) => [...reportKeys.lists(), p] as const,
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

export function fetchReports(p: ReportListParams, signal?: AbortSignal): Promise<ReportPage> {
  return api.get<ReportPage>("reports", {
    signal,
    query: {
      pageNo: p.pageNo,
      pageSize: p.pageSize,
      search: p.search || undefined,
      reportType: list(p.reportType),
      groupName: list(p.groupName),
      startDate: p.startDate || undefined,
      endDate: p.endDate || undefined,
      timeframe: list(p.timeframe),
      sort: `${p.sort.field},${p.sort.dir}`,
    },
  });
}

/** One page of reports; the page shown stays while the next one loads. */
export function useReports(p: ReportListParams) {
  return useQuery({
    queryKey: reportKeys.list(p),
    queryFn: ({ signal }) => fetchReports(p, signal),
    placeholderData: keepPreviousData,
  });
}

/** One report; id 0 (a new report) asks for nothing. */
export function useReport(id: number) {
  return useQuery({
    queryKey: reportKeys.detail(id),
    queryFn: ({ signal }) => api.get<Report>(`reports/${id}`, { signal }),
    enabled: id > 0,
    staleTime: 0,
  });
}

export function useReportTypes(channel: string | undefined) {
  return useQuery({
    queryKey: reportKeys.types(channel ?? ""),
    queryFn: ({ signal }) => api.get<ReportTypeItem[]>("reports/types", { signal, query: { channel } }),
    staleTime: Number.POSITIVE_INFINITY,
  });
}

export function useTimeframes() {
  return useQuery({
    queryKey: reportKeys.timeframes(),
    queryFn: ({ signal }) => api.get<string[]>("reports/timeframes", { signal }),
    staleTime: Number.POSITIVE_INFINITY,
  });
}

export function useLatencyThresholds() {
  return useQuery({
    queryKey: reportKeys.thresholds(),
    queryFn: ({ signal }) => api.get<LatencyThreshold[]>("reports/latencythresholds", { signal }),
    staleTime: Number.POSITIVE_INFINITY,
  });
}

/** Creates (no id) or updates a report; field failures are shown beside the fields. */
export function useSaveReport() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: ReportSave & { id?: number }) =>
      body.id
        ? api.put<Report>(`reports/${body.id}`, body, { quiet: true })
        : api.post<Report>("reports", body, { quiet: true }),
    onSuccess: (r) => {
      qc.setQueryData(reportKeys.detail(r.id), r);
      return qc.invalidateQueries({ queryKey: reportKeys.lists() });
    },
  });
}

/** Deletes one report: resolves true when the server said OK. */
export function deleteReport(id: number): Promise<boolean> {
  return api.del<number>(`reports/${id}`).then((v) => v === id);
}

/** The group metric over the report's range (types other than 6 and 7). */
export function useReportMetric(r: Report | undefined, level: "case" | "segment") {
  return useQuery({
    queryKey: r ? reportKeys.metric(r, level) : ["reports", "metric", "none"],
    queryFn: ({ signal }) =>
      api.get<GroupMetric[]>(`trs/v1/groups/${r?.testCaseGroupID}/metric`, {
        signal,
        query: { level, startDate: r?.timeframeBegin, endDate: r?.timeframeEnd, caseRunType: r?.runType },
      }),
    enabled: !!r,
  });
}

/** MOS per hour over the report's range (type 7). */
export function useReportMos(r: Report | undefined) {
  return useQuery({
    queryKey: r ? reportKeys.mos(r) : ["reports", "mos", "none"],
    queryFn: ({ signal }) =>
      api.get<MosRow[]>(`trs/v1/groups/${r?.testCaseGroupID}/mos`, {
        signal,
        query: { startDate: r?.timeframeBegin, endDate: r?.timeframeEnd, caseRunType: r?.runType },
      }),
    enabled: !!r,
  });
}

/** The latency heat map (type 6). */
export function useReportLatency(id: number, enabled: boolean) {
  return useQuery({
    queryKey: reportKeys.latency(id),
    queryFn: ({ signal }) => api.get<LatencyReport>(`reports/${id}/latency`, { signal }),
    enabled,
  });
}

/** One page of the runs behind a view's cell. */
export function useReportRuns(id: number, p: ReportRunsParams) {
  return useQuery({
    queryKey: reportKeys.runs(id, p),
    queryFn: ({ signal }) => api.get<RunItemPage>(`reports/${id}/testruns`, { signal, query: { ...p } }),
    placeholderData: keepPreviousData,
  });
}

/** The file name of a Content-Disposition header (`filename="…"`), or `fallback`. */
export function fileNameOf(disposition: string | null, fallback: string): string {
  const m = disposition ? /filename="?([^";]+)"?/i.exec(disposition) : null;
  return m?.[1] ?? fallback;
}

/** Downloads the report's CSV under the file name the server gives. */
export async function downloadReport(id: number): Promise<string> {
  const res = await api.raw("GET", `reports/${id}/export`, { timeoutMs: 600000 });
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
