// Wall mode's rules (a room's screen, read from 3 m): each chosen group as a tile with its state
// now (the current window's runs, as the 'failing now' ribbon reads them), worst first; as many
// tiles a page as fit the screen, the pages turning in turn; and which groups have just started
// failing (the screen's frame turns red, and a tone plays when the wall was started with sound).
// Pure, tested beside.
import type { Counts } from "./hourly";
import { maintenanceOf, type RecentCounts } from "./strip";

export type TileState = "failure" | "warning" | "pass" | "maintenance" | "none";

export interface Tile {
  id: number;
  name: string;
  state: TileState;
  /** Runs of the current window by status. */
  now: Counts;
  /** Runs of the window in a maintenance window (cxwatch's recent counts only). */
  maintenance: number;
  /** The day's runs (the dashboard's row count). */
  today: number;
  /** The day's passing runs. */
  todayPassed: number;
}

const RANK: Record<TileState, number> = { failure: 0, warning: 1, pass: 2, maintenance: 3, none: 4 };

function stateOf(c: Counts | undefined, maintenance: number): TileState {
  if (!c) return maintenance > 0 ? "maintenance" : "none";
  if (c.failure > 0) return "failure";
  if (c.warning > 0) return "warning";
  if (c.success > 0) return "pass";
  return maintenance > 0 ? "maintenance" : "none";
}

const collator = new Intl.Collator(undefined, { sensitivity: "base", numeric: true });

/**
 * The tiles of the chosen groups (`rows`, as the table shows them), worst first: failing, then
 * warning, passing, in maintenance, without runs; more failed runs first, then by name. `counts`
 * is the current window's (null while not in: every tile says 'none').
 */
export function wallTiles(
  rows: readonly { id: number; name: string; counts: Counts; allHours?: readonly Counts[] }[],
  counts: ReadonlyMap<number, Counts> | null,
  recent: readonly RecentCounts[] | undefined,
): Tile[] {
  const inWindow = new Map((recent ?? []).map((r) => [r.groupId, maintenanceOf(r)]));
  return rows
    .map((r) => {
      const now = counts?.get(r.id);
      const maintenance = inWindow.get(r.id) ?? 0;
      return {
        id: r.id,
        name: r.name,
        state: stateOf(now, maintenance),
        now: now ?? { success: 0, warning: 0, failure: 0 },
        maintenance,
        today: r.counts.success + r.counts.warning + r.counts.failure,
        todayPassed: r.counts.success,
      };
    })
    .sort(
      (a, b) =>
        RANK[a.state] - RANK[b.state] ||
        b.now.failure - a.now.failure ||
        b.now.warning - a.now.warning ||
        collator.compare(a.name, b.name) ||
        a.id - b.id,
    );
}

/** How many tiles a page holds: whole columns of at least `minWidth` and whole rows of `height`. */
export function tilesPerPage(
  box: { width: number; height: number },
  tile: { minWidth: number; height: number },
  gap: number,
): { cols: number; rows: number; perPage: number } {
  const fit = (room: number, size: number) =>
    size > 0 && room > 0 ? Math.max(1, Math.floor((room + gap) / (size + gap))) : 1;
  const cols = fit(box.width, tile.minWidth);
  const rows = fit(box.height, tile.height);
  return { cols, rows, perPage: cols * rows };
}

export function pageCount(items: number, perPage: number): number {
  return Math.max(1, Math.ceil(items / Math.max(1, perPage)));
}

/** The items of page `page` (0-based; a page past the end shows the last). */
export function pageItems<T>(items: readonly T[], page: number, perPage: number): T[] {
  const size = Math.max(1, perPage);
  const last = pageCount(items.length, size) - 1;
  const p = Math.min(Math.max(0, page), last);
  return items.slice(p * size, p * size + size);
}

/** The page after `page`, back to the first after the last. */
export function nextPage(page: number, count: number): number {
  return count <= 1 ? 0 : (page + 1) % count;
}

/** The page that shows item `id`, or -1. */
export function pageOf(items: readonly { id: number }[], id: number, perPage: number): number {
  const i = items.findIndex((t) => t.id === id);
  return i < 0 ? -1 : Math.floor(i / Math.max(1, perPage));
}

/**
 * The groups that started failing between two readings of the tiles' states: failing now, and
 * known before in another state. The first reading (`before` null) starts nothing: a wall
 * opened during an outage shows it red in its tiles, it does not sound as a new one. A group
 * that was not chosen before is not new either.
 */
export function startedFailing(
  before: ReadonlyMap<number, TileState> | null,
  now: readonly Pick<Tile, "id" | "state">[],
): number[] {
  if (!before) return [];
  return now
    .filter((t) => t.state === "failure" && before.has(t.id) && before.get(t.id) !== "failure")
    .map((t) => t.id);
}

/**
 * The groups the frame stays red for: those that started failing (`alarmed`) and still fail.
 * The frame goes back to normal when each of them has recovered.
 */
export function stillAlarmed(alarmed: ReadonlySet<number>, now: readonly Pick<Tile, "id" | "state">[]): Set<number> {
  const failing = new Set(now.filter((t) => t.state === "failure").map((t) => t.id));
  return new Set([...alarmed].filter((id) => failing.has(id)));
}
