// The report screens' rules (spec §2, §5, §9), pure: the form's validation order, what is
// saved, the default custom range, report percentages, the heat map's colour, bar charts
// paged by 10 and the drill-down routes of the route table.
import type { ReportSave, RunType, Timeframe } from "../../api/types";
import { fixed } from "../../lib/numbers";

/** Report type ids (spec §9); any other id is test case performance. */
export const TREND = 2;
export const SEGMENT = 5;
export const LATENCY = 6;
export const MOS = 7;
export const TEST_CASE = 1;

export type ReportView = "trend" | "segment" | "latency" | "mos" | "testcase";

export function viewOf(typeId: number): ReportView {
  switch (typeId) {
    case TREND:
      return "trend";
    case SEGMENT:
      return "segment";
    case LATENCY:
      return "latency";
    case MOS:
      return "mos";
    default:
      return "testcase";
  }
}

export const CUSTOM = "Custom" satisfies Timeframe;

export interface ReportFormValues {
  name: string;
  typeId: number | null;
  groupId: number | null;
  timeframe: string;
  begin: string;
  end: string;
  runType: RunType;
  /** ms, a latency bucket's uppperBound; null when not chosen. */
  warn: number | null;
  fail: number | null;
}

export type FieldName =
  | "name"
  | "reportTypeID"
  | "testCaseGroupID"
  | "latencyWarn"
  | "latencyFail"
  | "timeframeBegin"
  | "timeframeEnd";

/** Spec §5 messages, keyed by field; the form translates them. */
export type Errors = Partial<Record<FieldName, string>>;

/** A date as YYYY-MM-DD (local calendar date of `d`). */
export function isoDate(d: Date): string {
  const p = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}`;
}

/** YYYY-MM-DD plus `days`. */
export function addDays(date: string, days: number): string {
  const [y, m, d] = date.split("-").map(Number);
  const t = new Date(Date.UTC(y, m - 1, d + days));
  return t.toISOString().slice(0, 10);
}

/** Default custom range (spec §9): today to 6 days later. */
export function defaultRange(today: string): { begin: string; end: string } {
  return { begin: today, end: addDays(today, 6) };
}

export function emptyForm(today: string): ReportFormValues {
  return {
    name: "",
    typeId: null,
    groupId: null,
    timeframe: CUSTOM,
    ...defaultRange(today),
    runType: "Manual",
    warn: null,
    fail: null,
  };
}

/**
 * Spec §5, in order: name, type, group, then for type 6 the warning and failure thresholds.
 * Every failing field gets its message; the first one is the one to focus.
 */
export function validateReport(v: ReportFormValues): Errors {
  const e: Errors = {};
  if (!v.name.trim()) e.name = "Please enter a name";
  if (!v.typeId) e.reportTypeID = "Please select type";
  if (!v.groupId) e.testCaseGroupID = "Please select group";
  if (v.typeId === LATENCY) {
    if (!v.warn) e.latencyWarn = "Please select threshold warning";
    if (!v.fail) e.latencyFail = "Please select threshold failure";
  }
  if (v.timeframe === CUSTOM && !v.begin) e.timeframeBegin = "Please select the start of the custom range.";
  if (v.timeframe === CUSTOM && v.begin && v.end && v.end < v.begin) e.timeframeEnd = "The end is before the start.";
  return e;
}

export interface ReportSaveBody {
  name: string;
  description: string;
  reportTypeName: string;
  reportTypeID: ReportSave["reportTypeID"];
  testCaseGroupName: string;
  testCaseGroupID: number;
  timeframeName: Timeframe;
  runType: RunType;
  timeframeBegin?: string;
  timeframeEnd?: string;
  latencyWarn: number;
  latencyFail: number;
}

/** The payload (spec §3): thresholds only for type 6, otherwise 0; an empty custom end is the start. */
export function toSave(v: ReportFormValues, typeName: string, groupName: string): ReportSaveBody {
  const custom = v.timeframe === CUSTOM;
  const latency = v.typeId === LATENCY;
  return {
    name: v.name.trim(),
    description: v.name.trim(),
    reportTypeName: typeName,
    // One of `reports/types`: validate() refuses a form without one before a save.
    reportTypeID: (v.typeId ?? 0) as ReportSave["reportTypeID"],
    testCaseGroupName: groupName,
    testCaseGroupID: v.groupId ?? 0,
    // One of `reports/timeframes`' names.
    timeframeName: v.timeframe as Timeframe,
    runType: v.runType,
    timeframeBegin: custom ? v.begin : undefined,
    timeframeEnd: custom ? v.end || v.begin : undefined,
    latencyWarn: latency ? (v.warn ?? 0) : 0,
    latencyFail: latency ? (v.fail ?? 0) : 0,
  };
}

/**
 * Report percentages (spec §9): 2 decimals, '0.00' when there is nothing, with the decimal sign
 * of `locale` ('33,33' in French).
 */
export function percent(part: number, total: number, locale: string): string {
  return fixed(total ? (part * 100) / total : 0, 2, locale);
}

/** ms as seconds with 2 decimals (spec §9), with the decimal sign of `locale`. */
export function seconds(ms: number, locale: string): string {
  return fixed(ms / 1000, 2, locale);
}

export type HeatColour = "green" | "orange" | "red";

/**
 * Heat-map colour (spec §9): a bucket whose upper bound is below the warning threshold is
 * green, below the failure threshold orange, otherwise red (the open last bucket too).
 */
export function heatColour(upperBound: number | null | undefined, warn: number, fail: number): HeatColour {
  if (upperBound === null || upperBound === undefined) return "red";
  if (upperBound < warn) return "green";
  if (upperBound < fail) return "orange";
  return "red";
}

/** Bar charts are paged by 10 entities (spec §9): page `page` (1-based) of `items`. */
export const CHART_PAGE = 10;
export function chartPage<T>(items: T[], page: number): T[] {
  return items.slice((page - 1) * CHART_PAGE, page * CHART_PAGE);
}
export function chartPages(n: number): number {
  return Math.max(1, Math.ceil(n / CHART_PAGE));
}

export type DrillStatus = "success" | "warning" | "failure" | "total";

/** `/report/drill/{entityId}/{status}/{periodStart}/{periodEnd}[/{reportId}][/{latency}]`. */
export function drillUrl(entityId: number, status: DrillStatus, start: string, end: string, reportId?: number): string {
  return `/report/drill/${entityId}/${status}/${start}/${end}${reportId ? `/${reportId}` : ""}`;
}

/** `/report/latency/{hour}/{latencyBucketId or -1}/{reportId}[/{status}/{date}]`. */
export function latencyUrl(
  hour: number,
  bucketId: number | null,
  reportId: number,
  status?: DrillStatus,
  date?: string,
): string {
  const tail = status && date ? `/${status}/${date}` : "";
  return `/report/latency/${hour}/${bucketId ?? -1}/${reportId}${tail}`;
}

/** `/report/mos/{reportId}/{mosValue}/{hour}/{date}`. */
export function mosUrl(reportId: number, mos: number, hour: number, date: string): string {
  return `/report/mos/${reportId}/${mos.toFixed(1)}/${hour}/${date}`;
}

/** Hour labels 00 to 23 (spec §9). */
export const HOURS = Array.from({ length: 24 }, (_, h) => String(h).padStart(2, "0"));

/** An entity of the group metric as the maintenance note reads it (cxwatch's maintenanceCount). */
export interface LeftOut {
  entityId: number;
  maintenanceCount?: number | null;
}

const countOf = (n: number | null | undefined) => (typeof n === "number" && Number.isFinite(n) && n > 0 ? n : 0);

/**
 * Runs in maintenance windows a report left out, from the group metric's entities: on
 * case level their sum; on segment level a run is left out of each of its test case's segments,
 * so a test case counts once, by its segment with the most.
 */
export function maintenanceLeftOut(rows: readonly LeftOut[], level: "case" | "segment"): number {
  if (level === "case") return rows.reduce((n, e) => n + countOf(e.maintenanceCount), 0);
  const byCase = new Map<number, number>();
  for (const e of rows) byCase.set(e.entityId, Math.max(byCase.get(e.entityId) ?? 0, countOf(e.maintenanceCount)));
  let n = 0;
  for (const v of byCase.values()) n += v;
  return n;
}

/** The same for rows that each count their own runs (MOS hours, a latency report). */
export function sumLeftOut(rows: readonly { maintenanceCount?: number | null }[]): number {
  return rows.reduce((n, e) => n + countOf(e.maintenanceCount), 0);
}
