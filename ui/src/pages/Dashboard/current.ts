// What 'failing now' means, for the incident ribbon and the browser tab: evidence that is current,
// never an earlier hour's. Pure, tested beside.
//
// The current evidence of a group is its runs (of the dashboard's run type) in one window:
// - with cxwatch's API, the last STRIP_MINUTES (15) minutes, from `groups/recent`: the window of
//   the status strip beside the ribbon, so that the two never disagree (a group the strip shows
//   as 'No runs' is never 'failing');
// - with a spec-only API (no such call), the current hour at the site, from the group's hourly
//   counts: the finest the spec's metric gives.
// A group is failing now when at least one of its runs in the window failed; the ribbon says how
// many of how many. Earlier hours never make a group failing: they only say since when, the hour
// the streak of hours with failures that reaches the window began (`failingSince`).
import type { Counts } from "./hourly";
import { failingSince, type WorstState, worstOf } from "./severity";
import type { RecentCounts } from "./strip";

/** The window of current evidence: the last N minutes, or the current hour at the site. */
export type CurrentWindow = { kind: "minutes"; minutes: number } | { kind: "hour"; hour: number };

export interface GroupHours {
  id: number;
  name: string;
  /** The day's 24 hourly counts. */
  allHours: readonly Counts[];
}

/** A group failing now: how many of its runs in the window failed, and since when. */
export interface Incident {
  id: number;
  name: string;
  failed: number;
  runs: number;
  /** Hour (0-23) the streak of hours with failures began; null when the hours do not show it yet. */
  since: number | null;
  /** Minutes from `since` to now; null with `since`. */
  minutes: number | null;
}

/**
 * The counts of each group in the window: from `recent` (the last minutes; a group it does not
 * list had no runs), or from the current hour of its hours. Null while `recent` is not in: no
 * evidence yet, nothing is said.
 */
export function currentCounts(
  groups: readonly GroupHours[],
  window: CurrentWindow,
  recent: readonly RecentCounts[] | undefined,
): Map<number, Counts> | null {
  const out = new Map<number, Counts>();
  if (window.kind === "minutes") {
    if (!recent) return null;
    const byId = new Map(recent.map((r) => [r.groupId, r]));
    for (const g of groups) {
      const r = byId.get(g.id);
      out.set(g.id, {
        success: r?.successCount ?? 0,
        warning: r?.warningCount ?? 0,
        failure: r?.failureCount ?? 0,
      });
    }
    return out;
  }
  for (const g of groups) {
    const c = g.allHours[window.hour];
    out.set(g.id, { success: c?.success ?? 0, warning: c?.warning ?? 0, failure: c?.failure ?? 0 });
  }
  return out;
}

const runsOf = (c: Counts) => c.success + c.warning + c.failure;

/**
 * The groups failing now (a failed run in the window), the longest streak first, then the
 * highest share of failed runs, else in the order given. `nowHour` and `nowMinute`: the site's clock.
 */
export function incidentsNow(
  groups: readonly GroupHours[],
  counts: ReadonlyMap<number, Counts> | null,
  nowHour: number,
  nowMinute: number,
): Incident[] {
  if (!counts) return [];
  const list: Incident[] = [];
  for (const g of groups) {
    const c = counts.get(g.id);
    if (!c || c.failure <= 0) continue;
    const since = failingSince(g.allHours, nowHour);
    list.push({
      id: g.id,
      name: g.name,
      failed: c.failure,
      runs: runsOf(c),
      since,
      minutes: since === null ? null : nowHour * 60 + nowMinute - since * 60,
    });
  }
  return list.sort((a, b) => (b.minutes ?? -1) - (a.minutes ?? -1) || b.failed / b.runs - a.failed / a.runs);
}

/** The state of the page now (the tab's icon): the worst of the groups' window counts. */
export function currentWorst(counts: ReadonlyMap<number, Counts> | null): WorstState {
  if (!counts) return "none";
  return worstOf(
    [...counts.values()].map((c) =>
      c.failure > 0 ? "failure" : c.warning > 0 ? "warning" : runsOf(c) > 0 ? "pass" : "none",
    ),
  );
}
