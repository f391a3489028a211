import { describe, expect, it } from "vitest";
import { agoOf } from "./ago";

describe("refreshed … ago", () => {
  it("counts seconds, then minutes, then hours, and never below zero", () => {
    const at = Date.UTC(2026, 10, 22, 19, 40, 0);
    expect(agoOf(at, at)).toEqual({ n: 0, unit: "s" });
    expect(agoOf(at, at + 12_400)).toEqual({ n: 12, unit: "s" });
    expect(agoOf(at, at + 59_999)).toEqual({ n: 59, unit: "s" });
    expect(agoOf(at, at + 60_000)).toEqual({ n: 1, unit: "min" });
    expect(agoOf(at, at + 61 * 60_000)).toEqual({ n: 1, unit: "h" });
    expect(agoOf(at, at - 5000)).toEqual({ n: 0, unit: "s" });
  });
});
