import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { BANNER_HIDE_MS, banners, dismiss, dismissAll, showError, showSuccess } from "./banners";

describe("banners", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => {
    dismissAll();
    vi.useRealTimers();
  });

  it("disappear on their own after 6 s", () => {
    expect(BANNER_HIDE_MS).toBe(6000);
    showSuccess("New Report successfully created");
    vi.advanceTimersByTime(3000);
    showError(["a", "b"]);
    expect(banners.get().map((b) => [b.kind, b.messages])).toEqual([
      ["success", ["New Report successfully created"]],
      ["error", ["a", "b"]],
    ]);
    vi.advanceTimersByTime(3000);
    expect(banners.get().map((b) => b.kind)).toEqual(["error"]);
    vi.advanceTimersByTime(2999);
    expect(banners.get()).toHaveLength(1);
    vi.advanceTimersByTime(1);
    expect(banners.get()).toEqual([]);
  });

  it("can be closed early", () => {
    const id = showError("Access is denied!");
    dismiss(id);
    expect(banners.get()).toEqual([]);
  });

  it("show the same message once, with its time restarted", () => {
    showError("Access is denied!");
    vi.advanceTimersByTime(5000);
    showError("Access is denied!");
    expect(banners.get()).toHaveLength(1);
    vi.advanceTimersByTime(5000);
    expect(banners.get()).toHaveLength(1);
    vi.advanceTimersByTime(1000);
    expect(banners.get()).toHaveLength(0);
  });
});
