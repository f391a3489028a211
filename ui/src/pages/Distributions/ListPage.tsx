// Distribution List (/settings/distribution-list/3): the contact groups, paged by the server.
// The URL holds the page, size, search, contact-type filter and sort.
import { useLingui } from "@lingui/react/macro";
import { Link } from "wouter";
import type { DistributionListParams, DistributionSortField } from "../../api/queries/distributions";
import { deleteDistribution, distributionKeys, useDistributions } from "../../api/queries/distributions";
import type { Distribution } from "../../api/types";
import { AccessDenied } from "../../components/AccessDenied";
import { DataTable, type SortState } from "../../components/DataTable";
import { Pager } from "../../components/Pager";
import { pageOf, pageSizeOf } from "../../components/paging";
import { SearchBox } from "../../components/SearchBox";
import { isRestricted, session } from "../../lib/session";
import { useStore } from "../../lib/store";
import { useDeleteSelected } from "../shared/useDeleteSelected";
import { useDistributionColumns } from "./columns";
import "./distributions.css";
import { type UrlParamChange, useUrlParams } from "../../components/useUrlParams";
import { DeliveryNotice } from "./DeliveryNotice";
import { CONTACT_TYPES, EMAIL, SMS } from "./rules";

const SORT_FIELDS: DistributionSortField[] = ["id", "name", "lastModifiedTime"];

/** The list's state from the URL's query string. */
export function paramsOf(search: string): DistributionListParams & { page: number } {
  const q = new URLSearchParams(search);
  const [field, dir] = (q.get("sort") ?? "lastModifiedTime,desc").split(",");
  const page = pageOf(q.get("page"));
  const type = Number(q.get("type"));
  return {
    page,
    pageNo: page - 1,
    pageSize: pageSizeOf(q.get("size")),
    search: q.get("search") ?? "",
    type: (CONTACT_TYPES as number[]).includes(type) ? (type as 1 | 2 | 4) : undefined,
    sort: {
      field: SORT_FIELDS.includes(field as DistributionSortField)
        ? (field as DistributionSortField)
        : "lastModifiedTime",
      dir: dir === "asc" ? "asc" : "desc",
    },
  };
}

export function DistributionListPage() {
  const me = useStore(session);
  return isRestricted(me) ? <AccessDenied /> : <DistributionList />;
}

function DistributionList() {
  const { t } = useLingui();
  const [search, updateParams] = useUrlParams();
  const p = paramsOf(search);
  const lists = useDistributions(p);
  const columns = useDistributionColumns();

  const setParams = (next: UrlParamChange) => {
    updateParams(next);
    del.setSelected([]);
  };

  const total = lists.data?.totalElements ?? 0;
  const rows = lists.data?.content;
  const sort: SortState = { key: p.sort.field, dir: p.sort.dir };

  const del = useDeleteSelected<Distribution>({
    rows,
    total,
    pageSize: p.pageSize,
    page: p.page,
    deleteOne: deleteDistribution,
    listKey: distributionKeys.lists(),
    describe: (one, count) => (one ? one.name : t`${count} distribution lists`),
    failed: t`The distribution list could not be deleted.`,
    onPage: (page) => setParams({ page }),
  });

  return (
    <section class="page distribution-list" data-testid="distribution-list">
      <h1 class="page-title">{t`Distribution List`}</h1>
      <DeliveryNotice />
      <div class="list-toolbar">
        <SearchBox value={p.search} onSearch={(text) => setParams({ search: text, page: undefined })} />
        <label class="inline-field">
          <span class="visually-hidden">{t`Contact type`}</span>
          <select
            value={p.type ?? ""}
            onChange={(e) => setParams({ type: e.currentTarget.value, page: undefined })}
            data-testid="type-filter"
            aria-label={t`Contact type`}
          >
            <option value="">{t`All contact types`}</option>
            <option value={EMAIL}>{t`Email`}</option>
            <option value={SMS}>{t`SMS`}</option>
            <option value={4}>{t`Voice`}</option>
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
        <Link href="/report/distribution/0" class="button primary" data-testid="new-distribution">
          {t`New`}
        </Link>
      </div>
      <DataTable
        testId="distributions-table"
        columns={columns}
        rows={rows}
        rowId={(d) => d.id}
        rowLabel={(d) => d.name}
        loading={lists.isFetching}
        error={lists.isError ? (lists.error?.message ?? t`The list could not be loaded.`) : null}
        sort={sort}
        onSort={(s) => setParams({ sort: `${s.key},${s.dir}`, page: undefined })}
        selected={del.selected}
        onSelected={del.setSelected}
        actions={(d) => {
          const name = d.name;
          return (
            <>
              <Link
                href={`/report/distribution/${d.id}`}
                class="button link"
                data-testid="edit-distribution"
                aria-label={t`Edit ${name}`}
              >
                {t`Edit`}
              </Link>
              <button
                type="button"
                class="button link danger-text"
                onClick={() => del.ask(d)}
                data-testid="delete-distribution"
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
