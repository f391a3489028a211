// The settings lists (/settings/{list}/{id}): 1 alert settings, 2 test case groups,
// 3 distribution lists, 4 users (spec §2). Users and distribution lists have their screens;
// the other two say what they will hold until their issues land. Restricted users see access denied.
import { useLingui } from "@lingui/react/macro";
import { AccessDenied } from "../../components/AccessDenied";
import { isRestricted, session } from "../../lib/session";
import { useStore } from "../../lib/store";

export type SettingsList = "alert-settings" | "test-case-group";

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
          t`Test Cases Groups`,
          t`Test case groups will be listed here: id, label and number of test cases, with search, New, Delete Selected and paging.`,
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
export const TestCaseGroupsPage = () => <SettingsPlaceholderPage list="test-case-group" />;
