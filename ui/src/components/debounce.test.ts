import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { debounce, SEARCH_DEBOUNCE_MS } from "./debounce";

describe("debounce", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("searches 500 ms after the last key, once, with the last text", () => {
    expect(SEARCH_DEBOUNCE_MS).toBe(500);
    const fn = vi.fn();
    const search = debounce(fn);
    search("a");
    vi.advanceTimersByTime(400);
    search("ad");
    vi.advanceTimersByTime(499);
    expect(fn).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(fn).toHaveBeenCalledExactlyOnceWith("ad");
  });

  it("can be cancelled", () => {
    const fn = vi.fn();
    const search = debounce(fn);
    search("a");
    search.cancel();
    vi.advanceTimersByTime(1000);
    expect(fn).not.toHaveBeenCalled();
  });
});
