import { describe, expect, it } from "vitest";
import { selectAllState, toggleAll, toggleValue } from "./selection";

const opts = [1, 2, 3, 4];

describe("multi-select", () => {
  it("toggles a value and keeps the options' order", () => {
    expect(toggleValue(opts, [3], 1)).toEqual([1, 3]);
    expect(toggleValue(opts, [1, 3], 3)).toEqual([1]);
    expect(toggleValue(opts, [], 9)).toEqual([]);
  });
  it("knows whether all, some or none are selected", () => {
    expect(selectAllState(opts, [])).toBe("none");
    expect(selectAllState(opts, [2])).toBe("some");
    expect(selectAllState(opts, [4, 3, 2, 1])).toBe("all");
    expect(selectAllState(opts, [9])).toBe("none");
    expect(selectAllState([], [])).toBe("none");
  });
  it("Select All selects everything, or clears when all are selected", () => {
    expect(toggleAll(opts, [2])).toEqual(opts);
    expect(toggleAll(opts, [])).toEqual(opts);
    expect(toggleAll(opts, opts)).toEqual([]);
  });
});
