// Alert Settings (/settings/alert-settings/1): the settings of the caller's test case groups,
// paged by the server. The URL holds the page, size, search and sort. New, edit and delete show
// only to callers who may change things (the server checks again).
import { useLingui } from "@lingui/react/macro";
import { Link } from "wouter";
import type { AlertSettingListParams, AlertSettingSortField } from "../../api/queries/alertSettings";
import { alertSettingKeys, deleteAlertSetting, useAlertSettings } from "../../api/queries/alertSettings";
import { useJiraConfig } from "../../api/queries/jira";
import type { AlertSetting } from "../../api/types";
import { DataTable, type SortState } from "../../components/DataTable";
import { Pager } from "../../components/Pager";
import { pageOf, pageSizeOf } from "../../components/paging";
import { SearchBox } from "../../components/SearchBox";
import { type UrlParamChange, useUrlParams } from "../../components/useUrlParams";
import { canWrite, session } from "../../lib/session";
import { useStore } from "../../lib/store";
import { useDeleteSelected } from "../shared/useDeleteSelected";
import { useAlertSettingColumns } from "./columns";
import "./AlertSettings.css";

const SORT_FIELDS: AlertSettingSortField[] = ["id", "name", "testCaseGroupName", "distributionName", "active"];

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
  // The auto tickets of a setting exist only where a Jira is configured.
  const tickets = !!useJiraConfig().data?.configured;
  const [search, updateParams] = useUrlParams();
  const p = paramsOf(search);
  const settings = useAlertSettings(p);
  const columns = useAlertSettingColumns();

  const setParams = (next: UrlParamChange) => {
    updateParams(next);
    del.setSelected([]);
  };

  const total = settings.data?.totalElements ?? 0;
  const rows = settings.data?.content;
  const sort: SortState = { key: p.sort.field, dir: p.sort.dir };

  const del = useDeleteSelected<AlertSetting>({
    rows,
    total,
    pageSize: p.pageSize,
    page: p.page,
    deleteOne: deleteAlertSetting,
    listKey: alertSettingKeys.lists(),
    describe: (one, count) => (one ? one.name : t`${count} alert settings`),
    failed: t`The alert setting could not be deleted.`,
    onPage: (page) => setParams({ page }),
  });

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
              disabled={!del.selected.length}
              onClick={() => del.ask()}
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
        selected={write ? del.selected : undefined}
        onSelected={write ? del.setSelected : undefined}
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
                  onClick={() => del.ask(s)}
                  data-testid="delete-alert-setting"
                  aria-label={t`Delete ${name}`}
                >
                  {t`Delete`}
                </button>
              ) : null}
              {tickets ? (
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
      {del.dialog}
    </section>
  );
}
