import { describe, expect, it } from "vitest";
import { countTicks } from "./ticks";

describe("countTicks", () => {
  it("uses whole numbers for small counts", () => {
    expect(countTicks(0)).toEqual([0, 1]);
    expect(countTicks(1)).toEqual([0, 1]);
    expect(countTicks(2)).toEqual([0, 1, 2]);
    expect(countTicks(3)).toEqual([0, 1, 2, 3]);
    expect(countTicks(7)).toEqual([0, 2, 4, 6, 8]);
    expect(countTicks(23)).toEqual([0, 10, 20, 30]);
    expect(countTicks(100)).toEqual([0, 50, 100]);
  });
  it("always starts at 0, ends at or above the maximum, in equal whole steps", () => {
    for (let max = 0; max <= 5000; max += max < 200 ? 1 : 37) {
      const t = countTicks(max);
      expect(t[0]).toBe(0);
      expect(t[t.length - 1]).toBeGreaterThanOrEqual(max);
      expect(t.length).toBeGreaterThanOrEqual(2);
      expect(t.length).toBeLessThanOrEqual(9);
      const step = t[1] - t[0];
      t.forEach((v, i) => {
        expect(Number.isInteger(v)).toBe(true);
        expect(v).toBe(i * step);
      });
    }
  });
  it("treats garbage as no runs", () => {
    expect(countTicks(Number.NaN)).toEqual([0, 1]);
    expect(countTicks(-3)).toEqual([0, 1]);
  });
});
