import { describe, expect, it } from "vitest";
import {
  applyFilter,
  DEFAULT_SORT,
  emptySums,
  makeRow,
  nextSort,
  normaliseFilter,
  sortRows,
  sumEntities,
  sumsOfHourly,
} from "./rows";

// Shaped like GET api/trs/v1/groups/{id}/metric?level=case (spec §3 'Group metric').
const entities = [
  {
    entityId: 11,
    entityName: "Balance inquiry",
    entityType: "case",
    channel: "voice",
    periodStart: "2024-07-01",
    periodEnd: "2024-07-01",
    successCount: 10,
    warningCount: 2,
    failureCount: 1,
    hourlyStatus: [
      { hourly: "2024-07-01 09:00:00", successCount: 6, warningCount: 1, failureCount: 0 },
      { hourly: "2024-07-01 14:00:00", successCount: 4, warningCount: 1, failureCount: 1 },
    ],
  },
  {
    entityId: 12,
    entityName: "Card activation",
    entityType: "case",
    channel: "voice",
    periodStart: "2024-07-01",
    periodEnd: "2024-07-01",
    successCount: 5,
    warningCount: 0,
    failureCount: 3,
    hourlyStatus: [{ hourly: "2024-07-01 14:00:00", successCount: 5, warningCount: 0, failureCount: 3 }],
  },
];

describe("sumEntities", () => {
  it("adds counts and hourly slots over entities", () => {
    const s = sumEntities(entities, "America/Toronto");
    expect(s.counts).toEqual({ success: 15, warning: 2, failure: 4 });
    expect(s.hours).toHaveLength(24);
    expect(s.hours[9]).toEqual({ success: 6, warning: 1, failure: 0 });
    expect(s.hours[14]).toEqual({ success: 9, warning: 1, failure: 4 });
    expect(s.maintenance).toBe(0);
  });
  it("adds the runs left out for maintenance windows (cxwatch's maintenanceCount)", () => {
    const s = sumEntities(
      entities.map((e, i) => ({ ...e, maintenanceCount: i + 2 })),
      "America/Toronto",
    );
    expect(s.maintenance).toBe(5);
    expect(s.counts).toEqual({ success: 15, warning: 2, failure: 4 });
  });
  it("is zero for a group without runs", () => {
    const s = sumEntities([], "America/Toronto");
    expect(s.counts).toEqual({ success: 0, warning: 0, failure: 0 });
    expect(s.hours).toHaveLength(24);
    expect(sumEntities(null, "America/Toronto").counts.success).toBe(0);
  });
});

describe("sumsOfHourly", () => {
  const slots = (at: Record<number, number>) => Array.from({ length: 24 }, (_, h) => at[h] ?? 0);
  it("gives the same sums as the group's metric added over its entities", () => {
    // cxwatch's groups/hourly item for the group of `entities` above.
    const item = {
      groupId: 1,
      successCount: 15,
      warningCount: 2,
      failureCount: 4,
      successByHour: slots({ 9: 6, 14: 9 }),
      warningByHour: slots({ 9: 1, 14: 1 }),
      failureByHour: slots({ 14: 4 }),
    };
    expect(sumsOfHourly(item)).toEqual(sumEntities(entities, "America/Toronto"));
  });
  it("reads missing or bad slots as zero", () => {
    const s = sumsOfHourly({
      successCount: 1,
      warningCount: -1,
      failureCount: 0,
      successByHour: [1],
      warningByHour: [],
      failureByHour: slots({}),
    });
    expect(s.counts).toEqual({ success: 1, warning: 0, failure: 0 });
    expect(s.hours).toHaveLength(24);
    expect(s.hours[0]).toEqual({ success: 1, warning: 0, failure: 0 });
    expect(s.hours.slice(1)).toEqual(emptySums().hours.slice(1));
  });
});

describe("filter", () => {
  it("zeroes statuses outside the filter", () => {
    const c = { success: 3, warning: 2, failure: 1 };
    expect(applyFilter(c, [0, 1, 2])).toEqual(c);
    expect(applyFilter(c, [2])).toEqual({ success: 0, warning: 0, failure: 1 });
    expect(applyFilter(c, [])).toEqual({ success: 0, warning: 0, failure: 0 });
  });
  it("makes a row whose count and hours follow the filter", () => {
    const row = makeRow({ id: 1, name: "G", channel: "voice" }, sumEntities(entities, "America/Toronto"), [1, 2]);
    expect(row.count).toBe(6);
    expect(row.hours[14]).toEqual({ success: 0, warning: 1, failure: 4 });
  });
  it("rates a row's severity on all its runs, whatever the filter", () => {
    const sums = sumEntities(entities, "America/Toronto");
    const all = makeRow({ id: 1, name: "G", channel: "voice" }, sums, [0, 1, 2]);
    const none = makeRow({ id: 1, name: "G", channel: "voice" }, sums, []);
    expect(none.count).toBe(0);
    expect(none.severity).toEqual(all.severity);
    expect(all.severity.failRate).toBeGreaterThan(0);
  });
  it("normalises stored filters", () => {
    expect(normaliseFilter([2, 0, 0, 7, "x"])).toEqual([0, 2]);
    expect(normaliseFilter([])).toEqual([]);
    expect(normaliseFilter("0,1")).toBeNull();
  });
});

describe("sortRows", () => {
  const rows = [
    { id: 1, name: "beta", count: 5 },
    { id: 2, name: "Alpha", count: 5 },
    { id: 3, name: "gamma 10", count: 1 },
    { id: 4, name: "gamma 9", count: 9 },
  ];
  it("sorts by name, case-insensitive and numeric-aware", () => {
    expect(sortRows(rows, { key: "name", dir: "asc" }).map((r) => r.id)).toEqual([2, 1, 4, 3]);
    expect(sortRows(rows, { key: "name", dir: "desc" }).map((r) => r.id)).toEqual([3, 4, 1, 2]);
  });
  it("sorts by count, ties by name ascending", () => {
    expect(sortRows(rows, { key: "count", dir: "asc" }).map((r) => r.id)).toEqual([3, 2, 1, 4]);
    expect(sortRows(rows, { key: "count", dir: "desc" }).map((r) => r.id)).toEqual([4, 2, 1, 3]);
  });
  it("does not change its input", () => {
    const copy = rows.map((r) => r.id);
    sortRows(rows, { key: "count", dir: "desc" });
    expect(rows.map((r) => r.id)).toEqual(copy);
  });
  it("puts the worst first: failure rate, then warning rate, ties by name", () => {
    const sev = (failRate: number, warnRate: number) => ({ failRate, warnRate, runs: 10 });
    const worst = [
      { id: 1, name: "Billing", count: 10, severity: sev(0, 0) },
      { id: 2, name: "Claims", count: 4, severity: sev(0.75, 0) },
      { id: 3, name: "Agents", count: 10, severity: sev(0.1, 0.5) },
      { id: 4, name: "Accounts", count: 10, severity: sev(0.1, 0.2) },
      { id: 5, name: "Alpha", count: 10, severity: sev(0, 0) },
    ];
    expect(sortRows(worst, DEFAULT_SORT).map((r) => r.id)).toEqual([2, 3, 4, 5, 1]);
    expect(DEFAULT_SORT.key).toBe("severity");
    expect(nextSort({ key: "name", dir: "desc" }, "severity")).toEqual(DEFAULT_SORT);
    expect(nextSort(DEFAULT_SORT, "severity")).toEqual(DEFAULT_SORT);
  });
  it("header clicks toggle the direction", () => {
    expect(nextSort({ key: "name", dir: "asc" }, "name")).toEqual({ key: "name", dir: "desc" });
    expect(nextSort({ key: "name", dir: "desc" }, "name")).toEqual({ key: "name", dir: "asc" });
    expect(nextSort({ key: "name", dir: "desc" }, "count")).toEqual({ key: "count", dir: "asc" });
  });
});
