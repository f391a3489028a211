import { describe, expect, it } from "vitest";
import { ROUTES } from "../../lib/nav";
import {
  API_KEYS_ANCHOR,
  checklistItems,
  dayBounds,
  doneCount,
  needsSetUp,
  nextItem,
  zoneOffsetMinutes,
} from "./checklist";

const none = { apiKeys: 0, runs: 0, groups: 0, distributionLists: 0, alertSettings: 0 };

describe("the first-run checklist", () => {
  it("on a fresh install, nothing is done and the key comes first", () => {
    const items = checklistItems(none);
    expect(items.map((i) => i.key)).toEqual(["apiKey", "run", "group", "distributionList", "alertSetting"]);
    expect(doneCount(items)).toBe(0);
    expect(nextItem(items)?.href).toBe(API_KEYS_ANCHOR);
  });

  it("ticks each item from its own count and points at the next one", () => {
    const items = checklistItems({ ...none, apiKeys: 1, runs: 3 });
    expect(items.map((i) => i.done)).toEqual([true, true, false, false, false]);
    expect(nextItem(items)?.href).toBe(ROUTES.testCaseGroups);
    const later = checklistItems({ apiKeys: 0, runs: 5, groups: 2, distributionLists: 1, alertSettings: 0 });
    expect(later.map((i) => i.done)).toEqual([false, true, true, true, false]);
    expect(nextItem(later)?.key).toBe("apiKey");
  });

  it("is done when all are", () => {
    const items = checklistItems({ apiKeys: 1, runs: 1, groups: 1, distributionLists: 1, alertSettings: 1 });
    expect(doneCount(items)).toBe(5);
    expect(nextItem(items)).toBeUndefined();
  });
});

describe("the empty dashboard's hint", () => {
  it("shows while no run came in or no group shows them, not for a dashboard emptied by a filter", () => {
    expect(needsSetUp(none)).toBe(true);
    expect(needsSetUp({ ...none, apiKeys: 1, runs: 4 })).toBe(true);
    expect(needsSetUp({ ...none, groups: 2 })).toBe(true);
    // A site in use, even without a key made here: its filters emptied the dashboard.
    expect(needsSetUp({ ...none, runs: 4, groups: 2 })).toBe(false);
  });
});

describe("the audit log's days", () => {
  it("are the site's days, the last one included", () => {
    const toronto = (d: string) => zoneOffsetMinutes("America/Toronto", d);
    expect(dayBounds("2026-11-20", "2026-11-25", toronto)).toEqual({
      from: "2026-11-20T05:00:00Z",
      to: "2026-11-26T05:00:00Z",
    });
    // Summer time: four hours behind.
    expect(dayBounds("2026-07-01", "", toronto)).toEqual({ from: "2026-07-01T04:00:00Z", to: undefined });
    expect(dayBounds("", "", toronto)).toEqual({ from: undefined, to: undefined });
    expect(zoneOffsetMinutes("Europe/Paris", "2026-01-15")).toBe(60);
    expect(zoneOffsetMinutes("UTC", "2026-01-15")).toBe(0);
  });
});
