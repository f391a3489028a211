// What the headline counts: the day and the hours it covers, for 'Today 00:00–19:40 · Manual ·
// 12 groups · Filtered ✕' beside the donut. Pure, tested beside.
import { formatDateField } from "../../lib/dates";
import { siteToday, zonedParts } from "../../lib/siteTime";

export interface HeadlineScope {
  /** The date shown is today at the site. */
  today: boolean;
  /** The date shown, 'yyyy/MM/dd' ('dd/MM/yyyy' in French: the console's one date format, dates.ts). */
  day: string;
  from: string;
  /** Now at the site for today; 24:00 for a past day; 00:00 for a day still to come. */
  to: string;
}

export function headlineScope(date: string, now: Date, timeZone: string, locale = "en"): HeadlineScope {
  const today = siteToday(now, timeZone);
  const day = formatDateField(date, locale);
  if (date === today) {
    const p = zonedParts(now, timeZone);
    return { today: true, day, from: "00:00", to: `${p.hour}:${p.minute}` };
  }
  return { today: false, day, from: "00:00", to: date < today ? "24:00" : "00:00" };
}

/** The hours (0-23) of the day shown that are still to come: none for a past day, all for a future one. */
export function firstFutureHour(date: string, now: Date, timeZone: string): number {
  const today = siteToday(now, timeZone);
  if (date < today) return 24;
  if (date > today) return 0;
  return Number(zonedParts(now, timeZone).hour) + 1;
}
