// Test runs (spec §7): the runs of a test case, of a group's hour (a dashboard bar), of a
// report segment, one run's detail, and its recordings as blobs (the player and downloads).
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { api } from "../index";
import type { RunDetail, RunPage } from "../types";

/** Which runs a drill table shows. */
export type RunSource =
  | { kind: "case"; testCaseId: number; startDate: string; endDate: string; caseRunType?: string }
  | { kind: "group"; groupId: number; startDate: string; hrSlot?: number; caseRunType?: string }
  | { kind: "report"; reportId: number; segmentId: number; startDate: string; endDate: string; latencyThres?: number };

export interface RunListParams {
  source: RunSource;
  /** success, warning, failure or total. */
  status: string;
  /** 0-based, as the server counts. */
  pageNo: number;
  pageSize: number;
}

export const runKeys = {
  all: ["runs"] as const,
  lists: () => [...runKeys.all, "list"] as const,
  list: (p: RunListParams) => [...runKeys.lists(), p] as const,
  detail: (id: number) => [...runKeys.all, "detail", id] as const,
};

export function fetchRuns(p: RunListParams, signal?: AbortSignal): Promise<RunPage> {
  const paging = { pageNo: p.pageNo, pageSize: p.pageSize, status: p.status };
  const s = p.source;
  switch (s.kind) {
    case "case":
      return api.get<RunPage>(`trs/v1/testcases/${s.testCaseId}/runs`, {
        signal,
        query: { ...paging, startDate: s.startDate, endDate: s.endDate, caseRunType: s.caseRunType },
      });
    case "group":
      return api.get<RunPage>(`trs/v1/groups/${s.groupId}/runs`, {
        signal,
        query: { ...paging, startDate: s.startDate, hrSlot: s.hrSlot, caseRunType: s.caseRunType },
      });
    case "report":
      // The report-segment variant (spec §7 'GET reports/{reportId}/testruns').
      return api.get<RunPage>(`reports/${s.reportId}/testruns`, {
        signal,
        query: {
          ...paging,
          startDate: s.startDate,
          endDate: s.endDate,
          segmentId: s.segmentId,
          latencyThres: s.latencyThres,
        },
      });
  }
}

/** One page of runs; the page shown stays while the next one loads. */
export function useRuns(p: RunListParams) {
  return useQuery({
    queryKey: runKeys.list(p),
    queryFn: ({ signal }) => fetchRuns(p, signal),
    placeholderData: keepPreviousData,
  });
}

/** One run with its segments and steps; failures are shown by the page, not the banner. */
export function useRun(id: number) {
  return useQuery({
    queryKey: runKeys.detail(id),
    queryFn: ({ signal }) => api.get<RunDetail>(`trs/v1/testruns/${id}`, { signal, quiet: true }),
    enabled: Number.isInteger(id) && id > 0,
    retry: false,
  });
}

/** A recording (`recordings/{id}` as a run detail names it) as a blob, with the console's token. */
export async function fetchRecording(attachmentUrl: string, signal?: AbortSignal): Promise<Blob> {
  const res = await api.raw("GET", "trs/v1/getContent", {
    query: { attachmentUrl },
    signal,
    background: true,
    quiet: true,
    timeoutMs: 120000,
  });
  return res.blob();
}

const EXTENSIONS: Record<string, string> = {
  "audio/wav": "wav",
  "audio/x-wav": "wav",
  "audio/wave": "wav",
  "audio/mpeg": "mp3",
  "audio/ogg": "ogg",
  "audio/webm": "webm",
  "audio/mp4": "m4a",
  "audio/flac": "flac",
};

/** A file name for a downloaded recording: `{base}.{extension of its type}`. */
export function recordingFileName(base: string, type: string): string {
  const ext = EXTENSIONS[type.split(";")[0].trim().toLowerCase()] ?? "bin";
  return `${base}.${ext}`;
}

/** Downloads a recording as a file; failures are silently ignored (spec §7 'Files'). */
export async function downloadRecording(attachmentUrl: string, base: string): Promise<boolean> {
  try {
    const blob = await fetchRecording(attachmentUrl);
    const url = URL.createObjectURL(blob);
    const a = document.createElement("a");
    a.href = url;
    a.download = recordingFileName(base, blob.type);
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10000);
    return true;
  } catch {
    return false;
  }
}
