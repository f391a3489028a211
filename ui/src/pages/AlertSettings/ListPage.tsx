// Alert Settings (/settings/alert-settings/1): the settings of the caller's test case groups,
// paged by the server. The URL holds the page, size, search and sort. New, edit and delete show
// only to callers who may change things (the server checks again).
import { useLingui } from "@lingui/react/macro";
import { useState } from "react";
import { Link } from "wouter";
import { ApiError } from "../../api";
import type { AlertSettingListParams, AlertSettingSortField } from "../../api/queries/alertSettings";
import { alertSettingKeys, deleteAlertSetting, useAlertSettings } from "../../api/queries/alertSettings";
import type { AlertSetting } from "../../api/types";
import { ConfirmDialog } from "../../components/ConfirmDialog";
import { DataTable, type SortState } from "../../components/DataTable";
import { deleteOneByOne, idsToDelete } from "../../components/deleteSelected";
import { Pager } from "../../components/Pager";
import { pageCount, pageOf, pageSizeOf } from "../../components/paging";
import { SearchBox } from "../../components/SearchBox";
import { type UrlParamChange, useUrlParams } from "../../components/useUrlParams";
import { showError, showSuccess } from "../../lib/banners";
import { queryClient } from "../../lib/queryClient";
import { canWrite, session } from "../../lib/session";
import { useStore } from "../../lib/store";
import { useAlertSettingColumns } from "./columns";
import "./AlertSettings.css";

const SORT_FIELDS: AlertSettingSortField[] = ["id", "name", "testCaseGroupName", "distributionName", "active"];

/** Auto-created tickets of a setting (/report/setting/autojiratickets/{id}): the tickets issue
 * adds that screen and sets this to true, which shows the row action. */
export const HAS_AUTO_TICKETS = false;

/** The list's state from the URL's query string. */
export function paramsOf(search: string): AlertSettingListParams & { page: number } {
  const q = new URLSearchParams(search);
  const [field, dir] = (q.get("sort") ?? "name,asc").split(",");
  const page = pageOf(q.get("page"));
  return {
    page,
    pageNo: page - 1,
    pageSize: pageSizeOf(q.get("size")),
    search: q.get("search") ?? "",
    sort: {
      field: SORT_FIELDS.includes(field as AlertSettingSortField) ? (field as AlertSettingSortField) : "name",
      dir: dir === "desc" ? "desc" : "asc",
    },
  };
}

export function AlertSettingListPage() {
  const { t } = useLingui();
  const me = useStore(session);
  const write = canWrite(me);
  const [search, updateParams] = useUrlParams();
  const p = paramsOf(search);
  const settings = useAlertSettings(p);
  const columns = useAlertSettingColumns();
  const [selected, setSelected] = useState<number[]>([]);
  const [confirm, setConfirm] = useState<{ ids: number[]; item: string } | null>(null);
  const [busy, setBusy] = useState(false);

  const setParams = (next: UrlParamChange) => {
    updateParams(next);
    setSelected([]);
  };

  const total = settings.data?.totalElements ?? 0;
  const rows = settings.data?.content;
  const sort: SortState = { key: p.sort.field, dir: p.sort.dir };

  const ask = (single?: AlertSetting) => {
    const ids = idsToDelete(selected, single?.id);
    if (!ids.length) return;
    const one = single ?? rows?.find((s) => s.id === ids[0]);
    const count = ids.length;
    setConfirm({ ids, item: count === 1 && one ? one.name : t`${count} alert settings` });
  };

  const remove = async () => {
    if (!confirm) return;
    setBusy(true);
    const out = await deleteOneByOne(confirm.ids, deleteAlertSetting);
    setBusy(false);
    setConfirm(null);
    setSelected((s) => s.filter((id) => !out.deleted.includes(id)));
    await queryClient.invalidateQueries({ queryKey: alertSettingKeys.lists() });
    if (out.failed === undefined) showSuccess(t`Deleted successfully.`);
    else if (!(out.error instanceof ApiError)) showError(t`The alert setting could not be deleted.`);
    const pages = pageCount(total - out.deleted.length, p.pageSize);
    if (p.page > pages) setParams({ page: pages });
  };

  return (
    <section class="page alert-setting-list" data-testid="alert-setting-list">
      <h1 class="page-title">{t`Alert Settings`}</h1>
      <div class="list-toolbar">
        <SearchBox value={p.search} onSearch={(text) => setParams({ search: text, page: undefined })} />
        <span class="spacer" />
        {write ? (
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
            <Link href="/report/setting/0" class="button primary" data-testid="new-alert-setting">
              {t`New`}
            </Link>
          </>
        ) : null}
      </div>
      <DataTable
        testId="alert-settings-table"
        columns={columns}
        rows={rows}
        rowId={(s) => s.id}
        rowLabel={(s) => s.name}
        loading={settings.isFetching}
        error={settings.isError ? (settings.error?.message ?? t`The list could not be loaded.`) : null}
        sort={sort}
        onSort={(s) => setParams({ sort: `${s.key},${s.dir}`, page: undefined })}
        selected={write ? selected : undefined}
        onSelected={write ? setSelected : undefined}
        actions={(s) => {
          const name = s.name;
          return (
            <>
              <Link
                href={`/report/setting/${s.id}`}
                class="button link"
                data-testid="edit-alert-setting"
                aria-label={write ? t`Edit ${name}` : t`View ${name}`}
              >
                {write ? t`Edit` : t`View`}
              </Link>
              {write ? (
                <button
                  type="button"
                  class="button link danger-text"
                  onClick={() => ask(s)}
                  data-testid="delete-alert-setting"
                  aria-label={t`Delete ${name}`}
                >
                  {t`Delete`}
                </button>
              ) : null}
              {HAS_AUTO_TICKETS ? (
                <Link
                  href={`/report/setting/autojiratickets/${s.id}`}
                  class="button link"
                  data-testid="auto-tickets"
                  aria-label={t`Auto tickets of ${name}`}
                >
                  {t`Auto Tickets`}
                </Link>
              ) : null}
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
