// The runs behind a report's cell, server-paged, each leading to the run detail
// (/report/run/{runId}):
// - /report/latency/{hour}/{latencyBucketId or -1}/{reportId}[/{status}/{date}]: runs of an hour
//   slot, with a step latency in the bucket (-1: any), of a status from the date to the
//   report's last date when given;
// - /report/mos/{reportId}/{mosValue}/{hour}/{date}: runs of an hour slot with a MOS from
//   mosValue up to 5, from the date to the report's last date.
import { useLingui } from "@lingui/react/macro";
import { useState } from "react";
import { Link, useParams } from "wouter";
import { type ReportRunsParams, useLatencyThresholds, useReport, useReportRuns } from "../../api/queries/reports";
import type { Report, SpecRun as RunItem } from "../../api/types";
import { AccessDenied } from "../../components/AccessDenied";
import { type Column, DataTable } from "../../components/DataTable";
import { Pager } from "../../components/Pager";
import { formatSiteTime } from "../../lib/siteTime";
import { useSiteTimeZone } from "../../lib/tenant";
import { useReportLabels } from "./labels";
import { HOURS, runUrl } from "./rules";
import "./Reports.css";
import { fixed } from "../../lib/numbers";

const DATE = /^\d{4}-\d{2}-\d{2}$/;

export function LatencyRunsPage() {
  const p = useParams<{ hour: string; bucket: string; reportId: string; status?: string; date?: string }>();
  const hour = Number(p.hour);
  const bucket = Number(p.bucket);
  const id = Number(p.reportId);
  const status = p.status && ["success", "warning", "failure", "total"].includes(p.status) ? p.status : undefined;
  const date = p.date && DATE.test(p.date) ? p.date : undefined;
  if (!(hour >= 0 && hour < 24) || !Number.isInteger(bucket) || !(id > 0)) return <AccessDenied />;
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
        endDate: date ? maxDate(date, r.timeframeEnd) : undefined,
      })}
    />
  );
}

export function MosRunsPage() {
  const p = useParams<{ reportId: string; mos: string; hour: string; date: string }>();
  const id = Number(p.reportId);
  const mos = Number(p.mos);
  const hour = Number(p.hour);
  if (!(id > 0) || !(mos >= 0 && mos <= 5) || !(hour >= 0 && hour < 24) || !DATE.test(p.date)) return <AccessDenied />;
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
  if (report.isError) return <AccessDenied />;
  if (!report.data) return <p class="muted">{t`Please wait ...`}</p>;
  return <RunList {...props} r={report.data} />;
}

function RunList(props: RunsOfProps & { r: Report }) {
  const { t, i18n } = useLingui();
  const zone = useSiteTimeZone();
  const thresholds = useLatencyThresholds();
  const { bucketName } = useReportLabels();
  const [page, setPage] = useState(1);
  const [size, setSize] = useState(100);
  const q = { ...props.query(props.r), pageNo: page - 1, pageSize: size };
  const runs = useReportRuns(props.r.id, q);
  const bucket = thresholds.data?.find((b) => b.id === props.bucket);
  const statusName: Record<string, string> = {
    success: t`Pass`,
    warning: t`Warning`,
    failure: t`Failure`,
    total: t`Total`,
  };
  const hour = `${HOURS[props.hour]}:00`;
  const what =
    props.kind === "mos"
      ? t`MOS from ${fixed(props.mos ?? 0, 1, i18n.locale)} to ${fixed(5, 1, i18n.locale)} at ${hour}`
      : bucket
        ? t`Latency ${bucketName(bucket)} at ${hour}`
        : t`All latencies at ${hour}`;
  const columns: Column<RunItem>[] = [
    { key: "runId", label: t`Run ID`, render: (x) => x.runId },
    {
      key: "testCaseName",
      label: t`Test Case`,
      render: (x) => (
        <Link href={runUrl(x.runId)} data-testid="run-link">
          {x.testCaseName}
        </Link>
      ),
    },
    { key: "runTime", label: t`Date Time`, render: (x) => formatSiteTime(x.runTime, zone, i18n.locale) },
    { key: "runDuration", label: t`Duration`, render: (x) => t`${fixed(x.runDuration, 2, i18n.locale)} sec` },
    {
      key: "runStatus",
      label: t`Status`,
      render: (x) => statusName[x.runStatusId === 3 ? "success" : x.runStatusId === 4 ? "warning" : "failure"],
    },
    {
      key: "mosCqIn",
      label: t`MOS`,
      render: (x) => (x.mosCqIn === null || x.mosCqIn === undefined ? "—" : fixed(x.mosCqIn, 1, i18n.locale)),
    },
  ];
  return (
    <section class="page report-runs" data-testid={`report-runs-${props.kind}`}>
      <h1 class="page-title">{props.r.name}</h1>
      <p class="muted" data-testid="runs-what">
        {what}
        {props.status ? ` · ${statusName[props.status]}` : ""} · {q.startDate ?? props.r.timeframeBegin} –{" "}
        {q.endDate ?? props.r.timeframeEnd}
      </p>
      <p>
        <a href={`/report/view/${props.r.id}`}>{t`Back to the report`}</a>
      </p>
      <DataTable
        testId="runs-table"
        columns={columns}
        rows={runs.data?.content}
        rowId={(x) => x.runId}
        rowLabel={(x) => `${x.testCaseName} ${x.runTime}`}
        loading={runs.isFetching}
        error={runs.isError ? (runs.error?.message ?? t`The list could not be loaded.`) : null}
      />
      <Pager
        page={page}
        size={size}
        total={runs.data?.totalElements ?? 0}
        onPage={setPage}
        onSize={(s) => {
          setSize(s);
          setPage(1);
        }}
      />
    </section>
  );
}
