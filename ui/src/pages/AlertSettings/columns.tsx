// The alert settings' columns (spec §2 'Settings lists' Alert Settings): status, alert label,
// test case group, contact group, notification (active), and a setting whose schedule has no
// half hour said never to alert (the vendor's API accepts one; cxwatch's refuses one, but may
// hold one saved before that rule).
import { useLingui } from "@lingui/react/macro";
import type { AlertSetting } from "../../api/types";
import type { Column } from "../../components/DataTable";
import { neverAlerts } from "./rules";

export function useAlertSettingColumns(): Column<AlertSetting>[] {
  const { t } = useLingui();
  const status = (s: AlertSetting) => (
    <span class={s.active ? "setting-status active" : "setting-status inactive"}>
      {s.active ? t`Active` : t`Inactive`}
    </span>
  );
  return [
    { key: "active", label: t`Status`, sortable: true, render: status },
    { key: "name", label: t`Alert Label`, sortable: true, render: (s) => s.name },
    { key: "testCaseGroupName", label: t`Test Case Group`, sortable: true, render: (s) => s.testCaseGroupName },
    { key: "distributionName", label: t`Contact Group`, sortable: true, render: (s) => s.distributionName },
    {
      key: "notification",
      label: t`Notification`,
      render: (s) => (
        <>
          {s.active ? t`On` : t`Off`}
          {neverAlerts(s) ? (
            <span class="setting-never" data-testid="never-alerts">
              {t`never alerts: no hours in its schedule`}
            </span>
          ) : null}
        </>
      ),
    },
  ];
}
