// @vitest-environment jsdom
// The run detail in a DOM against a stand-in fetch: the header as the spec formats it, an
// unrecognised utterance, steps slower than the route's threshold, and the 404 and 403 answers.
import { i18n } from "@lingui/core";
import { I18nProvider } from "@lingui/react";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { render } from "preact";
import { act } from "preact/test-utils";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { Route, Router } from "wouter";
import { RunDetailPage } from "./index";

const RUN = {
  runId: 42,
  testCaseId: 1,
  testCaseName: "Balance enquiry",
  runTime: "2026-01-15T14:05:00Z",
  runDuration: 61.256,
  runStatusId: 7,
  runStatus: "Failure",
  mosCqIn: 2.46,
  runType: "Schedule",
  runResult: "stopped",
  channel: "voice",
  ivrId: 10,
  ivrName: "Retail IVR",
  groups: [{ id: 3, name: "Retail" }],
  recordingId: "a".repeat(64),
  recordingUrl: `recordings/${"a".repeat(64)}`,
  segments: [
    {
      segmentId: 1,
      segmentName: "Greeting",
      steps: [
        {
          stepId: 11,
          stepType: "PROMPT",
          typeDisplayText: "Prompt",
          prompt: "Welcome",
          promptLatencyMin: 200,
          promptLatencyMax: 3000,
          incompleteTimeout: 1500,
          completeTimeout: 800,
          barge_in_time: null,
          recordingId: null,
          extra: null,
          testResult: {
            status: "pass",
            utterance: "Welcome",
            latency: 900,
            confidence: 0.93,
            recordingDuration: 2.4,
            startTime: "2026-01-15T14:05:01Z",
            endTime: "2026-01-15T14:05:03Z",
            attachmentUrl: `recordings/${"b".repeat(64)}`,
          },
        },
        {
          stepId: 12,
          stepType: "SPEECH",
          typeDisplayText: "Speech",
          prompt: null,
          testResult: {
            status: "fail",
            utterance: null,
            latency: 2500,
            confidence: null,
            recordingDuration: null,
            startTime: null,
            endTime: null,
            attachmentUrl: null,
          },
        },
      ],
    },
  ],
};

beforeAll(() => i18n.loadAndActivate({ locale: "en", messages: {} }));

let root: HTMLElement;
afterEach(() => {
  render(null, root);
  root.remove();
  vi.unstubAllGlobals();
});

async function mount(path: string, answer: () => Response) {
  const fetches: string[] = [];
  vi.stubGlobal(
    "fetch",
    vi.fn(async (url: string) => {
      fetches.push(String(url));
      return answer();
    }),
  );
  root = document.createElement("div");
  document.body.appendChild(root);
  const qc = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  // A fixed location: the page only reads its parameters.
  const hook = (): [string, (to: string) => void] => [path, () => {}];
  await act(() => {
    render(
      <QueryClientProvider client={qc}>
        <I18nProvider i18n={i18n}>
          <Router hook={hook} searchHook={() => ""}>
            <Route path="/report/run/:runId/:latency?" component={RunDetailPage} />
          </Router>
        </I18nProvider>
      </QueryClientProvider>,
      root,
    );
  });
  // Until the answer is shown (the machine may be slow).
  for (let i = 0; i < 200 && root.querySelector("[data-testid=run-loading]"); i++) {
    await act(async () => {
      await new Promise((r) => setTimeout(r, 20));
    });
  }
  const text = (id: string) => root.querySelector(`[data-testid=${id}]`)?.textContent ?? null;
  return { text, fetches };
}

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });

describe("RunDetailPage", () => {
  it("shows the header, steps and players as the spec says; audio is not fetched before a play", async () => {
    const { text, fetches } = await mount("/report/run/42/2", () => json(200, { code: "OK", data: RUN, messages: [] }));
    expect(text("run-case")).toBe("Balance enquiry");
    expect(text("run-group")).toBe("Retail");
    expect(text("run-ivr")).toBe("Retail IVR");
    expect(text("run-type")).toBe("Schedule");
    expect(text("run-status")).toContain("Failure");
    expect(text("run-time")).toBe("2026/01/15 09:05:00");
    expect(text("run-duration")).toBe("61.26\u00a0sec");
    expect(text("run-mos")).toBe("2.5");
    const utterances = [...root.querySelectorAll("[data-testid=step-utterance]")].map((e) => e.textContent);
    expect(utterances).toEqual(["Welcome", "<Utterance not recognized>"]);
    const limits = root.querySelector("[data-testid=step-limits]")?.textContent;
    expect(limits).toBe("0.20 – 3.00\u00a0sec");
    expect(root.querySelector("[data-testid=step-incomplete]")?.textContent).toBe("1.50\u00a0sec");
    const slow = [...root.querySelectorAll("[data-testid=step]")].map((e) => e.getAttribute("data-slow"));
    expect(slow).toEqual([null, "true"]);
    expect(root.querySelectorAll("[data-testid=step-player]").length).toBe(1);
    expect(root.querySelectorAll("[data-testid=call-player]").length).toBe(1);
    expect(root.querySelectorAll("[data-testid=attachment-download]").length).toBe(1);
    expect(fetches.every((u) => !u.includes("getContent"))).toBe(true);
  });

  it("opens on a summary of the run and its failing step, with a jump to it; a Call Connect expects no speech", async () => {
    const connect = {
      stepId: 10,
      stepType: "CALL_CONNECT",
      typeDisplayText: "Call Connect",
      prompt: null,
      promptLatencyMax: 8000,
      testResult: { status: "pass", utterance: null, latency: 4200, attachmentUrl: null },
    };
    const run = {
      ...RUN,
      segments: [{ ...RUN.segments[0], steps: [connect, ...RUN.segments[0].steps] }],
    };
    const { text } = await mount("/report/run/42", () => json(200, { code: "OK", data: run, messages: [] }));
    const summary = root.querySelector("[data-testid=run-summary]");
    // First on the page, before the details and the steps.
    expect(root.querySelector(".run-detail > .card")).toBe(summary);
    const focus = root.querySelector("[data-testid=focus-step]");
    expect(focus?.getAttribute("data-kind")).toBe("failing");
    expect(focus?.getAttribute("data-step-id")).toBe("12");
    expect(text("focus-expected")).toBe("—");
    expect(text("focus-heard")).toBe("<Utterance not recognized>");
    expect(text("focus-latency")).toBe("2.50\u00a0sec");
    const jumps = [...root.querySelectorAll("[data-testid=jump-link]")].map((a) => a.getAttribute("href"));
    expect(jumps).toEqual(["#step-12"]);
    expect(root.querySelector("#step-12")).not.toBeNull();
    const utterances = [...root.querySelectorAll("[data-testid=step-utterance]")].map((e) => e.textContent);
    expect(utterances).toEqual(["No speech expected", "Welcome", "<Utterance not recognized>"]);
  });

  it("answers a missing run with the 404 page's words", async () => {
    const { text } = await mount("/report/run/9", () =>
      json(404, { code: "NOT_FOUND", messages: ["Test run 9 does not exist."] }),
    );
    expect(text("not-found")).toContain("This page could not be found");
  });

  it("says a run outside the user's groups is not theirs, and nothing else", async () => {
    const { text } = await mount("/report/run/9", () =>
      json(403, { code: "FORBIDDEN", messages: ["Test run 9 is not in your test case groups."] }),
    );
    expect(text("access-denied")).toContain("This test run is not in your test case groups.");
  });
});
