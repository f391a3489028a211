// The status strip: one badge per chosen group for the last 15 minutes, worst first. Pure
// rules, tested beside.
import type { WorstState } from "./severity";

/** The window the strip covers, in minutes. */
export const STRIP_MINUTES = 15;
/** Badges shown before 'Show N more' (beyond a phone, whose row scrolls sideways). */
export const STRIP_SHOWN = 12;

export interface RecentCounts {
  groupId: number;
  name: string;
  successCount: number;
  warningCount: number;
  failureCount: number;
  /** cxwatch's addition: runs in a maintenance window, left out of the counts above. */
  maintenanceCount?: number;
}

/** A badge's state: the worst of its runs, or maintenance when every run was in a window. */
export type StripState = WorstState | "maintenance";

export interface Badge extends RecentCounts {
  state: StripState;
}

/** Runs in maintenance windows (0 when the API does not say). */
export function maintenanceOf(c: RecentCounts): number {
  const n = c.maintenanceCount;
  return typeof n === "number" && Number.isFinite(n) && n > 0 ? n : 0;
}

/**
 * A group's state over the window: any failure, else any warning, else pass (runs in a
 * maintenance window count for none of them); maintenance when its only runs were in a window;
 * none without runs.
 */
export function badgeState(c: RecentCounts): StripState {
  if (c.failureCount > 0) return "failure";
  if (c.warningCount > 0) return "warning";
  if (c.successCount > 0) return "pass";
  if (maintenanceOf(c) > 0) return "maintenance";
  return "none";
}

const RANK: Record<StripState, number> = { failure: 0, warning: 1, pass: 2, maintenance: 3, none: 4 };

/**
 * The badges of the chosen groups (in `chosen`, by id), worst first: failures, then warnings,
 * then passes, then groups in maintenance, then groups without runs; more failed (warned) runs first, then by name.
 */
export function stripBadges(groups: readonly RecentCounts[], chosen: readonly number[]): Badge[] {
  const want = new Set(chosen);
  const collator = new Intl.Collator(undefined, { sensitivity: "base", numeric: true });
  return groups
    .filter((g) => want.has(g.groupId))
    .map((g) => ({ ...g, state: badgeState(g) }))
    .sort(
      (a, b) =>
        RANK[a.state] - RANK[b.state] ||
        b.failureCount - a.failureCount ||
        b.warningCount - a.warningCount ||
        collator.compare(a.name, b.name) ||
        a.groupId - b.groupId,
    );
}
