// Test Case Groups (/settings/test-case-group/2): the groups, paged, searched and sorted by
// the server (or in the browser, of section 7's list); New and edit open the editor in a dialog. Read-only administrators see the list
// without New, edit or delete; restricted users see access denied (the server refuses them
// anyway).
import { useLingui } from "@lingui/react/macro";
import { useState } from "react";
import {
  deleteGroup,
  type GroupListParams,
  type GroupSortField,
  groupKeys,
  usePagedGroups,
} from "../../api/queries/groups";
import type { SpecGroup as Group } from "../../api/types";
import { AccessDenied } from "../../components/AccessDenied";
import { type Column, DataTable, type SortState } from "../../components/DataTable";
import { Pager } from "../../components/Pager";
import { pageOf, pageSizeOf } from "../../components/paging";
import { SearchBox } from "../../components/SearchBox";
import { canWrite, isRestricted, session } from "../../lib/session";
import { useStore } from "../../lib/store";
import { useDeleteSelected } from "../shared/useDeleteSelected";
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
  const [editing, setEditing] = useState<number | null>(null);

  const setParams = (next: UrlParamChange) => {
    updateParams(next);
    del.setSelected([]);
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
      // Section 7's list promises id, name and channel only: no counts, nothing said.
      render: (g) => {
        if (g.caseCount === undefined || g.caseCount === null) return "—";
        const caseCount = g.caseCount;
        const ivrCount = g.ivrCount ?? 0;
        return t`${caseCount} from ${ivrCount} IVR Applications`;
      },
    },
  ];

  const del = useDeleteSelected<Group>({
    rows,
    total,
    pageSize: p.pageSize,
    page: p.page,
    deleteOne: deleteGroup,
    listKey: groupKeys.all,
    describe: (one, count) => (one ? one.name : t`${count} test case groups`),
    failed: t`The test case group could not be deleted.`,
    onPage: (page) => setParams({ page }),
  });

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
              disabled={!del.selected.length}
              onClick={() => del.ask()}
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
        selected={writable ? del.selected : undefined}
        onSelected={writable ? del.setSelected : undefined}
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
                      onClick={() => del.ask(g)}
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
      {del.dialog}
    </section>
  );
}
