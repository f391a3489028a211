// The dashboard's state: the user's choices (kept across refreshes; groups, filter and channel
// also in local storage), and the server state behind them in TanStack Query: the group list,
// the health, and the chosen groups' numbers for the date and run type, each refetched every
// 30 s while the tab is visible. The numbers come from one `groups/hourly` call for every group
// with cxwatch's API, and from one `groups/{id}/metric` call per chosen group on a spec-only API
// (or a cxwatch without that call).
import { type QueryObserverResult, useQueries, useQuery } from "@tanstack/react-query";
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from "react";
import { ApiError } from "../../api";
import { groupKeys, groupMetricQuery, groupsHourlyQuery, groupsQuery, healthQuery } from "../../api/queries/groups";
import type { GroupHourly, GroupMetric } from "../../api/types";
import { showError } from "../../lib/banners";
import { queryClient } from "../../lib/queryClient";
import { isIsoDate, siteToday } from "../../lib/siteTime";
import { useApiFlavor, useSiteTimeZone } from "../../lib/tenant";
import type { ChannelHealth } from "./health";
import { METRIC_CALL, prefetchDashboard } from "./prefetch";
import {
  type Channel,
  initialChannel,
  initialFilter,
  type RunType,
  reconcileGroups,
  saveChannel,
  saveFilter,
  saveGroups,
  storedGroups,
} from "./prefs";
import { emptySums, type GroupInfo, type GroupSums, type RateIndex, sumEntities, sumsOfHourly } from "./rows";

/** New runs are picked up every 30 s while the tab is visible. */
export const POLL_MS = 30000;
/** An answer younger than this is not asked for again (on coming back to the tab, say). */
const FRESH_MS = POLL_MS - 1000;
/** What every dashboard query shares: the 30 s refresh, paused while the tab is hidden. */
export const LIVE = {
  refetchInterval: POLL_MS,
  refetchIntervalInBackground: false,
  refetchOnWindowFocus: true,
  staleTime: FRESH_MS,
} as const;

const nameCollator = new Intl.Collator(undefined, { sensitivity: "base", numeric: true });
const EMPTY_SUMS: GroupSums = emptySums();

function messagesOf(e: unknown): string[] {
  if (e instanceof ApiError) return e.messages;
  return [String(e)];
}

/** The metric queries' results, per group. */
interface Metrics {
  sums: Map<number, GroupSums>;
  failed: Set<number>;
  /** First failure among them. */
  error: unknown;
  fetching: boolean;
  /** Oldest answer among them (ms since the epoch; 0 when one has none yet, Infinity for no query). */
  updatedAt: number;
}

export interface DashboardState {
  channel: Channel;
  setChannel(c: Channel): void;
  runType: RunType;
  setRunType(r: RunType): void;
  date: string;
  setDate(d: string): void;
  filter: RateIndex[];
  setFilter(f: RateIndex[]): void;
  groups: GroupInfo[] | null;
  chosen: number[];
  setChosen(ids: number[]): void;
  health: ChannelHealth[] | null;
  sums: Map<number, GroupSums>;
  failed: Set<number>;
  /** Runs of the chosen groups left out of the counts for maintenance windows (cxwatch's). */
  maintenanceLeftOut: number;
  /** Every chosen group has its numbers (or failed) for the date and run type shown. */
  ready: boolean;
  lastRefreshed: Date | null;
  refreshing: boolean;
  /** Why the last refresh failed, if it did. */
  problem: string | null;
  refresh(): void;
}

export function useDashboard(isPhone: boolean): DashboardState {
  const timeZone = useSiteTimeZone();
  const [channel, setChannelState] = useState<Channel>(() => initialChannel(isPhone));
  const [runType, setRunTypeState] = useState<RunType>("Manual");
  const [date, setDateState] = useState<string>(() => siteToday(new Date(), timeZone));
  const [filter, setFilterState] = useState<RateIndex[]>(() => initialFilter());
  const [choice, setChoice] = useState<number[] | null>(() => storedGroups());
  /** The date shown is today at the site, and moves on at midnight. */
  const followToday = useRef(true);
  /** The next settled refresh shows a failure in the banner (not the 30 s ones). */
  const announce = useRef(true);
  /** The first group list and health are loaded with the 'Please wait' overlay. */
  const loaded = useRef(false);

  const groupsQ = useQuery({
    ...groupsQuery({ background: loaded.current, quiet: true }),
    ...LIVE,
    refetchOnMount: "always",
  });
  const healthQ = useQuery({
    ...healthQuery({ background: loaded.current, quiet: true }),
    ...LIVE,
    refetchOnMount: "always",
  });
  const groups: GroupInfo[] | null = groupsQ.data ?? (groupsQ.isError ? [] : null);
  const health: ChannelHealth[] | null = healthQ.data ?? (healthQ.isError ? [] : null);
  if (groupsQ.data || healthQ.data) loaded.current = true;

  const chosen = useMemo(() => (groups ? reconcileGroups(groups, choice) : []), [groups, choice]);

  // cxwatch's API: every group's day in one call. Each group's sums are kept while its part of
  // the answer stays the same (structural sharing), so a refresh redraws only the rows that changed.
  const cxwatch = useApiFlavor() === "cxwatch";
  const hourlySums = useRef(new WeakMap<GroupHourly, GroupSums>());
  const selectHourly = useCallback((data: GroupHourly[]) => {
    const out = new Map<number, GroupSums>();
    for (const g of data ?? []) {
      let sums = hourlySums.current.get(g);
      if (!sums) {
        sums = sumsOfHourly(g);
        hourlySums.current.set(g, sums);
      }
      out.set(g.groupId, sums);
    }
    return out;
  }, []);
  // A cxwatch without groups/hourly (an older one behind the proxy): one call per group from
  // then on, as on a spec-only API.
  const [noHourly, setNoHourly] = useState(false);
  const hourlyQ = useQuery({
    ...groupsHourlyQuery(date, runType, METRIC_CALL),
    ...LIVE,
    enabled: cxwatch && !noHourly,
    select: selectHourly,
  });
  const missing = hourlyQ.error instanceof ApiError && hourlyQ.error.status === 404;
  useEffect(() => {
    if (missing) setNoHourly(true);
  }, [missing]);
  const perGroup = !cxwatch || noHourly || missing;

  // Before the group list is in, the groups chosen on this browser before are asked for at
  // once, with it (the list then only drops the ones gone meanwhile). Asked for in the order
  // of their names when known (the table's default order, so that the rows in view fill first).
  const asked = useMemo(() => {
    if (!perGroup) return [];
    const ids = groups ? chosen : (choice ?? []);
    const names = new Map((groups ?? []).map((g) => [g.id, g.name]));
    return [...ids].sort((a, b) => nameCollator.compare(names.get(a) ?? "", names.get(b) ?? "") || a - b);
  }, [perGroup, groups, chosen, choice]);

  // The answer is summed once per answer: an answer equal to the last one (structural sharing)
  // keeps its sums, so the row it feeds is not drawn again.
  const select = useCallback((data: GroupMetric[]) => sumEntities(data, timeZone), [timeZone]);
  const metricQueries = useMemo(
    () =>
      asked.map((id) => ({
        ...groupMetricQuery(id, date, runType, METRIC_CALL),
        ...LIVE,
        select,
      })),
    [asked, date, runType, select],
  );
  const combine = useCallback(
    (results: QueryObserverResult<GroupSums>[]): Metrics => {
      const sums = new Map<number, GroupSums>();
      const failed = new Set<number>();
      let error: unknown = null;
      let fetching = false;
      let updatedAt = Number.POSITIVE_INFINITY;
      results.forEach((r, i) => {
        const id = asked[i];
        // A failed refresh drops the group's older numbers too: the page never shows a count of
        // '—' beside bars and a donut still drawn from the last answer.
        if (r.data && !r.isError) sums.set(id, r.data);
        if (r.isError) {
          failed.add(id);
          error ??= r.error;
        }
        fetching ||= r.isFetching;
        updatedAt = Math.min(updatedAt, r.dataUpdatedAt);
      });
      return { sums, failed, error, fetching, updatedAt };
    },
    [asked],
  );
  const perGroupMetrics = useQueries({ queries: metricQueries, combine });
  const metrics: Metrics = useMemo(() => {
    if (perGroup) return perGroupMetrics;
    // A failed refresh drops the older numbers too (as above); a group the answer does not name
    // (made since) has no runs in it yet, and the next answer (every change of the groups asks
    // again) gives its numbers.
    const sums = new Map<number, GroupSums>();
    const failed = new Set<number>();
    if (hourlyQ.isError) for (const id of chosen) failed.add(id);
    else if (hourlyQ.data) for (const id of chosen) sums.set(id, hourlyQ.data.get(id) ?? EMPTY_SUMS);
    return {
      sums,
      failed,
      error: hourlyQ.error,
      fetching: hourlyQ.isFetching,
      updatedAt: hourlyQ.dataUpdatedAt,
    };
  }, [
    perGroup,
    perGroupMetrics,
    chosen,
    hourlyQ.data,
    hourlyQ.isError,
    hourlyQ.error,
    hourlyQ.isFetching,
    hourlyQ.dataUpdatedAt,
  ]);

  // The first calls go out before the first paint (the queries' own observers start after it,
  // and join these calls); after a sign-in they are already under way.
  useLayoutEffect(() => {
    prefetchDashboard(date, runType, asked);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, []);

  const ready = groups !== null && chosen.every((id) => metrics.sums.has(id) || metrics.failed.has(id));
  const refreshing = groupsQ.isFetching || healthQ.isFetching || metrics.fetching;

  // Midnight at the site: a dashboard showing today moves on to the new day with the refresh.
  useEffect(() => {
    if (!followToday.current) return;
    const today = siteToday(new Date(), timeZone);
    if (today !== date) setDateState(today);
  }, [groupsQ.dataUpdatedAt, timeZone, date]);

  // Once nothing is under way: how fresh the numbers shown are (the oldest chosen group's, as each
  // query keeps its own 30 s clock), or why not when something failed (in the refresh line, and
  // in the banner unless it was a 30 s refresh).
  const error = groupsQ.error ?? healthQ.error ?? metrics.error;
  const updatedAt = Number.isFinite(metrics.updatedAt) ? metrics.updatedAt : groupsQ.dataUpdatedAt;
  const settled = !refreshing && groups !== null && health !== null && ready;
  // Derived in the render that shows the numbers, so the line never lags behind them.
  const outcome = useRef<{ at: number; problem: string | null }>({ at: 0, problem: null });
  if (settled) {
    outcome.current = error
      ? { at: outcome.current.at, problem: messagesOf(error).join(" ") }
      : { at: updatedAt || outcome.current.at, problem: null };
  }
  const { at, problem } = outcome.current;
  const lastRefreshed = useMemo(() => (at ? new Date(at) : null), [at]);
  useEffect(() => {
    if (!settled) return;
    if (error && announce.current) showError(messagesOf(error));
    announce.current = false;
  }, [settled, error]);

  // Stable handlers: the controls and the journey are drawn again only when what they show changes.
  const setChannel = useCallback((c: Channel) => {
    setChannelState(c);
    saveChannel(c);
  }, []);
  const setRunType = useCallback((r: RunType) => {
    announce.current = true;
    setRunTypeState(r);
  }, []);
  const setDate = useCallback(
    (d: string) => {
      if (!isIsoDate(d)) return;
      followToday.current = d === siteToday(new Date(), timeZone);
      announce.current = true;
      setDateState(d);
    },
    [timeZone],
  );
  const setFilter = useCallback((f: RateIndex[]) => {
    setFilterState(f);
    saveFilter(f);
  }, []);
  const setChosen = useCallback((ids: number[]) => {
    announce.current = true;
    setChoice(ids);
    saveGroups(ids);
  }, []);
  // Everything shown, asked for again now (the group list, the health, the chosen groups).
  const refresh = useCallback(() => {
    announce.current = true;
    if (followToday.current) setDateState(siteToday(new Date(), timeZone));
    void queryClient.refetchQueries({ queryKey: groupKeys.all, type: "active" });
  }, [timeZone]);

  return {
    channel,
    setChannel,
    runType,
    setRunType,
    date,
    setDate,
    filter,
    setFilter,
    groups,
    chosen,
    setChosen,
    health,
    sums: metrics.sums,
    failed: metrics.failed,
    maintenanceLeftOut: chosen.reduce((n, id) => n + (metrics.sums.get(id)?.maintenance ?? 0), 0),
    ready,
    lastRefreshed,
    refreshing,
    problem,
    refresh,
  };
}
