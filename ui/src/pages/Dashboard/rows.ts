// Group rows of the dashboard table: the sum over a group's entities, the rate filter and sorting.

import type { Group, GroupHourly, GroupMetric, HourlyStatus } from "../../api/types";
import { type Counts, countOf, HOURS, padHours, zeroCounts } from "./hourly";
import { compareSeverity, type Severity, severityOf } from "./severity";

/** What a row reads of a group metric (spec §3 'Group metric'). */
export type MetricCounts = Pick<GroupMetric, "successCount" | "warningCount" | "failureCount"> & {
  hourlyStatus: readonly HourlyStatus[];
  /** cxwatch's addition: runs in a maintenance window, left out of the counts. */
  maintenanceCount?: number;
};

/** Rate filter indexes (spec §9): 0 Pass Rate, 1 Warning Rate, 2 Failure Rate. */
export type RateIndex = 0 | 1 | 2;
export const ALL_RATES: RateIndex[] = [0, 1, 2];
export const STATUS_KEYS: (keyof Counts)[] = ["success", "warning", "failure"];

export interface GroupSums {
  counts: Counts;
  hours: Counts[];
  /** Runs in maintenance windows left out of the counts (0 when the API does not say). */
  maintenance: number;
}

/**
 * A group's row: successCount, warningCount, failureCount and hourlyStatus added over its
 * entities; hours given with a zone are read in the site's `timeZone`.
 */
export function sumEntities(entities: readonly MetricCounts[] | null | undefined, timeZone: string): GroupSums {
  const counts = zeroCounts();
  const hours = Array.from({ length: HOURS }, zeroCounts);
  let maintenance = 0;
  for (const e of entities ?? []) {
    maintenance += countOf(e.maintenanceCount);
    counts.success += countOf(e.successCount);
    counts.warning += countOf(e.warningCount);
    counts.failure += countOf(e.failureCount);
    const slots = padHours(e.hourlyStatus, timeZone);
    for (let h = 0; h < HOURS; h++) {
      hours[h].success += slots[h].success;
      hours[h].warning += slots[h].warning;
      hours[h].failure += slots[h].failure;
    }
  }
  return { counts, hours, maintenance };
}

/** A group without runs: zero counts, 24 empty slots. */
export function emptySums(): GroupSums {
  return { counts: zeroCounts(), hours: Array.from({ length: HOURS }, zeroCounts), maintenance: 0 };
}

/** What a row reads of cxwatch's `groups/hourly` item. */
export type HourlyCounts = Pick<
  GroupHourly,
  "successCount" | "warningCount" | "failureCount" | "successByHour" | "warningByHour" | "failureByHour"
> & {
  /** Runs in maintenance windows, left out of the counts. */
  maintenanceCount?: number;
};

/**
 * A group's row from its `groups/hourly` item: the same sums as `sumEntities` over its
 * `metric` (the server adds its test cases); slot h is local hour h, missing slots are zero.
 */
export function sumsOfHourly(g: HourlyCounts): GroupSums {
  const at = (list: readonly number[] | null | undefined, h: number) => countOf(list?.[h]);
  return {
    counts: { success: countOf(g.successCount), warning: countOf(g.warningCount), failure: countOf(g.failureCount) },
    hours: Array.from({ length: HOURS }, (_, h) => ({
      success: at(g.successByHour, h),
      warning: at(g.warningByHour, h),
      failure: at(g.failureByHour, h),
    })),
    maintenance: countOf(g.maintenanceCount),
  };
}

/** Statuses outside the filter count as zero. */
export function applyFilter(c: Counts, filter: readonly RateIndex[]): Counts {
  return {
    success: filter.includes(0) ? c.success : 0,
    warning: filter.includes(1) ? c.warning : 0,
    failure: filter.includes(2) ? c.failure : 0,
  };
}

export function total(c: Counts): number {
  return c.success + c.warning + c.failure;
}

export interface GroupRow {
  id: number;
  name: string;
  channel: string;
  /** Counts under the filter. */
  counts: Counts;
  /** 24 slots under the filter. */
  hours: Counts[];
  /** Test runs for the day and run type under the filter. */
  count: number;
  /** Failure and warning rates over all the day's runs (the filter aside): the 'Worst first' order. */
  severity: Severity;
  /** The day's 24 slots, the filter aside (to tell since when a group fails). */
  allHours: Counts[];
}

/** What the dashboard keeps of a test case group. */
export type GroupInfo = Pick<Group, "id" | "name" | "channel">;

export function makeRow(group: GroupInfo, sums: GroupSums, filter: readonly RateIndex[]): GroupRow {
  const counts = applyFilter(sums.counts, filter);
  return {
    id: group.id,
    name: group.name,
    channel: group.channel,
    counts,
    hours: sums.hours.map((h) => applyFilter(h, filter)),
    count: total(counts),
    severity: severityOf(sums.counts),
    allHours: sums.hours,
  };
}

/** 'severity' is 'Worst first' (the default); the spec's columns name and count stay. */
export type SortKey = "severity" | "name" | "count";
export type SortDir = "asc" | "desc";
export interface Sort {
  key: SortKey;
  dir: SortDir;
}

const collator = new Intl.Collator(undefined, { sensitivity: "base", numeric: true });

export const DEFAULT_SORT: Sort = { key: "severity", dir: "asc" };

/**
 * Sorted copy; ties are broken by name, then id, so the order is stable across refreshes.
 * 'severity' ascending puts the worst first (failure rate, then warning rate).
 */
export function sortRows<T extends { id: number; name: string; count: number; severity?: Severity }>(
  rows: T[],
  sort: Sort,
): T[] {
  const sign = sort.dir === "asc" ? 1 : -1;
  const none: Severity = { failRate: 0, warnRate: 0, runs: 0 };
  return [...rows].sort((a, b) => {
    let d = 0;
    if (sort.key === "count") d = (a.count - b.count) * sign;
    if (sort.key === "severity") d = compareSeverity(a.severity ?? none, b.severity ?? none) * sign;
    if (d === 0) d = collator.compare(a.name, b.name) * (sort.key === "name" ? sign : 1);
    if (d === 0) d = a.id - b.id;
    return d;
  });
}

/**
 * Clicking a header: same column flips the direction, another column starts ascending.
 * 'Worst first' is a choice, not a column: choosing it again keeps it.
 */
export function nextSort(current: Sort, key: SortKey): Sort {
  if (key === "severity") return DEFAULT_SORT;
  if (current.key === key) return { key, dir: current.dir === "asc" ? "desc" : "asc" };
  return { key, dir: "asc" };
}

/** Normalise a stored or chosen filter: known indexes only, in order, no duplicates. */
export function normaliseFilter(value: unknown): RateIndex[] | null {
  if (!Array.isArray(value)) return null;
  return ALL_RATES.filter((r) => value.includes(r));
}
