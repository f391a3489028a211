// The users list's columns (spec §2 'Admin Settings'): first name, last name, username,
// permissions, test case groups ('All' for admins, a count for users).
import { useLingui } from "@lingui/react/macro";
import type { User } from "../../api/types";
import type { Column } from "../../components/DataTable";
import { ADMIN, groupsCell } from "./rules";

export function useUserColumns(): Column<User>[] {
  const { t, i18n } = useLingui();
  const roleName = (r: string) => (r === ADMIN ? t`Administrator` : t`User`);
  return [
    { key: "firstName", label: t`First Name`, sortable: true, render: (u) => u.firstName },
    { key: "lastName", label: t`Last Name`, sortable: true, render: (u) => u.lastName },
    { key: "username", label: t`Username`, sortable: true, render: (u) => u.username },
    { key: "roles", label: t`Permissions`, render: (u) => u.roles.map(roleName).join(", ") },
    {
      key: "testCaseGroups",
      label: t`Test Case Groups`,
      render: (u) => {
        const g = groupsCell(u);
        return g === "all" ? t`All` : i18n.number(g);
      },
    },
  ];
}
