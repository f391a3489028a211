import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createBatcher } from "./batch";
import { mapLimit } from "./pool";

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe("createBatcher", () => {
  it("hands over items that arrive within the delay together", () => {
    const seen: number[][] = [];
    const b = createBatcher<number>(100, (x) => seen.push(x));
    b.add(1);
    b.add(2);
    vi.advanceTimersByTime(99);
    expect(seen).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(seen).toEqual([[1, 2]]);
    b.add(3);
    b.done();
    expect(seen).toEqual([[1, 2], [3]]);
    b.done();
    expect(seen).toHaveLength(2);
  });

  it("loses nothing when results arrive while earlier batches are handed over", async () => {
    vi.useRealTimers();
    const seen: number[] = [];
    const b = createBatcher<number>(5, (x) => seen.push(...x));
    const ids = Array.from({ length: 60 }, (_, i) => i);
    await mapLimit(ids, 6, async (id) => {
      await new Promise((r) => setTimeout(r, (id * 7) % 11));
      b.add(id);
    });
    b.done();
    expect(seen.sort((a, c) => a - c)).toEqual(ids);
  });
});
