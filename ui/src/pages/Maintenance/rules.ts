// The maintenance windows' rules, pure: site-local times to UTC and back (a window's
// start and end are typed in the site's zone), the mute choices of an alert (1 h, 4 h, until
// tomorrow 08:00 site time), the form's checks in the server's order, and what is sent. The
// server applies the same rules (src/api/maintenance.rs, src/domain/alerting.rs).
import type { MaintenanceWindow, MaintenanceWindowSave } from "../../api/types";
import { emptyWeek, fromRanges, toRanges, type Week } from "../../lib/schedule";
import { zonedParts } from "../../lib/siteTime";

/** A window's page (its edit form; 0: a new one). */
export const windowPath = (id: number) => `/settings/maintenance/${id}`;

/** What a window covers: its groups, then its single test cases. */
export function covers(w: MaintenanceWindow): string {
  return [...w.testCaseGroups.map((g) => g.name), ...w.testCases.map((c) => c.name)].join(", ");
}

/** `YYYY-MM-DDTHH:mm` (an `<input type="datetime-local">`'s value) of instant `d` in `zone`. */
export function toSiteLocal(d: Date, zone: string): string {
  const p = zonedParts(d, zone);
  return `${p.year}-${p.month}-${p.day}T${p.hour}:${p.minute}`;
}

/**
 * The instant whose time in `zone` is `local` (`YYYY-MM-DDTHH:mm`); a time skipped by a
 * clock change counts forward (02:30 on a spring-forward night is 03:30), a repeated one is its
 * first. Null when `local` is not such a value.
 */
export function fromSiteLocal(local: string, zone: string): Date | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})$/.exec(local);
  if (!m) return null;
  const [y, mo, d, h, mi] = m.slice(1).map(Number);
  const wanted = Date.UTC(y, mo - 1, d, h, mi);
  if (Number.isNaN(wanted)) return null;
  const offsetAt = (t: number) => {
    const p = zonedParts(new Date(t), zone);
    return Date.UTC(+p.year, +p.month - 1, +p.day, +p.hour, +p.minute) - Math.floor(t / 60_000) * 60_000;
  };
  // Two passes settle the offset on either side of a change; the earlier instant wins.
  const first = wanted - offsetAt(wanted - offsetAt(wanted));
  const other = wanted - offsetAt(wanted);
  const candidates = [first, other].filter((t) => toSiteLocal(new Date(t), zone) === local).sort((a, b) => a - b);
  if (candidates.length) return new Date(candidates[0]);
  // Skipped by a spring-forward: the same wall time an hour on.
  return new Date(Math.max(first, other));
}

export type MuteChoice = "1h" | "4h" | "tomorrow";
export const MUTE_CHOICES: MuteChoice[] = ["1h", "4h", "tomorrow"];

/** When a mute chosen at `now` ends: in 1 h, in 4 h, or tomorrow at 08:00 site time. */
export function muteUntil(choice: MuteChoice, now: Date, zone: string): Date {
  if (choice === "1h") return new Date(now.getTime() + 3_600_000);
  if (choice === "4h") return new Date(now.getTime() + 4 * 3_600_000);
  const p = zonedParts(now, zone);
  const tomorrow = new Date(Date.UTC(+p.year, +p.month - 1, +p.day + 1));
  const day = tomorrow.toISOString().slice(0, 10);
  return fromSiteLocal(`${day}T08:00`, zone) ?? new Date(now.getTime() + 86_400_000);
}

export interface WindowFormValues {
  reason: string;
  kind: "once" | "weekly";
  /** Site-local `YYYY-MM-DDTHH:mm`. */
  start: string;
  end: string;
  week: Week;
  groupIds: number[];
  caseIds: number[];
}

export type WindowField = "reason" | "startTime" | "endTime" | "schedule" | "testCaseGroups";
export type WindowRule = "required" | "order" | "past" | "invalid";
export type WindowErrors = Partial<Record<WindowField, WindowRule>>;

/** A new window: once, from now to in two hours. */
export function emptyWindow(now: Date, zone: string): WindowFormValues {
  return {
    reason: "",
    kind: "once",
    start: toSiteLocal(now, zone),
    end: toSiteLocal(new Date(now.getTime() + 2 * 3_600_000), zone),
    week: emptyWeek(),
    groupIds: [],
    caseIds: [],
  };
}

export function fromWindow(w: MaintenanceWindow, zone: string): WindowFormValues {
  const read = fromRanges(w.schedule);
  return {
    reason: w.reason,
    kind: w.kind,
    start: toSiteLocal(new Date(w.startTime), zone),
    end: w.endTime ? toSiteLocal(new Date(w.endTime), zone) : "",
    week: "week" in read ? read.week : emptyWeek(),
    groupIds: w.testCaseGroups.map((g) => g.id),
    caseIds: w.testCases.map((c) => c.id),
  };
}

/** The form's checks, in the server's order; every problem at once. */
export function validateWindow(v: WindowFormValues, now: Date, zone: string): WindowErrors {
  const e: WindowErrors = {};
  if (!v.reason.trim()) e.reason = "required";
  if (v.kind === "once") {
    const start = fromSiteLocal(v.start, zone);
    const end = fromSiteLocal(v.end, zone);
    if (!start) e.startTime = "required";
    if (!end) e.endTime = "required";
    else if (start && end <= start) e.endTime = "order";
    else if (end <= now) e.endTime = "past";
  } else if (!toRanges(v.week).length) e.schedule = "required";
  if (!v.groupIds.length && !v.caseIds.length) e.testCaseGroups = "required";
  return e;
}

/** What is sent: UTC times, the week's ranges for a weekly window. */
export function toWindowSave(v: WindowFormValues, zone: string): MaintenanceWindowSave {
  const once = v.kind === "once";
  return {
    reason: v.reason.trim(),
    kind: v.kind,
    startTime: once ? (fromSiteLocal(v.start, zone)?.toISOString() ?? null) : null,
    endTime: once ? (fromSiteLocal(v.end, zone)?.toISOString() ?? null) : null,
    schedule: once ? [] : toRanges(v.week),
    testCaseGroups: v.groupIds.map((id) => ({ id, name: "" })),
    testCases: v.caseIds.map((id) => ({ id, name: "" })),
  };
}

/**
 * The active windows the dashboard lists, each covered thing once: windows of the same kind on
 * the same groups and test cases (two mutes of one test case made before muting again extended)
 * read as the one ending last.
 */
export function onePerTarget<
  W extends {
    id: number;
    kind: string;
    endTime?: string | null;
    testCaseGroups: { id: number }[];
    testCases: { id: number }[];
  },
>(windows: W[]): W[] {
  const keyOf = (w: W) =>
    `${w.kind}|${w.testCaseGroups
      .map((g) => g.id)
      .sort((a, b) => a - b)
      .join(",")}|${w.testCases
      .map((c) => c.id)
      .sort((a, b) => a - b)
      .join(",")}`;
  const end = (w: W) => (w.endTime ? Date.parse(w.endTime) : Number.POSITIVE_INFINITY);
  const best = new Map<string, W>();
  for (const w of windows) {
    const k = keyOf(w);
    const had = best.get(k);
    if (!had || end(w) > end(had) || (end(w) === end(had) && w.id > had.id)) best.set(k, w);
  }
  const kept = new Set(best.values());
  return windows.filter((w) => kept.has(w));
}
