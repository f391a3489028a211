// The settings lists (/settings/{list}/{id}): 1 alert settings, 2 test case groups,
// 3 distribution lists, 4 users (spec §2). Users, test case groups and distribution lists have
// their screens (pages/Users, pages/Groups, pages/Distributions); alert settings say what they
// will hold until their issue lands. Restricted users see access denied.
import { useLingui } from "@lingui/react/macro";
import { AccessDenied } from "../../components/AccessDenied";
import { isRestricted, session } from "../../lib/session";
import { useStore } from "../../lib/store";

export function AlertSettingsPage() {
  const { t } = useLingui();
  const me = useStore(session);
  if (isRestricted(me)) return <AccessDenied />;
  return (
    <section class="page placeholder-page" data-testid="settings-alert-settings">
      <h1 class="page-title">{t`Alert Settings`}</h1>
      <p class="card" data-testid="settings-placeholder">
        {t`Alert settings will be listed here: status, alert label, test case group, contact group and notification, with search, New, Delete Selected and paging.`}
      </p>
    </section>
  );
}
