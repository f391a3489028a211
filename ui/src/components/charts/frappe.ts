// Thin subclasses of the two frappe-charts classes the console uses. Importing the classes from
// the library's ES sources keeps the bundle to what is needed (no heatmap, pie, line or export
// code). The subclasses draw the real data at once (no zero-first animation), leave legends to
// the surrounding HTML, and fill the tooltip with the console's own translated text.
//
// Every chart of the console is one of these two classes, and frappe-charts writes its tooltip
// (title, values, list) with innerHTML, the one place it treats text as HTML (its axis labels,
// title and legends are SVG text set with textContent). Both classes therefore escape whatever
// reaches the tooltip (escapeTooltip in tooltip.ts), whoever calls it: the console's own tooltip text and
// frappe-charts' own (a donut slice's label on hover), so no page can hand a test case name to
// it as markup.
import AxisChart from "frappe-charts/src/js/charts/AxisChart";
import type { FrappeData, FrappeOptions } from "frappe-charts/src/js/charts/BaseChart";
import DonutChart from "frappe-charts/src/js/charts/DonutChart";
import { countTicks } from "./ticks";
import { escapeTooltip } from "./tooltip";

export type { FrappeData };

export interface TooltipContent {
  title: string;
  value: string;
  list?: { title: string; value: string | number; color: string }[];
}

export interface ConsoleChartOptions extends FrappeOptions {
  /** Tooltip text for data point i (hour slot or donut slice). */
  tooltip?: (index: number) => TooltipContent;
  /** A y-axis top shared with other charts (at least this; the chart's own maximum otherwise). */
  yMax?: number;
  /** Fixed y-axis ticks, ascending (a MOS chart: 1 to 5); the lowest sits on the x-axis. */
  yTicks?: number[];
}

type Tip = {
  colors: string[];
  x: number;
  y: number;
  setValues: AxisChart["tip"]["setValues"];
  showTip(): void;
};

function showTooltip(tip: Tip, x: number, y: number, c: TooltipContent, index: number) {
  tip.colors = (c.list ?? []).map((l) => l.color);
  tip.setValues(
    x,
    y,
    { name: c.title, value: c.value },
    (c.list ?? []).map((l) => ({ title: l.title, value: l.value })),
    index,
  );
  tip.showTip();
}

export class StackedHourlyBars extends AxisChart {
  declare tooltipFn?: (index: number) => TooltipContent;
  declare yMax?: number;
  declare yTicks?: number[];

  constructor(parent: HTMLElement, options: ConsoleChartOptions) {
    super(
      parent,
      options.type === "line"
        ? { ...options, animate: 0 }
        : { ...options, type: "bar", animate: 0, barOptions: { stacked: 1, spaceRatio: 0.3 } },
    );
  }

  configure(options: ConsoleChartOptions): void {
    super.configure(options);
    this.tooltipFn = options.tooltip;
    this.yMax = options.yMax;
    this.yTicks = options.yTicks;
    this.initTimeout = 0;
  }

  setMeasures(options: FrappeOptions): void {
    super.setMeasures(options);
    this.config.showLegend = 0;
    // Tight frame: room for the y-axis numbers at the left and the hour labels below.
    const m = this.measures;
    m.legendHeight = 0;
    m.titleHeight = 0;
    m.margins.top = 4;
    m.margins.bottom = 0;
    m.margins.left = 10;
    m.margins.right = 6;
    m.paddings.top = 10;
    m.paddings.bottom = 24;
    m.paddings.left = 24;
    m.paddings.right = 4;
  }

  // Real values from the first frame.
  prepareFirstData(data: FrappeData): FrappeData {
    return data;
  }

  // The first draw already shows the real data: no second, delayed update.
  draw(onlyWidthChange = false): void {
    (AxisChart.prototype as unknown as { draw(a: boolean, b: boolean): void }).draw.call(this, onlyWidthChange, false);
  }

  renderLegend(): void {}

  makeTooltip(): void {
    super.makeTooltip();
    escapeTooltip(this.tip);
  }

  // Whole-number ticks (frappe-charts' own would give 0.25, 0.5 ... for small counts).
  calcYAxisParameters(values: number[]): void {
    const fixed = this.yTicks && this.yTicks.length > 1 ? this.yTicks : null;
    const ticks = fixed ?? countTicks(Math.max(0, this.yMax ?? 0, ...values));
    const low = fixed ? ticks[0] : 0;
    const scale = this.height / (ticks[ticks.length - 1] - low);
    // With fixed ticks the lowest sits on the x-axis: value 0 would be below it.
    const zeroLine = this.height + low * scale;
    this.state.yAxis = {
      labels: ticks,
      positions: ticks.map((v) => zeroLine - v * scale),
      scaleMultiplier: scale,
      zeroLine,
    };
    const self = this as unknown as { calcDatasetPoints(): void; calcYExtremes(): void; calcYRegions(): void };
    self.calcDatasetPoints();
    self.calcYExtremes();
    self.calcYRegions();
  }

  mapTooltipXPosition(relX: number): void {
    const s = this.state as { yExtremes?: unknown; xAxis?: { positions: number[] } };
    if (!s.yExtremes || !s.xAxis || !this.tooltipFn) return;
    let index = -1;
    let best = Infinity;
    s.xAxis.positions.forEach((p, i) => {
      const d = Math.abs(p - relX);
      if (d < best) {
        best = d;
        index = i;
      }
    });
    if (index < 0) return;
    const dbi = this.dataByIndex[index];
    showTooltip(
      this.tip as unknown as Tip,
      dbi.xPos + this.tip.offset.x,
      dbi.yExtreme + this.tip.offset.y,
      this.tooltipFn(index),
      index,
    );
  }
}

export class PlainDonut extends DonutChart {
  declare tooltipFn?: (index: number) => TooltipContent;
  declare yMax?: number;

  constructor(parent: HTMLElement, options: ConsoleChartOptions) {
    super(parent, options);
  }

  configure(options: ConsoleChartOptions): void {
    super.configure(options);
    this.tooltipFn = options.tooltip;
    this.yMax = options.yMax;
  }

  setMeasures(options: FrappeOptions): void {
    super.setMeasures(options);
    this.config.showLegend = 0;
    // The ring fills its box: no room kept for axes, title or legend.
    const m = this.measures;
    m.legendHeight = 0;
    m.titleHeight = 0;
    for (const side of ["top", "bottom", "left", "right"]) {
      m.margins[side] = 0;
      m.paddings[side] = 0;
    }
  }

  renderLegend(): void {}

  makeTooltip(): void {
    super.makeTooltip();
    escapeTooltip(this.tip);
  }

  hoverSlice(path: SVGElement | null, i: number, flag: boolean, e?: MouseEvent): void {
    const base = DonutChart.prototype as unknown as {
      hoverSlice(p: SVGElement | null, i: number, f: boolean, e?: MouseEvent): void;
    };
    base.hoverSlice.call(this, path, i, flag, e);
    if (path && flag && this.tooltipFn) {
      const tip = this.tip as unknown as Tip;
      showTooltip(tip, tip.x, tip.y, this.tooltipFn(i), i);
    }
  }
}
