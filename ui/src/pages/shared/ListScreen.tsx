// A paged list screen (spec §2 'Settings lists'), the same on every list: its state in the
// address (useUrlParams: page, size, search, sort, filters), one page of the list (the api
// query's usePagedList, either flavour of API), the title, the toolbar (search box, the screen's
// filters, 'Delete Selected' and New), the table with its loading, empty and error rows, the
// pager, and the selection, deletion and confirmation of useDeleteSelected. A screen states its
// columns, filters, row actions and texts:
//
//   const list = useListScreen({ parse: paramsOf, useList: useUsers, name: (u) => u.username, remove: {...} });
//   return <ListScreen list={list} testId="users-list" title={t`Admin Settings`} columns={columns} ... />;
import { useLingui } from "@lingui/react/macro";
import type { QueryKey, UseQueryResult } from "@tanstack/react-query";
import type { ComponentChildren } from "preact";
import { Link } from "wouter";
import { type Column, DataTable } from "../../components/DataTable";
import { Pager } from "../../components/Pager";
import { SearchBox } from "../../components/SearchBox";
import { type UrlParamChange, useUrlParams } from "../../components/useUrlParams";
import type { ListPage } from "../../lib/listPage";
import type { PagingParams, SortDir } from "./listParams";
import { useDeleteSelected } from "./useDeleteSelected";

/** What a list screen's parsed address must hold; `search` and `sort` for a searched, sorted list. */
export type ListParams = PagingParams & { search?: string; sort?: { field: string; dir: SortDir } };

/** How the rows of a list that deletes are deleted (useDeleteSelected). */
export interface Removal {
  /** Deletes one item; true on success (an ApiError shows its own messages). */
  deleteOne: (id: number) => Promise<boolean>;
  /** The queries to reload after a deletion. */
  listKey: QueryKey;
  /** The confirmation's words for more than one item ('3 users'). */
  many: (count: number) => string;
  /** The banner when an item could not be deleted for another reason than the server's answer. */
  failed: string;
}

export type ListScreenOptions<P extends ListParams, Row> = {
  /** The list's state from the address's query string. */
  parse: (search: string) => P;
  /** The query of one page of the list (a hook of api/queries). */
  useList: (p: P) => UseQueryResult<ListPage<Row>, Error>;
  /** What a row is called: its check box, its phone accordion, its buttons and the confirmation. */
  name: (row: Row) => string;
  /** With it, rows are selected and deleted. */
  remove?: Removal;
} & (Row extends { id: number } ? { rowId?: (row: Row) => number } : { rowId: (row: Row) => number });

/** What useListScreen gives the screen and its ListScreen. */
export interface ListState<P extends ListParams, Row> {
  p: P;
  query: UseQueryResult<ListPage<Row>, Error>;
  rows: Row[] | undefined;
  total: number;
  /** Changes keys of the address (the others kept); the selection is cleared. */
  setParams: (next: UrlParamChange) => void;
  name: (row: Row) => string;
  rowId: (row: Row) => number;
  /** Selection and deletion, for a list with `remove`. */
  del: ReturnType<typeof useDeleteSelected<Row>> | undefined;
}

// A list without `remove` still calls the hook (hooks run in the same order every time), with
// this; no Delete is shown and `del` is not handed out, so nothing asks it.
const NO_REMOVAL: Removal = { deleteOne: async () => false, listKey: [], many: () => "", failed: "" };

const idOf = (row: unknown) => (row as { id: number }).id;

export function useListScreen<P extends ListParams, Row>(o: ListScreenOptions<P, Row>): ListState<P, Row> {
  const [search, updateParams] = useUrlParams();
  const p = o.parse(search);
  const query = o.useList(p);
  const rows = query.data?.content;
  const total = query.data?.totalElements ?? 0;
  const rowId: (row: Row) => number = o.rowId ?? idOf;
  const removal = o.remove ?? NO_REMOVAL;

  const setParams = (next: UrlParamChange) => {
    updateParams(next);
    del.setSelected([]);
  };

  const del = useDeleteSelected<Row>({
    rows,
    rowId,
    total,
    pageSize: p.pageSize,
    page: p.page,
    deleteOne: removal.deleteOne,
    listKey: removal.listKey,
    describe: (one, count) => (one ? o.name(one) : removal.many(count)),
    failed: removal.failed,
    onPage: (page) => setParams({ page }),
  });

  return { p, query, rows, total, setParams, name: o.name, rowId, del: o.remove ? del : undefined };
}

export interface ListScreenProps<P extends ListParams, Row> {
  list: ListState<P, Row>;
  /** The section's test id, and its class unless `className`. */
  testId: string;
  className?: string;
  title: string;
  /** Between the title and the toolbar (a notice, a subtitle). */
  intro?: ComponentChildren;
  /** Replaces the toolbar below (null: none). */
  toolbar?: ComponentChildren;
  /** After the search box: the screen's filters and buttons. */
  filters?: ComponentChildren;
  /** How the search box's text is kept (as typed by default). */
  searchText?: (text: string) => string;
  /** 'Delete Selected', New and the check boxes are shown (true by default). */
  writable?: boolean;
  /** The New button: a link to the editor, or a button that opens one. */
  create?: { testId: string; label?: string; href?: string; onClick?: () => void };
  tableTestId: string;
  columns: Column<Row>[];
  /** The row actions (RowLink, RowButton, RowDelete and the screen's own), last column. */
  actions?: (row: Row) => ComponentChildren;
  /** On a phone, in each row's head (a link to the row's page). */
  phoneHead?: (row: Row) => ComponentChildren;
  /** On a phone, what a closed card shows under its title (DataTable's `phoneSummary`). */
  phoneSummary?: (row: Row) => ComponentChildren;
  /** After the pager and the confirmation: the screen's dialogs. */
  children?: ComponentChildren;
}

export function ListScreen<P extends ListParams, Row>(props: ListScreenProps<P, Row>) {
  const { t } = useLingui();
  const { list } = props;
  const { p, query, setParams, del } = list;
  const writable = props.writable ?? true;
  const selecting = writable && del ? del : undefined;
  const create = props.create;
  const keep = props.searchText ?? ((text: string) => text);

  const toolbar = (
    <div class="list-toolbar">
      <SearchBox value={p.search ?? ""} onSearch={(text) => setParams({ search: keep(text), page: undefined })} />
      {props.filters}
      <span class="spacer" />
      {writable ? (
        <>
          {del ? (
            <button
              type="button"
              class="button secondary"
              disabled={!del.selected.length}
              onClick={() => del.ask()}
              data-testid="delete-selected"
            >
              {t`Delete Selected`}
            </button>
          ) : null}
          {create?.href !== undefined ? (
            <Link href={create.href} class="button primary" data-testid={create.testId}>
              {create.label ?? t`New`}
            </Link>
          ) : create ? (
            <button type="button" class="button primary" onClick={create.onClick} data-testid={create.testId}>
              {create.label ?? t`New`}
            </button>
          ) : null}
        </>
      ) : null}
    </div>
  );

  return (
    <section class={`page ${props.className ?? props.testId}`} data-testid={props.testId}>
      <h1 class="page-title">{props.title}</h1>
      {props.intro}
      {props.toolbar !== undefined ? props.toolbar : toolbar}
      <DataTable
        testId={props.tableTestId}
        columns={props.columns}
        rows={list.rows}
        rowId={list.rowId}
        rowLabel={list.name}
        phoneHead={props.phoneHead}
        phoneSummary={props.phoneSummary}
        loading={query.isFetching}
        error={query.isError ? (query.error?.message ?? t`The list could not be loaded.`) : null}
        sort={p.sort ? { key: p.sort.field, dir: p.sort.dir } : undefined}
        onSort={p.sort ? (s) => setParams({ sort: `${s.key},${s.dir}`, page: undefined }) : undefined}
        selected={selecting?.selected}
        onSelected={selecting?.setSelected}
        actions={props.actions}
      />
      <Pager
        page={p.page}
        size={p.pageSize}
        total={list.total}
        onPage={(page) => setParams({ page })}
        onSize={(size) => setParams({ size, page: undefined })}
      />
      {del?.dialog}
      {props.children}
    </section>
  );
}

/**
 * A toolbar filter: a select of the values of the address's `param` ('' for all), named by
 * `label` for screen readers; choosing one goes back to the first page.
 */
export function ListFilter<P extends ListParams, Row>(props: {
  list: ListState<P, Row>;
  param: string;
  value: string | number | undefined;
  label: string;
  testId: string;
  options: { value: string | number; label: string }[];
}) {
  const { list, label } = props;
  return (
    <label class="inline-field">
      <span class="visually-hidden">{label}</span>
      <select
        value={props.value ?? ""}
        onChange={(e) => list.setParams({ [props.param]: e.currentTarget.value, page: undefined })}
        data-testid={props.testId}
        aria-label={label}
      >
        {props.options.map((o) => (
          <option key={o.value} value={o.value}>
            {o.label}
          </option>
        ))}
      </select>
    </label>
  );
}

/** A row's link to its page: 'Edit', or 'View' for a reader; named for the row. */
export function RowLink(props: { href: string; testId: string; name: string; view?: boolean }) {
  const { t } = useLingui();
  const name = props.name;
  return (
    <Link
      href={props.href}
      class="button link"
      data-testid={props.testId}
      aria-label={props.view ? t`View ${name}` : t`Edit ${name}`}
    >
      {props.view ? t`View` : t`Edit`}
    </Link>
  );
}

/** A row's 'Edit' that opens the editor in a dialog; named for the row. */
export function RowEditButton(props: { onClick: () => void; testId: string; name: string }) {
  const { t } = useLingui();
  const name = props.name;
  return (
    <button
      type="button"
      class="button link"
      onClick={props.onClick}
      data-testid={props.testId}
      aria-label={t`Edit ${name}`}
    >
      {t`Edit`}
    </button>
  );
}

/** A row's own Delete: asks first (useDeleteSelected); named for the row. */
export function RowDelete<P extends ListParams, Row>(props: { list: ListState<P, Row>; row: Row; testId: string }) {
  const { t } = useLingui();
  const { list, row } = props;
  const name = list.name(row);
  return (
    <button
      type="button"
      class="button link danger-text"
      onClick={() => list.del?.ask(row)}
      data-testid={props.testId}
      aria-label={t`Delete ${name}`}
    >
      {t`Delete`}
    </button>
  );
}
