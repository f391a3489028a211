// Wall mode's screen, for a room: every chosen group as a tile, its name and its state now in
// type read from 3 m, as many tiles as fit the screen without scrolling, the pages turning every
// ROTATE_MS when there are more ('Page 2 of 3'); what is in maintenance folded into one line; a
// group that starts failing turns the screen's frame red until it recovers and, when the wall
// was started with sound, plays a short tone (tone.ts). Its rules are wall.ts's.
import { plural } from "@lingui/core/macro";
import { useLingui } from "@lingui/react/macro";
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from "react";
import { useMaintenanceNow } from "../../api/queries/maintenance";
import { formatSiteTime } from "../../lib/siteTime";
import { useSiteTimeZone } from "../../lib/tenant";
import { useWindowReason } from "../Maintenance/parts";
import { covers } from "../Maintenance/rules";
import type { CurrentWindow } from "./current";
import { Flash } from "./Flash";
import type { Counts } from "./hourly";
import { percentText } from "./percentages";
import type { GroupRow } from "./rows";
import type { RecentCounts } from "./strip";
import { playTone, tonesPlayed, unlockTone } from "./tone";
import { RefreshedAgo } from "./WallMode";
import {
  nextPage,
  pageCount,
  pageItems,
  pageOf,
  startedFailing,
  stillAlarmed,
  type Tile,
  type TileState,
  tilesPerPage,
  wallTiles,
} from "./wall";

/** How long a page of tiles stays before the next one. */
export const ROTATE_MS = 15_000;
/** A tile is at least this many of its own type's ems wide. */
const TILE_MIN_EM = 15;

const ICON: Record<TileState, string> = { failure: "✖", warning: "▲", pass: "✔", maintenance: "⚙", none: "–" };

export interface WallBoardProps {
  rows: readonly GroupRow[];
  counts: ReadonlyMap<number, Counts> | null;
  recent: readonly RecentCounts[] | undefined;
  window: CurrentWindow;
  ready: boolean;
  lastRefreshed: Date | null;
  maintenanceLeftOut: number;
  cxwatch: boolean;
  sound: boolean;
  onSound: (on: boolean) => void;
  onLeave: () => void;
}

export function WallBoard(p: WallBoardProps) {
  const { t, i18n } = useLingui();
  const tiles = useMemo(() => wallTiles(p.rows, p.counts, p.recent), [p.rows, p.counts, p.recent]);
  const grid = useRef<HTMLUListElement>(null);
  const [perPage, setPerPage] = useState(12);
  const [page, setPage] = useState(0);
  const pages = pageCount(tiles.length, perPage);

  // As many tiles as fit: the grid's box, a tile's height and the type's size, measured again
  // whenever the screen's size changes.
  useLayoutEffect(() => {
    const el = grid.current;
    if (!el) return;
    const measure = () => {
      const style = getComputedStyle(el);
      const em = parseFloat(style.fontSize) || 24;
      const gap = parseFloat(style.rowGap) || 0;
      const first = el.querySelector<HTMLElement>(".wall-tile");
      const height = first ? first.offsetHeight : em * 4.4;
      const fit = tilesPerPage(
        { width: el.clientWidth, height: el.clientHeight },
        { minWidth: em * TILE_MIN_EM, height },
        gap,
      );
      el.style.setProperty("--wall-cols", String(fit.cols));
      setPerPage(fit.perPage);
    };
    measure();
    const ro = typeof ResizeObserver === "function" ? new ResizeObserver(measure) : null;
    ro?.observe(el);
    return () => ro?.disconnect();
  }, [tiles.length > 0]);

  // The pages turn in turn; a page brought up by an alarm stays its full time (`held`).
  const [held, setHeld] = useState(0);
  useEffect(() => {
    if (pages <= 1) {
      setPage(0);
      return;
    }
    const timer = setInterval(() => setPage((n) => nextPage(n, pages)), ROTATE_MS);
    return () => clearInterval(timer);
  }, [pages, held]);

  // A group that starts failing: the frame turns red (until each such group recovers), the page
  // that shows it comes up, and the tone plays when the wall has sound.
  const before = useRef<Map<number, TileState> | null>(null);
  const [alarmed, setAlarmed] = useState<Set<number>>(() => new Set());
  const [tones, setTones] = useState(tonesPlayed());
  useEffect(() => {
    if (!p.ready || !p.counts) return;
    const started = startedFailing(before.current, tiles);
    before.current = new Map(tiles.map((x) => [x.id, x.state]));
    setAlarmed((cur) => stillAlarmed(new Set([...cur, ...started]), tiles));
    if (started.length) {
      const at = pageOf(tiles, started[0], perPage);
      if (at >= 0) {
        setPage(at);
        setHeld((n) => n + 1);
      }
      if (p.sound && playTone()) setTones(tonesPlayed());
    }
  }, [tiles, p.ready, p.counts]);

  const shown = pageItems(tiles, page, perPage);
  const alarmNames = tiles.filter((x) => alarmed.has(x.id)).map((x) => x.name);
  const tally = (s: TileState) => tiles.filter((x) => x.state === s).length;
  const failing = tally("failure");
  const warning = tally("warning");
  const passing = tally("pass");
  const idle = tally("none") + tally("maintenance");
  const minutes = p.window.kind === "minutes" ? p.window.minutes : 0;
  const pageNo = Math.min(page, pages - 1) + 1;

  return (
    <section
      class={`page dashboard is-wall wall-board${alarmed.size ? " is-alarm" : ""}`}
      data-testid="dashboard"
      data-ready={p.ready}
      data-wall="true"
      data-counts={p.counts ? "in" : "waiting"}
    >
      <div
        class="wall-frame"
        aria-hidden="true"
        data-testid="wall-frame"
        data-alarm={alarmed.size > 0 ? "true" : "false"}
        data-tones={tones}
      />
      <div class="wall-head">
        <h1 class="page-title">{t`Dashboard`}</h1>
        <RefreshedAgo at={p.lastRefreshed} />
        {pages > 1 ? (
          <span class="wall-page" data-testid="wall-page" data-page={pageNo} data-pages={pages}>
            {t`Page ${pageNo} of ${pages}`}
          </span>
        ) : null}
        <span class="wall-head-actions">
          <button
            type="button"
            class="button secondary wall-sound"
            aria-pressed={p.sound}
            data-testid="wall-sound"
            onClick={() => {
              // The click is the gesture that lets the page play sound.
              if (!p.sound) unlockTone();
              p.onSound(!p.sound);
            }}
          >
            {p.sound ? t`Sound on` : t`Sound off`}
          </button>
          <button
            type="button"
            class="button secondary wall-toggle"
            aria-pressed="true"
            data-testid="wall-toggle"
            onClick={p.onLeave}
          >
            {t`Leave wall mode`}
          </button>
        </span>
      </div>
      {alarmNames.length ? (
        <p class="wall-alarm" role="alert" data-testid="wall-alarm">
          <span aria-hidden="true">✖ </span>
          {(() => {
            const names = alarmNames.join(", ");
            return t`Started failing: ${names}`;
          })()}
        </p>
      ) : null}
      <WallMaintenance enabled={p.cxwatch} leftOut={p.maintenanceLeftOut} />
      <p class="wall-summary" data-testid="wall-summary">
        <span class="wall-summary-when">{minutes ? t`Last ${minutes} min:` : t`This hour:`}</span>{" "}
        <span class="wall-count is-failure" data-testid="wall-failing" data-count={failing}>
          {plural(failing, { one: "# group failing", other: "# groups failing" })}
        </span>
        <span class="wall-count is-warning">
          {plural(warning, { one: "# with warnings", other: "# with warnings" })}
        </span>
        <span class="wall-count is-pass">{plural(passing, { one: "# passing", other: "# passing" })}</span>
        <span class="wall-count is-none">{plural(idle, { one: "# without runs", other: "# without runs" })}</span>
      </p>
      <ul class="wall-grid" ref={grid} data-testid="wall-grid" data-per-page={perPage}>
        {shown.map((tile) => (
          <WallTile key={tile.id} tile={tile} locale={i18n.locale} />
        ))}
      </ul>
    </section>
  );
}

function WallTile({ tile, locale }: { tile: Tile; locale: string }) {
  const { t } = useLingui();
  const runs = tile.now.success + tile.now.warning + tile.now.failure;
  const failed = tile.now.failure;
  const warned = tile.now.warning;
  const inWindow = tile.maintenance;
  const state =
    tile.state === "failure"
      ? t`Failing: ${failed} of ${runs}`
      : tile.state === "warning"
        ? t`Warnings: ${warned} of ${runs}`
        : tile.state === "pass"
          ? t`Passing: ${runs} of ${runs}`
          : tile.state === "maintenance"
            ? plural(inWindow, { one: "Maintenance: # run", other: "Maintenance: # runs" })
            : t`No runs`;
  const today = tile.today;
  const passed = today ? percentText(Math.round((tile.todayPassed / today) * 100), locale) : "";
  return (
    <li
      class={`wall-tile is-${tile.state}`}
      data-testid="group-row"
      data-group-id={tile.id}
      data-state={tile.state}
      data-count={today}
    >
      <span class="wall-tile-name" data-testid="group-name" title={tile.name}>
        <span class="wall-icon" aria-hidden="true">
          {ICON[tile.state]}
        </span>{" "}
        {tile.name}
      </span>
      <span class="wall-tile-state" data-testid="wall-state">
        {state}
      </span>
      <span class="wall-tile-today">
        <Flash value={today}>{plural(today, { one: "Today: # run", other: "Today: # runs" })}</Flash>
        {passed ? ` · ${t`${passed} passed`}` : ""}
      </span>
    </li>
  );
}

/** Every maintenance line in one: the windows now, the next one, the runs left out. */
function WallMaintenance({ enabled, leftOut }: { enabled: boolean; leftOut: number }) {
  const { t, i18n } = useLingui();
  const zone = useSiteTimeZone();
  const now = useMaintenanceNow(enabled);
  const reasonOf = useWindowReason();
  const active = now.data?.active ?? [];
  const next = now.data?.next?.[0];
  const parts: string[] = [];
  if (active.length) {
    const list = active.map((w) => `${covers(w)} (${reasonOf(w)})`).join("; ");
    parts.push(t`Maintenance now: ${list}`);
  }
  if (next) {
    const what = covers(next);
    const at = next.nextStartTime ? formatSiteTime(next.nextStartTime, zone, i18n.locale).slice(0, 16) : "";
    parts.push(t`next: ${what} at ${at}`);
  }
  if (leftOut > 0)
    parts.push(plural(leftOut, { one: "# run left out of the rates", other: "# runs left out of the rates" }));
  if (!parts.length) return null;
  const text = parts.join(" · ");
  return (
    <p class="wall-maintenance" data-testid="wall-maintenance" title={text}>
      <span aria-hidden="true">⚙ </span>
      {text}
    </p>
  );
}
