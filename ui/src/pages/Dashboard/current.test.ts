import { describe, expect, it } from "vitest";
import { currentCounts, currentWorst, type GroupHours, incidentsNow } from "./current";
import { type Counts, HOURS, zeroCounts } from "./hourly";

const c = (success: number, warning: number, failure: number): Counts => ({ success, warning, failure });
function group(id: number, name: string, set: Record<number, Counts>): GroupHours {
  return { id, name, allHours: Array.from({ length: HOURS }, (_, h) => set[h] ?? zeroCounts()) };
}
const recent = (groupId: number, successCount: number, warningCount: number, failureCount: number) => ({
  groupId,
  name: `g${groupId}`,
  successCount,
  warningCount,
  failureCount,
});
const LAST_15 = { kind: "minutes", minutes: 15 } as const;

describe("failing now: the last minutes", () => {
  // The review's case: one failure among 4 runs an hour earlier, no run in the last 15 minutes.
  const sales = group(1, "Chat - Sales", { 17: c(3, 0, 1) });
  it("does not flag a group whose failures are older than the window", () => {
    const counts = currentCounts([sales], LAST_15, []);
    expect(incidentsNow([sales], counts, 18, 5)).toEqual([]);
    expect(currentWorst(counts)).toBe("none");
  });
  it("flags a failed run in the window and says how many of how many, since when", () => {
    const hours = group(1, "Chat - Sales", { 17: c(3, 0, 1), 18: c(1, 0, 2) });
    const counts = currentCounts([hours], LAST_15, [recent(1, 1, 0, 2)]);
    expect(incidentsNow([hours], counts, 18, 5)).toEqual([
      { id: 1, name: "Chat - Sales", failed: 2, runs: 3, since: 17, minutes: 65 },
    ]);
    expect(currentWorst(counts)).toBe("failure");
  });
  it("says nothing until the window's counts are in", () => {
    const counts = currentCounts([sales], LAST_15, undefined);
    expect(counts).toBeNull();
    expect(incidentsNow([sales], counts, 18, 5)).toEqual([]);
    expect(currentWorst(counts)).toBe("none");
  });
  it("keeps a failure whose hours are not in yet, without a since", () => {
    const fresh = group(2, "Claims", {});
    const counts = currentCounts([fresh], LAST_15, [recent(2, 0, 0, 1)]);
    expect(incidentsNow([fresh], counts, 9, 0)).toEqual([
      { id: 2, name: "Claims", failed: 1, runs: 1, since: null, minutes: null },
    ]);
  });
  it("ignores groups not shown, and orders the longest streak first", () => {
    const a = group(1, "A", { 9: c(0, 0, 1) });
    const b = group(2, "B", { 7: c(0, 0, 1), 8: c(0, 0, 1), 9: c(0, 0, 1) });
    const counts = currentCounts([a, b], LAST_15, [recent(1, 0, 0, 1), recent(2, 0, 0, 1), recent(3, 0, 0, 5)]);
    expect(incidentsNow([a, b], counts, 9, 10).map((i) => i.name)).toEqual(["B", "A"]);
  });
  it("reads warnings and passes for the tab", () => {
    const a = group(1, "A", {});
    expect(currentWorst(currentCounts([a], LAST_15, [recent(1, 2, 1, 0)]))).toBe("warning");
    expect(currentWorst(currentCounts([a], LAST_15, [recent(1, 2, 0, 0)]))).toBe("pass");
  });
});

describe("failing now: the current hour (an API without the last minutes)", () => {
  it("reads only the current hour's runs", () => {
    const sales = group(1, "Chat - Sales", { 17: c(3, 0, 1) });
    const counts = currentCounts([sales], { kind: "hour", hour: 18 }, undefined);
    expect(incidentsNow([sales], counts, 18, 5)).toEqual([]);
    const failing = group(1, "Chat - Sales", { 17: c(3, 0, 1), 18: c(0, 0, 1) });
    const now = currentCounts([failing], { kind: "hour", hour: 18 }, undefined);
    expect(incidentsNow([failing], now, 18, 5)).toEqual([
      { id: 1, name: "Chat - Sales", failed: 1, runs: 1, since: 17, minutes: 65 },
    ]);
  });
});
