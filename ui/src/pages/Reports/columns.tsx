// The report list's columns (spec §2 'Report list'): id, name, type, group, timeframe, run
// type, warning and failure latency thresholds in seconds, last modified in the site's zone.
import { useLingui } from "@lingui/react/macro";
import type { Report } from "../../api/types";
import type { Column } from "../../components/DataTable";
import { formatSiteTime } from "../../lib/siteTime";
import { useSiteTimeZone } from "../../lib/tenant";
import { useReportLabels } from "./labels";
import { LATENCY } from "./rules";
import { useScheduleWords } from "./ScheduleDialog";

/** The columns; with `scheduling` (cxwatch's API), the delivery schedule's next and last delivery. */
export function useReportColumns(scheduling = false): Column<Report>[] {
  const { t, i18n } = useLingui();
  const words = useScheduleWords();
  const zone = useSiteTimeZone();
  const { typeName, timeframeName, runTypeName } = useReportLabels();
  const threshold = (r: Report, ms: number) =>
    r.reportTypeID === LATENCY
      ? `${i18n.number(ms / 1000, { minimumFractionDigits: 2, maximumFractionDigits: 2 })} s`
      : "—";
  const columns: Column<Report>[] = [
    { key: "id", label: t`ID`, sortable: true, render: (r) => r.id },
    { key: "name", label: t`Name`, sortable: true, render: (r) => r.name },
    { key: "reportTypeName", label: t`Type`, sortable: true, render: (r) => typeName(r.reportTypeID) },
    { key: "testCaseGroupName", label: t`Test Case Group`, sortable: true, render: (r) => r.testCaseGroupName },
    {
      key: "timeframeName",
      label: t`Timeframe`,
      sortable: true,
      render: (r) => (
        <span title={`${r.timeframeBegin} – ${r.timeframeEnd}`}>
          {timeframeName(r.timeframeName)}
          <span class="muted small-block">
            {r.timeframeBegin} – {r.timeframeEnd}
          </span>
        </span>
      ),
    },
    { key: "runType", label: t`Run Type`, render: (r) => runTypeName(r.runType) },
    { key: "latencyWarn", label: t`Warning Threshold`, render: (r) => threshold(r, r.latencyWarn) },
    { key: "latencyFail", label: t`Failure Threshold`, render: (r) => threshold(r, r.latencyFail) },
    {
      key: "lastModifiedTime",
      label: t`Last Modified`,
      sortable: true,
      render: (r) => formatSiteTime(r.lastModifiedTime, zone, i18n.locale),
    },
  ];
  if (!scheduling) return columns;
  columns.push({
    key: "schedule",
    label: t`Delivery`,
    render: (r) => {
      const s = r.schedule;
      if (!s) return <span class="muted">—</span>;
      const next = s.active ? words.at(s.nextDelivery) : t`Paused`;
      const last = s.lastDelivery ? `${words.at(s.lastDelivery)} (${words.outcome(s.lastOutcome)})` : t`Never`;
      return (
        <span class="cell-lines" data-testid="report-delivery">
          <span>{words.when(s)}</span>
          <span class="muted small-block">{t`Next: ${next}`}</span>
          <span class={s.lastOutcome === "failed" ? "danger-text small-block" : "muted small-block"}>
            {t`Last: ${last}`}
          </span>
        </span>
      );
    },
  });
  return columns;
}
