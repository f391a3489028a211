// The runs behind a report's cell, server-paged, each leading to the run detail
// (/report/run/{runId}):
// - /report/latency/{hour}/{latencyBucketId or -1}/{reportId}[/{status}/{date}]: runs of an hour
//   slot, with a step latency in the bucket (-1: any), of a status from the date to the
//   report's last date when given;
// - /report/mos/{reportId}/{mosValue}/{hour}/{date}: runs of an hour slot with a MOS from
//   mosValue up to 5, from the date to the report's last date.
// The runs are the shared RunTable (pages/Drill): the same columns, site times, status chips and
// Open action as every other list of runs; the dates above it in the same format.
import { useLingui } from "@lingui/react/macro";
import { useState } from "react";
import { useParams, useSearch } from "wouter";
import { type ReportRunsParams, useLatencyThresholds, useReport, useReportRuns } from "../../api/queries/reports";
import type { Report } from "../../api/types";
import { Refused } from "../../components/AccessDenied";
import { useUrlParams } from "../../components/useUrlParams";
import { formatDateField } from "../../lib/dates";
import { fixed } from "../../lib/numbers";
import {
  NEWEST_FIRST,
  readRunSort,
  SLOWEST_FIRST,
  type SortState,
  sortParam,
  WORST_MOS_FIRST,
} from "../../lib/runSort";
import { RunTable } from "../Drill/RunTable";
import { NotFoundPage } from "../NotFound";
import { useReportLabels } from "./labels";
import { HOURS } from "./rules";
import "./Reports.css";

const DATE = /^\d{4}-\d{2}-\d{2}$/;

export function LatencyRunsPage() {
  const p = useParams<{ hour: string; bucket: string; reportId: string; status?: string; date?: string }>();
  const hour = Number(p.hour);
  const bucket = Number(p.bucket);
  const id = Number(p.reportId);
  const status = p.status && ["success", "warning", "failure", "total"].includes(p.status) ? p.status : undefined;
  const date = p.date && DATE.test(p.date) ? p.date : undefined;
  // `?to=` (cxwatch's): the last date, e.g. the spike's one day; else the report's last date.
  const toParam = new URLSearchParams(useSearch()).get("to");
  const to = date && toParam && DATE.test(toParam) && toParam >= date ? toParam : undefined;
  if (!(hour >= 0 && hour < 24) || !Number.isInteger(bucket) || !(id > 0)) return <NotFoundPage />;
  return (
    <RunsOf
      id={id}
      kind="latency"
      hour={hour}
      bucket={bucket}
      status={status}
      query={(r) => ({
        hrSlot: hour,
        latencyThres: bucket,
        perfStatus: status,
        startDate: date,
        endDate: date ? (to ?? maxDate(date, r.timeframeEnd)) : undefined,
      })}
    />
  );
}

export function MosRunsPage() {
  const p = useParams<{ reportId: string; mos: string; hour: string; date: string }>();
  const id = Number(p.reportId);
  const mos = Number(p.mos);
  const hour = Number(p.hour);
  if (!(id > 0) || !(mos >= 0 && mos <= 5) || !(hour >= 0 && hour < 24) || !DATE.test(p.date)) return <NotFoundPage />;
  return (
    <RunsOf
      id={id}
      kind="mos"
      hour={hour}
      mos={mos}
      query={(r) => ({
        hrSlot: hour,
        startDate: p.date,
        endDate: maxDate(p.date, r.timeframeEnd),
        minMos: mos,
        maxMos: 5,
      })}
    />
  );
}

const maxDate = (a: string, b: string) => (a > b ? a : b);

/** What led to the list: a MOS value (worst first), a latency (slowest first), a status (newest first). */
function defaultSort(p: { kind: "latency" | "mos"; status?: string }): SortState {
  if (p.kind === "mos") return WORST_MOS_FIRST;
  return p.status && p.status !== "total" ? NEWEST_FIRST : SLOWEST_FIRST;
}

interface RunsOfProps {
  id: number;
  kind: "latency" | "mos";
  hour: number;
  bucket?: number;
  status?: string;
  mos?: number;
  query: (r: Report) => Omit<ReportRunsParams, "pageNo" | "pageSize">;
}

function RunsOf(props: RunsOfProps) {
  const { t } = useLingui();
  const report = useReport(props.id);
  if (report.isError) return <Refused error={report.error} fallback={t`The report could not be loaded.`} />;
  if (!report.data) return <p class="muted">{t`Please wait ...`}</p>;
  return <RunList {...props} r={report.data} />;
}

function RunList(props: RunsOfProps & { r: Report }) {
  const { t, i18n } = useLingui();
  const thresholds = useLatencyThresholds();
  const { bucketName } = useReportLabels();
  const [search, setParams] = useUrlParams();
  const [page, setPage] = useState(1);
  const [size, setSize] = useState(100);
  // The order that led here: the worst MOS first, the slowest first; the
  // address keeps another one chosen.
  const sort = readRunSort(new URLSearchParams(search).get("sort")) ?? defaultSort(props);
  const q = { ...props.query(props.r), pageNo: page - 1, pageSize: size, sort };
  const runs = useReportRuns(props.r.id, q);
  const bucket = thresholds.data?.find((b) => b.id === props.bucket);
  // The run detail marks the steps slower than the cell's lower bound (else the report's
  // warning threshold), so the latency that led here is carried to the step.
  const floorMs = bucket ? bucket.lowerBound : props.kind === "latency" ? props.r.latencyWarn : 0;
  const latency = floorMs > 0 ? floorMs / 1000 : undefined;
  const statusName: Record<string, string> = {
    success: t`Pass`,
    warning: t`Warning`,
    failure: t`Failure`,
    total: t`Total`,
  };
  const hour = `${HOURS[props.hour]}:00`;
  const day = (iso: string) => formatDateField(iso, i18n.locale) || iso;
  const what =
    props.kind === "mos"
      ? t`MOS from ${fixed(props.mos ?? 0, 1, i18n.locale)} to ${fixed(5, 1, i18n.locale)} at ${hour}`
      : bucket
        ? t`Latency ${bucketName(bucket)} at ${hour}`
        : props.status && props.status !== "total"
          ? // The trend's drill (a status in an hour): no latency led here.
            t`Runs at ${hour}`
          : t`All latencies at ${hour}`;
  return (
    <section class="page report-runs" data-testid={`report-runs-${props.kind}`}>
      <h1 class="page-title">{props.r.name}</h1>
      <p class="muted" data-testid="runs-what">
        {what}
        {props.status ? ` · ${statusName[props.status]}` : ""} · {day(q.startDate ?? props.r.timeframeBegin)} –{" "}
        {day(q.endDate ?? props.r.timeframeEnd)}
      </p>
      <p>
        <a href={`/report/view/${props.r.id}`}>{t`Back to the report`}</a>
      </p>
      <RunTable
        testId="runs-table"
        data={runs.data}
        loading={runs.isFetching}
        error={runs.isError ? (runs.error?.message ?? t`The list could not be loaded.`) : null}
        page={page}
        size={size}
        latency={latency}
        showLatency={props.kind === "latency"}
        sort={sort}
        onSort={(next) => {
          setParams({ sort: sortParam(next) });
          setPage(1);
        }}
        onPage={setPage}
        onSize={(s) => {
          setSize(s);
          setPage(1);
        }}
      />
    </section>
  );
}
