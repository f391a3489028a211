// Alerts (/alerts): the alert events the engine opened, newest first (by the time each opened:
// the server's order), paged by the server, with the status chips Failure (7), Pass (3),
// Warning (4); each row leads to /alert/{id}. On a phone the rows are expandable cards
// (DataTable's accordion) that show the status, ongoing or closed, and the time while closed.
// The URL holds page, size, status and (cxwatch's API) state: open, unacknowledged or mine
// (events I acknowledged, commented on or muted), filtered by the server; the handover view
// (/alerts/handover) is a link beside them.
import { useLingui } from "@lingui/react/macro";
import { Link } from "wouter";
import { type AlertListParams, useAlertEvents } from "../../api/queries/alerts";
import type { SpecAlertEvent as AlertEvent } from "../../api/types";
import type { Column } from "../../components/DataTable";
import { canWrite, session } from "../../lib/session";
import { formatSiteTime } from "../../lib/siteTime";
import { useStore } from "../../lib/store";
import { useApiFlavor, useSiteTimeZone } from "../../lib/tenant";
import { StatusBadge } from "../Drill/StatusBadge";
import { incidentPath } from "../Incidents/rules";
import { ListFilter, ListScreen, useListScreen } from "../shared/ListScreen";
import { pagingOf } from "../shared/listParams";
import { Acknowledgement } from "./Lifecycle";
import {
  eventKind,
  openState,
  STATE_FILTERS,
  STATUS_CHIPS,
  stateOfParam,
  statusOfParam,
  toggleStatus,
  tracksAcknowledgement,
} from "./rules";
import "./Alerts.css";

export function paramsOf(search: string): AlertListParams & { page: number } {
  const q = new URLSearchParams(search);
  return { ...pagingOf(q), status: statusOfParam(q.get("status")), state: stateOfParam(q.get("state")) };
}

export function alertPath(id: number): string {
  return `/alert/${id}`;
}

/**
 * The status chip, then Ongoing or Closed when the API says, and who acknowledged it. The
 * incident's link stays out of a phone row's toggle button (no link inside a button): the
 * row's fields, once open, hold it.
 */
function AlertState({ e, incidentLink = true }: { e: AlertEvent; incidentLink?: boolean }) {
  const { t } = useLingui();
  const open = openState(e);
  return (
    <span class="alert-status">
      <StatusBadge kind={eventKind(e)} />
      {open === true ? (
        <span class="alert-open" data-testid="alert-open">{t`Ongoing`}</span>
      ) : open === false ? (
        <span class="alert-closed" data-testid="alert-closed">{t`Closed`}</span>
      ) : null}
      {e.acknowledgedBy ? <Acknowledgement id={e.alertId} event={e} writable={false} compact /> : null}
      {incidentLink && typeof e.incidentId === "number" ? <IncidentLink id={e.incidentId} /> : null}
    </span>
  );
}

/** The incident an event belongs to (cxwatch's addition; a vendor's events have none). */
function IncidentLink({ id }: { id: number }) {
  const { t } = useLingui();
  return (
    <Link href={incidentPath(id)} class="alert-incident" data-testid="alert-incident-link">
      {t`Incident ${id}`}
    </Link>
  );
}

function useColumns(): Column<AlertEvent>[] {
  const { t, i18n } = useLingui();
  const zone = useSiteTimeZone();
  return [
    {
      key: "alertId",
      label: t`Alert ID`,
      render: (e) => (
        <Link href={alertPath(e.alertId)} data-testid="alert-link">
          {e.alertId}
        </Link>
      ),
    },
    { key: "testCaseName", label: t`Test Case`, render: (e) => e.testCaseName },
    { key: "alertTime", label: t`Alert Time`, render: (e) => formatSiteTime(e.alertTime, zone, i18n.locale) },
    { key: "distributionName", label: t`Distribution list`, render: (e) => e.distributionName },
    { key: "testRunCount", label: t`Test Run Count`, render: (e) => i18n.number(Number(e.testRunCount ?? 0)) },
    {
      key: "status",
      label: t`Status`,
      render: (e) => <AlertState e={e} />,
    },
  ];
}

export function AlertListPage() {
  const { t, i18n } = useLingui();
  const zone = useSiteTimeZone();
  const columns = useColumns();
  const list = useListScreen({
    parse: paramsOf,
    useList: useAlertEvents,
    rowId: (e) => e.alertId,
    name: (e) => {
      const id = e.alertId;
      const name = e.testCaseName;
      return t`Alert ${id}: ${name}`;
    },
  });
  const { p, setParams } = list;
  const writable = canWrite(useStore(session));
  const chipLabel = (id: number) => (id === 7 ? t`Failure` : id === 3 ? t`Pass` : t`Warning`);
  const cxwatch = useApiFlavor() === "cxwatch";
  const stateLabel = (s: string) =>
    s === "open" ? t`Open alerts` : s === "unacknowledged" ? t`Unacknowledged alerts` : t`My alerts`;

  return (
    <ListScreen
      list={list}
      testId="alert-list"
      title={t`Alerts`}
      toolbar={
        <fieldset class="list-toolbar status-chips">
          <legend class="visually-hidden">{t`Filter by status`}</legend>
          {STATUS_CHIPS.map((id) => (
            <button
              key={id}
              type="button"
              class={`chip status-chip chip-${id} ${p.status === id ? "selected" : ""}`}
              aria-pressed={p.status === id}
              data-testid={`status-chip-${id}`}
              onClick={() => setParams({ status: toggleStatus(p.status, id), page: undefined })}
            >
              {chipLabel(id)}
            </button>
          ))}
          {cxwatch ? (
            <>
              <ListFilter
                list={list}
                param="state"
                value={p.state}
                label={t`Alert state`}
                testId="alert-state-filter"
                options={[
                  { value: "", label: t`All alerts` },
                  ...STATE_FILTERS.map((s) => ({ value: s, label: stateLabel(s) })),
                ]}
              />
              <Link href="/alerts/handover" class="button secondary" data-testid="handover-link">
                {t`Handover`}
              </Link>
              <Link href="/incidents" class="button link" data-testid="incidents-link">
                {t`Incidents`}
              </Link>
            </>
          ) : null}
        </fieldset>
      }
      tableTestId="alerts-table"
      columns={columns}
      actions={
        writable && list.rows?.some(tracksAcknowledgement)
          ? (e) => <Acknowledgement id={e.alertId} event={e} writable compact />
          : undefined
      }
      phoneSummary={(e) => (
        <>
          <AlertState e={e} incidentLink={false} />
          <span data-testid="alert-time">{formatSiteTime(e.alertTime, zone, i18n.locale)}</span>
        </>
      )}
      phoneHead={(e) => {
        const id = e.alertId;
        return (
          <Link
            href={alertPath(id)}
            class="button secondary"
            data-testid="alert-open-link"
            aria-label={t`Open alert ${id}`}
          >
            {t`Open`}
          </Link>
        );
      }}
    />
  );
}
