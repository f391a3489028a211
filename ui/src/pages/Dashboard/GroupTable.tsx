// 4. The chosen test case groups: Test Case Group and Count (sortable) and a 24-hour chart
// each. A table on a desktop, cards on a phone.
import { useLingui } from "@lingui/react/macro";
import { ChatIcon, PhoneIcon } from "../../components/icons";
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
  lazy: boolean;
  ready: boolean;
}

function ChannelMark({ channel }: { channel: string }) {
  const { t } = useLingui();
  return channel === "web" ? <ChatIcon size={16} class="channel-icon" title={t`Digital`} /> : <PhoneIcon size={16} class="channel-icon" title={t`Voice`} />;
}

export function GroupTable(p: GroupTableProps) {
  const { t, i18n } = useLingui();
  const ariaSort = (k: SortKey) => (p.sort.key === k ? (p.sort.dir === "asc" ? "ascending" : "descending") : "none");
  const dir = (k: SortKey) => (p.sort.key === k ? p.sort.dir : "none");
  const header = (k: SortKey, label: string) => (
    <button type="button" class="sort-button" onClick={() => p.onSort(k)} data-testid={`sort-${k}`}>
      {label}
      <ArrowIcon dir={dir(k)} />
    </button>
  );
  const count = (r: GroupRow) =>
    p.loading.has(r.id) ? <span class="muted">…</span> : p.failed.has(r.id) ? <span class="muted" title={t`Could not be loaded`}>—</span> : i18n.number(r.count);
  const chartHeight = p.isPhone ? 120 : 104;
  const open = (id: number) => (e: Event) => {
    if (e instanceof KeyboardEvent && e.key !== "Enter" && e.key !== " ") return;
    e.preventDefault();
    p.onOpen(id);
  };
  const chart = (r: GroupRow) => {
    const name = r.name;
    return (
    <div
      class="chart-open"
      role="button"
      tabIndex={0}
      aria-label={t`Open the hourly chart of ${name}`}
      onClick={open(r.id)}
      onKeyDown={open(r.id)}
      data-testid="group-chart"
    >
      {p.loading.has(r.id) ? (
        <div class="cx-chart chart-pending" style={{ minHeight: `${chartHeight}px` }} />
      ) : (
        <GroupChart hours={r.hours} filter={p.filter} height={chartHeight} lazy={p.lazy} />
      )}
    </div>
    );
  };

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
        <div class="card-sort" role="group" aria-label={t`Sort by`}>
          <span class="muted">{t`Sort by`}</span>
          {header("name", t`Test Case Group`)}
          {header("count", t`Count`)}
        </div>
        <ul class="group-cards">
          {p.rows.map((r) => (
            <li class="group-card" key={r.id} data-testid="group-row" data-group-id={r.id} data-count={r.count}>
              <div class="group-card-head">
                <ChannelMark channel={r.channel} />
                <span class="group-name" data-testid="group-name" title={r.name}>
                  {r.name}
                </span>
                <span class="group-count" data-testid="group-count">
                  {count(r)}
                </span>
              </div>
              {chart(r)}
            </li>
          ))}
        </ul>
      </section>
    );
  }

  return (
    <section class="card table-card" data-testid="group-table" data-ready={p.ready}>
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
              <span class="th-text">{t`Test Case Runs by Hour`}</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {p.rows.map((r) => (
            <tr key={r.id} data-testid="group-row" data-group-id={r.id} data-count={r.count}>
              <td class="col-name">
                <span class="group-name-cell">
                  <ChannelMark channel={r.channel} />
                  <span class="group-name" data-testid="group-name" title={r.name}>
                    {r.name}
                  </span>
                </span>
              </td>
              <td class="col-count" data-testid="group-count">
                {count(r)}
              </td>
              <td class="col-chart">{chart(r)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
