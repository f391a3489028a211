// Type 6, 'Test Script Latency by Hour': a heat map of step latencies per latency bucket
// (rows) and local hour (columns), each bucket coloured by its upper bound against the
// report's thresholds; a cell leads to its runs (/report/latency/{hour}/{bucket}/{id}), an
// hour's average to all runs of that hour (bucket -1).
import { useLingui } from "@lingui/react/macro";
import { Link } from "wouter";
import { useLatencyThresholds, useReportLatency } from "../../../api/queries/reports";
import type { LatencyReport, LatencyThreshold, Report } from "../../../api/types";
import { fixed } from "../../../lib/numbers";
import { useReportLabels } from "../labels";
import { HOURS, heatColour, latencyUrl } from "../rules";

/** An hour as section 3 names it (hour, latency, runCount); cxwatch adds the counts per bucket. */
type Hour = Partial<LatencyReport["latencyByHr"][number]> & { hour: number };

/**
 * The heat map's data from either API. Section 3 gives `segments[]` and `latencyByHr[]` (hour,
 * latency, runCount) only: the buckets are then section 7's latency thresholds, the limits the
 * report's own, and the cells without counts (the averages still lead to the runs).
 */
export function latencyOf(answer: Partial<LatencyReport>, r: Report, thresholds: LatencyThreshold[] | undefined) {
  const hours = (v: unknown): Hour[] =>
    Array.isArray(v) ? v.filter((h): h is Hour => !!h && typeof h.hour === "number") : [];
  return {
    latencyWarn: answer.latencyWarn ?? r.latencyWarn,
    latencyFail: answer.latencyFail ?? r.latencyFail,
    buckets: answer.buckets ?? thresholds ?? [],
    latencyByHr: hours(answer.latencyByHr),
    segments: (Array.isArray(answer.segments) ? answer.segments : []).map((s) => ({
      ...s,
      latencyByHr: hours(s.latencyByHr),
    })),
  };
}

export function LatencyView({ r }: { r: Report }) {
  const { t, i18n } = useLingui();
  const data = useReportLatency(r.id, true);
  const thresholds = useLatencyThresholds();
  const { bucketName } = useReportLabels();
  if (data.isPending) return <p class="muted">{t`Please wait ...`}</p>;
  if (!data.data) return null;
  const d = latencyOf(data.data, r, thresholds.data);
  const secs = (ms: number) => i18n.number(ms / 1000, { minimumFractionDigits: 2, maximumFractionDigits: 2 });
  const warn = secs(d.latencyWarn);
  const fail = secs(d.latencyFail);
  const colourName = {
    green: t`below the warning threshold`,
    orange: t`below the failure threshold`,
    red: t`at or above the failure threshold`,
  };
  const avg = (hours: Hour[]) => {
    let n = 0;
    let sum = 0;
    for (const h of hours) {
      if (h.latency !== null && h.latency !== undefined) {
        const count = h.latencyCount ?? h.runCount ?? 0;
        n += count;
        sum += h.latency * count;
      }
    }
    return n ? fixed(sum / n, 2, i18n.locale) : "—";
  };
  return (
    <>
      <div class="card report-card">
        <h2 class="card-title">{t`Test Script Latency by Hour`}</h2>
        <p class="muted">{t`Warning threshold: ${warn} s · Failure threshold: ${fail} s`}</p>
        <div class="table-scroll">
          <table class="data-table heat-map" data-testid="heat-map">
            <thead>
              <tr>
                <th scope="col">{t`Latency`}</th>
                {HOURS.map((h) => (
                  <th scope="col" key={h}>
                    {h}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {d.buckets.map((b, bi) => {
                const colour = heatColour(b.uppperBound, d.latencyWarn, d.latencyFail);
                return (
                  <tr key={b.id} class={`heat-${colour}`}>
                    <th scope="row" title={colourName[colour]}>
                      <span class={`heat-swatch heat-${colour}`} aria-hidden="true" />
                      {bucketName(b)}
                    </th>
                    {d.latencyByHr.map((h) => {
                      const n = h.bucketCounts?.[bi] ?? 0;
                      return (
                        <td key={h.hour} class={n ? `heat-cell heat-${colour}` : "heat-cell"}>
                          {n ? (
                            <Link
                              href={latencyUrl(h.hour, b.id, r.id)}
                              data-testid={`heat-${h.hour}-${b.id}`}
                              aria-label={t`${n} latencies of ${bucketName(b)} at ${HOURS[h.hour]}:00`}
                            >
                              {n}
                            </Link>
                          ) : (
                            ""
                          )}
                        </td>
                      );
                    })}
                  </tr>
                );
              })}
            </tbody>
            <tfoot>
              <tr>
                <th scope="row">{t`Average (sec)`}</th>
                {d.latencyByHr.map((h) => (
                  <td key={h.hour}>
                    {h.latency !== null && h.latency !== undefined ? (
                      <Link href={latencyUrl(h.hour, null, r.id)} data-testid={`heat-avg-${h.hour}`}>
                        {fixed(h.latency, 2, i18n.locale)}
                      </Link>
                    ) : (
                      ""
                    )}
                  </td>
                ))}
              </tr>
              <tr>
                <th scope="row">{t`Test Runs`}</th>
                {d.latencyByHr.map((h) => (
                  <td key={h.hour}>{h.runCount || ""}</td>
                ))}
              </tr>
            </tfoot>
          </table>
        </div>
      </div>
      <div class="card report-card">
        <h2 class="card-title">{t`Segments`}</h2>
        <div class="table-scroll">
          <table class="data-table report-table" data-testid="latency-segments">
            <thead>
              <tr>
                <th scope="col">{t`Test Case`}</th>
                <th scope="col">{t`Segment`}</th>
                <th scope="col">{t`Test Runs`}</th>
                <th scope="col">{t`Average latency (sec)`}</th>
              </tr>
            </thead>
            <tbody>
              {d.segments.map((s) => (
                <tr key={`${s.testCaseId}-${s.segmentId}`}>
                  <th scope="row">{s.testCaseName}</th>
                  <td>{s.segmentName}</td>
                  <td>{s.latencyByHr.reduce((a, h) => a + (h.runCount ?? 0), 0)}</td>
                  <td>{avg(s.latencyByHr)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </div>
    </>
  );
}
