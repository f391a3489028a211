// An incident (/incident/{id}, cxwatch's addition): alerts that opened close together and share a
// cause, as one outage. Its title (the entry point or group they share), first failure, the groups
// and test cases it affects, its state (open, acknowledged by whom and when, muted until when by
// whom, resolved), the actions on every open alert, and its alerts, each a link to the alert.
// Under flavour "spec" the API has no incidents: the page says so and leads to the alerts.
import { useLingui } from "@lingui/react/macro";
import { Link, useParams } from "wouter";
import { ApiError } from "../../api";
import { type IncidentAlert, useIncident } from "../../api/queries/incidents";
import { type Column, DataTable } from "../../components/DataTable";
import { canWrite, session } from "../../lib/session";
import { formatSiteTime } from "../../lib/siteTime";
import { useStore } from "../../lib/store";
import { useApiFlavor, useSiteTimeZone } from "../../lib/tenant";
import { alertPath } from "../Alerts/ListPage";
import { IncidentActions, IncidentState, useIncidentTitle } from "./parts";
import "./Incidents.css";

function useAlertColumns(): Column<IncidentAlert>[] {
  const { t, i18n } = useLingui();
  const zone = useSiteTimeZone();
  return [
    {
      key: "alertId",
      label: t`Alert ID`,
      render: (a) => (
        <Link href={alertPath(a.alertId)} data-testid="incident-alert-link">
          {a.alertId}
        </Link>
      ),
    },
    { key: "testCaseGroupName", label: t`Test Case Group`, render: (a) => a.testCaseGroupName },
    { key: "testCaseName", label: t`Test Case`, render: (a) => a.testCaseName },
    { key: "alertTime", label: t`Alert Time`, render: (a) => formatSiteTime(a.alertTime, zone, i18n.locale) },
    {
      key: "state",
      label: t`Status`,
      render: (a) => {
        const who = a.acknowledgedBy ?? "";
        return (
          <span class="alert-status" data-testid="incident-alert-state">
            {a.open ? <span class="alert-open">{t`Ongoing`}</span> : <span class="alert-closed">{t`Closed`}</span>}
            {a.acknowledgedBy ? <span class="alert-ack">{t`Acknowledged by ${who}`}</span> : null}
          </span>
        );
      },
    },
  ];
}

export function IncidentPage() {
  const { t, i18n } = useLingui();
  const params = useParams<{ id: string }>();
  const id = Number(params.id);
  const zone = useSiteTimeZone();
  const flavor = useApiFlavor();
  const q = useIncident(id);
  const title = useIncidentTitle();
  const columns = useAlertColumns();
  const writable = canWrite(useStore(session));

  if (flavor !== "cxwatch" || q.isError) {
    const err = q.error;
    const text =
      flavor !== "cxwatch"
        ? t`This console's API does not group alerts into incidents.`
        : err instanceof ApiError && err.status === 403
          ? t`This incident is not in your test case groups.`
          : err instanceof ApiError && err.status === 404
            ? t`This incident does not exist.`
            : t`The incident could not be loaded.`;
    return (
      <section class="page incident-page" data-testid="incident-page">
        <h1 class="page-title">{t`Incident`}</h1>
        <p class="error-text" data-testid="incident-error">
          {text}
        </p>
        <Link href="/alerts">{t`Back to the alerts`}</Link>
      </section>
    );
  }
  const i = q.data;
  const fmt = (v: string | null | undefined) => (v ? formatSiteTime(v, zone, i18n.locale) : "");
  return (
    <section class="page incident-page" data-testid="incident-page">
      <h1 class="page-title" data-testid="incident-title">
        {i ? title(i) : t`Incident`}
      </h1>
      {i ? (
        <>
          <dl class="alert-summary card" data-testid="incident-summary">
            <div>
              <dt>{t`State`}</dt>
              <dd>
                <IncidentState incident={i} />
              </dd>
            </div>
            <div>
              <dt>{t`First failure`}</dt>
              <dd data-testid="incident-first">{fmt(i.firstFailure)}</dd>
            </div>
            <div>
              <dt>{t`Affected groups`}</dt>
              <dd data-testid="incident-groups">{i.groups.map((g) => g.name).join(", ")}</dd>
            </div>
            <div>
              <dt>{t`Affected test cases`}</dt>
              <dd data-testid="incident-cases">{i.testCases.map((c) => c.name).join(", ")}</dd>
            </div>
          </dl>
          {writable ? <IncidentActions incident={i} /> : null}
        </>
      ) : null}
      <h2 class="alert-section-title">{t`Alerts of this incident`}</h2>
      <DataTable
        testId="incident-alerts"
        columns={columns}
        rows={i?.alerts}
        rowId={(a) => a.alertId}
        rowLabel={(a) => {
          const aid = a.alertId;
          const name = a.testCaseName;
          return t`Alert ${aid}: ${name}`;
        }}
        loading={q.isFetching}
        phoneHead={(a) => {
          const aid = a.alertId;
          return (
            <Link
              href={alertPath(aid)}
              class="button secondary"
              data-testid="incident-alert-open"
              aria-label={t`Open alert ${aid}`}
            >
              {t`Open`}
            </Link>
          );
        }}
        phoneSummary={(a) => (
          <span class="alert-status">
            {a.open ? <span class="alert-open">{t`Ongoing`}</span> : <span class="alert-closed">{t`Closed`}</span>}
            <span>{a.testCaseGroupName}</span>
          </span>
        )}
      />
      <p>
        <Link href="/incidents">{t`All incidents`}</Link>
      </p>
    </section>
  );
}
