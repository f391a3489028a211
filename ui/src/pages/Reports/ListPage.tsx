// The report list (/reports, spec §2 'Report list'): paged and sorted by the server; the URL
// holds page, size, search, filters and sort, so a reload or a link shows the same list.
import { useLingui } from "@lingui/react/macro";
import { useState } from "react";
import { ApiError } from "../../api";
import { useGroupChoices } from "../../api/queries/groups";
import { useJiraConfig } from "../../api/queries/jira";
import type { ReportListParams, ReportSortField } from "../../api/queries/reports";
import { deleteReport, downloadReport, reportKeys, useReports, useTimeframes } from "../../api/queries/reports";
import type { Report } from "../../api/types";
import { TicketIcon } from "../../components/icons";
import { Modal } from "../../components/Modal";
import { MultiSelect } from "../../components/MultiSelect/MultiSelect";
import { showError } from "../../lib/banners";
import { queryClient } from "../../lib/queryClient";
import { canWrite, isRestricted, session } from "../../lib/session";
import { useStore } from "../../lib/store";
import { useApiFlavor } from "../../lib/tenant";
import { ListScreen, RowDelete, RowLink, useListScreen } from "../shared/ListScreen";
import { listOf, searchedListOf } from "../shared/listParams";
import { TicketDialog, type TicketTarget } from "../Tickets/TicketDialog";
import { useReportColumns } from "./columns";
import { useReportLabels } from "./labels";
import { LATENCY, MOS, SEGMENT, TEST_CASE, TREND } from "./rules";
import { ScheduleDialog, type ScheduleTarget } from "./ScheduleDialog";
import "./Reports.css";

const SORT_FIELDS: ReportSortField[] = [
  "id",
  "name",
  "reportTypeName",
  "testCaseGroupName",
  "timeframeName",
  "lastModifiedTime",
];
const TYPE_IDS = [TREND, SEGMENT, LATENCY, MOS, TEST_CASE];

/** The list's state from the URL's query string. */
export function paramsOf(search: string): ReportListParams & { page: number } {
  const q = new URLSearchParams(search);
  return {
    ...searchedListOf(q, SORT_FIELDS, { field: "id", dir: "desc" }),
    reportType: listOf(q.get("type"))
      .map(Number)
      .filter((n) => TYPE_IDS.includes(n)),
    groupName: listOf(q.get("group")),
    startDate: q.get("from") ?? "",
    endDate: q.get("to") ?? "",
    timeframe: listOf(q.get("timeframe")),
  };
}

export function ReportsListPage() {
  const { t } = useLingui();
  const me = useStore(session);
  const write = canWrite(me);
  // Scheduled mail is cxwatch's own: offered only when its API is behind the console.
  const scheduling = useApiFlavor() === "cxwatch";
  const columns = useReportColumns(scheduling);
  const [scheduleFor, setScheduleFor] = useState<ScheduleTarget | null>(null);
  const [filterOpen, setFilterOpen] = useState(false);
  const jira = useJiraConfig();
  const tickets = write && !!jira.data?.configured;
  const [ticketFor, setTicketFor] = useState<TicketTarget | null>(null);
  const list = useListScreen({
    parse: paramsOf,
    useList: useReports,
    name: (r) => r.name,
    remove: {
      deleteOne: deleteReport,
      listKey: reportKeys.lists(),
      many: (count) => t`${count} reports`,
      failed: t`The report could not be deleted.`,
    },
  });
  const { p, setParams } = list;
  const filters =
    p.reportType.length + p.groupName.length + p.timeframe.length + (p.startDate ? 1 : 0) + (p.endDate ? 1 : 0);

  const download = (r: Report) => {
    downloadReport(r.id).catch((e) => {
      if (!(e instanceof ApiError)) showError(t`The report could not be downloaded.`);
    });
  };

  return (
    <ListScreen
      list={list}
      testId="reports-list"
      title={t`Reports`}
      searchText={(text) => text.toLowerCase()}
      filters={
        <>
          <button
            type="button"
            class="button secondary"
            onClick={() => void list.query.refetch()}
            data-testid="refresh"
            aria-label={t`Refresh`}
          >
            {t`Refresh`}
          </button>
          <button type="button" class="button secondary" onClick={() => setFilterOpen(true)} data-testid="open-filter">
            {filters ? t`Filter (${filters})` : t`Filter`}
          </button>
        </>
      }
      writable={write}
      create={{ href: "/report/add", testId: "add-report", label: t`Add Report` }}
      tableTestId="reports-table"
      columns={columns}
      actions={(r) => {
        const name = r.name;
        return (
          <>
            {/* A full page load (spec §2). */}
            <a href={`/report/view/${r.id}`} class="button link" data-testid="view-report" aria-label={t`View ${name}`}>
              {t`View`}
            </a>
            {write ? <RowLink href={`/report/edit/${r.id}`} testId="edit-report" name={name} /> : null}
            {scheduling && write ? (
              <button
                type="button"
                class="button link"
                onClick={() => setScheduleFor({ reportId: r.id, name })}
                data-testid="schedule-report"
                aria-label={t`Schedule delivery of ${name}`}
              >
                {t`Schedule delivery`}
              </button>
            ) : null}
            <button
              type="button"
              class="button link"
              onClick={() => download(r)}
              data-testid="download-report"
              aria-label={t`Download CSV of ${name}`}
            >
              {t`CSV`}
            </button>
            {tickets ? (
              <button
                type="button"
                class="button link ticket-button"
                onClick={() => setTicketFor({ reportId: r.id, ticket: r.jiraTicket, name })}
                data-testid="ticket-report"
                aria-label={r.jiraTicket ? t`Ticket ${r.jiraTicket} of ${name}` : t`Create a ticket for ${name}`}
              >
                <TicketIcon size={18} />
                {r.jiraTicket ? <span data-testid="ticket-key">{r.jiraTicket}</span> : null}
              </button>
            ) : null}
            {write ? <RowDelete list={list} row={r} testId="delete-report" /> : null}
          </>
        );
      }}
    >
      <ScheduleDialog target={scheduleFor} canEdit={write && !isRestricted(me)} onClose={() => setScheduleFor(null)} />
      <TicketDialog
        open={!!ticketFor}
        target={ticketFor}
        username={me?.username ?? ""}
        onClose={() => setTicketFor(null)}
        onCreated={() => void queryClient.invalidateQueries({ queryKey: reportKeys.all })}
      />
      <FilterDialog
        open={filterOpen}
        value={p}
        onClose={() => setFilterOpen(false)}
        onApply={(f) => {
          setFilterOpen(false);
          setParams({
            type: f.reportType.join(","),
            group: f.groupName.join(","),
            from: f.startDate,
            to: f.endDate,
            timeframe: f.timeframe.join(","),
            page: undefined,
          });
        }}
      />
    </ListScreen>
  );
}

type Filter = Pick<ReportListParams, "reportType" | "groupName" | "startDate" | "endDate" | "timeframe">;

function FilterDialog(props: { open: boolean; value: Filter; onClose: () => void; onApply: (f: Filter) => void }) {
  const { t } = useLingui();
  const groups = useGroupChoices();
  const timeframes = useTimeframes();
  const { typeName, timeframeName } = useReportLabels();
  const [f, setF] = useState<Filter>(props.value);
  const [wasOpen, setWasOpen] = useState(false);
  if (props.open && !wasOpen) {
    setWasOpen(true);
    setF(props.value);
  } else if (!props.open && wasOpen) setWasOpen(false);
  const summary = (n: number, of: number) => (n ? t`${n} of ${of} selected` : t`Any`);
  const groupNames = (groups.data ?? []).map((g) => g.name);
  const tfs = timeframes.data ?? [];
  return (
    <Modal open={props.open} onClose={props.onClose} title={t`Filter reports`} testId="report-filter">
      <form
        class="report-filter"
        onSubmit={(e) => {
          e.preventDefault();
          props.onApply(f);
        }}
      >
        <div class="field">
          <span class="field-label">{t`Report Type`}</span>
          <MultiSelect
            label={t`Report Type`}
            options={TYPE_IDS.map((id) => ({ value: id, label: typeName(id) }))}
            selected={f.reportType}
            onChange={(v) => setF({ ...f, reportType: v })}
            summary={summary(f.reportType.length, TYPE_IDS.length)}
            testId="filter-type"
          />
        </div>
        <div class="field">
          <span class="field-label">{t`Test Case Group`}</span>
          <MultiSelect
            label={t`Test Case Group`}
            options={groupNames.map((g) => ({ value: g, label: g }))}
            selected={f.groupName}
            onChange={(v) => setF({ ...f, groupName: v })}
            summary={summary(f.groupName.length, groupNames.length)}
            testId="filter-group"
          />
        </div>
        <div class="field">
          <label class="field-label" for="filter-from">{t`Start Date`}</label>
          <input
            id="filter-from"
            type="date"
            value={f.startDate}
            onInput={(e) => setF({ ...f, startDate: e.currentTarget.value })}
            data-testid="filter-from"
          />
        </div>
        <div class="field">
          <label class="field-label" for="filter-to">{t`End Date`}</label>
          <input
            id="filter-to"
            type="date"
            value={f.endDate}
            onInput={(e) => setF({ ...f, endDate: e.currentTarget.value })}
            data-testid="filter-to"
          />
        </div>
        <div class="field">
          <span class="field-label">{t`Timeframe`}</span>
          <MultiSelect
            label={t`Timeframe`}
            options={tfs.map((x) => ({ value: x, label: timeframeName(x) }))}
            selected={f.timeframe}
            onChange={(v) => setF({ ...f, timeframe: v })}
            summary={summary(f.timeframe.length, tfs.length)}
            testId="filter-timeframe"
          />
        </div>
        <div class="form-actions">
          <button
            type="button"
            class="button secondary"
            onClick={() => setF({ reportType: [], groupName: [], startDate: "", endDate: "", timeframe: [] })}
            data-testid="filter-clear"
          >
            {t`Clear`}
          </button>
          <button type="submit" class="button primary" data-testid="filter-apply">
            {t`Apply`}
          </button>
        </div>
      </form>
    </Modal>
  );
}
