// Wall mode: tiles worst first, how many fit a page at 1920x1080 and 3840x2160, the pages
// turning, and which groups have just started failing (the red frame and the tone).
import { describe, expect, it } from "vitest";
import {
  nextPage,
  pageCount,
  pageItems,
  pageOf,
  startedFailing,
  stillAlarmed,
  type TileState,
  tilesPerPage,
  wallTiles,
} from "./wall";

const c = (success: number, warning: number, failure: number) => ({ success, warning, failure });
const row = (id: number, name: string, today = c(10, 0, 0)) => ({ id, name, counts: today });

describe("wallTiles", () => {
  it("orders failing, warning, passing, maintenance, no runs; more failures first, then by name", () => {
    const rows = [row(1, "Billing"), row(2, "Cards"), row(3, "Loans"), row(4, "Alpha"), row(5, "Zed"), row(6, "Mid")];
    const counts = new Map([
      [1, c(3, 0, 0)],
      [2, c(1, 0, 1)],
      [3, c(0, 0, 3)],
      [4, c(0, 2, 0)],
      [5, c(0, 0, 0)],
      [6, c(0, 0, 0)],
    ]);
    const recent = [
      { groupId: 6, name: "Mid", successCount: 0, warningCount: 0, failureCount: 0, maintenanceCount: 2 },
    ];
    const tiles = wallTiles(rows, counts, recent);
    expect(tiles.map((t) => [t.name, t.state])).toEqual([
      ["Loans", "failure"],
      ["Cards", "failure"],
      ["Alpha", "warning"],
      ["Billing", "pass"],
      ["Mid", "maintenance"],
      ["Zed", "none"],
    ]);
    expect(tiles[0].today).toBe(10);
    expect(tiles[0].todayPassed).toBe(10);
  });

  it("says nothing while the window's counts are not in", () => {
    expect(wallTiles([row(1, "A")], null, undefined)[0].state).toBe("none");
  });
});

describe("tilesPerPage and the pages", () => {
  it("fits whole columns and rows: 4 x 6 on a 1920x1080 wall's grid, the same at 3840x2160 with type twice as large", () => {
    expect(tilesPerPage({ width: 1864, height: 900 }, { minWidth: 430, height: 130 }, 16)).toEqual({
      cols: 4,
      rows: 6,
      perPage: 24,
    });
    expect(tilesPerPage({ width: 3728, height: 1800 }, { minWidth: 860, height: 260 }, 32)).toEqual({
      cols: 4,
      rows: 6,
      perPage: 24,
    });
  });

  it("always at least one tile, even on a tiny or unmeasured box", () => {
    expect(tilesPerPage({ width: 100, height: 50 }, { minWidth: 430, height: 130 }, 16).perPage).toBe(1);
    expect(tilesPerPage({ width: 0, height: 0 }, { minWidth: 0, height: 0 }, 16).perPage).toBe(1);
  });

  it("pages the tiles and turns back to the first after the last", () => {
    const items = Array.from({ length: 50 }, (_, i) => ({ id: i + 1 }));
    expect(pageCount(50, 24)).toBe(3);
    expect(pageCount(0, 24)).toBe(1);
    expect(pageItems(items, 0, 24).map((i) => i.id)).toEqual(items.slice(0, 24).map((i) => i.id));
    expect(pageItems(items, 2, 24).map((i) => i.id)).toEqual([49, 50]);
    expect(pageItems(items, 7, 24).map((i) => i.id)).toEqual([49, 50]);
    expect(nextPage(0, 3)).toBe(1);
    expect(nextPage(2, 3)).toBe(0);
    expect(nextPage(0, 1)).toBe(0);
    expect(pageOf(items, 30, 24)).toBe(1);
    expect(pageOf(items, 99, 24)).toBe(-1);
  });
});

describe("startedFailing and stillAlarmed", () => {
  const states = (...pairs: [number, TileState][]) => new Map(pairs);
  it("a group turning to failure starts the alarm; one failing from the first reading does not", () => {
    expect(startedFailing(null, [{ id: 1, state: "failure" }])).toEqual([]);
    const before = states([1, "failure"], [2, "pass"], [3, "none"], [4, "warning"]);
    const now = [
      { id: 1, state: "failure" as const },
      { id: 2, state: "failure" as const },
      { id: 3, state: "failure" as const },
      { id: 4, state: "warning" as const },
      { id: 5, state: "failure" as const },
    ];
    expect(startedFailing(before, now)).toEqual([2, 3]);
  });

  it("the frame stays red while a group that started failing still fails", () => {
    const alarmed = new Set([2, 3]);
    expect([
      ...stillAlarmed(alarmed, [
        { id: 2, state: "failure" },
        { id: 3, state: "pass" },
      ]),
    ]).toEqual([2]);
    expect(stillAlarmed(alarmed, [{ id: 2, state: "warning" }]).size).toBe(0);
  });
});
