import { describe, expect, it } from "vitest";
import { emptyWeek } from "../../lib/schedule";
import {
  emptyWindow,
  fromSiteLocal,
  muteUntil,
  onePerTarget,
  toSiteLocal,
  toWindowSave,
  validateWindow,
} from "./rules";

const TO = "America/Toronto";

describe("site-local times", () => {
  it("read and write a time in the site's zone", () => {
    const d = new Date("2026-11-23T07:30:00Z");
    expect(toSiteLocal(d, TO)).toBe("2026-11-23T02:30");
    expect(fromSiteLocal("2026-11-23T02:30", TO)?.toISOString()).toBe("2026-11-23T07:30:00.000Z");
    expect(fromSiteLocal("2026-07-01T12:00", TO)?.toISOString()).toBe("2026-07-01T16:00:00.000Z");
    expect(fromSiteLocal("not a time", TO)).toBeNull();
  });
  it("take a skipped time forward and a repeated one first", () => {
    // 2026-03-08: 02:00 EST jumps to 03:00 EDT; 02:30 does not exist.
    expect(fromSiteLocal("2026-03-08T02:30", TO)?.toISOString()).toBe("2026-03-08T07:30:00.000Z");
    // 2026-11-01: 01:30 happens twice (EDT, then EST): the first.
    expect(fromSiteLocal("2026-11-01T01:30", TO)?.toISOString()).toBe("2026-11-01T05:30:00.000Z");
  });
});

describe("mute", () => {
  it("lasts 1 h, 4 h, or until tomorrow 08:00 site time", () => {
    const now = new Date("2026-11-23T22:10:00Z"); // 17:10 in Toronto
    expect(muteUntil("1h", now, TO).toISOString()).toBe("2026-11-23T23:10:00.000Z");
    expect(muteUntil("4h", now, TO).toISOString()).toBe("2026-11-24T02:10:00.000Z");
    expect(muteUntil("tomorrow", now, TO).toISOString()).toBe("2026-11-24T13:00:00.000Z");
    // After midnight UTC but still the 23rd in Toronto: tomorrow is the 24th.
    const late = new Date("2026-11-24T03:00:00Z"); // 22:00 on the 23rd
    expect(muteUntil("tomorrow", late, TO).toISOString()).toBe("2026-11-24T13:00:00.000Z");
  });
});

describe("the window form", () => {
  const now = new Date("2026-11-23T15:00:00Z");
  it("checks in the server's order", () => {
    const v = { ...emptyWindow(now, TO), reason: " " };
    expect(validateWindow(v, now, TO)).toEqual({ reason: "required", testCaseGroups: "required" });
    const backwards = { ...emptyWindow(now, TO), reason: "IVR release", groupIds: [1], end: "2026-11-23T09:00" };
    expect(validateWindow(backwards, now, TO)).toEqual({ endTime: "order" });
    const weekly = { ...emptyWindow(now, TO), reason: "Nightly", kind: "weekly" as const, caseIds: [4] };
    expect(validateWindow({ ...weekly, week: emptyWeek() }, now, TO)).toEqual({ schedule: "required" });
  });
  it("sends UTC times for a once window, ranges for a weekly one", () => {
    const v = {
      ...emptyWindow(now, TO),
      reason: " IVR release ",
      groupIds: [2],
      start: "2026-11-24T02:00",
      end: "2026-11-24T03:00",
    };
    expect(toWindowSave(v, TO)).toEqual({
      reason: "IVR release",
      kind: "once",
      startTime: "2026-11-24T07:00:00.000Z",
      endTime: "2026-11-24T08:00:00.000Z",
      schedule: [],
      testCaseGroups: [{ id: 2, name: "" }],
      testCases: [],
    });
    const weekly = toWindowSave({ ...v, kind: "weekly" }, TO);
    expect(weekly.startTime).toBeNull();
    expect(weekly.schedule).toEqual([]);
  });
});

describe("the dashboard lists each mute once", () => {
  const w = (id: number, end: string | null, groups: number[], cases: number[], kind = "once") => ({
    id,
    kind,
    endTime: end,
    testCaseGroups: groups.map((g) => ({ id: g })),
    testCases: cases.map((c) => ({ id: c })),
  });
  it("keeps the window ending last of those covering the same thing", () => {
    const list = [
      w(1, "2026-11-29T09:00:00Z", [], [5]),
      w(2, "2026-11-29T10:00:00Z", [], [5]),
      w(3, "2026-11-29T09:00:00Z", [7], []),
      w(4, null, [], [5], "weekly"),
    ];
    expect(onePerTarget(list).map((x) => x.id)).toEqual([2, 3, 4]);
  });
});
