// The 24-hour stacked chart of one group, as in the table and in the large chart modal.
import { useLingui } from "@lingui/react/macro";
import { FAILURE_COLOR, NEUTRAL_COLOR, PASS_COLOR, WARNING_COLOR } from "../../components/charts/colors";
import { HourlyStackedBarChart } from "../../components/charts/HourlyStackedBarChart";
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
  lazy,
  yMax,
  futureFrom,
  hidden,
  onBar,
}: {
  hours: Counts[];
  filter: RateIndex[];
  height: number;
  lazy?: boolean;
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
  return (
    <HourlyStackedBarChart
      labels={LABELS}
      series={series}
      height={height}
      lazy={lazy}
      yMax={yMax}
      futureFrom={futureFrom}
      hidden={hidden}
      onBarClick={onBar ? (i, s) => onBar(i, filter[s]) : undefined}
      kinds={filter.map((r) => KINDS[r])}
      tooltip={(i) => {
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
      }}
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
