// The step the run detail opens on: failing first, then slow (against the route's threshold or
// the step's own limit), then warning, then the slowest against its limit; a Call Connect
// expects no speech.
import { describe, expect, it } from "vitest";
import type { RunStep } from "../../api/types";
import { expectsNoSpeech, jumpTargets, runFocus } from "./focus";

const step = (stepId: number, status: string, latency: number | null, max: number | null, type = "PROMPT") =>
  ({
    stepId,
    stepType: type,
    typeDisplayText: type === "CALL_CONNECT" ? "Call Connect" : "Prompt",
    prompt: type === "CALL_CONNECT" ? null : "Welcome",
    promptLatencyMax: max,
    testResult: { status, latency, utterance: null },
  }) as unknown as RunStep;

const run = (...steps: RunStep[]) => ({
  segments: [
    { segmentId: 1, segmentName: "Greeting", steps: steps.slice(0, 2) },
    { segmentId: 2, segmentName: "Menu", steps: steps.slice(2) },
  ],
});

describe("runFocus", () => {
  it("opens on the first failing step, wherever it is", () => {
    const r = run(step(1, "pass", 5000, 8000, "CALL_CONNECT"), step(2, "pass", 900, 1500), step(3, "fail", null, 1500));
    const f = runFocus(r);
    expect(f?.kind).toBe("failing");
    expect(f?.step.step.stepId).toBe(3);
    expect(f?.step.segmentName).toBe("Menu");
  });

  it("else the slowest step over the route's threshold", () => {
    const r = run(
      step(1, "pass", 6000, 8000, "CALL_CONNECT"),
      step(2, "pass", 3100, 1500),
      step(3, "pass", 4200, 2000),
    );
    const f = runFocus(r, 3);
    expect(f?.kind).toBe("slow");
    // Call Connect's 6 s is over 3 s too, but 4.2 s against a 2 s limit is slower for its kind.
    expect(f?.step.step.stepId).toBe(3);
  });

  it("else a step over its own upper limit, then a warning, then the slowest against its limit", () => {
    expect(runFocus(run(step(1, "pass", 900, 1500), step(2, "pass", 1800, 1500)))?.kind).toBe("slow");
    expect(runFocus(run(step(1, "pass", 900, 1500), step(2, "warn", 1000, 1500)))?.kind).toBe("warning");
    const calm = runFocus(run(step(1, "pass", 6000, 8000, "CALL_CONNECT"), step(2, "pass", 1400, 1500)));
    expect(calm?.kind).toBe("slowest");
    expect(calm?.step.step.stepId).toBe(2);
    expect(runFocus({ segments: [] })).toBeUndefined();
  });

  it("offers a jump to every failing step, then every slow one", () => {
    const r = run(step(1, "fail", null, 1500), step(2, "pass", 3100, 1500), step(3, "stopped", null, 1500));
    expect(jumpTargets(r).map((s) => s.step.stepId)).toEqual([1, 3, 2]);
  });
});

describe("expectsNoSpeech", () => {
  it("is true for a Call Connect only", () => {
    expect(expectsNoSpeech({ stepType: "CALL_CONNECT", typeDisplayText: "" })).toBe(true);
    expect(expectsNoSpeech({ stepType: "X", typeDisplayText: "Call Connect" })).toBe(true);
    expect(expectsNoSpeech({ stepType: "SPEECH", typeDisplayText: "Speech Input" })).toBe(false);
  });
});
