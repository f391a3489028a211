// Types for the parts of frappe-charts' ES sources the console imports directly (only the
// chart classes it uses are bundled, not the whole library).

declare module "frappe-charts/src/js/charts/BaseChart" {
  export interface FrappeDataset {
    name?: string;
    values: number[];
    chartType?: string;
  }
  export interface FrappeData {
    labels: string[];
    datasets: FrappeDataset[];
  }
  export interface FrappeOptions {
    data: FrappeData;
    type?: string;
    title?: string;
    height?: number;
    colors?: string[];
    animate?: 0 | 1 | boolean;
    isNavigable?: 0 | 1 | boolean;
    truncateLegends?: 0 | 1 | boolean;
    barOptions?: { stacked?: 0 | 1 | boolean; spaceRatio?: number };
    axisOptions?: {
      xAxisMode?: "span" | "tick";
      yAxisMode?: "span" | "tick";
      xIsSeries?: 0 | 1 | boolean;
      shortenYAxisNumbers?: 0 | 1 | boolean;
    };
    tooltipOptions?: { formatTooltipX?: (v: string) => string; formatTooltipY?: (v: number) => string };
    maxSlices?: number;
    strokeWidth?: number;
    startAngle?: number;
    clockWise?: boolean;
  }
  export interface SvgTip {
    colors: string[];
    offset: { x: number; y: number };
    setValues(
      x: number,
      y: number,
      title: { name: string; value: string | number; valueFirst?: 0 | 1 },
      list: { title?: string; value?: number | string; formatted?: string | number }[],
      index?: number,
    ): void;
    showTip(): void;
    hideTip(): void;
  }
  export default class BaseChart {
    constructor(parent: HTMLElement, options: FrappeOptions);
    parent: HTMLElement;
    container: HTMLElement;
    tip: SvgTip;
    colors: string[];
    config: Record<string, unknown>;
    measures: {
      legendHeight: number;
      titleHeight: number;
      paddings: Record<string, number>;
      margins: Record<string, number>;
    };
    initTimeout: number;
    height: number;
    state: Record<string, unknown>;
    data: FrappeData;
    configure(options: FrappeOptions): void;
    setMeasures(options: FrappeOptions): void;
    renderLegend(): void;
    /** Makes `tip`, the tooltip (an HTML element frappe-charts fills with innerHTML). */
    makeTooltip(): void;
    update(data: FrappeData): void;
    destroy(): void;
  }
}

declare module "frappe-charts/src/js/charts/AxisChart" {
  import BaseChart from "frappe-charts/src/js/charts/BaseChart";
  export default class AxisChart extends BaseChart {
    dataByIndex: { xPos: number; yExtreme: number; formattedLabel: string; values: unknown[] }[];
    mapTooltipXPosition(relX: number): void;
  }
}

declare module "frappe-charts/src/js/charts/DonutChart" {
  import BaseChart from "frappe-charts/src/js/charts/BaseChart";
  export default class DonutChart extends BaseChart {}
}

declare module "frappe-charts/src/js/objects/SvgTip" {
  import type { SvgTip as Tip } from "frappe-charts/src/js/charts/BaseChart";

  /** The tooltip element (used directly only by tests). */
  const SvgTip: new (o: { parent: HTMLElement; colors?: string[] }) => Tip & { container: HTMLElement };
  export default SvgTip;
}
