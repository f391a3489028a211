// A report's view (/report/view/{id}, /report/view/testcase/{id}; spec §2 'Report views by
// type'): the header with the report's range and a download-CSV action, then the view of its
// type. Views lead to the drill, latency and MOS routes.
import { useLingui } from "@lingui/react/macro";
import { useParams } from "wouter";
import { ApiError } from "../../api";
import { downloadReport, useReport } from "../../api/queries/reports";
import type { Report } from "../../api/types";
import { Refused } from "../../components/AccessDenied";
import { showError } from "../../lib/banners";
import { NotFoundPage } from "../NotFound";
import { useReportLabels } from "./labels";
import { viewOf } from "./rules";
import { EntityView } from "./views/EntityView";
import { LatencyView } from "./views/LatencyView";
import { MosView } from "./views/MosView";
import { TrendView } from "./views/TrendView";
import "./Reports.css";

export function ReportViewPage() {
  const { t } = useLingui();
  const params = useParams<{ id: string }>();
  const id = Number(params.id);
  const report = useReport(Number.isInteger(id) && id > 0 ? id : 0);
  if (!Number.isInteger(id) || id <= 0) return <NotFoundPage />;
  if (report.isError) return <Refused error={report.error} fallback={t`The report could not be loaded.`} />;
  if (!report.data) return <p class="muted">{t`Please wait ...`}</p>;
  return <ReportView r={report.data} />;
}

function ReportView({ r }: { r: Report }) {
  const { t } = useLingui();
  const { typeName, timeframeName, runTypeName } = useReportLabels();
  const view = viewOf(r.reportTypeID);
  const download = () => {
    downloadReport(r.id).catch((e) => {
      if (!(e instanceof ApiError)) showError(t`The report could not be downloaded.`);
    });
  };
  return (
    <section class="page report-view" data-testid={`report-view-${view}`}>
      <div class="report-head">
        <div>
          <h1 class="page-title">{r.name}</h1>
          <p class="muted" data-testid="report-meta">
            {typeName(r.reportTypeID)} · {r.testCaseGroupName} · {timeframeName(r.timeframeName)} ({r.timeframeBegin} –{" "}
            {r.timeframeEnd}) · {runTypeName(r.runType)}
          </p>
        </div>
        <button type="button" class="button secondary" onClick={download} data-testid="download-csv">
          {t`Download CSV`}
        </button>
      </div>
      {view === "trend" ? <TrendView r={r} /> : null}
      {view === "segment" ? <EntityView r={r} level="segment" /> : null}
      {view === "testcase" ? <EntityView r={r} level="case" /> : null}
      {view === "latency" ? <LatencyView r={r} /> : null}
      {view === "mos" ? <MosView r={r} /> : null}
    </section>
  );
}
