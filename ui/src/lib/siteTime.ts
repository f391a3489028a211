// Dates and hours in the site time zone (spec §9: times shown as yyyy/MM/dd HH:mm:ss, 24-hour,
// in the Toronto time zone; here in the zone the tenant config names, America/Toronto when it
// names none: see lib/tenant.ts). Every function is told the zone. The one formatter of times
// for every screen (dashboard, runs, reports, alerts, run detail).

import { joinDate } from "./dates";

const partsCache = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = partsCache.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat("en-CA", {
      timeZone,
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
      hourCycle: "h23",
    });
    partsCache.set(timeZone, f);
  }
  return f;
}

export interface ZonedParts {
  year: string;
  month: string;
  day: string;
  hour: string;
  minute: string;
  second: string;
}

export function zonedParts(date: Date, timeZone: string): ZonedParts {
  const p: Record<string, string> = {};
  for (const part of formatter(timeZone).formatToParts(date)) p[part.type] = part.value;
  // Some engines print midnight as '24' even with h23.
  const hour = p.hour === "24" ? "00" : p.hour;
  return { year: p.year, month: p.month, day: p.day, hour, minute: p.minute, second: p.second };
}

/**
 * 'yyyy/MM/dd HH:mm:ss' in the site time zone (the one date format, see dates.ts); '' for a
 * missing or unreadable time.
 */
export function formatSiteTime(value: string | number | null | undefined, timeZone: string, locale = "en"): string {
  const d = toDate(value);
  if (!d) return "";
  const p = zonedParts(d, timeZone);
  return `${joinDate(p.year, p.month, p.day, locale)} ${p.hour}:${p.minute}:${p.second}`;
}

/**
 * When something last happened (a key's last use, a user's last sign-in), in site time: `never`
 * for null (the server keeps it and it has not happened), '' when the answer has no such field
 * (an API that does not keep it: nothing is said rather than a wrong 'never').
 */
export function lastTime(value: string | null | undefined, timeZone: string, locale: string, never: string): string {
  if (value === undefined) return "";
  if (value === null) return never;
  return formatSiteTime(value, timeZone, locale);
}

/** 'HH:mm:ss' in the site time zone. */
export function formatClock(date: Date, timeZone: string): string {
  const p = zonedParts(date, timeZone);
  return `${p.hour}:${p.minute}:${p.second}`;
}

const zoneNameCache = new Map<string, Intl.DateTimeFormat>();

/**
 * The short name of the site's time zone at `date` in the interface language, to say whose
 * clock the times are: 'EST' or 'EDT' for Toronto in both languages (French has no letters of
 * its own for it, and 'UTC−5' in one language beside 'EST' in the other reads as two zones),
 * 'GMT+1' for Paris in English and 'UTC+1' in French. Empty when the browser has no name for it.
 */
export function zoneLabel(date: Date, timeZone: string, locale: string): string {
  const own = shortZoneName(date, timeZone, locale);
  if (locale.startsWith("en")) return own;
  const english = shortZoneName(date, timeZone, "en-US");
  return /^[A-Z]{2,5}$/.test(english) ? english : own;
}

function shortZoneName(date: Date, timeZone: string, locale: string): string {
  const key = `${locale}|${timeZone}`;
  let f = zoneNameCache.get(key);
  if (!f) {
    try {
      f = new Intl.DateTimeFormat(locale, { timeZone, timeZoneName: "short" });
    } catch {
      return "";
    }
    zoneNameCache.set(key, f);
  }
  return f.formatToParts(date).find((p) => p.type === "timeZoneName")?.value ?? "";
}

/** Today's date at the site as 'YYYY-MM-DD' (the dashboard's default date). */
export function siteToday(now: Date, timeZone: string): string {
  const p = zonedParts(now, timeZone);
  return `${p.year}-${p.month}-${p.day}`;
}

/** True for a real calendar date written 'YYYY-MM-DD'. */
export function isIsoDate(s: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  if (!m) return false;
  const d = new Date(Date.UTC(+m[1], +m[2] - 1, +m[3]));
  return d.getUTCFullYear() === +m[1] && d.getUTCMonth() === +m[2] - 1 && d.getUTCDate() === +m[3];
}

/**
 * A timestamp from the API: ISO 8601 (with Z or an offset; without either it is taken as UTC,
 * as alert times are), or epoch seconds / milliseconds.
 */
export function toDate(value: string | number | null | undefined): Date | null {
  if (value === null || value === undefined || value === "") return null;
  if (typeof value === "number") {
    if (!Number.isFinite(value)) return null;
    return new Date(value < 1e11 ? value * 1000 : value);
  }
  let s = value.trim();
  if (/^\d+$/.test(s)) return toDate(Number(s));
  if (/^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(s)) s = `${s.replace(" ", "T")}Z`;
  const d = new Date(s);
  return Number.isNaN(d.getTime()) ? null : d;
}
