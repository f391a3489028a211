import { describe, expect, it } from "vitest";
import {
  addDays,
  chartPage,
  chartPages,
  defaultRange,
  drillUrl,
  emptyForm,
  heatColour,
  latencyUrl,
  maintenanceLeftOut,
  mosUrl,
  percent,
  seconds,
  sumLeftOut,
  toSave,
  validateReport,
  viewOf,
} from "./rules";

describe("report form", () => {
  it("checks name, type, group, then the thresholds of type 6, in the spec's words", () => {
    const e = validateReport({ ...emptyForm("2026-11-23"), name: "  " });
    expect(Object.values(e)).toEqual(["Please enter a name", "Please select type", "Please select group"]);
    const l = validateReport({ ...emptyForm("2026-11-23"), name: "L", typeId: 6, groupId: 3 });
    expect(Object.entries(l)).toEqual([
      ["latencyWarn", "Please select threshold warning"],
      ["latencyFail", "Please select threshold failure"],
    ]);
    expect(validateReport({ ...emptyForm("2026-11-23"), name: "T", typeId: 2, groupId: 3 })).toEqual({});
  });

  it("sends thresholds only for type 6 and the start as an empty end", () => {
    const v = { ...emptyForm("2026-11-23"), name: " Weekly ", typeId: 2, groupId: 3, warn: 1000, fail: 2000, end: "" };
    const s = toSave(v, "Trend", "Retail");
    expect(s).toMatchObject({ name: "Weekly", description: "Weekly", latencyWarn: 0, latencyFail: 0 });
    expect(s.timeframeEnd).toBe("2026-11-23");
    expect(toSave({ ...v, typeId: 6 }, "L", "R")).toMatchObject({ latencyWarn: 1000, latencyFail: 2000 });
    expect(toSave({ ...v, timeframe: "Last Week" }, "T", "R").timeframeBegin).toBeUndefined();
  });

  it("defaults the custom range to today and 6 days later, across a month end", () => {
    expect(defaultRange("2026-11-27")).toEqual({ begin: "2026-11-27", end: "2026-12-03" });
    expect(addDays("2026-12-29", 6)).toBe("2027-01-04");
  });
});

describe("report figures", () => {
  it("shows percentages with 2 decimals, 0.00 when none", () => {
    expect(percent(0, 0, "en")).toBe("0.00");
    expect(percent(1, 3, "en")).toBe("33.33");
    expect(percent(2, 2, "en")).toBe("100.00");
    expect(seconds(1250, "en")).toBe("1.25");
    // French tables write the decimal comma.
    expect(percent(1, 3, "fr")).toBe("33,33");
    expect(percent(0, 0, "fr")).toBe("0,00");
    expect(seconds(1250, "fr")).toBe("1,25");
  });

  it("colours a heat-map bucket by its upper bound", () => {
    expect(heatColour(500, 1000, 2000)).toBe("green");
    expect(heatColour(1000, 1000, 2000)).toBe("orange");
    expect(heatColour(1999, 1000, 2000)).toBe("orange");
    expect(heatColour(2000, 1000, 2000)).toBe("red");
    expect(heatColour(null, 1000, 2000)).toBe("red");
  });

  it("pages bar charts by 10", () => {
    const items = Array.from({ length: 23 }, (_, i) => i);
    expect(chartPages(23)).toBe(3);
    expect(chartPages(0)).toBe(1);
    expect(chartPage(items, 3)).toEqual([20, 21, 22]);
  });

  it("maps types to views", () => {
    expect([2, 5, 6, 7, 1, 9].map(viewOf)).toEqual(["trend", "segment", "latency", "mos", "testcase", "testcase"]);
  });
});

describe("drill routes", () => {
  it("follow the route table", () => {
    expect(drillUrl(12, "failure", "2026-01-01", "2026-01-07", 4)).toBe(
      "/report/drill/12/failure/2026-01-01/2026-01-07/4",
    );
    expect(drillUrl(12, "total", "2026-01-01", "2026-01-07")).toBe("/report/drill/12/total/2026-01-01/2026-01-07");
    expect(latencyUrl(9, 3, 4)).toBe("/report/latency/9/3/4");
    expect(latencyUrl(9, null, 4, "warning", "2026-01-01")).toBe("/report/latency/9/-1/4/warning/2026-01-01");
    expect(mosUrl(4, 3.96, 9, "2026-01-01")).toBe("/report/mos/4/4.0/9/2026-01-01");
  });
});

describe("runs in maintenance windows left out of a report", () => {
  it("sums test cases; on segment level counts a test case once, by its segment with the most", () => {
    const cases = [{ entityId: 1, maintenanceCount: 2 }, { entityId: 2 }, { entityId: 3, maintenanceCount: 1 }];
    expect(maintenanceLeftOut(cases, "case")).toBe(3);
    const segments = [
      { entityId: 1, maintenanceCount: 2 },
      { entityId: 1, maintenanceCount: 2 },
      { entityId: 1, maintenanceCount: 1 },
      { entityId: 3, maintenanceCount: 1 },
      { entityId: 4 },
    ];
    expect(maintenanceLeftOut(segments, "segment")).toBe(3);
    // A spec-shaped answer says nothing: no note.
    expect(maintenanceLeftOut([{ entityId: 1 }], "segment")).toBe(0);
    expect(sumLeftOut([{ maintenanceCount: 2 }, {}, { maintenanceCount: null }, { maintenanceCount: 1 }])).toBe(3);
  });
});
