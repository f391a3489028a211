// The settings lists (/settings/{list}/{id}): 1 alert settings, 2 test case groups,
// 3 distribution lists, 4 users (spec §2). Users and test case groups have their screens
// (pages/Users, pages/Groups); the other two say what they will hold until their issues land.
// Restricted users see access denied.
import { useLingui } from "@lingui/react/macro";
import { AccessDenied } from "../../components/AccessDenied";
import { isRestricted, session } from "../../lib/session";
import { useStore } from "../../lib/store";

export type SettingsList = "alert-settings" | "distribution-list";

export function SettingsPlaceholderPage({ list }: { list: SettingsList }) {
  const { t } = useLingui();
  const me = useStore(session);
  if (isRestricted(me)) return <AccessDenied />;
  const [title, text] =
    list === "alert-settings"
      ? [
          t`Alert Settings`,
          t`Alert settings will be listed here: status, alert label, test case group, contact group and notification, with search, New, Delete Selected and paging.`,
        ]
      : [
          t`Distribution List`,
          t`Distribution lists will be listed here: label, labels, type, e-mail or number and last modified, filtered by contact type.`,
        ];
  return (
    <section class="page placeholder-page" data-testid={`settings-${list}`}>
      <h1 class="page-title">{title}</h1>
      <p class="card" data-testid="settings-placeholder">
        {text}
      </p>
    </section>
  );
}

export const AlertSettingsPage = () => <SettingsPlaceholderPage list="alert-settings" />;
export const DistributionListsPage = () => <SettingsPlaceholderPage list="distribution-list" />;
