// Incidents (/incidents, cxwatch's addition): outages newest first, each with its title, first
// failure, the groups it affects and its state, filtered open or resolved; each leads to its page.
// Under flavour "spec" the API has none: the page says so (the alerts list does not link here).
import { useLingui } from "@lingui/react/macro";
import { Link } from "wouter";
import { type Incident, type IncidentListParams, useIncidents } from "../../api/queries/incidents";
import type { Column } from "../../components/DataTable";
import { formatSiteTime } from "../../lib/siteTime";
import { useApiFlavor, useSiteTimeZone } from "../../lib/tenant";
import { ListScreen, useListScreen } from "../shared/ListScreen";
import { pagingOf } from "../shared/listParams";
import { IncidentState, useIncidentTitle } from "./parts";
import { filterOfParam, incidentPath } from "./rules";
import "./Incidents.css";

function paramsOf(search: string): IncidentListParams & { page: number } {
  const q = new URLSearchParams(search);
  return { ...pagingOf(q), state: filterOfParam(q.get("state")) };
}

export function IncidentListPage() {
  const { t, i18n } = useLingui();
  const zone = useSiteTimeZone();
  const flavor = useApiFlavor();
  const title = useIncidentTitle();
  const list = useListScreen({
    parse: paramsOf,
    useList: useIncidents,
    rowId: (i: Incident) => i.incidentId,
    name: (i: Incident) => title(i),
  });
  const { p, setParams } = list;
  const columns: Column<Incident>[] = [
    {
      key: "title",
      label: t`Incident`,
      render: (i) => (
        <Link href={incidentPath(i.incidentId)} data-testid="incident-row-link">
          {title(i)}
        </Link>
      ),
    },
    { key: "firstFailure", label: t`First failure`, render: (i) => formatSiteTime(i.firstFailure, zone, i18n.locale) },
    { key: "groups", label: t`Affected groups`, render: (i) => i.groups.map((g) => g.name).join(", ") },
    { key: "state", label: t`State`, render: (i) => <IncidentState incident={i} compact /> },
  ];
  if (flavor !== "cxwatch") {
    return (
      <section class="page" data-testid="incident-list">
        <h1 class="page-title">{t`Incidents`}</h1>
        <p data-testid="incident-error">{t`This console's API does not group alerts into incidents.`}</p>
        <Link href="/alerts">{t`Back to the alerts`}</Link>
      </section>
    );
  }
  const chip = (v: "open" | "resolved", label: string) => (
    <button
      type="button"
      class={`chip status-chip ${p.state === v ? "selected" : ""}`}
      aria-pressed={p.state === v}
      data-testid={`incident-filter-${v}`}
      onClick={() => setParams({ state: p.state === v ? undefined : v, page: undefined })}
    >
      {label}
    </button>
  );
  return (
    <ListScreen
      list={list}
      testId="incident-list"
      title={t`Incidents`}
      toolbar={
        <fieldset class="list-toolbar status-chips">
          <legend class="visually-hidden">{t`Filter by state`}</legend>
          {chip("open", t`Open incidents`)}
          {chip("resolved", t`Resolved incidents`)}
          <Link href="/alerts" class="button link">
            {t`Alerts`}
          </Link>
        </fieldset>
      }
      tableTestId="incidents-table"
      columns={columns}
      phoneSummary={(i) => <IncidentState incident={i} compact />}
      phoneHead={(i) => {
        const id = i.incidentId;
        return (
          <Link href={incidentPath(id)} class="button secondary" aria-label={t`Open incident ${id}`}>
            {t`Open`}
          </Link>
        );
      }}
    />
  );
}
