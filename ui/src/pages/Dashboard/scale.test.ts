import { describe, expect, it } from "vitest";
import { countTicks } from "../../components/charts/ticks";
import { HOURS, zeroCounts } from "./hourly";
import { sharedScaleMax } from "./scale";

function row(at: Record<number, [number, number, number]>) {
  const hours = Array.from({ length: HOURS }, zeroCounts);
  for (const [h, [s, w, f]] of Object.entries(at)) hours[Number(h)] = { success: s, warning: w, failure: f };
  return { hours };
}

describe("shared chart scale", () => {
  it("is the tallest stacked hour over every row", () => {
    expect(sharedScaleMax([row({ 3: [1, 0, 0] }), row({ 9: [2, 0, 1] }), row({})], [0, 1, 2])).toBe(3);
  });
  it("follows the filter", () => {
    expect(sharedScaleMax([row({ 3: [5, 0, 0] }), row({ 9: [0, 1, 2] })], [1, 2])).toBe(3);
    expect(sharedScaleMax([row({ 3: [5, 0, 0] })], [])).toBe(0);
  });
  it("gives a bar of 1 a third the height of a bar of 3 in another row", () => {
    const top = countTicks(sharedScaleMax([row({ 1: [1, 0, 0] }), row({ 1: [3, 0, 0] })], [0, 1, 2])).at(-1) ?? 1;
    expect(1 / top).toBeCloseTo(3 / top / 3);
    expect(top).toBe(3);
  });
  it("is 0 without rows", () => {
    expect(sharedScaleMax([], [0, 1, 2])).toBe(0);
  });
});
