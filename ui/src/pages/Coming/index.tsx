// A screen of the route table not built yet (Reports, Alerts): it says so and leads back to the
// dashboard, rather than a bare 404 from an entry of the navigation.
import { Trans } from "@lingui/react/macro";
import { Link } from "wouter";

export function ComingPage({ title }: { title: "reports" | "alerts" }) {
  return (
    <section class="page coming" data-testid="coming">
      <h1 class="page-title">{title === "reports" ? <Trans>Reports</Trans> : <Trans>Alerts</Trans>}</h1>
      <div class="card coming-card">
        <p>
          {title === "reports" ? (
            <Trans>
              Reports are coming: latency, MOS and test case reports, with their drill-downs to the failing runs.
            </Trans>
          ) : (
            <Trans>Alerts are coming: the alert events raised by the alert settings.</Trans>
          )}
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

export const ReportsComingPage = () => <ComingPage title="reports" />;
export const AlertsComingPage = () => <ComingPage title="alerts" />;
