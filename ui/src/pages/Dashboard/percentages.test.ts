import { describe, expect, it } from "vitest";
import { overallHealth, percentText, roundPercentages } from "./percentages";

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

describe("roundPercentages", () => {
  it("thirds sum to 100 (largest remainder)", () => {
    expect(roundPercentages([1, 1, 1])).toEqual([34, 33, 33]);
  });
  it("gives the missing point to the largest remainder", () => {
    // 66.67 / 16.67 / 16.67 -> 67 / 17 / 16 ; naive rounding would give 101
    expect(roundPercentages([4, 1, 1])).toEqual([67, 17, 16]);
    // 2/7 = 28.57, 2/7, 3/7 = 42.86 -> 29 / 28 / 43
    expect(roundPercentages([2, 2, 3])).toEqual([29, 28, 43]);
  });
  it("keeps exact values", () => {
    expect(roundPercentages([1, 1, 2])).toEqual([25, 25, 50]);
    expect(roundPercentages([5, 0, 0])).toEqual([100, 0, 0]);
  });
  it("never shows a share with no runs as 1%", () => {
    expect(roundPercentages([999, 0, 1])).toEqual([100, 0, 0]);
    const r = roundPercentages([999, 0, 1]);
    expect(r[1]).toBe(0);
    expect(sum(r)).toBe(100);
  });
  it("is 0 everywhere with no runs", () => {
    expect(roundPercentages([0, 0, 0])).toEqual([0, 0, 0]);
  });
  it("sums to 100 for many random inputs", () => {
    let seed = 42;
    const rnd = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (let i = 0; i < 2000; i++) {
      const v = [Math.floor(rnd() * 1000), Math.floor(rnd() * 50), Math.floor(rnd() * 200)];
      const r = roundPercentages(v);
      if (sum(v) === 0) expect(r).toEqual([0, 0, 0]);
      else {
        expect(sum(r)).toBe(100);
        for (const [k, p] of r.entries()) expect(Math.abs(p - (v[k] * 100) / sum(v))).toBeLessThan(1);
      }
    }
  });
});

describe("overallHealth", () => {
  it("totals the rows and rounds shares", () => {
    const h = overallHealth([
      { counts: { success: 10, warning: 1, failure: 2 } },
      { counts: { success: 5, warning: 0, failure: 3 } },
    ]);
    expect(h.total).toBe(21);
    expect(h.pass).toEqual({ count: 15, percent: 71 });
    expect(h.warning).toEqual({ count: 1, percent: 5 });
    expect(h.failure).toEqual({ count: 5, percent: 24 });
  });
  it("no calls: zeros", () => {
    const h = overallHealth([]);
    expect(h).toEqual({
      total: 0,
      pass: { count: 0, percent: 0 },
      warning: { count: 0, percent: 0 },
      failure: { count: 0, percent: 0 },
    });
  });
});

describe("percentText", () => {
  it("writes French with a narrow no-break space before %", () => {
    expect(percentText(94, "en")).toBe("94%");
    expect(percentText(94, "fr")).toBe("94\u202f%");
    expect(percentText(0, "fr-CA")).toBe("0\u202f%");
  });
});
