// The large chart of one group (hours 0-23; tooltip with Time Slot and Test Case Runs).
import { useLingui } from "@lingui/react/macro";
import { useLocation } from "wouter";
import { Modal } from "../../components/Modal";
import { formatDateField } from "../../lib/dates";
import { HourRunLinks } from "../Drill/HourRunLinks";
import { drillStatusOfRate, groupDrillPath } from "../Drill/links";
import { ChartLegend, GroupChart } from "./GroupChart";
import type { GroupRow, RateIndex } from "./rows";

export interface GroupChartModalProps {
  row: GroupRow | null;
  filter: RateIndex[];
  date: string;
  runTypeName: string;
  /** The run type shown: a bar segment leads to its runs of this type. */
  runType?: "Manual" | "Schedule";
  isPhone: boolean;
  /** First hour of the day shown still to come. */
  futureFrom: number;
  onClose: () => void;
}

export function GroupChartModal({
  row,
  filter,
  date,
  runTypeName,
  runType = "Manual",
  isPhone,
  futureFrom,
  onClose,
}: GroupChartModalProps) {
  const { t, i18n } = useLingui();
  const [, navigate] = useLocation();
  if (!row) return null;
  const groupId = row.id;
  const openRuns = (hour: number, rate: RateIndex) =>
    navigate(groupDrillPath({ groupId, status: drillStatusOfRate(rate), date, hour, runType }));
  const count = i18n.number(row.count);
  return (
    <Modal open onClose={onClose} size="large" title={row.name} testId="chart-modal">
      <p class="muted chart-modal-sub">
        {formatDateField(date, i18n.locale)} · {runTypeName} · {t`Test Case Runs:`}{" "}
        <strong data-testid="chart-modal-count">{count}</strong>
      </p>
      <ChartLegend filter={filter} />
      <div class="chart-modal-body" data-testid="chart-modal-chart">
        <GroupChart
          hours={row.hours}
          filter={filter}
          height={isPhone ? 280 : 380}
          futureFrom={futureFrom}
          onBar={openRuns}
        />
      </div>
      <HourRunLinks
        groupId={groupId}
        date={date}
        runType={runType}
        hours={row.hours}
        statuses={filter.map(drillStatusOfRate)}
      />
    </Modal>
  );
}
