import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { ACTIVITY_EVENTS, IDLE_TIMEOUT_MS, startIdleTimer } from "./idle";

describe("idle sign-out timer", () => {
  let target: EventTarget;
  let onIdle: ReturnType<typeof vi.fn<() => void>>;

  beforeEach(() => {
    vi.useFakeTimers();
    target = new EventTarget();
    onIdle = vi.fn<() => void>();
  });
  afterEach(() => vi.useRealTimers());

  it("waits 900000 ms (15 minutes)", () => {
    expect(IDLE_TIMEOUT_MS).toBe(900000);
    startIdleTimer({ target, onIdle });
    vi.advanceTimersByTime(IDLE_TIMEOUT_MS - 1);
    expect(onIdle).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(onIdle).toHaveBeenCalledTimes(1);
    vi.advanceTimersByTime(IDLE_TIMEOUT_MS * 3);
    expect(onIdle).toHaveBeenCalledTimes(1);
  });

  it.each(ACTIVITY_EVENTS)("starts the wait again on %s", (event) => {
    startIdleTimer({ target, onIdle });
    vi.advanceTimersByTime(IDLE_TIMEOUT_MS - 1000);
    target.dispatchEvent(new Event(event));
    vi.advanceTimersByTime(1000);
    expect(onIdle).not.toHaveBeenCalled();
    vi.advanceTimersByTime(IDLE_TIMEOUT_MS - 1001);
    expect(onIdle).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(onIdle).toHaveBeenCalledTimes(1);
  });

  it("listens to exactly mousemove, keydown, mousedown, touchstart and scroll", () => {
    expect([...ACTIVITY_EVENTS].sort()).toEqual(["keydown", "mousedown", "mousemove", "scroll", "touchstart"]);
    startIdleTimer({ target, onIdle, timeoutMs: 1000 });
    vi.advanceTimersByTime(900);
    target.dispatchEvent(new Event("click")); // not an activity event of the spec
    vi.advanceTimersByTime(100);
    expect(onIdle).toHaveBeenCalledTimes(1);
  });

  it("keeps waiting while activity goes on", () => {
    startIdleTimer({ target, onIdle, timeoutMs: 1000 });
    for (let i = 0; i < 50; i++) {
      vi.advanceTimersByTime(500);
      target.dispatchEvent(new Event("mousemove"));
    }
    expect(onIdle).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1000);
    expect(onIdle).toHaveBeenCalledTimes(1);
  });

  it("stops watching when stopped", () => {
    const remove = vi.spyOn(target, "removeEventListener");
    const stop = startIdleTimer({ target, onIdle, timeoutMs: 1000 });
    stop();
    vi.advanceTimersByTime(5000);
    expect(onIdle).not.toHaveBeenCalled();
    expect(remove).toHaveBeenCalledTimes(ACTIVITY_EVENTS.length);
  });

  it("signs out at once when the computer slept past the limit", () => {
    let clock = 0;
    startIdleTimer({ target, onIdle, timeoutMs: 1000, now: () => clock });
    clock = 600;
    target.dispatchEvent(new Event("keydown"));
    clock = 5000; // the timer fires late, long after the limit
    vi.advanceTimersByTime(1000);
    expect(onIdle).toHaveBeenCalledTimes(1);
  });
});
