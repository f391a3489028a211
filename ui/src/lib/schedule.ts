// The weekly schedule of an alert setting (spec §2 'Schedule picker', §5 'Schedule'): 7 days,
// Monday first, by 48 half-hour slots, slot s starting at s × 30 minutes. The same rules as
// the server's src/domain/schedule.rs, tested against the same table
// (tests/fixtures/schedule.json):
// - the API carries ranges {dayOfWeek 1..7, startTimeSlot, endTimeSlot} in HH:mm, end exclusive;
// - an end of 24:00 or 00:00 is the end of the day (00:00–24:00 is every slot of the day);
// - a range cannot start at 24:00 (the picker's time error);
// - read back, a day's slots merge into the fewest ranges, days Monday first.

export const SLOTS = 48;
export const DAYS = 7;

export interface SlotRange {
  dayOfWeek: number;
  startTimeSlot: string;
  endTimeSlot: string;
}

/** A week of selected slots: week[day - 1][slot]. */
export type Week = boolean[][];

export type ScheduleError =
  | { kind: "day"; day: number }
  | { kind: "time"; time: string }
  | { kind: "order"; start: string; end: string };

/** The index 0..48 of HH:mm (24:00 is 48), or undefined. */
export function slotOf(time: string): number | undefined {
  const m = /^(\d{2}):(\d{2})$/.exec(time);
  if (!m) return undefined;
  const h = Number(m[1]);
  const min = Number(m[2]);
  if (min !== 0 && min !== 30) return undefined;
  const slot = h * 2 + (min === 30 ? 1 : 0);
  return slot <= SLOTS ? slot : undefined;
}

/** HH:mm of the slot index 0..48. */
export function timeOf(slot: number): string {
  const h = Math.floor(slot / 2);
  return `${String(h).padStart(2, "0")}:${slot % 2 ? "30" : "00"}`;
}

export function emptyWeek(): Week {
  return Array.from({ length: DAYS }, () => Array<boolean>(SLOTS).fill(false));
}

/** Every half hour of every day (the 24/7 preset). */
export function fullWeek(): Week {
  return Array.from({ length: DAYS }, () => Array<boolean>(SLOTS).fill(true));
}

/** Reads API ranges; overlapping and touching ranges merge. */
export function fromRanges(ranges: SlotRange[]): { week: Week } | { error: ScheduleError } {
  const week = emptyWeek();
  for (const r of ranges) {
    if (!Number.isInteger(r.dayOfWeek) || r.dayOfWeek < 1 || r.dayOfWeek > DAYS) {
      return { error: { kind: "day", day: r.dayOfWeek } };
    }
    const start = slotOf(r.startTimeSlot);
    if (start === undefined || start >= SLOTS) return { error: { kind: "time", time: r.startTimeSlot } };
    const rawEnd = slotOf(r.endTimeSlot);
    if (rawEnd === undefined) return { error: { kind: "time", time: r.endTimeSlot } };
    const end = rawEnd === 0 ? SLOTS : rawEnd;
    if (start >= end) return { error: { kind: "order", start: r.startTimeSlot, end: r.endTimeSlot } };
    for (let s = start; s < end; s++) week[r.dayOfWeek - 1][s] = true;
  }
  return { week };
}

/** The fewest ranges covering the selected slots, by day then time; ends of day as 24:00. */
export function toRanges(week: Week): SlotRange[] {
  const out: SlotRange[] = [];
  week.forEach((day, d) => {
    let s = 0;
    while (s < SLOTS) {
      if (!day[s]) {
        s++;
        continue;
      }
      const start = s;
      while (s < SLOTS && day[s]) s++;
      out.push({ dayOfWeek: d + 1, startTimeSlot: timeOf(start), endTimeSlot: timeOf(s) });
    }
  });
  return out;
}

/** The rectangle of cells between two corners (a drag), set to `on`. */
export function paint(
  week: Week,
  from: { day: number; slot: number },
  to: { day: number; slot: number },
  on: boolean,
): Week {
  const next = week.map((d) => d.slice());
  const [d0, d1] = [Math.min(from.day, to.day), Math.max(from.day, to.day)];
  const [s0, s1] = [Math.min(from.slot, to.slot), Math.max(from.slot, to.slot)];
  for (let d = d0; d <= d1; d++) for (let s = s0; s <= s1; s++) next[d][s] = on;
  return next;
}

export function countSelected(week: Week): number {
  return week.reduce((n, d) => n + d.filter(Boolean).length, 0);
}
