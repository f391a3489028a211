import { describe, expect, it } from "vitest";
import { clock, forwardFrom, pauseOthers, registerPlayer } from "./players";

function fake(paused: boolean) {
  return {
    paused,
    pause() {
      this.paused = true;
    },
  };
}

describe("players", () => {
  it("starting one stops the others", () => {
    const a = fake(false);
    const b = fake(false);
    const c = fake(true);
    const off = [a, b, c].map(registerPlayer);
    expect(pauseOthers(b)).toBe(1);
    expect(a.paused).toBe(true);
    expect(b.paused).toBe(false);
    for (const f of off) f();
    // Gone from the page: no longer paused by others.
    b.paused = false;
    expect(pauseOthers(fake(false))).toBe(0);
    expect(b.paused).toBe(false);
  });
  it("skips forward within the recording and shows m:ss", () => {
    expect(forwardFrom(2, 30)).toBe(7);
    expect(forwardFrom(28, 30)).toBe(30);
    expect(forwardFrom(1, Number.NaN)).toBe(6);
    expect(clock(75.9)).toBe("1:15");
    expect(clock(Number.NaN)).toBe("0:00");
  });
});
