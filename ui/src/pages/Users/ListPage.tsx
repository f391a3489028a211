// Admin Settings (/settings/admin-settings/4): the users, paged by the server. The URL holds
// the page, size, search, role filter and sort, so a reload or a link shows the same list.
import { useLingui } from "@lingui/react/macro";
import { Link } from "wouter";
import type { UserListParams, UserSortField } from "../../api/queries/users";
import { deleteUser, userKeys, useUsers } from "../../api/queries/users";
import type { User } from "../../api/types";
import { AccessDenied } from "../../components/AccessDenied";
import { DataTable, type SortState } from "../../components/DataTable";
import { Pager } from "../../components/Pager";
import { pageOf, pageSizeOf } from "../../components/paging";
import { SearchBox } from "../../components/SearchBox";
import { type UrlParamChange, useUrlParams } from "../../components/useUrlParams";
import { isRestricted, session } from "../../lib/session";
import { useStore } from "../../lib/store";
import { useDeleteSelected } from "../shared/useDeleteSelected";
import { useUserColumns } from "./columns";
import { ADMIN, USER } from "./rules";

const SORT_FIELDS: UserSortField[] = ["id", "firstName", "lastName", "username"];

/** The list's state from the URL's query string. */
export function paramsOf(search: string): UserListParams & { page: number } {
  const q = new URLSearchParams(search);
  const [field, dir] = (q.get("sort") ?? "id,desc").split(",");
  const size = pageSizeOf(q.get("size"));
  const page = pageOf(q.get("page"));
  const role = q.get("role");
  return {
    page,
    pageNo: page - 1,
    pageSize: size,
    search: q.get("search") ?? "",
    role: role === ADMIN || role === USER ? role : undefined,
    sort: {
      field: SORT_FIELDS.includes(field as UserSortField) ? (field as UserSortField) : "id",
      dir: dir === "asc" ? "asc" : "desc",
    },
  };
}

export function UsersListPage() {
  const me = useStore(session);
  return isRestricted(me) ? <AccessDenied /> : <UsersList />;
}

function UsersList() {
  const { t } = useLingui();
  const [search, updateParams] = useUrlParams();
  const p = paramsOf(search);
  const users = useUsers(p);
  const columns = useUserColumns();

  const setParams = (next: UrlParamChange) => {
    updateParams(next);
    del.setSelected([]);
  };

  const total = users.data?.totalElements ?? 0;
  const rows = users.data?.content;
  const sort: SortState = { key: p.sort.field, dir: p.sort.dir };
  const nameOf = (u: User) => `${u.firstName} ${u.lastName}`.trim() || u.username;

  const del = useDeleteSelected<User>({
    rows,
    total,
    pageSize: p.pageSize,
    page: p.page,
    deleteOne: deleteUser,
    listKey: userKeys.lists(),
    describe: (one, count) => (one ? nameOf(one) : t`${count} users`),
    failed: t`The user could not be deleted.`,
    onPage: (page) => setParams({ page }),
  });

  return (
    <section class="page users-list" data-testid="users-list">
      <h1 class="page-title">{t`Admin Settings`}</h1>
      <div class="list-toolbar">
        <SearchBox value={p.search} onSearch={(text) => setParams({ search: text, page: undefined })} />
        <label class="inline-field">
          <span class="visually-hidden">{t`Permission level`}</span>
          <select
            value={p.role ?? ""}
            onChange={(e) => setParams({ role: e.currentTarget.value, page: undefined })}
            data-testid="role-filter"
            aria-label={t`Permission level`}
          >
            <option value="">{t`All permission levels`}</option>
            <option value={ADMIN}>{t`Administrator`}</option>
            <option value={USER}>{t`User`}</option>
          </select>
        </label>
        <span class="spacer" />
        <button
          type="button"
          class="button secondary"
          disabled={!del.selected.length}
          onClick={() => del.ask()}
          data-testid="delete-selected"
        >
          {t`Delete Selected`}
        </button>
        <Link href="/users/0" class="button primary" data-testid="new-user">
          {t`New`}
        </Link>
      </div>
      <DataTable
        testId="users-table"
        columns={columns}
        rows={rows}
        rowId={(u) => u.id}
        rowLabel={nameOf}
        loading={users.isFetching}
        error={users.isError ? (users.error?.message ?? t`The list could not be loaded.`) : null}
        sort={sort}
        onSort={(s) => setParams({ sort: `${s.key},${s.dir}`, page: undefined })}
        selected={del.selected}
        onSelected={del.setSelected}
        actions={(u) => {
          const name = nameOf(u);
          return (
            <>
              <Link href={`/users/${u.id}`} class="button link" data-testid="edit-user" aria-label={t`Edit ${name}`}>
                {t`Edit`}
              </Link>
              <button
                type="button"
                class="button link danger-text"
                onClick={() => del.ask(u)}
                data-testid="delete-user"
                aria-label={t`Delete ${name}`}
              >
                {t`Delete`}
              </button>
            </>
          );
        }}
      />
      <Pager
        page={p.page}
        size={p.pageSize}
        total={total}
        onPage={(page) => setParams({ page })}
        onSize={(size) => setParams({ size, page: undefined })}
      />
      {del.dialog}
    </section>
  );
}
