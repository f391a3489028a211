// The dashboard's state: the user's choices (kept across refreshes; groups, filter and channel
// also in local storage), the data behind them, and the 30 s refresh that follows new runs.
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from "react";
import { ApiError } from "../../api";
import { groupMetricQuery, groupsQuery, healthQuery } from "../../api/queries/groups";
import { showError } from "../../lib/banners";
import { queryClient } from "../../lib/queryClient";
import { siteTimeZone } from "../../lib/tenant";
import { createBatcher } from "./batch";
import type { ChannelHealth } from "./health";
import { mapLimit } from "./pool";
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
import { type GroupInfo, type GroupSums, type RateIndex, sumEntities } from "./rows";
import { isIsoDate, siteToday } from "./time";

/** New runs are picked up every 30 s while the tab is visible. */
export const POLL_MS = 30000;
/**
 * At most this many metric calls in flight. The console speaks HTTP/2, so they share one
 * connection; with 100 groups, more at once hides the browser's own cost per call (about 5 ms
 * each on the 2-core test machine, where 24 at once loaded 100 groups about 10 % sooner than 6).
 * Over HTTP/1.1 the browser queues what its 6 connections cannot take.
 */
export const METRIC_CONCURRENCY = 16;
/** Metrics that arrive within this many ms are shown together. */
const FLUSH_MS = 100;
const nameCollator = new Intl.Collator(undefined, { sensitivity: "base", numeric: true });

interface Metrics {
  /** `${date}|${runType}` the sums belong to. */
  key: string;
  sums: Map<number, GroupSums>;
  failed: Set<number>;
}

const keyOf = (date: string, runType: RunType) => `${date}|${runType}`;

/** What one load of metrics came to. */
interface Loaded {
  /** The answers still belong to what is shown (same date and run type, still mounted). */
  current: boolean;
  /** Groups whose metrics could not be loaded, with why. */
  failures: [number, unknown][];
}

function messagesOf(e: unknown): string[] {
  if (e instanceof ApiError) return e.messages;
  return [String(e)];
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
  /** Every chosen group has its numbers (or failed) for the date and run type shown. */
  ready: boolean;
  lastRefreshed: Date | null;
  refreshing: boolean;
  /** Why the last background refresh failed, if it did. */
  problem: string | null;
  refresh(): void;
}

export function useDashboard(isPhone: boolean): DashboardState {
  const [channel, setChannelState] = useState<Channel>(() => initialChannel(isPhone));
  const [runType, setRunTypeState] = useState<RunType>("Manual");
  const [date, setDateState] = useState<string>(() => siteToday(new Date(), siteTimeZone()));
  const [filter, setFilterState] = useState<RateIndex[]>(() => initialFilter());
  const [choice, setChoice] = useState<number[] | null>(() => storedGroups());
  const [groups, setGroups] = useState<GroupInfo[] | null>(null);
  const [health, setHealth] = useState<ChannelHealth[] | null>(null);
  const [metrics, setMetrics] = useState<Metrics>(() => ({
    key: keyOf(date, runType),
    sums: new Map(),
    failed: new Set(),
  }));
  const [lastRefreshed, setLastRefreshed] = useState<Date | null>(null);
  const [refreshing, setRefreshing] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);

  const key = keyOf(date, runType);
  const chosen = useMemo(() => (groups ? reconcileGroups(groups, choice) : []), [groups, choice]);

  // Latest values for the async work below.
  const live = useRef({ key, chosen, groups, choice, date, runType, followToday: true, mounted: true, lastLoad: 0 });
  live.current.key = key;
  live.current.runType = runType;
  live.current.chosen = chosen;
  live.current.groups = groups;
  live.current.choice = choice;
  live.current.date = date;
  const metricsRef = useRef(metrics);
  const inflight = useRef(new Set<string>());
  const busy = useRef(false);

  const commitMetrics = useCallback((m: Metrics) => {
    metricsRef.current = m;
    setMetrics(m);
  }, []);

  /**
   * Fetches the metrics of `ids` for `key`, at most METRIC_CONCURRENCY at once, in the order of
   * the groups' names when they are known (the table's default order, so the rows in view fill
   * first). Results are shown as they come, a few at a time. Resolves the failures, and whether
   * the answers still belong to what is shown.
   */
  const loadMetrics = useCallback(
    async (ids: number[], k: string, maxAgeMs = POLL_MS - 1000): Promise<Loaded> => {
      const [d, r] = k.split("|") as [string, RunType];
      const names = new Map((live.current.groups ?? []).map((g) => [g.id, g.name]));
      const ordered = [...ids].sort((a, b) => nameCollator.compare(names.get(a) ?? "", names.get(b) ?? "") || a - b);
      for (const id of ordered) inflight.current.add(`${k}#${id}`);
      const batcher = createBatcher<[number, GroupSums | null]>(FLUSH_MS, (batch) => {
        for (const [id] of batch) inflight.current.delete(`${k}#${id}`);
        if (!live.current.mounted || metricsRef.current.key !== k) return;
        const sums = new Map(metricsRef.current.sums);
        const failed = new Set(metricsRef.current.failed);
        for (const [id, sum] of batch) {
          if (sum) {
            sums.set(id, sum);
            failed.delete(id);
          } else failed.add(id);
        }
        commitMetrics({ key: k, sums, failed });
      });
      const failures: [number, unknown][] = [];
      await mapLimit(ordered, METRIC_CONCURRENCY, async (id) => {
        let sum: GroupSums | null = null;
        try {
          // Through the query cache: a metric asked for again within the refresh interval (the
          // group chosen again, the date changed back) is not fetched twice.
          const q = groupMetricQuery(id, d, r, { background: true, quiet: true });
          sum = sumEntities(await queryClient.fetchQuery({ ...q, staleTime: maxAgeMs }), siteTimeZone());
        } catch (e) {
          failures.push([id, e]);
        }
        batcher.add([id, sum]);
      });
      batcher.done();
      return { current: live.current.mounted && metricsRef.current.key === k, failures };
    },
    [commitMetrics],
  );

  /**
   * What came of metric loads: false when one of the chosen groups failed (shown in the
   * refresh line and, with `announce`, in the banner). Failures of groups that are not (or no
   * longer) chosen, e.g. a remembered group deleted meanwhile, are not reported.
   */
  const settle = useCallback((loads: Loaded[], announce: boolean): boolean => {
    if (!loads.every((l) => l.current)) return false;
    const groupsNow = live.current.groups;
    const chosenNow = groupsNow ? new Set(reconcileGroups(groupsNow, live.current.choice)) : null;
    const failure = loads.flatMap((l) => l.failures).find(([id]) => !chosenNow || chosenNow.has(id));
    if (failure) {
      const msgs = messagesOf(failure[1]);
      setProblem(msgs.join(" "));
      if (announce) showError(msgs);
      return false;
    }
    return true;
  }, []);

  /** Reloads the group list, the health and every chosen group's metrics. */
  const refresh = useCallback(
    async (reason: "initial" | "poll" | "manual") => {
      if (busy.current) return;
      busy.current = true;
      live.current.lastLoad = Date.now();
      setRefreshing(true);
      const quiet = reason === "poll";
      try {
        const L = live.current;
        if (L.followToday) {
          const today = siteToday(new Date(), siteTimeZone());
          if (today !== L.date) {
            L.date = today;
            setDateState(today);
          }
        }
        const k = keyOf(L.date, L.runType);
        if (metricsRef.current.key !== k) commitMetrics({ key: k, sums: new Map(), failed: new Set() });
        // On the first load, the groups chosen on this browser before are asked for at once,
        // together with the group list (which then only drops the ones gone meanwhile).
        const early =
          reason === "initial" && L.choice !== null && L.choice.length > 0 ? loadMetrics(L.choice, k) : null;
        const [g, h] = await Promise.allSettled([
          queryClient.fetchQuery({ ...groupsQuery({ background: reason !== "initial", quiet }), staleTime: 0 }),
          queryClient.fetchQuery({ ...healthQuery({ background: reason !== "initial", quiet }), staleTime: 0 }),
        ]);
        if (!live.current.mounted) return;
        let ok = true;
        if (g.status === "fulfilled") {
          setGroups(g.value);
          live.current.groups = g.value;
        } else ok = false;
        if (h.status === "fulfilled") setHealth(h.value);
        else {
          ok = false;
          setHealth((prev) => prev ?? []);
        }
        if (!ok)
          setProblem(messagesOf(g.status === "rejected" ? g.reason : (h as PromiseRejectedResult).reason).join(" "));
        if (reason === "initial" && g.status === "rejected") {
          setGroups([]);
          return;
        }
        const groupsNow = live.current.groups ?? [];
        const kNow = keyOf(live.current.date, live.current.runType);
        if (metricsRef.current.key !== kNow) commitMetrics({ key: kNow, sums: new Map(), failed: new Set() });
        // Start on the chosen groups' metrics at once, without waiting for a render.
        const ids = reconcileGroups(groupsNow, live.current.choice).filter(
          (id) => !(early && kNow === k && inflight.current.has(`${kNow}#${id}`)),
        );
        const loads = await Promise.all([
          ...(early ? [early] : []),
          ...(ids.length ? [loadMetrics(ids, kNow, reason === "initial" ? undefined : 0)] : []),
        ]);
        if (!live.current.mounted) return;
        const metricsOk = settle(loads, reason !== "poll");
        if (ok && metricsOk) {
          setProblem(null);
          setLastRefreshed(new Date());
          live.current.lastLoad = Date.now();
        }
      } finally {
        busy.current = false;
        if (live.current.mounted) setRefreshing(false);
      }
    },
    [commitMetrics, loadMetrics],
  );

  // First load, started before the first paint so the calls go out at once.
  useLayoutEffect(() => {
    live.current.mounted = true;
    void refresh("initial");
    return () => {
      live.current.mounted = false;
    };
  }, [refresh]);

  // Metrics of chosen groups not loaded yet for the date and run type shown.
  const chosenKey = chosen.join(",");
  useEffect(() => {
    if (!groups) return;
    if (metricsRef.current.key !== key) commitMetrics({ key, sums: new Map(), failed: new Set() });
    const m = metricsRef.current;
    const missing = chosen.filter(
      (id) => !m.sums.has(id) && !m.failed.has(id) && !inflight.current.has(`${key}#${id}`),
    );
    if (!missing.length) return;
    void loadMetrics(missing, key).then((load) => {
      if (settle([load], true) && live.current.mounted && metricsRef.current.key === key) {
        setLastRefreshed(new Date());
        live.current.lastLoad = Date.now();
      }
    });
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [groups, key, chosenKey]);

  // Follow new runs: every 30 s while the tab is visible, and at once on coming back to a tab
  // whose data is older than that.
  useEffect(() => {
    const due = () => Date.now() - live.current.lastLoad >= POLL_MS - 1000;
    const timer = setInterval(() => {
      if (!document.hidden && due()) void refresh("poll");
    }, POLL_MS / 6);
    const onVisible = () => {
      if (!document.hidden && due()) void refresh("poll");
    };
    document.addEventListener("visibilitychange", onVisible);
    return () => {
      clearInterval(timer);
      document.removeEventListener("visibilitychange", onVisible);
    };
  }, [refresh]);

  const m = useMemo(
    () => (metrics.key === key ? metrics : { key, sums: new Map<number, GroupSums>(), failed: new Set<number>() }),
    [metrics, key],
  );
  const ready = groups !== null && chosen.every((id) => m.sums.has(id) || m.failed.has(id));

  // Stable handlers: the controls and the journey are drawn again only when what they show changes.
  const setChannel = useCallback((c: Channel) => {
    setChannelState(c);
    saveChannel(c);
  }, []);
  const setDate = useCallback((d: string) => {
    if (!isIsoDate(d)) return;
    live.current.followToday = d === siteToday(new Date(), siteTimeZone());
    setDateState(d);
  }, []);
  const setFilter = useCallback((f: RateIndex[]) => {
    setFilterState(f);
    saveFilter(f);
  }, []);
  const setChosen = useCallback((ids: number[]) => {
    setChoice(ids);
    saveGroups(ids);
  }, []);
  const refreshNow = useCallback(() => void refresh("manual"), [refresh]);

  return {
    channel,
    setChannel,
    runType,
    setRunType: setRunTypeState,
    date,
    setDate,
    filter,
    setFilter,
    groups,
    chosen,
    setChosen,
    health,
    sums: m.sums,
    failed: m.failed,
    ready,
    lastRefreshed,
    refreshing,
    problem,
    refresh: refreshNow,
  };
}
