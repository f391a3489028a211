import { describe, expect, it } from "vitest";
import { type Counts, HOURS, zeroCounts } from "./hourly";
import { compareSeverity, currentState, durationText, failingSince, severityOf, worstOf } from "./severity";

const c = (success: number, warning: number, failure: number): Counts => ({ success, warning, failure });
function day(set: Record<number, Counts>): Counts[] {
  return Array.from({ length: HOURS }, (_, h) => set[h] ?? zeroCounts());
}

describe("severity order", () => {
  it("rates failures and warnings over all runs", () => {
    expect(severityOf(c(2, 1, 1))).toEqual({ failRate: 0.25, warnRate: 0.25, runs: 4 });
    expect(severityOf(c(0, 0, 0))).toEqual({ failRate: 0, warnRate: 0, runs: 0 });
  });
  it("puts the higher failure rate first, then the higher warning rate", () => {
    const rows = [
      { n: "ok", s: severityOf(c(10, 0, 0)) },
      { n: "warn", s: severityOf(c(8, 2, 0)) },
      { n: "fail-few", s: severityOf(c(90, 0, 10)) },
      { n: "fail-many", s: severityOf(c(1, 0, 3)) },
      { n: "fail-few-warn", s: severityOf(c(80, 10, 10)) },
      { n: "none", s: severityOf(c(0, 0, 0)) },
    ];
    rows.sort((a, b) => compareSeverity(a.s, b.s));
    expect(rows.map((r) => r.n)).toEqual(["fail-many", "fail-few-warn", "fail-few", "warn", "ok", "none"]);
  });
});

describe("failing since", () => {
  it("goes back over failing hours to the first of the streak", () => {
    const hours = day({ 10: c(3, 0, 0), 17: c(1, 0, 0), 18: c(0, 0, 2), 19: c(1, 0, 1) });
    expect(failingSince(hours, 19)).toBe(18);
    expect(currentState(hours, 19)).toBe("failure");
  });
  it("is not broken by hours without runs", () => {
    const hours = day({ 15: c(1, 0, 0), 16: c(0, 0, 1), 18: c(0, 0, 1) });
    expect(failingSince(hours, 19)).toBe(16);
  });
  it("is null when the latest hour with runs has no failure", () => {
    const hours = day({ 16: c(0, 0, 1), 18: c(2, 1, 0) });
    expect(failingSince(hours, 19)).toBeNull();
    expect(currentState(hours, 19)).toBe("warning");
  });
  it("ignores hours after now, and is null without runs", () => {
    const hours = day({ 12: c(1, 0, 0), 20: c(0, 0, 4) });
    expect(failingSince(hours, 19)).toBeNull();
    expect(failingSince(day({}), 23)).toBeNull();
    expect(currentState(day({}), 23)).toBe("none");
  });
  it("counts from midnight when failing all day", () => {
    expect(failingSince(day({ 0: c(0, 0, 1), 5: c(0, 1, 1) }), 6)).toBe(0);
  });
});

describe("duration text", () => {
  it("writes hours and minutes", () => {
    expect(durationText(77)).toBe("1\u00a0h 17\u00a0min");
    expect(durationText(45)).toBe("45\u00a0min");
    expect(durationText(120)).toBe("2\u00a0h");
    expect(durationText(0)).toBe("0\u00a0min");
    expect(durationText(-5)).toBe("0\u00a0min");
    expect(durationText(59.9)).toBe("59\u00a0min");
  });
});

describe("worst state", () => {
  it("takes the worst", () => {
    expect(worstOf(["pass", "warning", "none"])).toBe("warning");
    expect(worstOf(["pass", "failure", "warning"])).toBe("failure");
    expect(worstOf([])).toBe("none");
  });
});
