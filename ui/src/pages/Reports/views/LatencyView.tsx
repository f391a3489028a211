// Type 6, 'Test Script Latency by Hour': a heat map of step latencies per latency bucket
// (rows) and local hour (columns), each bucket coloured by its upper bound against the
// report's thresholds; a cell leads to its runs (/report/latency/{hour}/{bucket}/{id}), an
// hour's average to all runs of that hour (bucket -1).
import { useLingui } from "@lingui/react/macro";
import { useEffect, useRef } from "react";
import { Link } from "wouter";
import { useLatencyThresholds, useReportLatency } from "../../../api/queries/reports";
import type { LatencyReport, LatencyThreshold, Report } from "../../../api/types";
import { useRovingGrid } from "../../../components/useRovingGrid";
import { formatDateField } from "../../../lib/dates";
import { fixed } from "../../../lib/numbers";
import { SLOWEST_FIRST } from "../../../lib/runSort";
import { MaintenanceNote } from "../../Maintenance/Note";
import { bucketLevels, dayGrid, type Level, type Spike, spikeOf } from "../heat";
import { useReportLabels } from "../labels";
import { HOURS, heatColour, latencyUrl } from "../rules";
import { WorstRun } from "./WorstRun";

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
    // cxwatch's: the group's hours per day (section 3 has none; the day map is then not shown).
    latencyByDay: (Array.isArray(answer.latencyByDay) ? answer.latencyByDay : [])
      .filter((x) => !!x && typeof x.date === "string")
      .map((x) => ({ date: x.date, latencyByHr: hours(x.latencyByHr) })),
    // cxwatch's: runs in maintenance windows left out of the figures.
    maintenanceCount: typeof answer.maintenanceCount === "number" ? answer.maintenanceCount : 0,
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
  const heatRef = useRef<HTMLElement>(null);
  const dayRef = useRef<HTMLElement>(null);
  const d = data.data ? latencyOf(data.data, r, thresholds.data) : null;
  const grid = d?.latencyByDay.length ? dayGrid(d.latencyByDay, d.buckets, d.latencyWarn) : null;
  const spike = grid ? spikeOf(grid) : null;
  const levels = d ? bucketLevels(d.latencyByHr, d.buckets.length) : [];
  useRovingGrid(heatRef, [d]);
  useRovingGrid(dayRef, [d]);
  // The spike's hour in view: a narrow screen scrolls the 24 hours sideways.
  useEffect(() => {
    for (const box of [heatRef.current, dayRef.current]) {
      const cell = box?.querySelector<HTMLElement>("[data-spike-hour]");
      if (!box || !cell) continue;
      const left = cell.offsetLeft - box.clientWidth / 2 + cell.offsetWidth / 2;
      if (cell.offsetLeft + cell.offsetWidth > box.clientWidth) box.scrollLeft = Math.max(0, left);
    }
  }, [d, spike?.hour]);
  if (data.isPending) return <p class="muted">{t`Please wait ...`}</p>;
  if (!d) return null;
  const secs = (ms: number) => i18n.number(ms / 1000, { minimumFractionDigits: 2, maximumFractionDigits: 2 });
  const warn = secs(d.latencyWarn);
  const fail = secs(d.latencyFail);
  const colourName = {
    green: t`below the warning threshold`,
    orange: t`below the failure threshold`,
    red: t`at or above the failure threshold`,
  };
  const levelName: Record<Level, string> = {
    0: t`usual`,
    1: t`above the usual`,
    2: t`well above the usual`,
    3: t`far above the usual`,
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
  const day = (iso: string) => dayName(iso, i18n.locale);
  const spikeHour = spike?.hour;
  return (
    <>
      {spike ? <SpikeCallout r={r} spike={spike} warn={warn} /> : null}
      <div class="card report-card">
        <h2 class="card-title">{t`Test Script Latency by Hour`}</h2>
        <MaintenanceNote count={d.maintenanceCount} of="figures" />
        <p class="muted">{t`Warning threshold: ${warn} s · Failure threshold: ${fail} s`}</p>
        <p class="muted">{t`A cell's colour says how unusual its count is for that hour.`}</p>
        <HeatLegend names={levelName} />
        <section
          class="table-scroll"
          ref={heatRef}
          // biome-ignore lint/a11y/noNoninteractiveTabindex: a scroll region keyboard users must reach (axe scrollable-region-focusable)
          tabIndex={0}
          aria-label={t`Test Script Latency by Hour`}
        >
          <table class="data-table heat-map" data-testid="heat-map">
            <thead>
              <tr>
                <th scope="col">{t`Latency`}</th>
                {HOURS.map((h, hour) => (
                  <th scope="col" key={h} class={hour === spikeHour ? "spike-col" : undefined}>
                    {h}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {d.buckets.map((b, bi) => {
                const colour = heatColour(b.uppperBound, d.latencyWarn, d.latencyFail);
                return (
                  <tr key={b.id}>
                    <th scope="row" title={colourName[colour]}>
                      <span class={`heat-swatch heat-${colour}`} aria-hidden="true" />
                      {bucketName(b)}
                    </th>
                    {d.latencyByHr.map((h, hi) => {
                      const n = h.bucketCounts?.[bi] ?? 0;
                      const l = levels[bi]?.[hi] ?? 0;
                      return (
                        <td
                          key={h.hour}
                          class={`heat-cell heat-level-${n ? l : 0}`}
                          data-level={n ? l : 0}
                          data-spike-hour={h.hour === spikeHour && bi === 0 ? "" : undefined}
                        >
                          {n ? (
                            <Link
                              href={latencyUrl(h.hour, b.id, r.id)}
                              data-testid={`heat-${h.hour}-${b.id}`}
                              data-r={bi}
                              data-c={h.hour}
                              aria-label={t`${n} latencies of ${bucketName(b)} at ${HOURS[h.hour]}:00, ${levelName[l]}`}
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
                      <Link
                        href={latencyUrl(h.hour, null, r.id)}
                        data-testid={`heat-avg-${h.hour}`}
                        data-r={d.buckets.length}
                        data-c={h.hour}
                      >
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
        </section>
      </div>
      {grid ? (
        <div class="card report-card">
          <h2 class="card-title">{t`Slow step latencies by day`}</h2>
          <p class="muted">
            {t`Step latencies at or above the warning threshold (${warn} s) in each hour of each day; usually ${grid.usual} an hour.`}
          </p>
          <HeatLegend names={levelName} />
          <section
            class="table-scroll"
            ref={dayRef}
            // biome-ignore lint/a11y/noNoninteractiveTabindex: a scroll region keyboard users must reach (axe scrollable-region-focusable)
            tabIndex={0}
            aria-label={t`Slow step latencies by day`}
          >
            <table class="data-table heat-map" data-testid="day-heat-map">
              <thead>
                <tr>
                  <th scope="col">{t`Date`}</th>
                  {HOURS.map((h, hour) => (
                    <th scope="col" key={h} class={hour === spikeHour ? "spike-col" : undefined}>
                      {h}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {grid.dates.map((date, di) => (
                  <tr key={date} data-date={date}>
                    <th scope="row">{day(date)}</th>
                    {grid.slow[di].map((n, hour) => {
                      const l = grid.levels[di][hour];
                      const isSpike = spike?.date === date && spike.hour === hour;
                      const when = day(date);
                      const hh = HOURS[hour];
                      return (
                        <td
                          key={hour}
                          class={`heat-cell heat-level-${l}${isSpike ? " spike" : ""}`}
                          data-level={l}
                          data-spike-hour={isSpike ? "" : undefined}
                        >
                          {n ? (
                            <Link
                              href={`${latencyUrl(hour, null, r.id, "total", date)}?to=${date}`}
                              data-testid={`day-heat-${date}-${hour}`}
                              data-r={di}
                              data-c={hour}
                              data-start={isSpike ? "" : undefined}
                              aria-label={t`${n} slow latencies on ${when} at ${hh}:00, ${levelName[l]}`}
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
                ))}
              </tbody>
            </table>
          </section>
        </div>
      ) : null}
      <div class="card report-card">
        <h2 class="card-title">{t`Segments`}</h2>
        <section
          class="table-scroll"
          // biome-ignore lint/a11y/noNoninteractiveTabindex: a scroll region keyboard users must reach (axe scrollable-region-focusable)
          tabIndex={0}
          aria-label={t`Segments`}
        >
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
        </section>
      </div>
    </>
  );
}

/** A date with its weekday, in the reader's language: 'Tue 2026/11/24'. */
function dayName(iso: string, locale: string): string {
  const d = new Date(`${iso}T12:00:00Z`);
  if (Number.isNaN(d.getTime())) return iso;
  const weekday = new Intl.DateTimeFormat(locale, { weekday: "short", timeZone: "UTC" }).format(d);
  return `${weekday} ${formatDateField(iso, locale) || iso}`;
}

/** The colours of the levels, named. */
function HeatLegend({ names }: { names: Record<Level, string> }) {
  const { t } = useLingui();
  return (
    <ul class="heat-legend" aria-label={t`Colours`} data-testid="heat-legend">
      {([0, 1, 2, 3] as Level[]).map((l) => (
        <li key={l}>
          <span class={`heat-key heat-level-${l}`} aria-hidden="true" />
          {names[l]}
        </li>
      ))}
    </ul>
  );
}

/** The spike at first sight: its day and hour, how many slow steps against the usual, and its runs. */
function SpikeCallout({ r, spike, warn }: { r: Report; spike: Spike; warn: string }) {
  const { t, i18n } = useLingui();
  const when = dayName(spike.date, i18n.locale);
  const from = `${HOURS[spike.hour]}:00`;
  const to = `${HOURS[(spike.hour + 1) % 24]}:00`;
  const count = spike.count;
  const usual = spike.usual;
  return (
    <div class="card report-card spike-callout" data-testid="latency-spike" role="note">
      <h2 class="card-title">{t`Latency spike`}</h2>
      <p>
        <strong data-testid="spike-when">
          {when}, {from}–{to}
        </strong>
        {" · "}
        {t`${count} step latencies at or above ${warn} s, where an hour usually has ${usual}.`}
      </p>
      <WorstRun
        r={r}
        kind="latency"
        query={{ hrSlot: spike.hour, startDate: spike.date, endDate: spike.date, perfStatus: "total" }}
        sort={SLOWEST_FIRST}
        latency={r.latencyWarn > 0 ? r.latencyWarn / 1000 : undefined}
      />
      <Link
        href={`${latencyUrl(spike.hour, null, r.id, "total", spike.date)}?to=${spike.date}`}
        data-testid="spike-runs"
      >
        {t`All runs of that hour, slowest first`}
      </Link>
    </div>
  );
}
