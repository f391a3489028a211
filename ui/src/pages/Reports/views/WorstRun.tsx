// The one run a report view leads to first (items 2 and 3): the worst call of a MOS
// report, the slowest run of a latency spike, one click away from the view (its detail opens
// on the step that went wrong, with its audio).
import { useLingui } from "@lingui/react/macro";
import { Link } from "wouter";
import { type ReportRunsParams, useReportRuns } from "../../../api/queries/reports";
import type { Report } from "../../../api/types";
import type { SortState } from "../../../lib/runSort";
import { formatSiteTime } from "../../../lib/siteTime";
import { useSiteTimeZone } from "../../../lib/tenant";
import { mos1, msAsSeconds } from "../../Drill/format";
import { runPath } from "../../Drill/links";

export function WorstRun(p: {
  r: Report;
  kind: "mos" | "latency";
  query: Omit<ReportRunsParams, "pageNo" | "pageSize" | "sort">;
  sort: SortState;
  /** Seconds: the run detail marks the steps slower than it. */
  latency?: number;
}) {
  const { t, i18n } = useLingui();
  const zone = useSiteTimeZone();
  const runs = useReportRuns(p.r.id, { ...p.query, pageNo: 0, pageSize: 1, sort: p.sort });
  const run = runs.data?.content?.[0];
  if (!run) return null;
  // Without the value that ranks it (the spec-only API gives no latency), there is no "worst".
  if (p.kind === "mos" && (run.mosCqIn === null || run.mosCqIn === undefined)) return null;
  if (p.kind === "latency" && (run.latency === null || run.latency === undefined)) return null;
  const id = run.runId;
  const name = run.testCaseName;
  const when = formatSiteTime(run.runTime, zone, i18n.locale);
  const value =
    p.kind === "mos"
      ? t`MOS ${mos1(run.mosCqIn, i18n.locale)}`
      : t`slowest step ${msAsSeconds(run.latency, i18n.locale)} s`;
  return (
    <p class="worst-run" data-testid={`worst-run-${p.kind}`}>
      <Link href={runPath(id, p.latency)} class="button primary" data-testid="worst-run-link" data-run-id={id}>
        {p.kind === "mos" ? t`Open the worst call` : t`Open the slowest run`}
      </Link>{" "}
      <span>
        {t`Run ${id}`} · {name} · {when} · <strong class="nowrap">{value}</strong>
      </span>
    </p>
  );
}
