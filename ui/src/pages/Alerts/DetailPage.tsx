// Alert details (/alert/{id}): the test case, the number of runs, from/to, the distribution
// list, a searchable and filterable table of the event's runs (the shared RunTable; a test case
// name opens the run, each row downloads its recording) and each notification with its state.
// Times are UTC from the API, shown in the site's zone as yyyy/MM/dd HH:mm:ss.
import { useLingui } from "@lingui/react/macro";
import { useState } from "react";
import { Link, useParams, useSearch } from "wouter";
import { ApiError, client } from "../../api";
import { alertKeys, useAlertEvent } from "../../api/queries/alerts";
import { useJiraConfig } from "../../api/queries/jira";
import { downloadRecording } from "../../api/queries/runs";
import type { Notification, RunDetail } from "../../api/types";
import { type Column, DataTable } from "../../components/DataTable";
import { SearchBox } from "../../components/SearchBox";
import { showError } from "../../lib/banners";
import { deliveryReason } from "../../lib/deliveryReason";
import { toListPage } from "../../lib/listPage";
import { queryClient } from "../../lib/queryClient";
import { NEWEST_FIRST, runSortValue, type SortState } from "../../lib/runSort";
import { canWrite, session } from "../../lib/session";
import { formatSiteTime } from "../../lib/siteTime";
import { useStore } from "../../lib/store";
import { useSiteTimeZone } from "../../lib/tenant";
import { useContactTypeLabel } from "../Distributions/columns";
import type { StatusKind } from "../Drill/format";
import { RunTable } from "../Drill/RunTable";
import { StatusBadge } from "../Drill/StatusBadge";
import { IncidentPanel } from "../Incidents/Panel";
import { TicketDialog } from "../Tickets/TicketDialog";
import { Acknowledgement, ActiveMuteNote, Comments, MuteButtons, Timeline } from "./Lifecycle";
import {
  asksAcknowledge,
  canAcknowledge,
  eventKind,
  filterRuns,
  notificationCause,
  openState,
  recipientShown,
  tracksAcknowledgement,
} from "./rules";
import "./Alerts.css";

function useNotificationColumns(listName: string | undefined): Column<Notification>[] {
  const { t, i18n } = useLingui();
  const zone = useSiteTimeZone();
  const channel = useContactTypeLabel();
  const state = (s: string) => (s === "sent" ? t`Sent` : s === "failed" ? t`Failed` : t`Queued`);
  return [
    { key: "type", label: t`Type`, render: (n) => channel(n.type) },
    { key: "recipient", label: t`Email/Number`, render: (n) => recipientShown(n, listName) },
    {
      key: "cause",
      label: t`Message`,
      render: (n) => {
        const cause = notificationCause(n.cause);
        return cause === "recovery" ? t`Recovery` : cause === "escalation" ? t`Escalation` : t`Alert`;
      },
    },
    {
      key: "state",
      label: t`State`,
      render: (n) => (
        <span class={`notification-state state-${n.state}`} data-testid="notification-state" data-state={n.state}>
          {state(n.state)}
        </span>
      ),
    },
    { key: "attempts", label: t`Attempts`, render: (n) => i18n.number(n.attempts) },
    {
      key: "sentTime",
      label: t`Sent Time`,
      render: (n) => (n.sentTime ? formatSiteTime(n.sentTime, zone, i18n.locale) : "—"),
    },
    // Why a send failed or waits, in a column of its own: the sent time is a time or nothing.
    {
      key: "reason",
      label: t`Reason`,
      render: (n) => deliveryReason(i18n, n.reasonCode, n.reasonStatus) ?? n.reason ?? "",
    },
  ];
}

export function AlertDetailPage() {
  const { t, i18n } = useLingui();
  const params = useParams<{ id: string }>();
  const id = Number(params.id);
  const zone = useSiteTimeZone();
  const event = useAlertEvent(id);
  const [search, setSearch] = useState("");
  const [kind, setKind] = useState<StatusKind | "">("");
  const [page, setPage] = useState(1);
  const [size, setSize] = useState(10);
  const [sort, setSort] = useState<SortState>(NEWEST_FIRST);
  const notificationColumns = useNotificationColumns(event.data?.distributionName);
  const me = useStore(session);
  const writable = canWrite(me);
  const fromMail = asksAcknowledge(useSearch());
  const tickets = canWrite(me) && !!useJiraConfig().data?.configured;
  const [ticketOpen, setTicketOpen] = useState(false);

  const download = async (runId: number) => {
    try {
      const run: Partial<RunDetail> = await client.get("/trs/v1/testruns/{id}", { path: { id: runId }, quiet: true });
      if (!run.recordingUrl) {
        showError(t`This run has no recording.`);
        return;
      }
      if (!(await downloadRecording(run.recordingUrl, `run-${runId}`)))
        showError(t`The recording could not be downloaded.`);
    } catch {
      showError(t`The recording could not be downloaded.`);
    }
  };

  if (event.isError) {
    const err = event.error;
    const text =
      err instanceof ApiError && err.status === 403
        ? t`This alert is not in your test case groups.`
        : err instanceof ApiError && err.status === 404
          ? t`This alert does not exist.`
          : t`The alert could not be loaded.`;
    return (
      <section class="page alert-detail" data-testid="alert-detail">
        <h1 class="page-title">{t`Alert Details`}</h1>
        <p class="error-text" data-testid="alert-error">
          {text}
        </p>
        <Link href="/alerts">{t`Back to the alerts`}</Link>
      </section>
    );
  }
  const d = event.data;
  const runs = d ? filterRuns(d.testRuns ?? [], search, kind) : [];
  const open = d ? openState(d) : undefined;
  const fmt = (v: string | null | undefined) => (v ? formatSiteTime(v, zone, i18n.locale) : "");

  return (
    <section class="page alert-detail" data-testid="alert-detail">
      <h1 class="page-title">{d ? t`Alert ${id}` : t`Alert Details`}</h1>
      {d ? <IncidentPanel incidentId={d.incidentId} alertId={id} /> : null}
      {d ? (
        <dl class="alert-summary card" data-testid="alert-summary">
          <div>
            <dt>{t`Test Case ID`}</dt>
            <dd data-testid="alert-case-id">{d.testCaseId}</dd>
          </div>
          <div>
            <dt>{t`Test Case`}</dt>
            <dd data-testid="alert-case-name">{d.testCaseName}</dd>
          </div>
          <div>
            <dt>{t`Number of Test Runs`}</dt>
            <dd data-testid="alert-run-count">{i18n.number(d.testRunCount)}</dd>
          </div>
          <div>
            <dt>{t`From`}</dt>
            <dd>{fmt(d.from)}</dd>
          </div>
          <div>
            <dt>{t`To`}</dt>
            <dd>{fmt(d.to)}</dd>
          </div>
          <div>
            <dt>{t`Distribution list`}</dt>
            <dd data-testid="alert-distribution">{d.distributionName}</dd>
          </div>
          <div>
            <dt>{t`Alert Time`}</dt>
            <dd>{fmt(d.alertTime)}</dd>
          </div>
          <div>
            <dt>{t`Status`}</dt>
            <dd class="alert-status">
              <StatusBadge kind={eventKind({ testRuns: d.testRuns, statusId: d.statusId })} />
              {open === true ? (
                <span class="alert-open">{t`Ongoing`}</span>
              ) : open === false ? (
                <span class="alert-closed">{t`Closed`}</span>
              ) : null}
            </dd>
          </div>
          {d.mute ? (
            <div>
              <dt>{t`Mute`}</dt>
              <dd>
                <ActiveMuteNote id={id} mute={d.mute} writable={writable && open === true} />
              </dd>
            </div>
          ) : null}
          {d.acknowledgedBy !== undefined ? (
            <div>
              <dt>{t`Acknowledgement`}</dt>
              <dd data-testid="alert-ack-state">
                {d.acknowledgedBy ? (
                  <Acknowledgement id={id} event={d} writable={writable} />
                ) : (
                  <span class="muted">{open ? t`Nobody has it yet` : t`Not acknowledged`}</span>
                )}
              </dd>
            </div>
          ) : null}
        </dl>
      ) : null}
      {d && writable && open === true && tracksAcknowledgement(d) ? (
        <div
          class={`alert-actions card${fromMail && canAcknowledge(d) ? " alert-actions-asked" : ""}`}
          data-testid="alert-actions"
        >
          {fromMail && canAcknowledge(d) ? (
            <p>{t`You followed the alert mail's link: acknowledge the alert to tell the others you have it.`}</p>
          ) : null}
          {canAcknowledge(d) ? <Acknowledgement id={id} event={d} writable={writable} /> : null}
          {d.mute ? null : <MuteButtons id={id} groupName={d.testCaseGroupName} groupMute={d.mute !== undefined} />}
        </div>
      ) : null}
      <h2 class="alert-section-title">{t`Test Runs`}</h2>
      <div class="list-toolbar">
        <SearchBox
          value={search}
          onSearch={(text) => {
            setSearch(text);
            setPage(1);
          }}
        />
        <label class="inline-field">
          <span class="visually-hidden">{t`Detailed Status`}</span>
          <select
            value={kind}
            aria-label={t`Detailed Status`}
            data-testid="run-status-filter"
            onChange={(e) => {
              setKind(e.currentTarget.value as StatusKind | "");
              setPage(1);
            }}
          >
            <option value="">{t`All statuses`}</option>
            <option value="failure">{t`Failure`}</option>
            <option value="warning">{t`Warning`}</option>
            <option value="pass">{t`Pass`}</option>
          </select>
        </label>
      </div>
      <RunTable
        testId="alert-runs"
        alertId={id}
        data={
          d
            ? toListPage(runs, {
                pageNo: page - 1,
                pageSize: size,
                sort: { field: sort.key, dir: sort.dir },
                sortValue: runSortValue,
              })
            : undefined
        }
        sort={sort}
        onSort={(next) => {
          setSort(next);
          setPage(1);
        }}
        loading={event.isFetching}
        error={null}
        page={page}
        size={size}
        onPage={setPage}
        onSize={(s) => {
          setSize(s);
          setPage(1);
        }}
        actions={(r) => {
          const runId = r.runId;
          const key = d?.jiraTicket ?? "";
          return (
            <>
              <button
                type="button"
                class="button link"
                data-testid="download-recording"
                aria-label={t`Download the recording of run ${runId}`}
                onClick={() => void download(runId)}
              >
                {t`Download`}
              </button>
              {tickets ? (
                <button
                  type="button"
                  class="button link"
                  data-testid="alert-ticket"
                  aria-label={key ? t`Edit ticket ${key}` : t`Create ticket for alert ${id}`}
                  onClick={() => setTicketOpen(true)}
                >
                  {key || t`Ticket`}
                </button>
              ) : null}
            </>
          );
        }}
      />
      <TicketDialog
        open={ticketOpen}
        target={d ? { alertId: id, ticket: d.jiraTicket, name: t`Alert ${id}` } : null}
        username={me?.username ?? ""}
        onClose={() => setTicketOpen(false)}
        onCreated={() => void queryClient.invalidateQueries({ queryKey: alertKeys.detail(id) })}
      />
      {d && Array.isArray(d.timeline) ? <Timeline entries={d.timeline} listName={d.distributionName} /> : null}
      {d && Array.isArray(d.comments) ? <Comments id={id} comments={d.comments} writable={writable} /> : null}
      {d && !Array.isArray(d.notifications) ? null : (
        // cxwatch's addition: a vendor's alert has no notifications, so no such section.
        <>
          <h2 class="alert-section-title">{t`Notifications sent`}</h2>
          <DataTable
            testId="alert-notifications"
            columns={notificationColumns}
            rows={d?.notifications}
            rowId={(n) => n.id}
            rowLabel={(n) => recipientShown(n, d?.distributionName)}
            loading={event.isFetching}
          />
        </>
      )}
    </section>
  );
}
