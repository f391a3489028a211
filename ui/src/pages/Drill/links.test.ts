import { describe, expect, it } from "vitest";
import { caseDrillPath, drillStatusOfRate, groupDrillPath, readDrill, runPath } from "./links";

const parts = (path: string) => {
  const [p, q = ""] = path.split("?");
  const [, , , entityId, status, periodStart, periodEnd, reportId, latency] = p.split("/");
  return { params: { entityId, status, periodStart, periodEnd, reportId, latency }, search: q };
};

describe("drill links", () => {
  it("builds the spec's case route and reads it back", () => {
    const path = caseDrillPath({ entityId: 12, status: "failure", periodStart: "2026-01-15", periodEnd: "2026-01-16" });
    expect(path).toBe("/report/drill/12/failure/2026-01-15/2026-01-16");
    const { params, search } = parts(path);
    expect(readDrill(params, search)).toEqual({
      kind: "case",
      drill: {
        entityId: 12,
        status: "failure",
        periodStart: "2026-01-15",
        periodEnd: "2026-01-16",
        reportId: undefined,
        latency: undefined,
        runType: undefined,
      },
    });
  });

  it("keeps report id and latency in their places", () => {
    expect(
      caseDrillPath({
        entityId: 1,
        status: "total",
        periodStart: "2026-01-15",
        periodEnd: "2026-01-15",
        reportId: 9,
        latency: 2.5,
      }),
    ).toBe("/report/drill/1/total/2026-01-15/2026-01-15/9/2.5");
    const alone = caseDrillPath({
      entityId: 1,
      status: "total",
      periodStart: "2026-01-15",
      periodEnd: "2026-01-15",
      latency: 3,
    });
    expect(alone).toBe("/report/drill/1/total/2026-01-15/2026-01-15/0/3");
    const { params, search } = parts(alone);
    const back = readDrill(params, search);
    expect(back?.kind).toBe("case");
    expect(back?.drill).toMatchObject({ reportId: undefined, latency: 3 });
  });

  it("builds a dashboard bar's group route", () => {
    const path = groupDrillPath({ groupId: 4, status: "failure", date: "2026-01-15", hour: 13, runType: "Schedule" });
    expect(path).toBe("/report/drill/4/failure/2026-01-15/2026-01-15?level=group&hrSlot=13&caseRunType=Schedule");
    const { params, search } = parts(path);
    expect(readDrill(params, search)).toEqual({
      kind: "group",
      drill: { groupId: 4, status: "failure", date: "2026-01-15", hour: 13, runType: "Schedule" },
    });
  });

  it("refuses what it cannot show", () => {
    const ok = { entityId: "1", status: "failure", periodStart: "2026-01-15", periodEnd: "2026-01-15" };
    expect(readDrill({ ...ok, status: "stopped" }, "")).toBeNull();
    expect(readDrill({ ...ok, entityId: "x" }, "")).toBeNull();
    expect(readDrill({ ...ok, periodStart: "15/01/2026" }, "")).toBeNull();
    expect(readDrill(ok, "level=group&hrSlot=24")).toBeNull();
    expect(readDrill({ ...ok, latency: "-1" }, "")).toBeNull();
  });

  it("maps rates and runs", () => {
    expect([0, 1, 2].map(drillStatusOfRate)).toEqual(["success", "warning", "failure"]);
    expect(runPath(5)).toBe("/report/run/5");
    expect(runPath(5, 1.5)).toBe("/report/run/5/1.5");
  });
});
