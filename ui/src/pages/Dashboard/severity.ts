// Worst first: how bad a group is, since when it has been failing, and the worst state of the
// page (for the incident ribbon and the browser tab). Pure functions, tested beside.
import { type Counts, HOURS } from "./hourly";

/** Failure rate, then warning rate, over a group's runs (0..1; 0 when it has none). */
export interface Severity {
  failRate: number;
  warnRate: number;
  runs: number;
}

export function severityOf(c: Counts): Severity {
  const runs = c.success + c.warning + c.failure;
  if (runs <= 0) return { failRate: 0, warnRate: 0, runs: 0 };
  return { failRate: c.failure / runs, warnRate: c.warning / runs, runs };
}

/** Negative when `a` is worse than `b` (it sorts first): failure rate, then warning rate. */
export function compareSeverity(a: Severity, b: Severity): number {
  return b.failRate - a.failRate || b.warnRate - a.warnRate;
}

export type WorstState = "failure" | "warning" | "pass" | "none";

/** The state of a group from its hours up to `nowHour`: that of its latest hour with runs. */
export function currentState(hours: readonly Counts[], nowHour: number): WorstState {
  for (let h = Math.min(nowHour, HOURS - 1); h >= 0; h--) {
    const c = hours[h];
    if (!c || c.success + c.warning + c.failure === 0) continue;
    if (c.failure > 0) return "failure";
    if (c.warning > 0) return "warning";
    return "pass";
  }
  return "none";
}

/**
 * The hour (0-23) a group started failing: its latest hour with runs up to `nowHour` has
 * failures, and so has every hour with runs back to the one returned (hours without runs do not
 * break the streak). Null when the group is not failing now.
 */
export function failingSince(hours: readonly Counts[], nowHour: number): number | null {
  let since: number | null = null;
  for (let h = Math.min(nowHour, HOURS - 1); h >= 0; h--) {
    const c = hours[h];
    if (!c || c.success + c.warning + c.failure === 0) continue;
    if (c.failure === 0) break;
    since = h;
  }
  return since;
}

/** '1 h 17 min', '45 min', '2 h', '0 min' (the same in English and French). */
export function durationText(minutes: number): string {
  const m = Math.max(0, Math.floor(minutes));
  const h = Math.floor(m / 60);
  const r = m % 60;
  if (h === 0) return `${r}\u00a0min`;
  if (r === 0) return `${h}\u00a0h`;
  return `${h}\u00a0h ${r}\u00a0min`;
}

/** The worst of several states (failure, then warning, then pass, then none). */
export function worstOf(states: Iterable<WorstState>): WorstState {
  const rank: Record<WorstState, number> = { none: 0, pass: 1, warning: 2, failure: 3 };
  let worst: WorstState = "none";
  for (const s of states) if (rank[s] > rank[worst]) worst = s;
  return worst;
}

/** The tab's icon for a state: the console's mark, with a red or amber dot when something is wrong. */
export function tabIcon(state: WorstState): string {
  const dot =
    state === "failure"
      ? `<circle cx="18" cy="6" r="5.5" fill="#d93a3a" stroke="#fff" stroke-width="1.5"/>`
      : state === "warning"
        ? `<circle cx="18" cy="6" r="5.5" fill="#e8890c" stroke="#fff" stroke-width="1.5"/>`
        : "";
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" fill="none" stroke="#1f6feb" stroke-width="2" stroke-linecap="round" stroke-linejoin="round">` +
    `<rect x="2.5" y="2.5" width="19" height="19" rx="5" fill="#fff"/><path d="M6 12.5h2.5l1.8-4 3 8 1.9-4H18"/>${dot}</svg>`;
  return `data:image/svg+xml,${encodeURIComponent(svg)}`;
}
