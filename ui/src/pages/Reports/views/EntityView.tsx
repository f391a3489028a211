// Type 5 (segment performance, level=segment) and the other types (test case performance,
// level=case): per entity, counts and percentages with 2 decimals, a stacked bar chart paged
// by 10 entities with every bar labelled (a segment with its test case), and each count leading to the entity's runs (/report/drill/...).
import { useLingui } from "@lingui/react/macro";
import { useState } from "react";
import { Link } from "wouter";
import { useReportMetric } from "../../../api/queries/reports";
import type { GroupMetric, Report } from "../../../api/types";
import { FAILURE_COLOR, PASS_COLOR, WARNING_COLOR } from "../../../components/charts/colors";
import { HourlyStackedBarChart } from "../../../components/charts/HourlyStackedBarChart";
import { MaintenanceNote } from "../../Maintenance/Note";
import { chartPage, chartPages, type DrillStatus, drillUrl, maintenanceLeftOut, percent } from "../rules";

export function EntityView({ r, level }: { r: Report; level: "case" | "segment" }) {
  const { t, i18n } = useLingui();
  const metric = useReportMetric(r, level);
  const [page, setPage] = useState(1);
  if (metric.isPending) return <p class="muted">{t`Please wait ...`}</p>;
  const rows = metric.data ?? [];
  const pages = chartPages(rows.length);
  const shown = chartPage(rows, Math.min(page, pages));
  const label = (e: GroupMetric) => (level === "segment" ? `${e.segmentName ?? ""} (${e.entityName})` : e.entityName);
  // Every bar names what it is: a segment with its test case beneath (segments of different
  // test cases share names: 'Greeting'), a test case alone.
  const name = (e: GroupMetric) =>
    level === "segment" ? { name: e.segmentName ?? "", detail: e.entityName } : { name: e.entityName };
  const link = (e: GroupMetric, status: DrillStatus, n: number) => {
    if (!n) return "0";
    const url =
      level === "segment"
        ? drillUrl(e.segmentId ?? 0, status, e.periodStart, e.periodEnd, r.id)
        : drillUrl(e.entityId, status, e.periodStart, e.periodEnd);
    return (
      <Link href={url} data-testid={`drill-${status}`}>
        {n}
      </Link>
    );
  };
  return (
    <div class="card report-card">
      <h2 class="card-title">{level === "segment" ? t`Segment performance` : t`Test case performance`}</h2>
      <MaintenanceNote count={maintenanceLeftOut(rows, level)} />
      {rows.length ? (
        <>
          <HourlyStackedBarChart
            labels={shown.map(label)}
            names={shown.map(name)}
            height={280}
            kinds={["pass", "warning", "failure"]}
            series={[
              { name: t`Pass`, color: PASS_COLOR, values: shown.map((e) => e.successCount) },
              { name: t`Warning`, color: WARNING_COLOR, values: shown.map((e) => e.warningCount) },
              { name: t`Failure`, color: FAILURE_COLOR, values: shown.map((e) => e.failureCount) },
            ]}
            tooltip={(i) => ({
              title: label(shown[i]),
              value: String(shown[i].successCount + shown[i].warningCount + shown[i].failureCount),
              list: [
                { title: t`Pass`, value: shown[i].successCount, color: PASS_COLOR },
                { title: t`Warning`, value: shown[i].warningCount, color: WARNING_COLOR },
                { title: t`Failure`, value: shown[i].failureCount, color: FAILURE_COLOR },
              ],
            })}
          />
          {pages > 1 ? (
            <div class="chart-pager" data-testid="chart-pager">
              <button type="button" class="button link" disabled={page <= 1} onClick={() => setPage(page - 1)}>
                {t`Previous`}
              </button>
              <span>{t`Page ${Math.min(page, pages)} of ${pages}`}</span>
              <button type="button" class="button link" disabled={page >= pages} onClick={() => setPage(page + 1)}>
                {t`Next`}
              </button>
            </div>
          ) : null}
        </>
      ) : (
        <p class="muted" data-testid="no-data">
          {t`No Data`}
        </p>
      )}
      <div class="table-scroll">
        <table class="data-table report-table" data-testid="entity-table">
          <thead>
            <tr>
              <th scope="col">{t`Test Case`}</th>
              {level === "segment" ? <th scope="col">{t`Segment`}</th> : null}
              <th scope="col">{t`Test Runs`}</th>
              <th scope="col">{t`Pass`}</th>
              <th scope="col">{t`Warning`}</th>
              <th scope="col">{t`Failure`}</th>
              <th scope="col">{t`Pass %`}</th>
              <th scope="col">{t`Warning %`}</th>
              <th scope="col">{t`Failure %`}</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((e) => {
              const total = e.successCount + e.warningCount + e.failureCount;
              return (
                <tr key={`${e.entityId}-${e.segmentId ?? ""}`}>
                  <th scope="row">{e.entityName}</th>
                  {level === "segment" ? <td>{e.segmentName}</td> : null}
                  <td>{link(e, "total", total)}</td>
                  <td>{link(e, "success", e.successCount)}</td>
                  <td>{link(e, "warning", e.warningCount)}</td>
                  <td>{link(e, "failure", e.failureCount)}</td>
                  <td>{percent(e.successCount, total, i18n.locale)}</td>
                  <td>{percent(e.warningCount, total, i18n.locale)}</td>
                  <td>{percent(e.failureCount, total, i18n.locale)}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </div>
  );
}
