// The list table every settings list uses (spec §2 'Settings lists'): sortable headers, a
// check box column, loading / empty / error rows, 550 px high (a list of runs grows with the
// page instead: `tall`); on a phone each row is an accordion that opens to show its other
// columns, with what must be seen closed (`phoneSummary`) under its title.
import { useLingui } from "@lingui/react/macro";
import type { ComponentChildren } from "preact";
import { useState } from "react";
import { useIsMobile } from "../lib/media";
import { ChevronDownIcon } from "./icons";

export type SortDir = "asc" | "desc";
export interface SortState {
  key: string;
  dir: SortDir;
}

export interface Column<Row> {
  key: string;
  label: string;
  /** Sorting by this column is offered (the server sorts). */
  sortable?: boolean;
  render: (row: Row) => ComponentChildren;
}

export interface DataTableProps<Row, Id extends string | number> {
  columns: Column<Row>[];
  rows: Row[] | undefined;
  rowId: (row: Row) => Id;
  /** What a row is called (the check box's label, the phone's accordion title). */
  rowLabel: (row: Row) => string;
  loading?: boolean;
  error?: string | null;
  sort?: SortState;
  onSort?: (next: SortState) => void;
  /** With these, a check box column. */
  selected?: Id[];
  onSelected?: (ids: Id[]) => void;
  /** Row actions (edit, delete), last column. */
  actions?: (row: Row) => ComponentChildren;
  /** On a phone, shown in each row's head beside the toggle (e.g. a link to the row's page). */
  phoneHead?: (row: Row) => ComponentChildren;
  /** On a phone, shown under each row's title while it is closed too (e.g. its status and time). */
  phoneSummary?: (row: Row) => ComponentChildren;
  /** On a phone, a 'Sort by' choice above the cards (the header's sort buttons are not shown there). */
  phoneSort?: boolean;
  /** As high as its rows (the page scrolls), not a 550 px box. */
  tall?: boolean;
  /**
   * The table's name. Given, its scrolling box is a named region keyboard users can reach and
   * scroll (a table whose rows hold no link or button cannot be scrolled from the keyboard
   * otherwise: axe's scrollable-region-focusable).
   */
  regionLabel?: string;
  testId?: string;
}

/** Same column flips the direction; another column starts ascending. */
export function nextSort(current: SortState | undefined, key: string): SortState {
  return current?.key === key ? { key, dir: current.dir === "asc" ? "desc" : "asc" } : { key, dir: "asc" };
}

export function DataTable<Row, Id extends string | number>(p: DataTableProps<Row, Id>) {
  const { t } = useLingui();
  const phone = useIsMobile();
  const [openRow, setOpenRow] = useState<Id | null>(null);
  const rows = p.rows ?? [];
  const selectable = !!p.onSelected;
  const chosen = new Set(p.selected ?? []);
  const allChosen = rows.length > 0 && rows.every((r) => chosen.has(p.rowId(r)));
  const someChosen = rows.some((r) => chosen.has(p.rowId(r)));
  const toggle = (id: Id) => p.onSelected?.(chosen.has(id) ? [...chosen].filter((x) => x !== id) : [...chosen, id]);
  const toggleAll = () => p.onSelected?.(allChosen ? [] : rows.map(p.rowId));
  // A named region the keyboard reaches and scrolls (axe's scrollable-region-focusable).
  const region = p.regionLabel ? { role: "region" as const, "aria-label": p.regionLabel, tabIndex: 0 } : {};
  const span = p.columns.length + (selectable ? 1 : 0) + (p.actions ? 1 : 0);

  const status =
    p.loading && !p.rows ? (
      <span data-testid="table-loading">{t`Please wait ...`}</span>
    ) : p.error ? (
      <span class="error-text" data-testid="table-error">
        {p.error}
      </span>
    ) : rows.length === 0 ? (
      <span data-testid="table-empty">{t`No Data`}</span>
    ) : null;

  const checkbox = (row: Row) => {
    const id = p.rowId(row);
    const name = p.rowLabel(row);
    return (
      <input
        type="checkbox"
        checked={chosen.has(id)}
        onChange={() => toggle(id)}
        aria-label={t`Select ${name}`}
        data-testid="row-select"
      />
    );
  };

  const sortButton = (c: Column<Row>) => {
    const dir = p.sort?.key === c.key ? p.sort.dir : undefined;
    return (
      <button
        type="button"
        class="sort-button"
        onClick={() => p.onSort?.(nextSort(p.sort, c.key))}
        data-testid={`sort-${c.key}`}
      >
        {c.label}
        <span class={`sort-mark ${dir ?? "none"}`} aria-hidden="true">
          {dir === "asc" ? "▲" : dir === "desc" ? "▼" : "↕"}
        </span>
      </button>
    );
  };

  const sortable = p.onSort && p.phoneSort ? p.columns.filter((c) => c.sortable) : [];
  // A phone has no header to click: the order is a choice above the cards.
  const phoneSort = sortable.length ? (
    <label class="phone-sort">
      <span>{t`Sort by`}</span>
      <select
        value={p.sort ? `${p.sort.key},${p.sort.dir}` : ""}
        onChange={(e) => {
          const [key, dir] = (e.currentTarget as HTMLSelectElement).value.split(",");
          if (key) p.onSort?.({ key, dir: dir === "desc" ? "desc" : "asc" });
        }}
        data-testid="phone-sort"
      >
        {p.sort ? null : <option value="">—</option>}
        {sortable.flatMap((c) => {
          const label = c.label;
          return [
            <option key={`${c.key},asc`} value={`${c.key},asc`}>
              {t`${label}, ascending`}
            </option>,
            <option key={`${c.key},desc`} value={`${c.key},desc`}>
              {t`${label}, descending`}
            </option>,
          ];
        })}
      </select>
    </label>
  ) : null;

  if (phone) {
    return (
      <div class={`data-table is-phone${p.tall ? " tall" : ""}`} data-testid={p.testId} aria-busy={p.loading}>
        {phoneSort}
        {selectable && rows.length ? (
          <label class="select-all">
            <input type="checkbox" checked={allChosen} indeterminate={someChosen && !allChosen} onChange={toggleAll} />
            {t`Select all`}
          </label>
        ) : null}
        {status ? <p class="table-status">{status}</p> : null}
        <ul class="accordion">
          {rows.map((row) => {
            const id = p.rowId(row);
            const open = openRow === id;
            return (
              <li key={id} class={open ? "open" : ""} data-testid="table-row" data-row-id={id}>
                <div class="accordion-head">
                  {selectable ? checkbox(row) : null}
                  <button
                    type="button"
                    class="accordion-toggle"
                    aria-expanded={open}
                    onClick={() => setOpenRow(open ? null : id)}
                  >
                    <span class="accordion-title">
                      <span>{p.rowLabel(row)}</span>
                      {p.phoneSummary ? (
                        <span class="accordion-summary" data-testid="row-summary">
                          {p.phoneSummary(row)}
                        </span>
                      ) : null}
                    </span>
                    <ChevronDownIcon size={16} class={`chevron ${open ? "up" : ""}`} />
                  </button>
                  {p.phoneHead ? p.phoneHead(row) : null}
                </div>
                {open ? (
                  <div class="accordion-body">
                    {/* Only name–value groups in the list (axe 'definition-list'); the actions after it. */}
                    <dl class="accordion-fields">
                      {p.columns.map((c) => (
                        <div key={c.key}>
                          <dt>{c.label}</dt>
                          <dd>{c.render(row)}</dd>
                        </div>
                      ))}
                    </dl>
                    {p.actions ? <div class="row-actions">{p.actions(row)}</div> : null}
                  </div>
                ) : null}
              </li>
            );
          })}
        </ul>
      </div>
    );
  }

  return (
    <div class={`data-table${p.tall ? " tall" : ""}`} data-testid={p.testId} aria-busy={p.loading} {...region}>
      <table>
        <thead>
          <tr>
            {selectable ? (
              <th scope="col" class="col-select">
                <input
                  type="checkbox"
                  checked={allChosen}
                  indeterminate={someChosen && !allChosen}
                  onChange={toggleAll}
                  aria-label={t`Select all`}
                  data-testid="select-all"
                />
              </th>
            ) : null}
            {p.columns.map((c) => (
              <th
                key={c.key}
                scope="col"
                aria-sort={p.sort?.key === c.key ? (p.sort.dir === "asc" ? "ascending" : "descending") : undefined}
              >
                {c.sortable && p.onSort ? sortButton(c) : c.label}
              </th>
            ))}
            {p.actions ? (
              <th scope="col" class="col-actions">
                <span class="visually-hidden">{t`Actions`}</span>
              </th>
            ) : null}
          </tr>
        </thead>
        <tbody>
          {status ? (
            <tr class="table-status">
              <td colSpan={span}>{status}</td>
            </tr>
          ) : null}
          {rows.map((row) => {
            const id = p.rowId(row);
            return (
              <tr key={id} data-testid="table-row" data-row-id={id} class={chosen.has(id) ? "selected" : ""}>
                {selectable ? <td class="col-select">{checkbox(row)}</td> : null}
                {p.columns.map((c) => (
                  <td key={c.key} data-col={c.key}>
                    {c.render(row)}
                  </td>
                ))}
                {p.actions ? (
                  <td class="col-actions">
                    <div class="row-actions">{p.actions(row)}</div>
                  </td>
                ) : null}
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
