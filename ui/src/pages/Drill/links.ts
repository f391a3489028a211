// The addresses of the runs behind a number (spec §2 route table), built and read in one place
// so the dashboard, the reports and the drill screen agree:
//   /report/drill/{entityId}/{status}/{periodStart}/{periodEnd}[/{reportId}][/{latency}]
//   /report/run/{runId}[/{latency}]
// A dashboard bar (a group, an hour, a status) uses the drill route with the group's id and
// `?level=group&hrSlot={hour}&caseRunType={Manual|Schedule}`.

/** The status segment: success, warning, failure (fail and stopped) or total (every run). */
export type DrillStatus = "success" | "warning" | "failure" | "total";
export const DRILL_STATUSES: DrillStatus[] = ["success", "warning", "failure", "total"];

export function isDrillStatus(s: string | undefined): s is DrillStatus {
  return !!s && (DRILL_STATUSES as string[]).includes(s);
}

/** The drill status of a rate index of the dashboard (0 pass, 1 warning, 2 failure). */
export function drillStatusOfRate(rate: number): DrillStatus {
  return rate === 0 ? "success" : rate === 1 ? "warning" : rate === 2 ? "failure" : "total";
}

export interface CaseDrill {
  entityId: number;
  status: DrillStatus;
  /** YYYY-MM-DD, site-local. */
  periodStart: string;
  periodEnd: string;
  reportId?: number;
  /** Latency threshold (seconds) whose slower steps stand out in the run detail. */
  latency?: number;
  runType?: "Manual" | "Schedule";
}

export interface GroupDrill {
  groupId: number;
  status: DrillStatus;
  date: string;
  /** Local hour slot 0-23; absent for the whole day. */
  hour?: number;
  runType?: "Manual" | "Schedule";
}

const seg = (v: string | number) => encodeURIComponent(String(v));

export function caseDrillPath(d: CaseDrill): string {
  let path = `/report/drill/${seg(d.entityId)}/${d.status}/${seg(d.periodStart)}/${seg(d.periodEnd)}`;
  // A latency without a report takes report id 0 (none) before it.
  if (d.reportId !== undefined || d.latency !== undefined) path += `/${seg(d.reportId ?? 0)}`;
  if (d.latency !== undefined) path += `/${seg(d.latency)}`;
  return d.runType ? `${path}?caseRunType=${d.runType}` : path;
}

export function groupDrillPath(d: GroupDrill): string {
  const q = new URLSearchParams({ level: "group" });
  if (d.hour !== undefined) q.set("hrSlot", String(d.hour));
  if (d.runType) q.set("caseRunType", d.runType);
  return `/report/drill/${seg(d.groupId)}/${d.status}/${seg(d.date)}/${seg(d.date)}?${q.toString()}`;
}

/** A run's address; from an alert's runs, `?alert={id}` (the run page then offers the alert's actions). */
export function runPath(runId: number, latency?: number, alertId?: number): string {
  const path =
    latency !== undefined && Number.isFinite(latency) ? `/report/run/${runId}/${latency}` : `/report/run/${runId}`;
  return alertId !== undefined ? `${path}?alert=${alertId}` : path;
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** What a drill address asks for, or null when it is not one the screen can show. */
export function readDrill(
  params: Record<string, string | undefined>,
  search: string,
): { kind: "case"; drill: CaseDrill } | { kind: "group"; drill: GroupDrill } | null {
  const q = new URLSearchParams(search);
  const id = Number(params.entityId);
  const status = params.status;
  const start = params.periodStart ?? "";
  const end = params.periodEnd ?? "";
  if (!Number.isInteger(id) || id < 1 || !isDrillStatus(status) || !DATE.test(start) || !DATE.test(end)) return null;
  const rt = q.get("caseRunType");
  const runType = rt === "Manual" || rt === "Schedule" ? rt : undefined;
  if (q.get("level") === "group") {
    const h = q.get("hrSlot");
    const hour = h === null || h === "" ? undefined : Number(h);
    if (hour !== undefined && !(Number.isInteger(hour) && hour >= 0 && hour <= 23)) return null;
    return { kind: "group", drill: { groupId: id, status, date: start, hour, runType } };
  }
  const num = (v: string | undefined) => (v === undefined || v === "" ? undefined : Number(v));
  const reportId = num(params.reportId);
  const latency = num(params.latency);
  if (reportId !== undefined && !(Number.isInteger(reportId) && reportId >= 0)) return null;
  if (latency !== undefined && !(Number.isFinite(latency) && latency >= 0)) return null;
  return {
    kind: "case",
    drill: {
      entityId: id,
      status,
      periodStart: start,
      periodEnd: end,
      reportId: reportId === 0 ? undefined : reportId,
      latency,
      runType,
    },
  };
}
