// The audit log (read-write administrators): every change and sign-in, newest first, paged by the
// server and searched there: text (who, from where, what, the values before and after), kind,
// action and the site's days. The filters live in the address.
import type { MessageDescriptor } from "@lingui/core";
import { useLingui } from "@lingui/react/macro";
import { useAudit } from "../../api/queries/site";
import type { AuditEntry } from "../../api/types";
import { type Column, DataTable } from "../../components/DataTable";
import { Pager } from "../../components/Pager";
import { SearchBox } from "../../components/SearchBox";
import { useUrlParams } from "../../components/useUrlParams";
import { formatSiteTime } from "../../lib/siteTime";
import { useSiteTimeZone } from "../../lib/tenant";
import { changeOf } from "./audit";
import { dayBounds, zoneOffsetMinutes } from "./checklist";
import { ACTION_LABELS, KIND_LABELS, labelOf } from "./labels";

const SIZES = [10, 20, 50, 100];
const isDate = (s: string | null) => (s && /^\d{4}-\d{2}-\d{2}$/.test(s) ? s : "");

export function AuditLog() {
  const { t, i18n } = useLingui();
  const zone = useSiteTimeZone();
  const [search, setParams] = useUrlParams();
  const q = new URLSearchParams(search);
  const page = Math.max(1, Number(q.get("auditPage")) || 1);
  const size = SIZES.includes(Number(q.get("auditSize"))) ? Number(q.get("auditSize")) : 20;
  const text = q.get("auditSearch") ?? "";
  const kind = q.get("auditKind") ?? "";
  const action = q.get("auditAction") ?? "";
  const fromDay = isDate(q.get("auditFrom"));
  const toDay = isDate(q.get("auditTo"));
  const bounds = dayBounds(fromDay, toDay, (d) => zoneOffsetMinutes(zone, d));
  const list = useAudit({ pageNo: page - 1, pageSize: size, search: text, kind, action, ...bounds });
  const set = (change: Record<string, string | number | undefined>) => setParams({ auditPage: undefined, ...change });
  const say = (m: MessageDescriptor) => i18n._(m);
  const time = (v: string | number) => formatSiteTime(v, zone, i18n.locale);

  const columns: Column<AuditEntry>[] = [
    { key: "at", label: t`When`, render: (e) => <span class="nowrap">{formatSiteTime(e.at, zone, i18n.locale)}</span> },
    { key: "username", label: t`Who`, render: (e) => e.username },
    { key: "address", label: t`IP address`, render: (e) => e.address },
    { key: "kind", label: t`What`, render: (e) => labelOf(KIND_LABELS, e.kind, say) },
    { key: "action", label: t`Action`, render: (e) => labelOf(ACTION_LABELS, e.action, say) },
    { key: "target", label: t`Item`, render: (e) => e.target },
    { key: "change", label: t`Change`, render: (e) => <span class="audit-change">{changeOf(e, time)}</span> },
  ];

  return (
    <section class="site-card" aria-labelledby="site-audit-title" data-testid="site-audit">
      <h2 id="site-audit-title" class="site-card-title">
        {t`Audit log`}
      </h2>
      <div class="list-toolbar audit-filters">
        <SearchBox value={text} onSearch={(v) => set({ auditSearch: v })} placeholder={t`Search the audit log`} />
        <LabelFilter
          label={t`What`}
          value={kind}
          labels={KIND_LABELS}
          onChange={(v) => set({ auditKind: v })}
          testId="audit-kind"
        />
        <LabelFilter
          label={t`Action`}
          value={action}
          labels={ACTION_LABELS}
          onChange={(v) => set({ auditAction: v })}
          testId="audit-action"
        />
        <label class="audit-filter">
          <span>{t`From`}</span>
          <input
            type="date"
            value={fromDay}
            onChange={(e) => set({ auditFrom: e.currentTarget.value })}
            data-testid="audit-from"
          />
        </label>
        <label class="audit-filter">
          <span>{t`To`}</span>
          <input
            type="date"
            value={toDay}
            onChange={(e) => set({ auditTo: e.currentTarget.value })}
            data-testid="audit-to"
          />
        </label>
      </div>
      <DataTable
        columns={columns}
        rows={list.data?.content}
        rowId={(e) => e.id}
        rowLabel={(e) => `${labelOf(KIND_LABELS, e.kind, say)} ${e.target}`}
        loading={list.isFetching && !list.data}
        error={list.error ? list.error.message : null}
        testId="audit-table"
        regionLabel={t`Audit log`}
        phoneHead={(e) => `${labelOf(KIND_LABELS, e.kind, say)} ${e.target}`}
        phoneSummary={(e) => `${labelOf(ACTION_LABELS, e.action, say)} · ${e.username}`}
      />
      <Pager
        page={page}
        size={size}
        total={list.data?.totalElements ?? 0}
        onPage={(p) => setParams({ auditPage: p })}
        onSize={(s) => setParams({ auditSize: s, auditPage: undefined })}
      />
    </section>
  );
}

/** A filter over one of the audit log's label tables ('All' first). */
function LabelFilter(p: {
  label: string;
  value: string;
  labels: Record<string, MessageDescriptor>;
  onChange: (v: string) => void;
  testId: string;
}) {
  const { t, i18n } = useLingui();
  return (
    <label class="audit-filter">
      <span>{p.label}</span>
      <select value={p.value} onChange={(e) => p.onChange(e.currentTarget.value)} data-testid={p.testId}>
        <option value="">{t`All`}</option>
        {Object.entries(p.labels).map(([code, m]) => (
          <option key={code} value={code}>
            {i18n._(m)}
          </option>
        ))}
      </select>
    </label>
  );
}
