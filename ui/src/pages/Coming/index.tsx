// A screen of the route table not built yet (Alerts): it says so and leads back to the
// dashboard, rather than a bare 404 from an entry of the navigation.
import { Trans } from "@lingui/react/macro";
import { Link } from "wouter";

export function AlertsComingPage() {
  return (
    <section class="page coming" data-testid="coming">
      <h1 class="page-title">
        <Trans>Alerts</Trans>
      </h1>
      <div class="card coming-card">
        <p>
          <Trans>Alerts are coming: the alert events raised by the alert settings.</Trans>
        </p>
        <p>
          <Link href="/dashboard">
            <Trans>Back to the dashboard</Trans>
          </Link>
        </p>
      </div>
    </section>
  );
}
