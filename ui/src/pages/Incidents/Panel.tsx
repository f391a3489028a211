// The incident an alert belongs to, on the alert's page (cxwatch's addition): its title, state and
// size, a link to it, and its actions, so that an outage of several groups is acknowledged from
// any of its alerts in one click. Nothing shows for an alert without one, or on a vendor's API.
import { useLingui } from "@lingui/react/macro";
import { Link } from "wouter";
import { useIncident } from "../../api/queries/incidents";
import { canWrite, session } from "../../lib/session";
import { useStore } from "../../lib/store";
import { IncidentActions, IncidentState, useIncidentTitle } from "./parts";
import { incidentPath } from "./rules";
import "./Incidents.css";

export function IncidentPanel(props: { incidentId: number | null | undefined; alertId: number }) {
  const { t } = useLingui();
  const q = useIncident(props.incidentId);
  const title = useIncidentTitle();
  const writable = canWrite(useStore(session));
  const i = q.data;
  if (!i) return null;
  const groups = i.groups.length;
  const alerts = i.alertCount;
  return (
    <section class="incident-panel card" data-testid="incident-panel" aria-labelledby="incident-panel-title">
      <h2 class="incident-panel-title" id="incident-panel-title">
        <Link href={incidentPath(i.incidentId)} data-testid="incident-link">
          {title(i)}
        </Link>
      </h2>
      <p class="incident-panel-line">{t`This alert is one of ${alerts} alerts in ${groups} groups of one outage.`}</p>
      <IncidentState incident={i} />
      {writable ? <IncidentActions incident={i} /> : null}
    </section>
  );
}
