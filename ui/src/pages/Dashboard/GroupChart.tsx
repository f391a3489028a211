// The 24-hour stacked chart of one group, as in the table (`mini`: plain SVG, cheap enough
// for a hundred rows) and in the large chart modal (frappe-charts, with its bars clickable).
import { useLingui } from "@lingui/react/macro";
import { FAILURE_COLOR, NEUTRAL_COLOR, PASS_COLOR, WARNING_COLOR } from "../../components/charts/colors";
import { HourlyStackedBarChart } from "../../components/charts/HourlyStackedBarChart";
import { MiniBarChart } from "../../components/charts/MiniBarChart";
import { type Counts, hourLabels, timeSlotLabel } from "./hourly";
import { type RateIndex, STATUS_KEYS } from "./rows";

const LABELS = hourLabels();
const COLORS = [PASS_COLOR, WARNING_COLOR, FAILURE_COLOR];
const KINDS = ["pass", "warning", "failure"];
/** Marks beside the colours in the legend and the tooltip: status not by colour alone. */
export const STATUS_MARKS = ["✓", "▲", "✖"];

export function GroupChart({
  hours,
  filter,
  height,
  mini,
  eager,
  yMax,
  futureFrom,
  hidden,
  onBar,
}: {
  hours: Counts[];
  filter: RateIndex[];
  height: number;
  /** The table's small chart (MiniBarChart); without it, the modal's frappe-charts chart. */
  mini?: boolean;
  /** A small chart drawn at once, not in its turn (the first rows). */
  eager?: boolean;
  /** Shared y-axis top across the rows. */
  yMax?: number;
  /** First hour still to come (24 for a past day). */
  futureFrom?: number;
  /** Hidden from assistive technology (inside a button that names it). */
  hidden?: boolean;
  /** A click on a bar segment: its hour and rate. */
  onBar?: (hour: number, rate: RateIndex) => void;
}) {
  const { t, i18n } = useLingui();
  const names = [t`Pass`, t`Warning`, t`Failure`];
  const series = filter.map((r) => ({ name: names[r], color: COLORS[r], values: hours.map((h) => h[STATUS_KEYS[r]]) }));
  const tooltip = (i: number) => {
    const h = hours[i];
    const total = filter.reduce<number>((a, r) => a + h[STATUS_KEYS[r]], 0);
    return {
      title: `${t`Time Slot:`} `,
      value: timeSlotLabel(i),
      list: [
        { title: t`Test Case Runs`, value: i18n.number(total), color: NEUTRAL_COLOR },
        ...filter.map((r) => ({
          title: `${STATUS_MARKS[r]} ${names[r]}`,
          value: i18n.number(h[STATUS_KEYS[r]]),
          color: COLORS[r],
        })),
      ],
    };
  };
  const kinds = filter.map((r) => KINDS[r]);
  if (mini)
    return (
      <MiniBarChart
        labels={LABELS}
        series={series}
        height={height}
        eager={eager}
        yMax={yMax}
        futureFrom={futureFrom}
        hidden={hidden}
        kinds={kinds}
        tooltip={tooltip}
      />
    );
  return (
    <HourlyStackedBarChart
      labels={LABELS}
      series={series}
      height={height}
      yMax={yMax}
      futureFrom={futureFrom}
      hidden={hidden}
      onBarClick={onBar ? (i, s) => onBar(i, filter[s]) : undefined}
      kinds={kinds}
      tooltip={tooltip}
    />
  );
}

export function ChartLegend({ filter }: { filter: RateIndex[] }) {
  const { t } = useLingui();
  const names = [t`Pass`, t`Warning`, t`Failure`];
  return (
    <ul class="chart-legend-html">
      {filter.map((r) => (
        <li key={r}>
          <span class={`dot dot-${KINDS[r]}`} style={{ background: COLORS[r] }} aria-hidden="true" />
          <span aria-hidden="true">{STATUS_MARKS[r]}</span> {names[r]}
        </li>
      ))}
    </ul>
  );
}
