import { describe, expect, it } from "vitest";
import { mapLimit } from "./pool";

describe("mapLimit", () => {
  it("keeps at most `limit` tasks in flight and results in order", async () => {
    let inFlight = 0;
    let peak = 0;
    const out = await mapLimit([50, 10, 30, 5, 20, 1, 15, 8], 3, async (ms, i) => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      await new Promise((r) => setTimeout(r, ms));
      inFlight--;
      return i * 2;
    });
    expect(peak).toBe(3);
    expect(out.map((r) => (r.ok ? r.value : -1))).toEqual([0, 2, 4, 6, 8, 10, 12, 14]);
  });
  it("reports failures in place and goes on", async () => {
    const out = await mapLimit([1, 2, 3], 2, async (x) => {
      if (x === 2) throw new Error("boom");
      return x;
    });
    expect(out[0]).toEqual({ ok: true, value: 1 });
    expect(out[1].ok).toBe(false);
    expect(out[2]).toEqual({ ok: true, value: 3 });
  });
  it("stops starting tasks once aborted", async () => {
    const ctl = new AbortController();
    let started = 0;
    await mapLimit(
      [1, 2, 3, 4, 5],
      1,
      async () => {
        started++;
        ctl.abort();
      },
      ctl.signal,
    );
    expect(started).toBe(1);
  });
});
