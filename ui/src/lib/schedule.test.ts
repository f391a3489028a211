import { describe, expect, it } from "vitest";
import cases from "../../../tests/fixtures/schedule.json";
import { countSelected, emptyWeek, fromRanges, fullWeek, paint, SLOTS, slotOf, timeOf, toRanges } from "./schedule";

type Row = [number, string, string];
const ranges = (rows: Row[]) => rows.map(([d, s, e]) => ({ dayOfWeek: d, startTimeSlot: s, endTimeSlot: e }));

describe("schedule", () => {
  it("slot and time are inverse", () => {
    for (let s = 0; s <= SLOTS; s++) expect(slotOf(timeOf(s))).toBe(s);
    expect(timeOf(47)).toBe("23:30");
    expect(timeOf(48)).toBe("24:00");
    for (const bad of ["24:30", "9:00", "09:15", "aa:00", "25:00"]) expect(slotOf(bad)).toBeUndefined();
  });

  it("follows the table shared with the server", () => {
    expect((cases as unknown[]).length).toBeGreaterThanOrEqual(8);
    for (const c of cases as { name: string; ranges: Row[]; merged: Row[] | null }[]) {
      const got = fromRanges(ranges(c.ranges));
      const merged = "week" in got ? toRanges(got.week) : null;
      expect(merged, c.name).toEqual(c.merged ? ranges(c.merged) : null);
    }
  });

  it("the 24:00 slot is the time error", () => {
    expect(fromRanges(ranges([[1, "24:00", "24:00"]]))).toEqual({ error: { kind: "time", time: "24:00" } });
  });

  it("a drag paints a rectangle on or off", () => {
    let w = paint(emptyWeek(), { day: 2, slot: 10 }, { day: 0, slot: 8 }, true);
    expect(countSelected(w)).toBe(9);
    expect(toRanges(w)[0]).toEqual({ dayOfWeek: 1, startTimeSlot: "04:00", endTimeSlot: "05:30" });
    w = paint(w, { day: 1, slot: 9 }, { day: 1, slot: 9 }, false);
    expect(countSelected(w)).toBe(8);
    expect(toRanges(w).filter((r) => r.dayOfWeek === 2)).toHaveLength(2);
  });

  it("the 24/7 preset is every half hour, each day one range to 24:00", () => {
    expect(countSelected(fullWeek())).toBe(7 * SLOTS);
    expect(toRanges(fullWeek())).toEqual(
      [1, 2, 3, 4, 5, 6, 7].map((d) => ({ dayOfWeek: d, startTimeSlot: "00:00", endTimeSlot: "24:00" })),
    );
  });
});
