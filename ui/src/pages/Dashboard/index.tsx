// The dashboard (/dashboard): journey diagram, overall health, controls, and the chosen test
// case groups with their 24-hour charts. It follows new runs every 30 s (spec §2 'Dashboard').
import { useLingui } from "@lingui/react/macro";
import { useQuery } from "@tanstack/react-query";
import { lazy, Suspense, useCallback, useEffect, useMemo, useRef, useState } from "react";
import { recentQuery } from "../../api/queries/groups";
import { useIsMobile } from "../../lib/media";
import { siteToday, zonedParts } from "../../lib/siteTime";
import { useApiFlavor, useSiteTimeZone } from "../../lib/tenant";
import { MaintenanceBanner } from "../Maintenance/Banner";
import { MaintenanceNote } from "../Maintenance/Note";
import { alertsByGroup } from "./alertState";
import { Controls, type ControlsProps } from "./Controls";
import { type CurrentWindow, currentCounts, currentWorst, type Incident, incidentsNow } from "./current";
import { GroupChartModal } from "./GroupChartModal";
import { GroupTable } from "./GroupTable";
import { HealthStatusModal } from "./HealthStatusModal";
import { appsOfChannel } from "./health";
import { HOURS, zeroCounts } from "./hourly";
import { IncidentRibbon, useTabState } from "./IncidentRibbon";
import { JourneyDiagram } from "./JourneyDiagram";
import { OverallHealthDonut } from "./OverallHealthDonut";
import { overallHealth } from "./percentages";
import {
  ALL_RATES,
  DEFAULT_SORT,
  type GroupInfo,
  type GroupRow,
  type GroupSums,
  makeRow,
  nextSort,
  type RateIndex,
  type Sort,
  type SortKey,
  sortRows,
} from "./rows";
import { SetUpHint } from "./SetUpHint";
import { StatusStrip } from "./StatusStrip";
import { sharedScaleMax } from "./scale";
import { firstFutureHour, headlineScope } from "./scope";
import { STRIP_MINUTES } from "./strip";
import { unlockTone } from "./tone";
import { LIVE, useDashboard } from "./useDashboard";
import { RefreshedAgo, useWallMode } from "./WallMode";
import "./Dashboard.css";

// Wall mode is a room's screen, not an operator's: its chunk loads when it is turned on, so
// the first screen does not carry it.
const WallBoard = lazy(() => import("./WallBoard").then((m) => ({ default: m.WallBoard })));

/** Spec §9: the sticky top bar appears once the page is scrolled this far. */
export const STICKY_AT_PX = 200;
/**
 * Above this many chosen groups, only the first rows' charts are drawn with the numbers; the
 * others as they near the window, or in idle time.
 */
const LAZY_CHARTS_ABOVE = 8;

const EMPTY: GroupSums = { counts: zeroCounts(), hours: Array.from({ length: HOURS }, zeroCounts), maintenance: 0 };
const NO_GROUPS: GroupInfo[] = [];
const NO_HEALTH = overallHealth([]);

interface CachedRow {
  group: GroupInfo;
  sums: GroupSums;
  filter: RateIndex[];
  row: GroupRow;
}

/**
 * True once the window is scrolled `px` or more. A 1-pixel marker just above that line of the
 * document is watched with an IntersectionObserver: no scroll handler, and no layout forced
 * while the table is still filling in.
 */
function useScrolledPast(px: number, enabled: boolean): boolean {
  const [past, setPast] = useState(false);
  useEffect(() => {
    if (!enabled) {
      setPast(false);
      return;
    }
    if (typeof IntersectionObserver !== "function") return;
    const marker = document.createElement("div");
    marker.setAttribute("aria-hidden", "true");
    // The marker ends one pixel above the line: an observer counts a marker touching the top edge
    // as still in view, so one ending exactly on the line would show the bar at px + 1.
    marker.style.cssText = `position:absolute;left:0;top:${px - 2}px;width:1px;height:1px;pointer-events:none;visibility:hidden`;
    document.body.appendChild(marker);
    const io = new IntersectionObserver(([e]) => {
      if (e) setPast(!e.isIntersecting && e.boundingClientRect.top < 0);
    });
    io.observe(marker);
    return () => {
      io.disconnect();
      marker.remove();
    };
  }, [px, enabled]);
  return past;
}

/** Left and width of an element, to lay the fixed bar over the page's own column. */
function useBox(ref: { current: HTMLElement | null }, active: boolean) {
  const [box, setBox] = useState<{ left: number; width: number } | null>(null);
  useEffect(() => {
    if (!active || !ref.current) return;
    const el = ref.current;
    const measure = () => {
      const r = el.getBoundingClientRect();
      setBox({ left: r.left, width: r.width });
    };
    measure();
    const ro = typeof ResizeObserver === "function" ? new ResizeObserver(measure) : null;
    ro?.observe(el);
    window.addEventListener("resize", measure);
    return () => {
      ro?.disconnect();
      window.removeEventListener("resize", measure);
    };
  }, [active]);
  return box;
}

export function DashboardPage() {
  const { t, i18n } = useLingui();
  const isPhone = useIsMobile();
  const s = useDashboard(isPhone);
  const timeZone = useSiteTimeZone();
  const cxwatch = useApiFlavor() === "cxwatch";
  const [sort, setSort] = useState<Sort>(DEFAULT_SORT);
  const [healthOpen, setHealthOpen] = useState(false);
  const [chartId, setChartId] = useState<number | null>(null);
  const root = useRef<HTMLElement>(null);
  const [wall, setWall, sound] = useWallMode();
  // An open list of the page's own controls keeps them in place: opening one near the bottom of
  // the screen scrolls it into view, and the bar replacing the controls then would hide it.
  const [menuOpen, setMenuOpen] = useState(false);
  const sticky = useScrolledPast(STICKY_AT_PX, !isPhone && !wall) && !menuOpen;
  const box = useBox(root, sticky);

  const byId = useMemo(() => new Map((s.groups ?? []).map((g) => [g.id, g])), [s.groups]);
  // A group's row keeps its identity while its group, numbers and the filter stay the same, so
  // that a batch of newly arrived groups redraws only their rows.
  const rowCache = useRef(new Map<number, CachedRow>());
  const rows = useMemo(() => {
    const next = new Map<number, CachedRow>();
    const out: GroupRow[] = [];
    for (const id of s.chosen) {
      const g = byId.get(id);
      if (!g) continue;
      const sums = s.sums.get(id) ?? EMPTY;
      const c = rowCache.current.get(id);
      const same =
        c && c.sums === sums && c.filter === s.filter && c.group.name === g.name && c.group.channel === g.channel;
      const row = same ? c.row : makeRow(g, sums, s.filter);
      next.set(id, { group: g, sums, filter: s.filter, row });
      out.push(row);
    }
    rowCache.current = next;
    return out;
  }, [s.chosen, byId, s.sums, s.filter]);
  const sorted = useMemo(() => sortRows(rows, sort), [rows, sort]);
  const loading = useMemo(
    () => new Set(s.chosen.filter((id) => !s.sums.has(id) && !s.failed.has(id))),
    [s.chosen, s.sums, s.failed],
  );
  // Totals only once every chosen group is in (a partial sum would climb while loading). The
  // headline counts every run of the chosen groups: the rate filter narrows the table, and the
  // scope line beside the donut says so.
  const health = useMemo(
    () =>
      s.ready
        ? overallHealth(
            rows.flatMap((r) => (s.sums.has(r.id) ? [{ counts: s.sums.get(r.id)?.counts ?? r.counts }] : [])),
          )
        : NO_HEALTH,
    [rows, s.sums, s.ready],
  );
  const scope = useMemo(
    () => headlineScope(s.date, new Date(), timeZone, i18n.locale),
    [s.date, timeZone, s.lastRefreshed, i18n.locale],
  );
  // One y-scale for every row (a bar of 1 is a third of a bar of 3 in any row); the hours still
  // to come are drawn apart from hours without runs.
  const yMax = useMemo(() => (s.ready ? sharedScaleMax(rows, s.filter) : 0), [rows, s.filter, s.ready]);
  const futureFrom = useMemo(() => firstFutureHour(s.date, new Date(), timeZone), [s.date, timeZone, s.lastRefreshed]);
  const filtered = s.filter.length !== ALL_RATES.length;
  const { setFilter } = s;
  const clearFilter = useCallback(() => setFilter(ALL_RATES), [setFilter]);
  const apps = useMemo(() => appsOfChannel(s.health ?? [], s.channel), [s.health, s.channel]);
  const openHealth = useCallback(() => setHealthOpen(true), []);
  const closeHealth = useCallback(() => setHealthOpen(false), []);
  const closeChart = useCallback(() => setChartId(null), []);
  const onSort = useCallback((k: SortKey) => setSort((cur) => nextSort(cur, k)), []);
  // What is failing now (today only; current.ts says what 'now' is): the ribbon, and the tab's
  // title and icon. The last minutes are the status strip's query (one request for both).
  const recent = useQuery({
    ...recentQuery(STRIP_MINUTES, s.runType, { background: true, quiet: true }),
    ...LIVE,
    enabled: cxwatch,
  });
  const { incidents, worst, current, counts } = useMemo(() => {
    const now = new Date();
    const p = zonedParts(now, timeZone);
    const nowHour = Number(p.hour);
    const current: CurrentWindow = cxwatch
      ? { kind: "minutes", minutes: STRIP_MINUTES }
      : { kind: "hour", hour: nowHour };
    if (!s.ready || s.date !== siteToday(now, timeZone))
      return { incidents: [] as Incident[], worst: "none" as const, current, counts: null };
    const shown = sorted.filter((r) => s.sums.has(r.id));
    const counts = currentCounts(shown, current, recent.data?.groups);
    return {
      incidents: incidentsNow(shown, counts, nowHour, Number(p.minute)),
      worst: currentWorst(counts),
      current,
      counts,
    };
  }, [sorted, s.sums, s.ready, s.date, timeZone, s.lastRefreshed, cxwatch, recent.data]);
  // Each failing group's alert state rides on the same answer (no request per group).
  const alerts = useMemo(() => alertsByGroup(recent.data?.groups), [recent.data]);
  useTabState(
    worst,
    incidents.map((i) => i.name),
  );
  const chartRow = chartId === null ? null : (rows.find((r) => r.id === chartId) ?? null);

  // A mark for the performance figure of the browser test: all chosen groups' numbers shown.
  const marked = useRef(false);
  useEffect(() => {
    if (s.ready && s.groups && !marked.current) {
      marked.current = true;
      performance.mark("cx-dashboard-ready");
    }
  }, [s.ready, s.groups]);

  const controls = (variant: ControlsProps["variant"]) => (
    <Controls
      variant={variant}
      runType={s.runType}
      onRunType={s.setRunType}
      groups={s.groups ?? NO_GROUPS}
      chosen={s.chosen}
      onChosen={s.setChosen}
      filter={s.filter}
      onFilter={s.setFilter}
      date={s.date}
      onDate={s.setDate}
      lastRefreshed={s.lastRefreshed}
      refreshing={s.refreshing}
      problem={s.problem}
      onRefresh={s.refresh}
      onMenu={variant === "main" ? setMenuOpen : undefined}
    />
  );

  if (wall) {
    // A room's screen: the tiles of the chosen groups, fitted to the screen (WallBoard.tsx).
    return (
      <Suspense fallback={null}>
        <WallBoard
          rows={sorted}
          counts={counts}
          recent={recent.data?.groups}
          window={current}
          ready={s.ready}
          lastRefreshed={s.lastRefreshed}
          maintenanceLeftOut={s.maintenanceLeftOut}
          cxwatch={cxwatch}
          sound={sound}
          onSound={(on) => setWall(true, on)}
          onLeave={() => setWall(false)}
        />
      </Suspense>
    );
  }

  return (
    <section
      class={`page dashboard ${isPhone ? "is-phone" : "is-desktop"}${wall ? " is-wall" : ""}`}
      ref={root}
      data-testid="dashboard"
      data-ready={s.ready}
      data-wall={wall}
    >
      <div class="dash-head">
        <h1 class="page-title">{t`Dashboard`}</h1>
        {wall ? <RefreshedAgo at={s.lastRefreshed} /> : null}
        {/* A wall display is a big screen: a phone is not offered the mode. */}
        {isPhone && !wall ? null : (
          <>
            <button
              type="button"
              class="button secondary wall-toggle"
              aria-pressed={wall}
              data-testid="wall-toggle"
              onClick={() => setWall(!wall)}
            >
              {wall ? t`Leave wall mode` : t`Wall mode`}
            </button>
            <button
              type="button"
              class="button secondary wall-toggle"
              data-testid="wall-sound-start"
              onClick={() => {
                // This click is the gesture browsers ask for before a page may play sound.
                unlockTone();
                setWall(true, true);
              }}
            >
              {t`Wall mode with sound`}
            </button>
          </>
        )}
      </div>
      <MaintenanceBanner enabled={cxwatch} />
      {/* An empty dashboard of a site not set up yet says where to begin. */}
      {s.ready && rows.length === 0 && !wall ? <SetUpHint /> : null}
      <MaintenanceNote count={s.maintenanceLeftOut} />
      <IncidentRibbon
        incidents={incidents}
        window={current}
        date={s.date}
        runType={s.runType}
        onOpen={setChartId}
        alerts={alerts}
      />
      {cxwatch ? (
        // The last 15 minutes come from cxwatch's groups/recent: no strip on a spec-only API.
        <StatusStrip
          chosen={s.chosen}
          runType={s.runType}
          runTypeName={s.runType === "Manual" ? t`Manual` : t`Schedule`}
          timeZone={timeZone}
          isPhone={isPhone}
          onOpen={setChartId}
        />
      ) : null}
      <div class="dash-top">
        <JourneyDiagram
          channel={s.channel}
          onChannel={s.setChannel}
          apps={apps}
          loading={s.health === null}
          isPhone={isPhone}
          onDetails={openHealth}
        />
        <OverallHealthDonut
          health={health}
          loading={!s.ready || s.failed.size > 0}
          isPhone={isPhone}
          scope={scope}
          runTypeName={s.runType === "Manual" ? t`Manual` : t`Schedule`}
          groups={rows.length}
          filtered={filtered}
          onClearFilter={clearFilter}
        />
      </div>
      {wall ? null : (
        <div class={`card controls-card${sticky && box ? " is-covered" : ""}`} data-testid="controls-card">
          {controls("main")}
        </div>
      )}
      {sticky && box ? (
        <div class="dash-sticky" style={{ left: `${box.left}px`, width: `${box.width}px` }} data-testid="sticky-bar">
          {controls("sticky")}
        </div>
      ) : null}
      <GroupTable
        rows={sorted}
        loading={loading}
        failed={s.failed}
        filter={s.filter}
        sort={sort}
        onSort={onSort}
        onOpen={setChartId}
        isPhone={isPhone}
        lazy={rows.length > LAZY_CHARTS_ABOVE}
        ready={s.ready}
        yMax={yMax}
        futureFrom={futureFrom}
      />
      <HealthStatusModal
        open={healthOpen}
        onClose={closeHealth}
        apps={apps}
        channelName={s.channel === "voice" ? t`Voice` : t`Digital`}
      />
      <GroupChartModal
        row={chartRow}
        filter={s.filter}
        date={s.date}
        runTypeName={s.runType === "Manual" ? t`Manual` : t`Schedule`}
        runType={s.runType}
        isPhone={isPhone}
        futureFrom={futureFrom}
        onClose={closeChart}
      />
    </section>
  );
}
