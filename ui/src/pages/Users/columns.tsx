// The users list's columns (spec §2 'Admin Settings'): first name, last name, username,
// permissions, test case groups ('All' for admins, a count for users); then what an operator
// asks to find stale or odd accounts: the access type (read and write, read only; kiosk when
// the user may open wall displays) and, on cxwatch's API, the last sign-in in site time
// ('Never' when none). A vendor's API sends no sign-ins: that column is not shown there.
import { useLingui } from "@lingui/react/macro";
import type { User } from "../../api/types";
import type { Column } from "../../components/DataTable";
import { lastTime } from "../../lib/siteTime";
import { useApiFlavor, useSiteTimeZone } from "../../lib/tenant";
import { ADMIN, groupsCell } from "./rules";

export function useUserColumns(): Column<User>[] {
  const { t, i18n } = useLingui();
  const zone = useSiteTimeZone();
  const cxwatch = useApiFlavor() === "cxwatch";
  const roleName = (r: string) => (r === ADMIN ? t`Administrator` : t`User`);
  const access = (u: User) => {
    const kind = u.accessType === "read-write" ? t`Read and write` : t`Read only`;
    return u.kiosk ? t`${kind}, kiosk` : kind;
  };
  const columns: Column<User>[] = [
    { key: "firstName", label: t`First Name`, sortable: true, render: (u) => u.firstName },
    { key: "lastName", label: t`Last Name`, sortable: true, render: (u) => u.lastName },
    { key: "username", label: t`Username`, sortable: true, render: (u) => u.username },
    { key: "roles", label: t`Permissions`, render: (u) => u.roles.map(roleName).join(", ") },
    { key: "accessType", label: t`Access Type`, render: access },
    {
      key: "testCaseGroups",
      label: t`Test Case Groups`,
      render: (u) => {
        const g = groupsCell(u);
        return g === "all" ? t`All` : i18n.number(g);
      },
    },
  ];
  if (cxwatch)
    columns.push({
      key: "lastSignInTime",
      label: t`Last sign-in`,
      sortable: true,
      render: (u) => lastTime(u.lastSignInTime, zone, i18n.locale, t`Never`),
    });
  return columns;
}
