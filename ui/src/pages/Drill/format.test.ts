import { describe, expect, it } from "vitest";
import { mos1, msAsSeconds, seconds2, slowerThan, statusKindOfId, statusKindOfResult } from "./format";

describe("run formats", () => {
  it("reads statuses, STOPPED as failure", () => {
    expect([3, 4, 7].map(statusKindOfId)).toEqual(["pass", "warning", "failure"]);
    expect(["pass", "warn", "fail", "stopped"].map(statusKindOfResult)).toEqual([
      "pass",
      "warning",
      "failure",
      "failure",
    ]);
  });
  it("shows seconds, milliseconds and MOS as the spec says", () => {
    expect(seconds2(42.5)).toBe("42.50");
    expect(msAsSeconds(1234)).toBe("1.23");
    expect(msAsSeconds(null)).toBe("");
    expect(mos1(3.94)).toBe("3.9");
    expect(mos1(undefined)).toBe("");
  });
  it("marks steps slower than the route's threshold", () => {
    expect(slowerThan(2100, 2)).toBe(true);
    expect(slowerThan(2000, 2)).toBe(false);
    expect(slowerThan(5000, undefined)).toBe(false);
    expect(slowerThan(null, 1)).toBe(false);
  });
});
