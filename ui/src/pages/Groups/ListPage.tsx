// Test Case Groups (/settings/test-case-group/2): the groups, paged, searched and sorted by
// the server; New and edit open the editor in a dialog. Read-only administrators see the list
// without New, edit or delete; restricted users see access denied (the server refuses them
// anyway).
import { useLingui } from "@lingui/react/macro";
import { useState } from "react";
import { ApiError } from "../../api";
import {
  deleteGroup,
  type GroupListParams,
  type GroupSortField,
  groupKeys,
  usePagedGroups,
} from "../../api/queries/groups";
import type { Group } from "../../api/types";
import { AccessDenied } from "../../components/AccessDenied";
import { ConfirmDialog } from "../../components/ConfirmDialog";
import { type Column, DataTable, type SortState } from "../../components/DataTable";
import { deleteOneByOne, idsToDelete } from "../../components/deleteSelected";
import { Pager } from "../../components/Pager";
import { pageCount, pageOf, pageSizeOf } from "../../components/paging";
import { SearchBox } from "../../components/SearchBox";
import { showError, showSuccess } from "../../lib/banners";
import { queryClient } from "../../lib/queryClient";
import { canWrite, isRestricted, session } from "../../lib/session";
import { useStore } from "../../lib/store";
import { GroupDialog } from "./GroupDialog";
import "./Groups.css";
import { type UrlParamChange, useUrlParams } from "../../components/useUrlParams";

const SORT_FIELDS: GroupSortField[] = ["id", "name", "caseCount"];

/** The list's state from the URL's query string. */
export function paramsOf(search: string): GroupListParams & { page: number } {
  const q = new URLSearchParams(search);
  const [field, dir] = (q.get("sort") ?? "id,desc").split(",");
  const size = pageSizeOf(q.get("size"));
  const page = pageOf(q.get("page"));
  return {
    page,
    pageNo: page - 1,
    pageSize: size,
    search: q.get("search") ?? "",
    sort: {
      field: SORT_FIELDS.includes(field as GroupSortField) ? (field as GroupSortField) : "id",
      dir: dir === "asc" ? "asc" : "desc",
    },
  };
}

export function TestCaseGroupsPage() {
  const me = useStore(session);
  return isRestricted(me) ? <AccessDenied /> : <GroupsList writable={canWrite(me)} />;
}

function GroupsList({ writable }: { writable: boolean }) {
  const { t } = useLingui();
  const [search, updateParams] = useUrlParams();
  const p = paramsOf(search);
  const groups = usePagedGroups(p);
  const [selected, setSelected] = useState<number[]>([]);
  const [confirm, setConfirm] = useState<{ ids: number[]; item: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const [editing, setEditing] = useState<number | null>(null);

  const setParams = (next: UrlParamChange) => {
    updateParams(next);
    setSelected([]);
  };

  const total = groups.data?.totalElements ?? 0;
  const rows = groups.data?.content;
  const sort: SortState = { key: p.sort.field, dir: p.sort.dir };
  const columns: Column<Group>[] = [
    { key: "id", label: t`ID`, sortable: true, render: (g) => g.id },
    { key: "name", label: t`Label`, sortable: true, render: (g) => g.name },
    {
      key: "caseCount",
      label: t`Test Cases`,
      sortable: true,
      render: (g) => {
        const caseCount = g.caseCount;
        const ivrCount = g.ivrCount;
        return t`${caseCount} from ${ivrCount} IVR Applications`;
      },
    },
  ];

  const ask = (single?: Group) => {
    const ids = idsToDelete(selected, single?.id);
    if (!ids.length) return;
    const one = single ?? rows?.find((g) => g.id === ids[0]);
    const count = ids.length;
    setConfirm({ ids, item: count === 1 && one ? one.name : t`${count} test case groups` });
  };

  const remove = async () => {
    if (!confirm) return;
    setBusy(true);
    const out = await deleteOneByOne(confirm.ids, deleteGroup);
    setBusy(false);
    setConfirm(null);
    setSelected((s) => s.filter((id) => !out.deleted.includes(id)));
    await queryClient.invalidateQueries({ queryKey: groupKeys.all });
    if (out.failed === undefined) showSuccess(t`Deleted successfully.`);
    else if (!(out.error instanceof ApiError)) showError(t`The test case group could not be deleted.`);
    const pages = pageCount(total - out.deleted.length, p.pageSize);
    if (p.page > pages) setParams({ page: pages });
  };

  return (
    <section class="page groups-list" data-testid="settings-test-case-group">
      <h1 class="page-title">{t`Test Cases Groups`}</h1>
      <div class="list-toolbar">
        <SearchBox value={p.search} onSearch={(text) => setParams({ search: text, page: undefined })} />
        <span class="spacer" />
        {writable ? (
          <>
            <button
              type="button"
              class="button secondary"
              disabled={!selected.length}
              onClick={() => ask()}
              data-testid="delete-selected"
            >
              {t`Delete Selected`}
            </button>
            <button type="button" class="button primary" onClick={() => setEditing(0)} data-testid="new-group">
              {t`New`}
            </button>
          </>
        ) : null}
      </div>
      <DataTable
        testId="groups-table"
        columns={columns}
        rows={rows}
        rowId={(g) => g.id}
        rowLabel={(g) => g.name}
        loading={groups.isFetching}
        error={groups.isError ? (groups.error?.message ?? t`The list could not be loaded.`) : null}
        sort={sort}
        onSort={(s) => setParams({ sort: `${s.key},${s.dir}`, page: undefined })}
        selected={writable ? selected : undefined}
        onSelected={writable ? setSelected : undefined}
        actions={
          writable
            ? (g) => {
                const name = g.name;
                return (
                  <>
                    <button
                      type="button"
                      class="button link"
                      onClick={() => setEditing(g.id)}
                      data-testid="edit-group"
                      aria-label={t`Edit ${name}`}
                    >
                      {t`Edit`}
                    </button>
                    <button
                      type="button"
                      class="button link danger-text"
                      onClick={() => ask(g)}
                      data-testid="delete-group"
                      aria-label={t`Delete ${name}`}
                    >
                      {t`Delete`}
                    </button>
                  </>
                );
              }
            : undefined
        }
      />
      <Pager
        page={p.page}
        size={p.pageSize}
        total={total}
        onPage={(page) => setParams({ page })}
        onSize={(size) => setParams({ size, page: undefined })}
      />
      {editing !== null ? <GroupDialog id={editing} onClose={() => setEditing(null)} /> : null}
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
