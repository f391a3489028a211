// 'Compare with the last passing run of this test case': the two runs' steps side by side and
// the first one that differs, which the comparison opens on. Steps are paired by segment and
// step id (the script's own ids), in this run's order, a step only the passing run had placed
// after the step it followed there. A pair differs when a side is missing, the results differ
// (pass, warn, fail, stopped), what was heard differs (without case, punctuation or spacing),
// what was expected differs (the script changed), or one side is over its latency limit and
// the other is not. Latency and MOS alone are numbers that always move: they are shown, not
// counted as a difference.
import type { RunDetail, RunStep, SpecRun } from "../../api/types";
import { isSlow } from "./focus";

export type Difference = "missing" | "added" | "status" | "heard" | "expected" | "slow";

export interface StepPair {
  /** `segmentId/stepId`, unique in the comparison. */
  key: string;
  segmentName: string;
  /** This run's step; undefined when only the passing run had it. */
  now?: RunStep;
  /** The passing run's step; undefined when only this run has it. */
  before?: RunStep;
  /** Why the pair differs, empty when it does not. */
  differences: Difference[];
}

type Steps = Pick<RunDetail, "segments">;

interface Placed {
  key: string;
  segmentName: string;
  step: RunStep;
}

function placed(run: Steps): Placed[] {
  return run.segments.flatMap((seg) =>
    seg.steps.map((step) => ({ key: `${seg.segmentId}/${step.stepId}`, segmentName: seg.segmentName, step })),
  );
}

/** Text as compared: lower case, letters and digits only, single spaces. */
export function normalText(s: string | null | undefined): string {
  return String(s ?? "")
    .toLocaleLowerCase()
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim();
}

function differencesOf(now: RunStep | undefined, before: RunStep | undefined): Difference[] {
  if (!now) return ["missing"];
  if (!before) return ["added"];
  const out: Difference[] = [];
  if (now.testResult.status !== before.testResult.status) out.push("status");
  if (normalText(now.prompt) !== normalText(before.prompt)) out.push("expected");
  if (normalText(now.testResult.utterance) !== normalText(before.testResult.utterance)) out.push("heard");
  if (isSlow(now) !== isSlow(before)) out.push("slow");
  return out;
}

/** The two runs' steps paired, in this run's order. */
export function pairSteps(now: Steps, before: Steps): StepPair[] {
  const mine = placed(now);
  const theirs = placed(before);
  const theirsByKey = new Map(theirs.map((p) => [p.key, p]));
  const mineKeys = new Set(mine.map((p) => p.key));
  const out: StepPair[] = mine.map((p) => {
    const b = theirsByKey.get(p.key);
    return {
      key: p.key,
      segmentName: p.segmentName,
      now: p.step,
      before: b?.step,
      differences: differencesOf(p.step, b?.step),
    };
  });
  // Steps only the passing run had, after the step they followed there.
  let after: string | null = null;
  for (const b of theirs) {
    if (mineKeys.has(b.key)) {
      after = b.key;
      continue;
    }
    const pair: StepPair = { key: b.key, segmentName: b.segmentName, before: b.step, differences: ["missing"] };
    const at: number = after === null ? -1 : out.findIndex((p) => p.key === after);
    out.splice(at + 1, 0, pair);
    after = b.key;
  }
  return out;
}

/** Index of the first pair that differs, or -1 when the runs' steps agree. */
export function firstDifference(pairs: StepPair[]): number {
  return pairs.findIndex((p) => p.differences.length > 0);
}

/** The element id of a compared step's row (the comparison scrolls to the first difference). */
export const pairAnchor = (key: string) => `compare-${key.replace("/", "-")}`;

/** Status id of a passing run (spec §9). */
const PASS_ID = 3;

/**
 * On an API without cxwatch's `lastPassing` (flavour "spec"): the newest passing run of a test
 * case's run list that started before `run` (at the same instant, a smaller id), or undefined.
 */
export function lastPassingOf(
  runs: SpecRun[],
  run: { runId: number; runTime: string },
): { runId: number; runTime: string } | undefined {
  const t = Date.parse(run.runTime);
  let best: { runId: number; runTime: string; t: number } | undefined;
  for (const r of runs) {
    if (Number(r.runStatusId) !== PASS_ID || r.runId === run.runId) continue;
    const rt = Date.parse(r.runTime);
    if (!Number.isFinite(rt)) continue;
    if (rt > t || (rt === t && r.runId > run.runId)) continue;
    if (!best || rt > best.t || (rt === best.t && r.runId > best.runId))
      best = { runId: r.runId, runTime: r.runTime, t: rt };
  }
  return best ? { runId: best.runId, runTime: best.runTime } : undefined;
}
