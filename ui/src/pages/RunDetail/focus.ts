// What the run detail opens on: the step that went wrong. A run's failing
// steps (fail or stopped), its slow steps (slower than the route's latency threshold, or than
// the step's own upper latency limit), and the one step the summary shows first: the first
// failing step, else the slowest slow one, else the first warning, else the slowest of all
// (latency against its limit, so a Call Connect's seconds of ringing do not always win).
import type { RunDetail, RunStep } from "../../api/types";
import { slowerThan } from "../Drill/format";

/** A step with the segment it belongs to. */
export interface PlacedStep {
  step: RunStep;
  segmentName: string;
}

export type FocusKind = "failing" | "slow" | "warning" | "slowest";

export interface RunFocus {
  kind: FocusKind;
  step: PlacedStep;
}

/** Step types in which nothing is said by nature: no utterance is expected. */
const NO_SPEECH = new Set(["CALL_CONNECT"]);

/** True for a step that expects no speech (a Call Connect): its missing utterance is not a failure to recognise. */
export function expectsNoSpeech(step: Pick<RunStep, "stepType" | "typeDisplayText">): boolean {
  return (
    NO_SPEECH.has(String(step.stepType ?? "").toUpperCase()) ||
    String(step.typeDisplayText ?? "").toLowerCase() === "call connect"
  );
}

export function isFailing(step: RunStep): boolean {
  const s = step.testResult.status;
  return s === "fail" || s === "stopped";
}

/** Slower than the route's threshold (seconds) when one is given, else than the step's own upper limit. */
export function isSlow(step: RunStep, thresholdSec?: number): boolean {
  const lat = step.testResult.latency;
  if (lat === null || lat === undefined) return false;
  if (thresholdSec !== undefined) return slowerThan(lat, thresholdSec);
  const max = step.promptLatencyMax;
  return max !== null && max !== undefined && max > 0 && lat > max;
}

/** How slow a step is: its latency against its upper limit (or in seconds when it has none). */
function slowness(step: RunStep): number {
  const lat = step.testResult.latency;
  if (lat === null || lat === undefined) return Number.NEGATIVE_INFINITY;
  const max = step.promptLatencyMax;
  return max !== null && max !== undefined && max > 0 ? lat / max : lat / 1000;
}

export function placedSteps(run: Pick<RunDetail, "segments">): PlacedStep[] {
  return run.segments.flatMap((seg) => seg.steps.map((step) => ({ step, segmentName: seg.segmentName })));
}

function slowest(steps: PlacedStep[]): PlacedStep | undefined {
  let best: PlacedStep | undefined;
  for (const s of steps) {
    if (s.step.testResult.latency === null || s.step.testResult.latency === undefined) continue;
    if (!best || slowness(s.step) > slowness(best.step)) best = s;
  }
  return best;
}

/** The step the summary shows first, and why; undefined for a run without steps. */
export function runFocus(run: Pick<RunDetail, "segments">, thresholdSec?: number): RunFocus | undefined {
  const steps = placedSteps(run);
  const failing = steps.find((s) => isFailing(s.step));
  if (failing) return { kind: "failing", step: failing };
  const slow = slowest(steps.filter((s) => isSlow(s.step, thresholdSec)));
  if (slow) return { kind: "slow", step: slow };
  const warning = steps.find((s) => s.step.testResult.status === "warn");
  if (warning) return { kind: "warning", step: warning };
  const any = slowest(steps) ?? steps[0];
  return any ? { kind: "slowest", step: any } : undefined;
}

/** The steps a 'jump to' list offers: every failing step, then every slow one. */
export function jumpTargets(run: Pick<RunDetail, "segments">, thresholdSec?: number): PlacedStep[] {
  const steps = placedSteps(run);
  const failing = steps.filter((s) => isFailing(s.step));
  const slow = steps.filter((s) => !isFailing(s.step) && isSlow(s.step, thresholdSec));
  return [...failing, ...slow];
}

/** The element id of a step's card (the 'jump to' links' target). */
export const stepAnchor = (stepId: number) => `step-${stepId}`;
