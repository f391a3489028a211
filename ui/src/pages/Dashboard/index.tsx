// The dashboard screen; its full content is built on the dashboard branch of work.
import { Trans } from "@lingui/react/macro";
import { session } from "../../app/session";
import { useStore } from "../../app/store";

export function DashboardPage() {
  const user = useStore(session);
  const name = user?.username ?? "";
  return (
    <section class="page">
      <h1 class="page-title">
        <Trans>Dashboard</Trans>
      </h1>
      <p data-testid="signed-in-as">
        <Trans>Signed in as {name}</Trans>
      </p>
    </section>
  );
}
