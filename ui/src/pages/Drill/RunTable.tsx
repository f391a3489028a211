// The runs behind a number: run id, test case, date-time, duration, detailed status and MOS,
// each row leading to the run's detail. One page (the server's, or the browser's of a whole
// list). Every list of runs is this one: the drill screen, the reports' latency, MOS and trend
// runs, and the alert details. Times in the site's zone (formatSiteTime), the status as a chip,
// an Open action; on a phone each run's card shows its status and time while closed. The table
// grows with its page (the page scrolls, not a 550 px box).
import { useLingui } from "@lingui/react/macro";
import type { ComponentChildren } from "preact";
import { Link } from "wouter";
import type { SpecRun as RunItem } from "../../api/types";
import { type Column, DataTable, type SortState } from "../../components/DataTable";
import { Pager } from "../../components/Pager";
import type { ListPage } from "../../lib/listPage";
import { formatSiteTime } from "../../lib/siteTime";
import { useSiteTimeZone } from "../../lib/tenant";
import { mos1, msAsSeconds, seconds2, statusKindOfId } from "./format";
import { runPath } from "./links";
import { StatusBadge } from "./StatusBadge";

export interface RunTableProps {
  data: ListPage<RunItem> | undefined;
  loading: boolean;
  error: string | null;
  /** 1-based. */
  page: number;
  size: number;
  onPage: (page: number) => void;
  onSize: (size: number) => void;
  /** Latency threshold (seconds) passed on to the run detail. */
  latency?: number;
  /** The table's test id ('run-table' unless given). */
  testId?: string;
  /** Row actions (the alert details' download), last column. */
  actions?: (row: RunItem) => ComponentChildren;
  /** The order shown; with onSort every column sorts. */
  sort?: SortState;
  onSort?: (next: SortState) => void;
  /** A Latency column (the runs behind a latency cell: each run's slowest step). */
  showLatency?: boolean;
  /** The alert whose runs these are: each run's page then offers the alert's actions. */
  alertId?: number;
}

export function useRunColumns(latency?: number, showLatency = false, alertId?: number): Column<RunItem>[] {
  const { t, i18n } = useLingui();
  const zone = useSiteTimeZone();
  const columns: Column<RunItem>[] = [
    { key: "runId", label: t`Run ID`, render: (r) => r.runId },
    {
      key: "testCaseName",
      label: t`Test Case`,
      render: (r) => (
        <Link href={runPath(r.runId, latency, alertId)} data-testid="run-link">
          {r.testCaseName}
        </Link>
      ),
    },
    { key: "runTime", label: t`Date Time`, render: (r) => formatSiteTime(r.runTime, zone, i18n.locale) },
    {
      key: "runDuration",
      label: t`Duration`,
      render: (r) => {
        const seconds = seconds2(r.runDuration, i18n.locale);
        return t`${seconds} sec`;
      },
    },
    {
      key: "runStatus",
      label: t`Detailed Status`,
      render: (r) => (
        <StatusBadge
          kind={statusKindOfId(r.runStatusId)}
          stopped={r.runResult === "stopped"}
          maintenance={r.maintenance === true}
        />
      ),
    },
    { key: "mosCqIn", label: t`MOS`, render: (r) => mos1(r.mosCqIn, i18n.locale) },
  ];
  if (showLatency) {
    columns.push({
      key: "latency",
      label: t`Slowest step`,
      render: (r) => {
        const seconds = msAsSeconds(r.latency, i18n.locale);
        return seconds ? <span class="nowrap">{t`${seconds} sec`}</span> : "—";
      },
    });
  }
  return columns.map((c) => ({ ...c, sortable: true }));
}

export function RunTable(p: RunTableProps) {
  const { t, i18n } = useLingui();
  const zone = useSiteTimeZone();
  const columns = useRunColumns(p.latency, p.showLatency, p.alertId);
  return (
    <>
      <DataTable
        testId={p.testId ?? "run-table"}
        columns={columns}
        rows={p.data?.content}
        rowId={(r) => r.runId}
        rowLabel={(r) => {
          const id = r.runId;
          const name = r.testCaseName;
          return t`Run ${id}: ${name}`;
        }}
        phoneHead={(r) => {
          const id = r.runId;
          return (
            <Link
              href={runPath(id, p.latency, p.alertId)}
              class="button secondary run-open"
              data-testid="run-open"
              aria-label={t`Open run ${id}`}
            >
              {t`Open`}
            </Link>
          );
        }}
        phoneSummary={(r) => (
          <>
            <StatusBadge
              kind={statusKindOfId(r.runStatusId)}
              stopped={r.runResult === "stopped"}
              maintenance={r.maintenance === true}
              testId="run-status"
            />
            <span data-testid="run-time">{formatSiteTime(r.runTime, zone, i18n.locale)}</span>
          </>
        )}
        loading={p.loading}
        error={p.error}
        actions={p.actions}
        sort={p.sort}
        onSort={p.onSort}
        phoneSort
        tall
      />
      <Pager page={p.page} size={p.size} total={p.data?.totalElements ?? 0} onPage={p.onPage} onSize={p.onSize} />
    </>
  );
}
