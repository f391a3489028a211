// A donut (frappe-charts 'donut') of a few shares. With nothing to show (all zero) it draws an
// empty grey ring instead, since a donut of nothing has no slices.
import type { ComponentChildren } from "preact";
import { useEffect, useRef } from "react";
import { DISABLED_COLOR } from "./colors";
import type { PlainDonut, TooltipContent } from "./frappe";
import { loadFrappe } from "./loadFrappe";
import "./charts.css";

export interface DonutSlice {
  label: string;
  value: number;
  color: string;
}

export interface DonutChartProps {
  slices: DonutSlice[];
  height: number;
  tooltip: (index: number) => TooltipContent;
  /** Shown in the hole. */
  children?: ComponentChildren;
}

export function DonutChart({ slices, height, tooltip, children }: DonutChartProps) {
  const box = useRef<HTMLDivElement>(null);
  const tip = useRef(tooltip);
  tip.current = tooltip;
  const empty = slices.every((s) => s.value <= 0);
  const key = JSON.stringify([slices, height]);

  useEffect(() => {
    const el = box.current;
    if (!el || empty) return;
    let gone = false;
    let c: PlainDonut | null = null;
    void loadFrappe().then((frappe) => {
      if (gone) return;
      c = new frappe.PlainDonut(el, {
        type: "donut",
        animate: 0,
        height,
        strokeWidth: 20,
        colors: slices.map((s) => s.color),
        data: { labels: slices.map((s) => s.label), datasets: [{ values: slices.map((s) => s.value) }] },
        tooltip: (i) => tip.current(i),
      });
    });
    return () => {
      gone = true;
      c?.destroy();
      el.innerHTML = "";
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key, empty]);

  const ring = height;
  return (
    <div class="cx-donut" style={{ height: `${height}px` }}>
      {empty ? (
        <svg class="cx-donut-empty" width={ring} height={ring} viewBox="0 0 100 100" aria-hidden="true">
          <circle cx="50" cy="50" r="44" fill="none" stroke={DISABLED_COLOR} stroke-width="10" opacity="0.45" />
        </svg>
      ) : (
        <div ref={box} class="cx-donut-chart" />
      )}
      <div class="cx-donut-hole">{children}</div>
    </div>
  );
}
