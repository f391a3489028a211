// Admin Settings (/settings/admin-settings/4): the users, paged by the server. The URL holds
// the page, size, search, role filter and sort, so a reload or a link shows the same list.
import { useLingui } from "@lingui/react/macro";
import type { UserListParams, UserSortField } from "../../api/queries/users";
import { deleteUser, userKeys, useUsers } from "../../api/queries/users";
import type { User } from "../../api/types";
import { AccessDenied } from "../../components/AccessDenied";
import { canWrite, isRestricted, session } from "../../lib/session";
import { useStore } from "../../lib/store";
import { ListFilter, ListScreen, RowDelete, RowLink, useListScreen } from "../shared/ListScreen";
import { searchedListOf } from "../shared/listParams";
import { useUserColumns } from "./columns";
import { ADMIN, USER } from "./rules";

const SORT_FIELDS: UserSortField[] = ["id", "firstName", "lastName", "username", "lastSignInTime"];

/** The list's state from the URL's query string. */
export function paramsOf(search: string): UserListParams & { page: number } {
  const q = new URLSearchParams(search);
  const role = q.get("role");
  return {
    ...searchedListOf(q, SORT_FIELDS, { field: "id", dir: "desc" }),
    role: role === ADMIN || role === USER ? role : undefined,
  };
}

const nameOf = (u: User) => `${u.firstName} ${u.lastName}`.trim() || u.username;

export function UsersListPage() {
  const me = useStore(session);
  return isRestricted(me) ? <AccessDenied /> : <UsersList writable={canWrite(me)} />;
}

/** Read-only administrators see the users without New, Delete or the check boxes, and View. */
function UsersList({ writable }: { writable: boolean }) {
  const { t } = useLingui();
  const columns = useUserColumns();
  const list = useListScreen({
    parse: paramsOf,
    useList: useUsers,
    name: nameOf,
    remove: {
      deleteOne: deleteUser,
      listKey: userKeys.lists(),
      many: (count) => t`${count} users`,
      failed: t`The user could not be deleted.`,
    },
  });

  return (
    <ListScreen
      list={list}
      testId="users-list"
      title={t`Admin Settings`}
      filters={
        <ListFilter
          list={list}
          param="role"
          value={list.p.role}
          label={t`Permission level`}
          testId="role-filter"
          options={[
            { value: "", label: t`All permission levels` },
            { value: ADMIN, label: t`Administrator` },
            { value: USER, label: t`User` },
          ]}
        />
      }
      writable={writable}
      create={{ href: "/users/0", testId: "new-user" }}
      tableTestId="users-table"
      columns={columns}
      actions={(u) => (
        <>
          <RowLink href={`/users/${u.id}`} testId="edit-user" name={nameOf(u)} view={!writable} />
          {writable ? <RowDelete list={list} row={u} testId="delete-user" /> : null}
        </>
      )}
    />
  );
}
