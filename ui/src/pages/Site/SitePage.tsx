// The site page (/settings/site; cxwatch's addition): what a fresh install needs
// (the first-run checklist), the test engines' keys, the outbound channels with a test each, and
// the audit log. Administrators only; read-only administrators see it without the changes and
// without the audit log, which the server keeps for read-write administrators. Under a vendor's
// API (flavour "spec") there is no such page: the menu does not offer it and the screen says so.
import { useLingui } from "@lingui/react/macro";
import { useHasSite } from "../../api/queries/site";
import { AccessDenied } from "../../components/AccessDenied";
import { canWrite, isRestricted, session } from "../../lib/session";
import { useStore } from "../../lib/store";
import { ApiKeys } from "./ApiKeys";
import { AuditLog } from "./AuditLog";
import { Channels } from "./Channels";
import { Checklist } from "./Checklist";
import "./Site.css";

export const SITE_PATH = "/settings/site";

export function SitePage() {
  const { t } = useLingui();
  const has = useHasSite();
  const user = useStore(session);
  const writable = canWrite(user);
  if (isRestricted(user)) return <AccessDenied />;
  if (!has) {
    return (
      <section class="page site-page" data-testid="site-page">
        <h1 class="page-title">{t`Site`}</h1>
        <p>{t`This console's API has no site page.`}</p>
      </section>
    );
  }
  return (
    <section class="page site-page" data-testid="site-page">
      <h1 class="page-title">{t`Site`}</h1>
      <p class="page-intro">{t`Set up this console and see how it reaches the outside world.`}</p>
      <div class="site-grid">
        <Checklist />
        <ApiKeys writable={writable} />
      </div>
      <Channels writable={writable} />
      {writable ? <AuditLog /> : null}
    </section>
  );
}
