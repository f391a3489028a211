// The order of a list of runs: every run list sorts by its columns. cxwatch's
// paged lists take `sort=field,direction` (the server sorts every page); the spec-only vendor's
// lists come whole and are sorted here, on the same fields. The address keeps the order
// (`?sort=mosCqIn,asc`), so a link opens the list in the order that led there.
import type { Cell } from "./listPage";

/** A column and direction (the same shape as the tables' SortState). */
export interface SortState {
  key: string;
  dir: "asc" | "desc";
}

/** The run table's sortable columns, by their API names. */
export const RUN_SORT_FIELDS = [
  "runId",
  "testCaseName",
  "runTime",
  "runDuration",
  "runStatus",
  "mosCqIn",
  "latency",
] as const;
export type RunSortField = (typeof RUN_SORT_FIELDS)[number];

/** Newest first: the lists' order when none is asked for. */
export const NEWEST_FIRST: SortState = { key: "runTime", dir: "desc" };
/** Worst call quality first: the MOS lists' order. */
export const WORST_MOS_FIRST: SortState = { key: "mosCqIn", dir: "asc" };
/** Slowest first: the latency lists' order. */
export const SLOWEST_FIRST: SortState = { key: "latency", dir: "desc" };

/** `field,direction` of the address or the API, or undefined when it is not a run sort. */
export function readRunSort(v: string | null | undefined): SortState | undefined {
  if (!v) return undefined;
  const [key, dir = "asc"] = v.split(",");
  if (!(RUN_SORT_FIELDS as readonly string[]).includes(key)) return undefined;
  if (dir !== "asc" && dir !== "desc") return undefined;
  return { key, dir };
}

export const sortParam = (s: SortState): string => `${s.key},${s.dir}`;

/** The value a run is sorted by in the browser (the spec-only API's whole lists). */
export function runSortValue(
  r: {
    runId?: number;
    testCaseName?: string;
    runTime?: string;
    runDuration?: number;
    runStatusId?: number;
    mosCqIn?: number | null;
    latency?: number | null;
  },
  field: string,
): Cell {
  switch (field) {
    case "runTime":
      return r.runTime ? Date.parse(r.runTime) || r.runTime : null;
    case "runStatus":
      // Pass, warning, failure: the status ids 3, 4, 7 in that order.
      return r.runStatusId ?? null;
    default:
      return (r as Record<string, Cell>)[field];
  }
}
