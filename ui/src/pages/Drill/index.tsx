// The runs behind a number (/report/drill/{entityId}/{status}/{periodStart}/{periodEnd}
// [/{reportId}][/{latency}]): a test case's runs of a status over a period, a report segment's
// (with a report id), or a dashboard bar's (a group's hour, `?level=group&hrSlot=`). The page
// and page size are in the URL too, so a link or a reload shows the same page.
import { useLingui } from "@lingui/react/macro";
import { useParams, useSearch } from "wouter";
import { useGroup } from "../../api/queries/groups";
import { type RunListParams, type RunSource, useRuns } from "../../api/queries/runs";
import { pageOf, pageSizeOf } from "../../components/paging";
import { NotFoundPage } from "../NotFound";
import { type DrillStatus, readDrill } from "./links";
import { RunTable } from "./RunTable";
import "./Drill.css";
import { useUrlParams } from "../../components/useUrlParams";
import { formatDateField } from "../../lib/dates";
import { NEWEST_FIRST, readRunSort, sortParam } from "../../lib/runSort";

export { RunTable } from "./RunTable";

export function DrillPage() {
  const params = useParams<Record<string, string | undefined>>();
  const search = useSearch();
  const found = readDrill(params, search);
  if (!found) return <NotFoundPage />;
  return <Drill found={found} search={search} />;
}

function Drill({ found, search }: { found: NonNullable<ReturnType<typeof readDrill>>; search: string }) {
  const { t, i18n } = useLingui();
  const [, setParams] = useUrlParams();
  const q = new URLSearchParams(search);
  const page = pageOf(q.get("page"));
  const size = pageSizeOf(q.get("size"));
  let source: RunSource;
  let latency: number | undefined;
  let period: string;
  if (found.kind === "group") {
    const d = found.drill;
    source = { kind: "group", groupId: d.groupId, startDate: d.date, hrSlot: d.hour, caseRunType: d.runType };
    const day = formatDateField(d.date, i18n.locale);
    const from = String(d.hour ?? 0).padStart(2, "0");
    const to = String((d.hour ?? 23) + 1).padStart(2, "0");
    period = d.hour === undefined ? day : `${day} ${from}:00–${to}:00`;
  } else {
    const d = found.drill;
    latency = d.latency;
    source =
      d.reportId !== undefined
        ? {
            kind: "report",
            reportId: d.reportId,
            segmentId: d.entityId,
            startDate: d.periodStart,
            endDate: d.periodEnd,
            latencyThres: d.latency,
          }
        : {
            kind: "case",
            testCaseId: d.entityId,
            startDate: d.periodStart,
            endDate: d.periodEnd,
            caseRunType: d.runType,
          };
    const a = formatDateField(d.periodStart, i18n.locale);
    const b = formatDateField(d.periodEnd, i18n.locale);
    period = a === b ? a : `${a} – ${b}`;
  }
  const sort = readRunSort(q.get("sort"));
  const list: RunListParams = { source, status: found.drill.status, pageNo: page - 1, pageSize: size, sort };
  const runs = useRuns(list);
  const group = useGroup(found.kind === "group" ? found.drill.groupId : 0);
  const first = runs.data?.content?.[0];
  const what =
    found.kind === "group"
      ? (group.data?.name ?? "")
      : found.drill.reportId === undefined
        ? (first?.testCaseName ?? "")
        : "";
  const statusText: Record<DrillStatus, string> = {
    success: t`Pass`,
    warning: t`Warning`,
    failure: t`Failure`,
    total: t`Total`,
  };
  const runType = found.drill.runType;
  const runTypeText = runType === "Schedule" ? t`Schedule` : runType === "Manual" ? t`Manual` : null;
  const count = runs.data?.totalElements ?? 0;
  const shown = runs.data?.content ?? [];
  const typeUnknown = shown.length > 0 && shown.every((r) => r.runType === undefined || r.runType === null);

  return (
    <section class="page drill-page" data-testid="drill">
      <h1 class="page-title">{t`Test Runs`}</h1>
      <p class="drill-summary" data-testid="drill-summary">
        {what ? <strong data-testid="drill-entity">{what}</strong> : null}
        <span>
          {t`Status:`} <strong data-testid="drill-status">{statusText[found.drill.status]}</strong>
        </span>
        <span>
          {t`Period:`} <strong>{period}</strong>
        </span>
        {runTypeText && typeUnknown ? (
          // Section 3's runs have no run type, and testcases/{id}/runs takes none: every type shows.
          <span data-testid="drill-run-type-unknown">
            {t`Run Type:`} <strong>{t`All (the API does not give a run's type)`}</strong>
          </span>
        ) : runTypeText ? (
          <span>
            {t`Run Type:`} <strong>{runTypeText}</strong>
          </span>
        ) : null}
        <span>
          {t`Test Case Runs:`} <strong data-testid="drill-count">{count}</strong>
        </span>
      </p>
      <RunTable
        data={runs.data}
        loading={runs.isFetching}
        error={runs.isError ? (runs.error?.message ?? t`The list could not be loaded.`) : null}
        page={page}
        size={size}
        latency={latency}
        sort={sort ?? NEWEST_FIRST}
        onSort={(next) => setParams({ sort: sortParam(next), page: undefined })}
        onPage={(p) => setParams({ page: p })}
        onSize={(s) => setParams({ size: s, page: undefined })}
      />
    </section>
  );
}
