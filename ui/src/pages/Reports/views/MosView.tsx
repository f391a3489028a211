// Type 7, MOS: a chart of the average, minimum and maximum per local hour (y-axis 1 to 5,
// step 1; values with 1 decimal) and a table (page size 100). A value leads to the runs of
// that hour with a MOS from it up to 5 (/report/mos/{id}/{mos}/{hour}/{date}).
import { useLingui } from "@lingui/react/macro";
import { useState } from "react";
import { Link } from "wouter";
import { useReportMos } from "../../../api/queries/reports";
import type { MosRow, Report } from "../../../api/types";
import { FAILURE_COLOR, NEUTRAL_COLOR, PASS_COLOR } from "../../../components/charts/colors";
import { HourlyStackedBarChart } from "../../../components/charts/HourlyStackedBarChart";
import { Pager } from "../../../components/Pager";
import { fixed } from "../../../lib/numbers";
import { WORST_MOS_FIRST } from "../../../lib/runSort";
import { MaintenanceNote } from "../../Maintenance/Note";
import { mosUrl, sumLeftOut } from "../rules";
import { WorstRun } from "./WorstRun";

const MOS_PAGE = 100;

export function MosView({ r }: { r: Report }) {
  const { t, i18n } = useLingui();
  const mos = useReportMos(r);
  const [page, setPage] = useState(1);
  const [size, setSize] = useState(MOS_PAGE);
  if (mos.isPending) return <p class="muted">{t`Please wait ...`}</p>;
  const rows = (mos.data ?? []).map((m, hour) => ({ ...m, hour }));
  // runCount is cxwatch's: section 3's MOS row has the scores only, so an hour has data when it has one.
  const withData = rows.filter((m) =>
    typeof m.runCount === "number" ? m.runCount > 0 : m.avgMosCq !== null && m.avgMosCq !== undefined,
  );
  const one = (v: number | null | undefined) => (v === null || v === undefined ? 0 : Math.round(v * 10) / 10);
  const hourOf = (m: MosRow) => String(m.hourly ?? "").slice(11, 13);
  const value = (m: MosRow & { hour: number }, v: number | null | undefined, key: string) =>
    v === null || v === undefined ? (
      "—"
    ) : (
      <Link href={mosUrl(r.id, v, m.hour, r.timeframeBegin)} data-testid={`mos-${key}-${m.hour}`}>
        {fixed(v, 1, i18n.locale)}
      </Link>
    );
  const shown = rows.slice((page - 1) * size, page * size);
  return (
    <div class="card report-card">
      <h2 class="card-title">{t`MOS (audio quality)`}</h2>
      <MaintenanceNote count={sumLeftOut(mos.data ?? [])} of="figures" />
      <WorstRun
        r={r}
        kind="mos"
        query={{ startDate: r.timeframeBegin, endDate: r.timeframeEnd, minMos: 0, maxMos: 5 }}
        sort={WORST_MOS_FIRST}
      />
      {withData.length ? (
        <HourlyStackedBarChart
          line
          yTicks={[1, 2, 3, 4, 5]}
          labels={withData.map(hourOf)}
          height={260}
          series={[
            { name: t`Average`, color: NEUTRAL_COLOR, values: withData.map((m) => one(m.avgMosCq)) },
            { name: t`Minimum`, color: FAILURE_COLOR, values: withData.map((m) => one(m.minMosCq)) },
            { name: t`Maximum`, color: PASS_COLOR, values: withData.map((m) => one(m.maxMosCq)) },
          ]}
          tooltip={(i) => ({
            title: t`Time Slot ${hourOf(withData[i])}:00`,
            value: fixed(one(withData[i].avgMosCq), 1, i18n.locale),
            list: [
              { title: t`Average`, value: fixed(one(withData[i].avgMosCq), 1, i18n.locale), color: NEUTRAL_COLOR },
              { title: t`Minimum`, value: fixed(one(withData[i].minMosCq), 1, i18n.locale), color: FAILURE_COLOR },
              { title: t`Maximum`, value: fixed(one(withData[i].maxMosCq), 1, i18n.locale), color: PASS_COLOR },
            ],
          })}
        />
      ) : null}
      {withData.length ? (
        // The chart's three lines, named.
        <ul class="chart-legend" aria-label={t`Legend`} data-testid="mos-legend">
          {[
            { name: t`Average`, color: NEUTRAL_COLOR },
            { name: t`Minimum`, color: FAILURE_COLOR },
            { name: t`Maximum`, color: PASS_COLOR },
          ].map((x) => (
            <li key={x.name}>
              <span class="chart-legend-key" style={{ background: x.color }} aria-hidden="true" />
              {x.name}
            </li>
          ))}
        </ul>
      ) : (
        <p class="muted" data-testid="no-data">
          {t`No Data`}
        </p>
      )}
      <div class="table-scroll">
        <table class="data-table report-table" data-testid="mos-table">
          <thead>
            <tr>
              <th scope="col">{t`Hour`}</th>
              <th scope="col">{t`Test Runs`}</th>
              <th scope="col">{t`Minimum`}</th>
              <th scope="col">{t`Average`}</th>
              <th scope="col">{t`Median`}</th>
              <th scope="col">{t`Maximum`}</th>
            </tr>
          </thead>
          <tbody>
            {shown.map((m) => (
              <tr key={m.hour}>
                <th scope="row">{hourOf(m)}</th>
                <td>{m.runCount ?? "—"}</td>
                <td>{value(m, m.minMosCq, "min")}</td>
                <td>{value(m, m.avgMosCq, "avg")}</td>
                <td>{value(m, m.medianMosCq, "median")}</td>
                <td>{m.maxMosCq === null || m.maxMosCq === undefined ? "—" : fixed(m.maxMosCq, 1, i18n.locale)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <Pager
        page={page}
        size={size}
        total={rows.length}
        onPage={setPage}
        onSize={(s) => {
          setSize(s);
          setPage(1);
        }}
      />
    </div>
  );
}
