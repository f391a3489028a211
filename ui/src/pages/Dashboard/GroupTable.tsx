// 4. The chosen test case groups: Test Case Group and Count (sortable) and a 24-hour chart
// each. A table on a desktop, cards on a phone.
import { useLingui } from "@lingui/react/macro";
import { memo } from "react";
import { ChartPatterns } from "../../components/charts/ChartPatterns";
import { ChatIcon, PhoneIcon } from "../../components/icons";
import { Flash } from "./Flash";
import { GroupChart } from "./GroupChart";
import { ArrowIcon } from "./icons";
import type { GroupRow, RateIndex, Sort, SortKey } from "./rows";

export interface GroupTableProps {
  rows: GroupRow[];
  loading: Set<number>;
  failed: Set<number>;
  filter: RateIndex[];
  sort: Sort;
  onSort: (k: SortKey) => void;
  onOpen: (id: number) => void;
  isPhone: boolean;
  /** Only the first rows' charts are drawn at once; the others near the window or in idle time. */
  lazy: boolean;
  ready: boolean;
  /** One y-scale for every row's chart. */
  yMax: number;
  /** First hour of the day shown still to come. */
  futureFrom: number;
}

function ChannelMark({ channel }: { channel: string }) {
  const { t } = useLingui();
  return channel === "web" ? (
    <ChatIcon size={16} class="channel-icon" title={t`Digital`} />
  ) : (
    <PhoneIcon size={16} class="channel-icon" title={t`Voice`} />
  );
}

/** What one row or card shows. A row is drawn again only when one of these changes. */
interface RowProps {
  row: GroupRow;
  loading: boolean;
  failed: boolean;
  filter: RateIndex[];
  onOpen: (id: number) => void;
  /** The chart is drawn at once (a first row), not in its turn. */
  eager: boolean;
  yMax: number;
  futureFrom: number;
}

function Count({ row, loading, failed }: Pick<RowProps, "row" | "loading" | "failed">) {
  const { t, i18n } = useLingui();
  if (loading) return <span class="muted">…</span>;
  if (failed)
    return (
      <span class="muted" title={t`Could not be loaded`}>
        —
      </span>
    );
  return <Flash value={row.count}>{i18n.number(row.count)}</Flash>;
}

function RowChart({
  row,
  loading,
  filter,
  onOpen,
  eager,
  height,
  yMax,
  futureFrom,
}: Omit<RowProps, "failed"> & { height: number }) {
  const { t } = useLingui();
  const name = row.name;
  const open = (e: Event) => {
    e.preventDefault();
    onOpen(row.id);
  };
  return (
    // A click anywhere on the chart opens it; for the keyboard and assistive technology, a real
    // button lies over the chart (named 'Open the hourly chart of …', no text of its own). The
    // chart is not inside the button: its hour and count labels are visible text, which would
    // then have to be part of the button's name (axe 'label-content-name-mismatch'). The button
    // lets the pointer through, so the chart's tooltips still work; the modal reads the numbers.
    // biome-ignore lint/a11y/noStaticElementInteractions: the pointer's way in; the keyboard's is the button inside
    // biome-ignore lint/a11y/useKeyWithClickEvents: the button inside takes the keyboard
    <div class="chart-open" onClick={open} data-testid="group-chart">
      <button type="button" class="chart-open-button" aria-label={t`Open the hourly chart of ${name}`} onClick={open} />
      {loading ? (
        <div class="cx-chart chart-pending" style={{ minHeight: `${height}px` }} aria-hidden="true" />
      ) : (
        <GroupChart
          hidden
          mini
          eager={eager}
          hours={row.hours}
          filter={filter}
          height={height}
          yMax={yMax}
          futureFrom={futureFrom}
        />
      )}
    </div>
  );
}

const TableRow = memo(function TableRow(p: RowProps) {
  const r = p.row;
  return (
    <tr data-testid="group-row" data-group-id={r.id} data-count={r.count}>
      <td class="col-name">
        <span class="group-name-cell">
          <ChannelMark channel={r.channel} />
          <span class="group-name" data-testid="group-name" title={r.name}>
            {r.name}
          </span>
        </span>
      </td>
      <td class="col-count" data-testid="group-count">
        <Count row={r} loading={p.loading} failed={p.failed} />
      </td>
      <td class="col-chart">
        <RowChart
          row={r}
          loading={p.loading || p.failed}
          filter={p.filter}
          onOpen={p.onOpen}
          eager={p.eager}
          yMax={p.yMax}
          futureFrom={p.futureFrom}
          height={DESKTOP_CHART_HEIGHT}
        />
      </td>
    </tr>
  );
});

const Card = memo(function Card(p: RowProps) {
  const r = p.row;
  return (
    <li class="group-card" data-testid="group-row" data-group-id={r.id} data-count={r.count}>
      <div class="group-card-head">
        <ChannelMark channel={r.channel} />
        <span class="group-name" data-testid="group-name" title={r.name}>
          {r.name}
        </span>
        <span class="group-count" data-testid="group-count">
          <Count row={r} loading={p.loading} failed={p.failed} />
        </span>
      </div>
      <RowChart
        row={r}
        loading={p.loading || p.failed}
        filter={p.filter}
        onOpen={p.onOpen}
        eager={p.eager}
        yMax={p.yMax}
        futureFrom={p.futureFrom}
        height={PHONE_CHART_HEIGHT}
      />
    </li>
  );
});

/** Rows whose chart is drawn with the numbers when charts are drawn lazily (about a window's worth). */
const EAGER_ROWS = 8;
const DESKTOP_CHART_HEIGHT = 104;
const PHONE_CHART_HEIGHT = 120;

export function GroupTable(p: GroupTableProps) {
  const { t } = useLingui();
  const ariaSort = (k: SortKey) => (p.sort.key === k ? (p.sort.dir === "asc" ? "ascending" : "descending") : "none");
  const dir = (k: SortKey) => (p.sort.key === k ? p.sort.dir : "none");
  const header = (k: SortKey, label: string) => (
    <button type="button" class="sort-button" onClick={() => p.onSort(k)} data-testid={`sort-${k}`}>
      {label}
      <ArrowIcon dir={dir(k)} />
    </button>
  );
  const worstFirst = (
    <button
      type="button"
      class={`sort-button worst-first${p.sort.key === "severity" ? " is-on" : ""}`}
      aria-pressed={p.sort.key === "severity"}
      onClick={() => p.onSort("severity")}
      data-testid="sort-severity"
    >
      {t`Worst first`}
    </button>
  );
  const rowProps = (r: GroupRow, i: number): RowProps => ({
    row: r,
    loading: p.loading.has(r.id),
    failed: p.failed.has(r.id),
    filter: p.filter,
    onOpen: p.onOpen,
    eager: !p.lazy || i < EAGER_ROWS,
    yMax: p.yMax,
    futureFrom: p.futureFrom,
  });

  if (p.rows.length === 0) {
    return (
      <section class="card table-card" data-testid="group-table" data-ready={p.ready}>
        <p class="empty no-data" data-testid="no-data">
          {t`No Data`}
        </p>
      </section>
    );
  }

  if (p.isPhone) {
    return (
      <section class="card table-card" data-testid="group-table" data-ready={p.ready}>
        <fieldset class="card-sort" aria-label={t`Sort by`}>
          <span class="muted">{t`Sort by`}</span>
          {worstFirst}
          {header("name", t`Test Case Group`)}
          {header("count", t`Count`)}
        </fieldset>
        <ChartPatterns />
        <ul class="group-cards">
          {p.rows.map((r, i) => (
            <Card key={r.id} {...rowProps(r, i)} />
          ))}
        </ul>
      </section>
    );
  }

  return (
    <section class="card table-card" data-testid="group-table" data-ready={p.ready}>
      <ChartPatterns />
      <table class="group-table">
        <thead>
          <tr>
            <th scope="col" aria-sort={ariaSort("name")} class="col-name">
              {header("name", t`Test Case Group`)}
            </th>
            <th scope="col" aria-sort={ariaSort("count")} class="col-count">
              {header("count", t`Count`)}
            </th>
            <th scope="col" class="col-chart">
              <span class="th-chart">
                <span class="th-text">{t`Test Case Runs by Hour`}</span>
                {worstFirst}
              </span>
            </th>
          </tr>
        </thead>
        <tbody>
          {p.rows.map((r, i) => (
            <TableRow key={r.id} {...rowProps(r, i)} />
          ))}
        </tbody>
      </table>
    </section>
  );
}
