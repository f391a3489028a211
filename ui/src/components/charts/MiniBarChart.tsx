// A small 24-slot stacked bar chart drawn as plain SVG by Preact: the dashboard's row charts,
// a hundred of them on one page. It shows what HourlyStackedBarChart (frappe-charts) shows in
// the same frame (whole-number y ticks from a shared top, hour labels, failure hatched and
// warning dotted, the hours to come shaded after a 'now' line, a tooltip per slot), for a
// fraction of the cost: one element per bar segment, no measuring, no library object.
//
// x positions are percentages of the plot, so the chart needs no width and follows its box;
// y positions are pixels of the fixed height. Charts near the window are drawn at once, the
// others a few at a time while the browser is idle (drawQueue.ts): every chart is drawn soon
// after the page settles, without holding up the numbers and the charts in view.
import { useEffect, useLayoutEffect, useRef, useState } from "react";
import { type DrawTicket, drawSoon } from "./drawQueue";
import type { HourlySeries } from "./HourlyStackedBarChart";
import { countTicks } from "./ticks";
import "./charts.css";

export interface TooltipText {
  title: string;
  value: string;
  list?: { title: string; value: string | number; color: string }[];
}

export interface MiniBarChartProps {
  /** One label per slot ('00' .. '23'). */
  labels: string[];
  series: HourlySeries[];
  height: number;
  tooltip: (index: number) => TooltipText;
  /** Shared y-axis top (at least this; the chart's own maximum otherwise). */
  yMax?: number;
  /** Slots from this index on are still to come: shaded apart, with a 'now' line before them. */
  futureFrom?: number;
  /** What each series is, for its pattern (failure hatched, warning dotted). */
  kinds?: string[];
  /** aria-hidden on the whole chart. */
  hidden?: boolean;
  /** Drawn in the first render, without waiting for its turn (the first rows of a table). */
  eager?: boolean;
}

/** The frame of frappe-charts' bar charts of the console (frappe.ts, setMeasures). */
const PLOT_LEFT = 34;
const PLOT_RIGHT = 10;
const PLOT_TOP = 14;
/** Room under the plot for the hour labels. */
const PLOT_BOTTOM = 24;
/** Share of a slot left between bars (frappe's spaceRatio). */
const SPACE = 0.3;

const pct = (v: number) => `${Math.round(v * 10000) / 100}%`;

function Bars({ labels, series, height, yMax }: Pick<MiniBarChartProps, "labels" | "series" | "height" | "yMax">) {
  const n = labels.length;
  const plotH = height - PLOT_TOP - PLOT_BOTTOM;
  let own = 0;
  for (let i = 0; i < n; i++) {
    let sum = 0;
    for (const s of series) sum += s.values[i] ?? 0;
    if (sum > own) own = sum;
  }
  const ticks = countTicks(Math.max(own, yMax ?? 0));
  const top = ticks[ticks.length - 1] || 1;
  const scale = plotH / top;
  const base = new Array<number>(n).fill(0);
  const barW = pct((1 - SPACE) / n);
  // Hour labels: every one, in smaller type on a narrower plot (CSS hides every other one only
  // where even that would touch, as frappe-charts skips labels that would).
  return (
    <>
      <g class="cx-mini-y">
        {ticks.map((v) => {
          const y = plotH - v * scale;
          return (
            <g key={v}>
              <line x1="0" x2="100%" y1={y} y2={y} />
              <text x="-6" y={y} dy="0.32em">
                {v}
              </text>
            </g>
          );
        })}
      </g>
      {series.map((s, k) => (
        <g key={s.name || k} class={`dataset-units dataset-${k}`} fill={s.color}>
          {s.values.map((v, i) => {
            const y0 = base[i];
            base[i] += v ?? 0;
            if (!v || v <= 0) return null;
            return (
              <rect
                key={i}
                x={pct((i + SPACE / 2) / n)}
                y={plotH - (y0 + v) * scale}
                width={barW}
                height={Math.max(1, v * scale)}
              />
            );
          })}
        </g>
      ))}
      <g class="cx-mini-x">
        {labels.map((l, i) => (
          <text key={l} x={pct((i + 0.5) / n)} y={plotH + 16} class={i % 2 ? "odd" : undefined}>
            {l}
          </text>
        ))}
      </g>
    </>
  );
}

function Tip({ content, index, n }: { content: TooltipText; index: number; n: number }) {
  const tip = useRef<HTMLDivElement>(null);
  // Centred over its slot, kept inside the chart's box as frappe-charts keeps its own (the
  // pointer still under the slot): measured once drawn, before it is painted.
  useLayoutEffect(() => {
    const el = tip.current;
    const frame = el?.parentElement;
    if (!el || !frame) return;
    const w = el.offsetWidth;
    const x = PLOT_LEFT + ((frame.clientWidth - PLOT_LEFT - PLOT_RIGHT) * (index + 0.5)) / n;
    const left = Math.max(0, Math.min(x - w / 2, frame.clientWidth - w));
    el.style.left = `${left}px`;
    el.style.visibility = "visible";
    const pointer = el.querySelector<HTMLElement>(".svg-pointer");
    if (pointer) pointer.style.left = `${x - left}px`;
  });
  return (
    <div ref={tip} class="graph-svg-tip comparison cx-mini-tip" style={{ left: 0, visibility: "hidden" }}>
      <span class="title">
        {content.title}
        <strong>{content.value}</strong>
      </span>
      <ul class="data-point-list">
        {(content.list ?? []).map((l) => (
          <li key={l.title} style={{ borderTop: `3px solid ${l.color}` }}>
            <strong style={{ display: "block" }}>{l.value}</strong>
            {l.title}
          </li>
        ))}
      </ul>
      <div class="svg-pointer" />
    </div>
  );
}

export function MiniBarChart(props: MiniBarChartProps) {
  const box = useRef<HTMLDivElement>(null);
  const [drawn, setDrawn] = useState(!!props.eager);
  const [hover, setHover] = useState<number | null>(null);
  const ticket = useRef<DrawTicket | null>(null);

  // Not drawn yet: drawn as soon as it nears the window, or when its turn comes in idle time.
  useLayoutEffect(() => {
    if (drawn) return;
    const el = box.current;
    if (!el) return;
    ticket.current = drawSoon(el, () => setDrawn(true));
    return () => ticket.current?.cancel();
  }, [drawn]);
  useEffect(() => {
    if (props.eager && !drawn) setDrawn(true);
  }, [props.eager, drawn]);

  const n = props.labels.length;
  const series = props.series.length
    ? props.series
    : [{ name: "", color: "#adb5bd", values: props.labels.map(() => 0) }];
  const kinds: Record<string, string> = {};
  (props.kinds ?? []).forEach((k, i) => {
    kinds[`data-s${i}`] = k;
  });
  const future = props.futureFrom !== undefined && props.futureFrom < n ? Math.max(0, props.futureFrom) : null;
  const plotH = props.height - PLOT_TOP - PLOT_BOTTOM;

  const onMove = (e: PointerEvent) => {
    const r = (e.currentTarget as HTMLElement).getBoundingClientRect();
    const w = r.width - PLOT_LEFT - PLOT_RIGHT;
    const i = Math.floor(((e.clientX - r.left - PLOT_LEFT) / w) * n);
    setHover(i >= 0 && i < n ? i : null);
  };

  return (
    <div
      class="cx-chart-frame cx-mini"
      style={{ height: `${props.height}px` }}
      aria-hidden={props.hidden ? "true" : undefined}
      onPointerMove={drawn ? onMove : undefined}
      onPointerLeave={() => setHover(null)}
    >
      <div ref={box} class="cx-chart" data-drawn={drawn ? "true" : undefined} {...kinds}>
        {drawn ? (
          <svg
            class="cx-mini-svg"
            style={{
              left: `${PLOT_LEFT}px`,
              top: `${PLOT_TOP}px`,
              width: `calc(100% - ${PLOT_LEFT + PLOT_RIGHT}px)`,
              height: `${plotH}px`,
            }}
            aria-hidden="true"
            focusable="false"
          >
            <Bars labels={props.labels} series={series} height={props.height} yMax={props.yMax} />
          </svg>
        ) : null}
      </div>
      {future !== null ? (
        <div
          class="cx-future"
          aria-hidden="true"
          data-testid="chart-future"
          style={{ "--from": future / n, "--plot-h": `${plotH}px` } as Record<string, string | number>}
        >
          {future > 0 ? <span class="cx-now" /> : null}
        </div>
      ) : null}
      {drawn && hover !== null ? <Tip content={props.tooltip(hover)} index={hover} n={n} /> : null}
    </div>
  );
}
