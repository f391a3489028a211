// The heat map's colours by how unusual a count is, and the spike's day and hour.
import { describe, expect, it } from "vitest";
import { bucketLevels, dayGrid, level, median, slowCount, spikeOf } from "./heat";

const buckets = [{ lowerBound: 0 }, { lowerBound: 1000 }, { lowerBound: 2000 }, { lowerBound: 3000 }];
const hour = (h: number, counts: number[]) => ({ hour: h, bucketCounts: counts, runCount: 10 });

describe("level", () => {
  it("is usual for counts near the usual and rises with the ratio", () => {
    expect(level(0, 5)).toBe(0);
    expect(level(6, 5)).toBe(0);
    expect(level(9, 5)).toBe(1);
    expect(level(20, 5)).toBe(2);
    expect(level(40, 5)).toBe(3);
    // 1 against 0 is not a spike.
    expect(level(1, 0)).toBe(1);
    expect(level(0, 0)).toBe(0);
  });
  it("median", () => {
    expect(median([])).toBe(0);
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 2, 3])).toBe(2.5);
  });
});

describe("bucketLevels", () => {
  it("colours a slow bucket's hour by its share against the bucket's usual share, not every hour red", () => {
    const hours = [hour(0, [50, 40, 10, 0]), hour(1, [50, 40, 10, 0]), hour(2, [10, 20, 30, 40])];
    const l = bucketLevels(hours, 4);
    // The slowest bucket: only hour 2 has any, far above its usual share.
    expect(l[3]).toEqual([0, 0, 3]);
    // The fastest bucket is never unusual by being common.
    expect(l[0]).toEqual([0, 0, 0]);
    // The usual hours' slow-ish bucket (10 of 100) stays usual.
    expect(l[2][0]).toBe(0);
  });
});

describe("dayGrid and spikeOf", () => {
  it("finds the spike's day and hour among quiet days", () => {
    const quiet = (date: string) => ({
      date,
      latencyByHr: Array.from({ length: 24 }, (_, h) => hour(h, [8, 2, 1, 0])),
    });
    const spiked = {
      date: "2026-11-24",
      latencyByHr: Array.from({ length: 24 }, (_, h) => hour(h, h === 14 ? [2, 1, 6, 9] : [8, 2, 1, 0])),
    };
    const g = dayGrid([quiet("2026-11-23"), spiked, quiet("2026-11-25")], buckets, 2000);
    expect(g.usual).toBe(1);
    expect(slowCount(spiked.latencyByHr[14], buckets, 2000)).toBe(15);
    expect(g.levels[1][14]).toBe(3);
    expect(g.levels[0][14]).toBe(0);
    expect(spikeOf(g)).toEqual({ date: "2026-11-24", hour: 14, count: 15, usual: 1, level: 3 });
  });
  it("has no spike when nothing stands out", () => {
    const d = { date: "2026-11-23", latencyByHr: [hour(3, [5, 1, 1, 0])] };
    expect(spikeOf(dayGrid([d], buckets, 2000))).toBeNull();
  });
});
