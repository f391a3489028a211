// Type 2: pass, warning and failure per local hour over the report's range, each count leading
// to the runs of that hour slot and status (/report/latency/{hour}/-1/{id}/{status}/{date}).
import { useLingui } from "@lingui/react/macro";
import { Link } from "wouter";
import { useReportMetric } from "../../../api/queries/reports";
import type { Report } from "../../../api/types";
import { FAILURE_COLOR, PASS_COLOR, WARNING_COLOR } from "../../../components/charts/colors";
import { HourlyStackedBarChart } from "../../../components/charts/HourlyStackedBarChart";
import { MaintenanceNote } from "../../Maintenance/Note";
import { type DrillStatus, HOURS, latencyUrl, maintenanceLeftOut, percent } from "../rules";

export function TrendView({ r }: { r: Report }) {
  const { t, i18n } = useLingui();
  const metric = useReportMetric(r, "case");
  if (metric.isPending) return <p class="muted">{t`Please wait ...`}</p>;
  const hours = HOURS.map((_, h) => {
    let pass = 0;
    let warn = 0;
    let fail = 0;
    for (const e of metric.data ?? []) {
      const s = e.hourlyStatus[h];
      pass += s?.successCount ?? 0;
      warn += s?.warningCount ?? 0;
      fail += s?.failureCount ?? 0;
    }
    return { pass, warn, fail };
  });
  const cell = (h: number, n: number, status: DrillStatus) =>
    n ? (
      <Link href={latencyUrl(h, null, r.id, status, r.timeframeBegin)} data-testid={`trend-${status}-${h}`}>
        {n}
      </Link>
    ) : (
      "0"
    );
  return (
    <div class="card report-card">
      <h2 class="card-title">{t`Hourly trend`}</h2>
      <MaintenanceNote count={maintenanceLeftOut(metric.data ?? [], "case")} />
      <HourlyStackedBarChart
        labels={HOURS}
        height={260}
        kinds={["pass", "warning", "failure"]}
        series={[
          { name: t`Pass`, color: PASS_COLOR, values: hours.map((x) => x.pass) },
          { name: t`Warning`, color: WARNING_COLOR, values: hours.map((x) => x.warn) },
          { name: t`Failure`, color: FAILURE_COLOR, values: hours.map((x) => x.fail) },
        ]}
        tooltip={(i) => ({
          title: t`Time Slot ${HOURS[i]}:00`,
          value: String(hours[i].pass + hours[i].warn + hours[i].fail),
          list: [
            { title: t`Pass`, value: hours[i].pass, color: PASS_COLOR },
            { title: t`Warning`, value: hours[i].warn, color: WARNING_COLOR },
            { title: t`Failure`, value: hours[i].fail, color: FAILURE_COLOR },
          ],
        })}
      />
      <div class="table-scroll">
        <table class="data-table report-table" data-testid="trend-table">
          <thead>
            <tr>
              <th scope="col">{t`Hour`}</th>
              <th scope="col">{t`Test Runs`}</th>
              <th scope="col">{t`Pass`}</th>
              <th scope="col">{t`Warning`}</th>
              <th scope="col">{t`Failure`}</th>
              <th scope="col">{t`Pass %`}</th>
            </tr>
          </thead>
          <tbody>
            {hours.map((x, h) => {
              const total = x.pass + x.warn + x.fail;
              return (
                <tr key={HOURS[h]}>
                  <th scope="row">{HOURS[h]}</th>
                  <td>{total}</td>
                  <td>{cell(h, x.pass, "success")}</td>
                  <td>{cell(h, x.warn, "warning")}</td>
                  <td>{cell(h, x.fail, "failure")}</td>
                  <td>{percent(x.pass, total, i18n.locale)}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </div>
  );
}
