// Admin Settings (/settings/admin-settings/4): the users, paged by the server. The URL holds
// the page, size, search, role filter and sort, so a reload or a link shows the same list.
import { useLingui } from "@lingui/react/macro";
import { useState } from "react";
import { Link } from "wouter";
import { ApiError } from "../../api";
import type { UserListParams, UserSortField } from "../../api/queries/users";
import { deleteUser, userKeys, useUsers } from "../../api/queries/users";
import type { User } from "../../api/types";
import { AccessDenied } from "../../components/AccessDenied";
import { ConfirmDialog } from "../../components/ConfirmDialog";
import { DataTable, type SortState } from "../../components/DataTable";
import { deleteOneByOne, idsToDelete } from "../../components/deleteSelected";
import { Pager } from "../../components/Pager";
import { pageCount, pageOf, pageSizeOf } from "../../components/paging";
import { SearchBox } from "../../components/SearchBox";
import { type UrlParamChange, useUrlParams } from "../../components/useUrlParams";
import { showError, showSuccess } from "../../lib/banners";
import { queryClient } from "../../lib/queryClient";
import { isRestricted, session } from "../../lib/session";
import { useStore } from "../../lib/store";
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
  const [selected, setSelected] = useState<number[]>([]);
  const [confirm, setConfirm] = useState<{ ids: number[]; item: string } | null>(null);
  const [busy, setBusy] = useState(false);

  const setParams = (next: UrlParamChange) => {
    updateParams(next);
    setSelected([]);
  };

  const total = users.data?.totalElements ?? 0;
  const rows = users.data?.content;
  const sort: SortState = { key: p.sort.field, dir: p.sort.dir };
  const nameOf = (u: User) => `${u.firstName} ${u.lastName}`.trim() || u.username;

  const ask = (single?: User) => {
    const ids = idsToDelete(selected, single?.id);
    if (!ids.length) return;
    const one = single ?? rows?.find((u) => u.id === ids[0]);
    const count = ids.length;
    setConfirm({ ids, item: count === 1 && one ? nameOf(one) : t`${count} users` });
  };

  const remove = async () => {
    if (!confirm) return;
    setBusy(true);
    const out = await deleteOneByOne(confirm.ids, deleteUser);
    setBusy(false);
    setConfirm(null);
    setSelected((s) => s.filter((id) => !out.deleted.includes(id)));
    await queryClient.invalidateQueries({ queryKey: userKeys.lists() });
    if (out.failed === undefined) showSuccess(t`Deleted successfully.`);
    else if (!(out.error instanceof ApiError)) showError(t`The user could not be deleted.`);
    // An ApiError already showed its messages on the banner.
    const pages = pageCount(total - out.deleted.length, p.pageSize);
    if (p.page > pages) setParams({ page: pages });
  };

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
          disabled={!selected.length}
          onClick={() => ask()}
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
        selected={selected}
        onSelected={setSelected}
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
                onClick={() => ask(u)}
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
      <ConfirmDialog
        open={!!confirm}
        item={confirm?.item ?? ""}
        busy={busy}
        onCancel={() => setConfirm(null)}
        onConfirm={() => void remove()}
      />
    </section>
  );
}
