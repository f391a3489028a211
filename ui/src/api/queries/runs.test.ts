// @vitest-environment jsdom
import { describe, expect, it } from "vitest";
import type { SpecRun } from "../types";
import { keepRun, normalizeRun, type RunListParams, runsCall } from "./runs";

const segment: RunListParams = {
  source: { kind: "report", reportId: 4, segmentId: 12, startDate: "2026-11-01", endDate: "2026-11-07" },
  status: "failure",
  pageNo: 0,
  pageSize: 10,
};

describe("runsCall", () => {
  it("asks a report segment's runs by perfStatus (the call reads no status), in both flavours", () => {
    for (const cxwatch of [true, false]) {
      const { path, query } = runsCall(segment, cxwatch);
      expect(path).toBe("reports/4/testruns");
      expect(query.perfStatus).toBe("failure");
      expect(query).not.toHaveProperty("status");
    }
  });

  it("sends paging only to cxwatch's API; under spec only section 7's parameters", () => {
    expect(runsCall(segment, true).query).toMatchObject({ pageNo: 0, pageSize: 10 });
    expect(runsCall(segment, false).query).not.toHaveProperty("pageNo");
    const c: RunListParams = {
      source: { kind: "case", testCaseId: 9, startDate: "2026-11-01", endDate: "2026-11-02", caseRunType: "Manual" },
      status: "warning",
      pageNo: 2,
      pageSize: 20,
    };
    expect(runsCall(c, true).query).toEqual({
      pageNo: 2,
      pageSize: 20,
      status: "warning",
      startDate: "2026-11-01",
      endDate: "2026-11-02",
      caseRunType: "Manual",
    });
    expect(runsCall(c, false)).toEqual({
      path: "trs/v1/testcases/9/runs",
      query: { startDate: "2026-11-01", endDate: "2026-11-02" },
    });
  });
});

describe("keepRun", () => {
  const run = (over: Partial<SpecRun>): SpecRun => ({
    runId: 1,
    testCaseId: 2,
    testCaseName: "c",
    runTime: "2026-11-02T15:30:00Z",
    runDuration: 3,
    runStatusId: 7,
    ...over,
  });

  it("keeps the runs of the status, any for total, and a run without a status id", () => {
    expect(keepRun(run({}), "failure")).toBe(true);
    expect(keepRun(run({ runStatusId: 3 }), "failure")).toBe(false);
    expect(keepRun(run({ runStatusId: 3 }), "success")).toBe(true);
    expect(keepRun(run({ runStatusId: 4 }), "total")).toBe(true);
    expect(keepRun(run({ runStatusId: undefined as unknown as number }), "warning")).toBe(true);
  });

  it("keeps the run type when the run names one, and the hour in the site's zone", () => {
    expect(keepRun(run({ runType: "Schedule" }), "total", { caseRunType: "Manual" })).toBe(false);
    expect(keepRun(run({}), "total", { caseRunType: "Manual" })).toBe(true);
    // 15:30 UTC is 10:30 in Toronto in November.
    expect(keepRun(run({}), "total", { hour: 10, timeZone: "America/Toronto" })).toBe(true);
    expect(keepRun(run({}), "total", { hour: 15, timeZone: "America/Toronto" })).toBe(false);
  });
});

describe("normalizeRun", () => {
  it("reads section 3's segmentRuns and stepRuns, and leaves cxwatch's extras empty", () => {
    const run = normalizeRun({
      runId: 5,
      testCaseName: "c",
      segmentRuns: [
        { segmentId: 1, segmentName: "Greeting", stepRuns: [{ stepId: 9, testResult: { status: "pass" } }] },
      ],
    });
    expect(run.groups).toEqual([]);
    expect(run.segments[0].steps[0].stepId).toBe(9);
    expect(run.segments[0].steps[0].testResult.status).toBe("pass");
    expect(normalizeRun({ segments: [{ steps: [{ stepId: 1 }] }] }).segments[0].steps[0].testResult.status).toBe("");
  });
});
