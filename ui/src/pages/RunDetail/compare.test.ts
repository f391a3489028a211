// The comparison with the last passing run: steps paired by segment and step id, the first
// difference (missing, added, result, heard text, expected text, over the limit), latency alone
// not a difference, and the last passing run found in a spec-only run list.
import { describe, expect, it } from "vitest";
import type { RunStep, SpecRun } from "../../api/types";
import { firstDifference, lastPassingOf, normalText, pairSteps } from "./compare";

const step = (stepId: number, status: string, heard: string | null, latency = 900, prompt = `Prompt ${stepId}`) =>
  ({
    stepId,
    stepType: "PROMPT",
    typeDisplayText: "Prompt",
    prompt,
    promptLatencyMax: 3000,
    testResult: { status, utterance: heard, latency },
  }) as unknown as RunStep;

const run = (greeting: RunStep[], menu: RunStep[]) => ({
  segments: [
    { segmentId: 1, segmentName: "Greeting", steps: greeting },
    { segmentId: 2, segmentName: "Menu", steps: menu },
  ],
});

describe("pairSteps and firstDifference", () => {
  it("agree when only latency moved within the limit and the text differs by case and punctuation", () => {
    const before = run([step(1, "pass", "Welcome to Acme.", 800)], [step(2, "pass", "For billing, press 1")]);
    const now = run([step(1, "pass", "welcome to acme", 1900)], [step(2, "pass", "For billing press 1")]);
    const pairs = pairSteps(now, before);
    expect(pairs.map((p) => p.key)).toEqual(["1/1", "2/2"]);
    expect(pairs.every((p) => p.differences.length === 0)).toBe(true);
    expect(firstDifference(pairs)).toBe(-1);
  });

  it("opens on the first step whose heard text differs, not on a later failing one", () => {
    const before = run(
      [step(1, "pass", "Welcome to Acme")],
      [step(2, "pass", "For billing press 1"), step(3, "pass", "Goodbye")],
    );
    const now = run(
      [step(1, "pass", "Welcome to Acme")],
      [step(2, "pass", "All agents are busy"), step(3, "fail", null)],
    );
    const pairs = pairSteps(now, before);
    const i = firstDifference(pairs);
    expect(pairs[i].key).toBe("2/2");
    expect(pairs[i].differences).toEqual(["heard"]);
    expect(pairs[2].differences).toEqual(["status", "heard"]);
  });

  it("a step over its limit in one run only differs; the expected text changing differs", () => {
    const before = run([step(1, "pass", "Hi", 900)], [step(2, "pass", "Menu", 900, "Menu")]);
    const now = run([step(1, "pass", "Hi", 4200)], [step(2, "pass", "Menu", 900, "New menu")]);
    const pairs = pairSteps(now, before);
    expect(pairs[0].differences).toEqual(["slow"]);
    expect(pairs[1].differences).toEqual(["expected"]);
  });

  it("a step the passing run had and this one lacks is placed after the step it followed", () => {
    const before = run([step(1, "pass", "Hi"), step(4, "pass", "Press 1")], [step(2, "pass", "Menu")]);
    const now = run([step(1, "pass", "Hi")], [step(2, "pass", "Menu"), step(5, "fail", null)]);
    const pairs = pairSteps(now, before);
    expect(pairs.map((p) => [p.key, p.differences])).toEqual([
      ["1/1", []],
      ["1/4", ["missing"]],
      ["2/2", []],
      ["2/5", ["added"]],
    ]);
    expect(pairs[1].now).toBeUndefined();
    expect(pairs[1].segmentName).toBe("Greeting");
    expect(firstDifference(pairs)).toBe(1);
  });

  it("a step the passing run had first goes first", () => {
    const before = run([step(9, "pass", "Intro"), step(1, "pass", "Hi")], []);
    const now = run([step(1, "pass", "Hi")], []);
    expect(pairSteps(now, before).map((p) => p.key)).toEqual(["1/9", "1/1"]);
  });
});

describe("normalText", () => {
  it("folds case, accents, punctuation and spaces", () => {
    expect(normalText("  Bienvenue  chez ACME, l'équipe! ")).toBe("bienvenue chez acme l equipe");
    expect(normalText(null)).toBe("");
  });
});

describe("lastPassingOf (a spec-only run list)", () => {
  const r = (runId: number, runTime: string, runStatusId: number) =>
    ({ runId, runTime, runStatusId, testCaseId: 1, testCaseName: "A", runDuration: 1, mosCqIn: null }) as SpecRun;
  it("takes the newest pass before the run, whatever the list's order", () => {
    const list = [
      r(5, "2026-01-15T13:00:00Z", 3),
      r(2, "2026-01-15T10:00:00Z", 3),
      r(3, "2026-01-15T11:00:00Z", 3),
      r(4, "2026-01-15T11:30:00Z", 7),
      r(6, "2026-01-15T12:00:00Z", 7),
    ];
    expect(lastPassingOf(list, { runId: 6, runTime: "2026-01-15T12:00:00Z" })).toEqual({
      runId: 3,
      runTime: "2026-01-15T11:00:00Z",
    });
    expect(lastPassingOf(list, { runId: 2, runTime: "2026-01-15T10:00:00Z" })).toBeUndefined();
  });
  it("at the same instant, the run with the smaller id is before", () => {
    const list = [r(7, "2026-01-15T14:00:00Z", 3), r(8, "2026-01-15T14:00:00Z", 3)];
    expect(lastPassingOf(list, { runId: 8, runTime: "2026-01-15T14:00:00Z" })?.runId).toBe(7);
    expect(lastPassingOf(list, { runId: 7, runTime: "2026-01-15T14:00:00Z" })).toBeUndefined();
  });
});
