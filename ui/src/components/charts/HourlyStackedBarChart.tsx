// A 24-hour stacked bar chart (frappe-charts 'bar', stacked). With `lazy`, the chart is drawn
// only once its box comes near the viewport, so a dashboard with many groups stays quick.
//
// Bars of named things (`names`: a report's test cases or segments) get their labels in HTML
// under the plot instead of frappe-charts' axis text, which drops every other label (or more)
// as soon as one name is longer than its slot: each bar's name wraps on up to
// three lines in its own column, with its second line (a segment's test case) beneath; on a
// chart too narrow for that, the bars are numbered and a key below names each one.
import { useEffect, useRef, useState } from "react";
import type { StackedHourlyBars, TooltipContent } from "./frappe";
import { loadFrappe } from "./loadFrappe";
import "./charts.css";

export interface HourlySeries {
  name: string;
  color: string;
  values: number[];
}

export interface HourlyStackedBarChartProps {
  labels: string[];
  series: HourlySeries[];
  height: number;
  tooltip: (index: number) => TooltipContent;
  lazy?: boolean;
  class?: string;
  /** Shared y-axis top (see ConsoleChartOptions.yMax). */
  yMax?: number;
  /** Slots from this index on are still to come: shaded apart, with a 'now' line before them. */
  futureFrom?: number;
  /** What each series is, for its pattern (failure hatched, warning dotted): status not by colour alone. */
  kinds?: string[];
  /** aria-hidden on the whole chart. */
  hidden?: boolean;
  /** Lines instead of stacked bars (a MOS chart). */
  line?: boolean;
  /** Fixed y-axis ticks (MOS: 1 to 5). */
  yTicks?: number[];
  /** A click on a bar segment: its slot index and series index (in `series`). */
  onBarClick?: (index: number, series: number) => void;
  /** Bars of named things: one label per bar (`name`, and `detail` beneath it), in HTML. */
  names?: BarName[];
}

export interface BarName {
  name: string;
  /** A second line: what the name belongs to (a segment's test case). */
  detail?: string;
}

/** Labels of named bars, one column per bar over the plot's width, and their numbered key. */
function BarNames({ names }: { names: BarName[] }) {
  return (
    <div class="cx-bar-names" data-testid="chart-bar-names">
      <ol class="cx-bar-labels" aria-hidden="true" style={{ "--n": names.length } as Record<string, number>}>
        {names.map((b, i) => (
          <li key={`${i}-${b.name}`} class="cx-bar-label" data-testid="chart-bar-label" title={full(b)}>
            <span class="cx-bar-num" aria-hidden="true">
              {i + 1}
            </span>
            <span class="cx-bar-name">{b.name}</span>
            {b.detail ? <span class="cx-bar-detail">{b.detail}</span> : null}
          </li>
        ))}
      </ol>
      <ol class="cx-bar-key" data-testid="chart-bar-key">
        {names.map((b, i) => (
          <li key={`${i}-${b.name}`}>{full(b)}</li>
        ))}
      </ol>
    </div>
  );
}

const full = (b: BarName) => (b.detail ? `${b.name} · ${b.detail}` : b.name);

/** The slot and series of a clicked bar segment of a frappe-charts bar chart, if it was one. */
export function barAt(target: EventTarget | null): { index: number; series: number } | null {
  const el = target instanceof Element ? target : null;
  const bar = el?.closest("[data-point-index]");
  const layer = bar?.closest(".dataset-units");
  const m = layer ? /dataset-(\d+)/.exec(layer.getAttribute("class") ?? "") : null;
  const index = Number(bar?.getAttribute("data-point-index"));
  if (!m || !Number.isInteger(index)) return null;
  return { index, series: Number(m[1]) };
}

/** One observer for every lazy chart (a hundred rows would otherwise make a hundred). */
let nearObserver: IntersectionObserver | null = null;
const nearCallbacks = new WeakMap<Element, () => void>();

function observeNear(el: Element, onNear: () => void): () => void {
  if (!nearObserver) {
    nearObserver = new IntersectionObserver(
      (entries) => {
        for (const e of entries) {
          if (!e.isIntersecting) continue;
          nearObserver?.unobserve(e.target);
          const cb = nearCallbacks.get(e.target);
          nearCallbacks.delete(e.target);
          cb?.();
        }
      },
      { rootMargin: "300px 0px" },
    );
  }
  nearCallbacks.set(el, onNear);
  nearObserver.observe(el);
  return () => {
    nearCallbacks.delete(el);
    nearObserver?.unobserve(el);
  };
}

function useNearViewport(ref: { current: HTMLElement | null }, enabled: boolean): boolean {
  const [seen, setSeen] = useState(!enabled);
  useEffect(() => {
    if (!enabled || seen) return;
    const el = ref.current;
    if (!el || typeof IntersectionObserver !== "function") {
      setSeen(true);
      return;
    }
    return observeNear(el, () => setSeen(true));
  }, [enabled, seen]);
  return seen;
}

export function HourlyStackedBarChart(props: HourlyStackedBarChartProps) {
  const box = useRef<HTMLDivElement>(null);
  const chart = useRef<StackedHourlyBars | null>(null);
  const tooltip = useRef(props.tooltip);
  tooltip.current = props.tooltip;
  const visible = useNearViewport(box, !!props.lazy);

  // frappe-charts needs at least one dataset.
  const series = props.series.length
    ? props.series
    : [{ name: "", color: "#adb5bd", values: props.labels.map(() => 0) }];
  // Named bars are labelled in HTML (BarNames): frappe-charts' own axis text is left empty.
  const labels = props.names ? props.labels.map(() => "") : props.labels;
  const data = { labels, datasets: series.map((s) => ({ name: s.name, values: s.values })) };
  const colors = series.map((s) => s.color);
  const key = JSON.stringify([data, colors, props.height, props.yMax ?? 0, !!props.line, props.yTicks ?? null]);

  useEffect(() => {
    const el = box.current;
    if (!visible || !el) return;
    let gone = false;
    void loadFrappe().then((frappe) => {
      if (gone) return;
      chart.current = new frappe.StackedHourlyBars(el, {
        data,
        colors,
        type: props.line ? "line" : "bar",
        yTicks: props.yTicks,
        height: props.height,
        axisOptions: { xIsSeries: 1, xAxisMode: "tick", yAxisMode: "span" },
        tooltip: (i) => tooltip.current(i),
        yMax: props.yMax,
      });
      el.dataset.drawn = "true";
    });
    return () => {
      gone = true;
      chart.current?.destroy();
      chart.current = null;
      delete el.dataset.drawn;
    };
    // The chart is rebuilt when what it shows changes.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [visible, key]);

  const n = props.labels.length;
  const future = props.futureFrom !== undefined && props.futureFrom < n ? Math.max(0, props.futureFrom) : null;
  const kinds: Record<string, string> = {};
  (props.kinds ?? []).forEach((k, i) => {
    kinds[`data-s${i}`] = k;
  });
  return (
    <div
      class="cx-chart-frame"
      style={{ minHeight: `${props.height}px` }}
      aria-hidden={props.hidden ? "true" : undefined}
    >
      {/* biome-ignore lint/a11y/useKeyWithClickEvents lint/a11y/noStaticElementInteractions: a pointer shortcut; the screen that passes onBarClick offers the same links as buttons */}
      <div
        ref={box}
        class={[props.class ? `cx-chart ${props.class}` : "cx-chart", props.onBarClick ? "cx-clickable" : ""]
          .join(" ")
          .trim()}
        style={{ minHeight: `${props.height}px` }}
        onClick={
          props.onBarClick
            ? (e) => {
                const hit = barAt(e.target);
                if (hit) props.onBarClick?.(hit.index, hit.series);
              }
            : undefined
        }
        {...kinds}
      />
      {future !== null ? (
        <div
          class="cx-future"
          aria-hidden="true"
          data-testid="chart-future"
          style={{ "--from": future / n, "--plot-h": `${props.height - 38}px` } as Record<string, string | number>}
        >
          {future > 0 ? <span class="cx-now" /> : null}
        </div>
      ) : null}
      {props.names ? <BarNames names={props.names} /> : null}
    </div>
  );
}
