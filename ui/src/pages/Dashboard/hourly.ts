// The 24-hour chart: always 24 slots (hours 0-23, labelled 00 to 23), padded with zero
// (spec §9 'Hours chart').

import type { HourlyStatus } from "../../api/types";
import { toDate, zonedParts } from "../../lib/siteTime";

export const HOURS = 24;

export interface Counts {
  success: number;
  warning: number;
  failure: number;
}

export const zeroCounts = (): Counts => ({ success: 0, warning: 0, failure: 0 });

export function countOf(n: number | null | undefined): number {
  return typeof n === "number" && Number.isFinite(n) && n > 0 ? n : 0;
}

export function pad2(n: number): string {
  return n < 10 ? `0${n}` : String(n);
}

/** '00' .. '23'. */
export function hourLabels(): string[] {
  return Array.from({ length: HOURS }, (_, h) => pad2(h));
}

/** '14:00 - 15:00'; the last slot reads '23:00 - 00:00'. */
export function timeSlotLabel(hour: number): string {
  return `${pad2(hour)}:00 - ${pad2((hour + 1) % HOURS)}:00`;
}

/**
 * The hour (0-23) of an hourlyStatus timestamp, or null when unreadable. An hour index 0-23 is
 * taken as is; a local time written without a zone ('2024-05-01 14:00:00') is already site time
 * and its hour is read as written; a time with Z or an offset, or epoch seconds/milliseconds, is
 * converted to the site time zone.
 */
export function hourOf(hourly: string | number | null | undefined, timeZone: string): number | null {
  if (hourly === null || hourly === undefined) return null;
  if (typeof hourly === "number") {
    if (!Number.isFinite(hourly) || hourly < 0) return null;
    if (Number.isInteger(hourly) && hourly < HOURS) return hourly;
  } else {
    const s = hourly.trim();
    if (/^\d{1,2}$/.test(s)) {
      const h = Number(s);
      return h < HOURS ? h : null;
    }
    const naive = /^\d{4}-\d{2}-\d{2}[ T](\d{2}):\d{2}(:\d{2}(\.\d+)?)?$/.exec(s);
    if (naive) {
      const h = Number(naive[1]);
      return h < HOURS ? h : null;
    }
  }
  const d = toDate(hourly);
  if (!d) return null;
  return Number(zonedParts(d, timeZone).hour);
}

/** Always 24 slots; entries for the same hour are added; unreadable entries are dropped. */
export function padHours(hourlyStatus: readonly HourlyStatus[] | null | undefined, timeZone: string): Counts[] {
  const slots = Array.from({ length: HOURS }, zeroCounts);
  for (const e of hourlyStatus ?? []) {
    const h = hourOf(e.hourly, timeZone);
    if (h === null) continue;
    slots[h].success += countOf(e.successCount);
    slots[h].warning += countOf(e.warningCount);
    slots[h].failure += countOf(e.failureCount);
  }
  return slots;
}
