// Test runs (spec §7): the runs of a test case, of a group's hour (a dashboard bar), of a
// report segment, one run's detail, and its recordings as blobs (the player and downloads).
// Under flavour "cxwatch" the server pages and filters the runs; under "spec" the whole list is
// asked for with section 7's parameters and filtered, sorted newest first and paged here.
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { itemsOf, type ListPage, toListPage } from "../../lib/listPage";
import { NEWEST_FIRST, runSortValue, type SortState, sortParam } from "../../lib/runSort";
import { siteToday } from "../../lib/siteTime";
import { useApiFlavor, useSiteTimeZone } from "../../lib/tenant";
import type { Query } from "../client";
import { api, client } from "../index";
import { fillPath } from "../typed";
import type { RunDetail, RunPage, RunType, SpecRun } from "../types";

/** Which runs a drill table shows. */
export type RunSource =
  | { kind: "case"; testCaseId: number; startDate: string; endDate: string; caseRunType?: RunType }
  | { kind: "group"; groupId: number; startDate: string; hrSlot?: number; caseRunType?: RunType }
  | { kind: "report"; reportId: number; segmentId: number; startDate: string; endDate: string; latencyThres?: number };

export interface RunListParams {
  source: RunSource;
  /** success, warning, failure or total. */
  status: string;
  /** 0-based, as the server counts. */
  pageNo: number;
  pageSize: number;
  /** The order (default newest first): the server's under "cxwatch", the browser's under "spec". */
  sort?: SortState;
}

export const runKeys = {
  all: ["runs"] as const,
  lists: () => [...runKeys.all, "list"] as const,
  list: (p: RunListParams) => [...runKeys.lists(), p] as const,
  /** The whole list of a source and status (flavour "spec": paged in the browser). */
  whole: (source: RunSource, status: string) => [...runKeys.lists(), "all", source, status] as const,
  detail: (id: number) => [...runKeys.all, "detail", id] as const,
  lastPassing: (id: number) => [...runKeys.all, "lastPassing", id] as const,
};

/** The alert-status id of a drill status (spec §9: pass 3, warning 4, failure 7); undefined for total. */
export const STATUS_IDS: Record<string, number | undefined> = { success: 3, warning: 4, failure: 7 };

/**
 * The call a drill makes for its runs (not the group kind under flavour "spec", see
 * fetchGroupHourRuns). Under "cxwatch" the server pages and filters; under "spec" only the
 * parameters section 7 lists are sent. A report segment's status is `perfStatus` (the report's
 * testruns call reads no `status`), in every mode.
 */
export function runsCall(p: RunListParams, cxwatch: boolean): { path: string; query: Query } {
  const paging = cxwatch
    ? { pageNo: p.pageNo, pageSize: p.pageSize, ...(p.sort ? { sort: sortParam(p.sort) } : {}) }
    : {};
  const s = p.source;
  switch (s.kind) {
    case "case":
      return {
        path: fillPath("/trs/v1/testcases/{id}/runs", { id: s.testCaseId }),
        query: cxwatch
          ? { ...paging, status: p.status, startDate: s.startDate, endDate: s.endDate, caseRunType: s.caseRunType }
          : { startDate: s.startDate, endDate: s.endDate },
      };
    case "group":
      return {
        path: fillPath("/trs/v1/groups/{id}/runs", { id: s.groupId }),
        query: { ...paging, status: p.status, startDate: s.startDate, hrSlot: s.hrSlot, caseRunType: s.caseRunType },
      };
    case "report":
      // The report-segment variant (spec §7 'GET reports/{reportId}/testruns').
      return {
        path: fillPath("/reports/{id}/testruns", { id: s.reportId }),
        query: {
          ...paging,
          perfStatus: p.status,
          startDate: s.startDate,
          endDate: s.endDate,
          segmentId: s.segmentId,
          latencyThres: s.latencyThres,
        },
      };
  }
}

/**
 * The runs of a group's hour from section 7 calls only: the group's test cases
 * (`GET trs/v1/groups/{id}`), then `GET testcases/{id}/runs?startDate&endDate` for each, merged.
 * The caller filters them to the hour and status (runsOfHour).
 */
export async function fetchGroupHourRuns(
  s: Extract<RunSource, { kind: "group" }>,
  signal?: AbortSignal,
): Promise<SpecRun[]> {
  const group: { testCases?: unknown } | undefined = await client.get("/trs/v1/groups/{id}", {
    signal,
    path: { id: s.groupId },
  });
  const cases: { id: number }[] = Array.isArray(group?.testCases) ? group.testCases : [];
  const lists = await Promise.all(
    cases.map(
      (c): Promise<SpecRun[] | RunPage> =>
        client.get("/trs/v1/testcases/{id}/runs", {
          signal,
          path: { id: c.id },
          query: { startDate: s.startDate, endDate: s.startDate },
        }),
    ),
  );
  return lists.flatMap((l) => itemsOf<SpecRun>(l as SpecRun[]));
}

const hourFormats = new Map<string, Intl.DateTimeFormat>();

/** The hour (0-23) of a run time in the site's time zone, or null when unreadable. */
export function siteHour(runTime: string, timeZone: string): number | null {
  const d = new Date(runTime);
  if (Number.isNaN(d.getTime())) return null;
  let f = hourFormats.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat("en-GB", { timeZone, hour: "2-digit", hourCycle: "h23" });
    hourFormats.set(timeZone, f);
  }
  return Number(f.format(d)) % 24;
}

/**
 * The runs of a list kept when the browser filters (flavour "spec"): of the status (by
 * runStatusId; a run without one is kept), of the run type when the run says it, and of the
 * hour in the site's time zone when one is asked for.
 */
export function keepRun(
  r: SpecRun,
  status: string,
  opts: { caseRunType?: string; hour?: number; timeZone?: string } = {},
): boolean {
  const id = STATUS_IDS[status];
  if (id !== undefined && r.runStatusId !== undefined && r.runStatusId !== null && Number(r.runStatusId) !== id) {
    return false;
  }
  if (opts.caseRunType && r.runType && r.runType !== opts.caseRunType) return false;
  if (opts.hour !== undefined && opts.timeZone) {
    if (siteHour(r.runTime, opts.timeZone) !== opts.hour) return false;
  }
  return true;
}

/** One page of runs; the page shown stays while the next one loads. */
export function useRuns(p: RunListParams) {
  const cxwatch = useApiFlavor() === "cxwatch";
  const timeZone = useSiteTimeZone();
  const s = p.source;
  return useQuery({
    queryKey: cxwatch ? runKeys.list(p) : runKeys.whole(s, p.status),
    queryFn: ({ signal }): Promise<SpecRun[] | RunPage> => {
      if (!cxwatch && s.kind === "group") return fetchGroupHourRuns(s, signal);
      const { path, query } = runsCall(p, cxwatch);
      return api.get<SpecRun[] | RunPage>(path, { signal, query });
    },
    placeholderData: keepPreviousData,
    select: (answer) =>
      toListPage<SpecRun>(answer as SpecRun[] | ListPage<SpecRun>, {
        pageNo: p.pageNo,
        pageSize: p.pageSize,
        filter: (r) =>
          keepRun(r, p.status, {
            caseRunType: "caseRunType" in s ? s.caseRunType : undefined,
            hour: s.kind === "group" ? s.hrSlot : undefined,
            timeZone,
          }),
        sort: { field: (p.sort ?? NEWEST_FIRST).key, dir: (p.sort ?? NEWEST_FIRST).dir },
        sortValue: runSortValue,
      }) ?? { content: [], totalElements: 0 },
  });
}

type Loose = Record<string, unknown>;
const arrayOf = (v: unknown): Loose[] => (Array.isArray(v) ? v.filter((x) => !!x && typeof x === "object") : []);

/**
 * A run detail in the shape the page reads, from either API: section 3 names `segmentRuns or
 * segments, each with stepRuns or steps`, and none of cxwatch's extras (groups, channel, IVR,
 * recording), which are then empty.
 */
export function normalizeRun(answer: unknown): RunDetail {
  const a = (answer && typeof answer === "object" ? answer : {}) as Loose;
  const segments = arrayOf(a.segments ?? a.segmentRuns).map((seg) => ({
    ...seg,
    segmentId: Number(seg.segmentId ?? 0),
    segmentName: String(seg.segmentName ?? ""),
    steps: arrayOf(seg.steps ?? seg.stepRuns).map((st) => {
      const result = st.testResult && typeof st.testResult === "object" ? (st.testResult as Loose) : {};
      return { ...st, testResult: { ...result, status: String(result.status ?? "") } };
    }),
  }));
  return {
    ...(a as unknown as RunDetail),
    groups: arrayOf(a.groups) as unknown as RunDetail["groups"],
    segments: segments as unknown as RunDetail["segments"],
  };
}

/** One run with its segments and steps; failures are shown by the page, not the banner. */
export function useRun(id: number) {
  return useQuery({
    queryKey: runKeys.detail(id),
    queryFn: ({ signal }) =>
      client.get("/trs/v1/testruns/{id}", { signal, path: { id }, quiet: true }).then((r: unknown) => normalizeRun(r)),
    enabled: Number.isInteger(id) && id > 0,
    retry: false,
  });
}

/** A run found to compare with: its id and start, RFC 3339. */
export interface RunRef {
  runId: number;
  runTime: string;
}

/** How far back a spec-only API's run list is read for the last passing run. */
export const LAST_PASS_DAYS = 31;

/**
 * The last passing run of the run's test case before it, or null when there is none: cxwatch's
 * `testruns/{id}/lastPassing` (one index seek on the server); on a spec-only API the test
 * case's runs of the LAST_PASS_DAYS days up to the run's date (section 7's
 * `testcases/{id}/runs?startDate&endDate`), searched here (`pick`, RunDetail/compare.ts).
 */
export function useLastPassing(
  run: { runId: number; runTime: string; testCaseId: number },
  pick: (runs: SpecRun[], run: RunRef) => RunRef | undefined,
  enabled: boolean,
) {
  const cxwatch = useApiFlavor() === "cxwatch";
  const timeZone = useSiteTimeZone();
  return useQuery({
    queryKey: runKeys.lastPassing(run.runId),
    queryFn: async ({ signal }): Promise<RunRef | null> => {
      if (cxwatch) {
        const found: { runId?: number | null; runTime?: string | null } = await client.get(
          "/trs/v1/testruns/{id}/lastPassing",
          { signal, path: { id: run.runId }, quiet: true },
        );
        return found?.runId && found.runTime ? { runId: found.runId, runTime: found.runTime } : null;
      }
      const at = new Date(run.runTime);
      const endDate = siteToday(at, timeZone);
      const startDate = siteToday(new Date(at.getTime() - LAST_PASS_DAYS * 86_400_000), timeZone);
      const answer: SpecRun[] | RunPage = await client.get("/trs/v1/testcases/{id}/runs", {
        signal,
        path: { id: run.testCaseId },
        query: { startDate, endDate },
        quiet: true,
      });
      return pick(itemsOf<SpecRun>(answer as SpecRun[]), run) ?? null;
    },
    enabled,
    retry: false,
  });
}

/** A recording (`recordings/{id}` as a run detail names it) as a blob, with the console's token. */
export async function fetchRecording(attachmentUrl: string, signal?: AbortSignal): Promise<Blob> {
  const res = await client.raw("/trs/v1/getContent", {
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
