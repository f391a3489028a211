// 2. Overall Health: Total Calls, and pass, warning and failure as whole percentages and counts.
// While the chosen groups' numbers are still coming in, it shows dashes rather than a partial
// sum that would climb in front of the operator.
import { Plural, useLingui } from "@lingui/react/macro";
import { memo } from "react";
import { FAILURE_COLOR, PASS_COLOR, WARNING_COLOR } from "../../components/charts/colors";
import { DonutChart } from "../../components/charts/DonutChart";
import { Flash } from "./Flash";
import { type OverallHealth, percentText } from "./percentages";
import type { HeadlineScope } from "./scope";

/** 'Today 00:00–19:40 · Manual · 12 groups · Filtered ✕': what the headline counts. */
function ScopeLine({
  scope,
  runTypeName,
  groups,
  filtered,
  onClearFilter,
}: {
  scope: HeadlineScope;
  runTypeName: string;
  groups: number;
  filtered: boolean;
  onClearFilter: () => void;
}) {
  const { t } = useLingui();
  const { day, from, to } = scope;
  return (
    <p class="scope-line" data-testid="headline-scope">
      <span>{scope.today ? t`Today ${from}–${to}` : t`${day} ${from}–${to}`}</span>
      <span aria-hidden="true"> · </span>
      <span>{runTypeName}</span>
      <span aria-hidden="true"> · </span>
      <span>
        <Plural value={groups} one="# group" other="# groups" />
      </span>
      {filtered ? (
        <>
          <span aria-hidden="true"> · </span>
          <button
            type="button"
            class="scope-filtered"
            onClick={onClearFilter}
            title={t`The table hides some statuses. Click to show them all.`}
            data-testid="scope-filtered"
          >
            {t`Filtered`}
            <span aria-hidden="true"> ✕</span>
          </button>
        </>
      ) : null}
    </p>
  );
}

export const OverallHealthDonut = memo(function OverallHealthDonut({
  health,
  loading,
  isPhone,
  scope,
  runTypeName,
  groups,
  filtered,
  onClearFilter,
}: {
  health: OverallHealth;
  loading: boolean;
  isPhone: boolean;
  scope: HeadlineScope;
  runTypeName: string;
  groups: number;
  filtered: boolean;
  onClearFilter: () => void;
}) {
  const { t, i18n } = useLingui();
  const num = (n: number) => i18n.number(n);
  const rows = [
    { key: "pass", label: t`Pass`, color: PASS_COLOR, share: health.pass },
    { key: "warning", label: t`Warning`, color: WARNING_COLOR, share: health.warning },
    { key: "failure", label: t`Failure`, color: FAILURE_COLOR, share: health.failure },
  ];
  const slices = rows.map((r) => ({ label: r.label, value: r.share.count, color: r.color }));
  return (
    <section class="card health-card" aria-labelledby="overall-title" data-testid="overall-health" aria-busy={loading}>
      <header class="card-header">
        <h2 class="card-title" id="overall-title">
          {t`Overall Health`}
        </h2>
      </header>
      <ScopeLine
        scope={scope}
        runTypeName={runTypeName}
        groups={groups}
        filtered={filtered}
        onClearFilter={onClearFilter}
      />
      <div class="health-body">
        <DonutChart
          slices={slices}
          height={isPhone ? 150 : 180}
          tooltip={(i) => {
            const name = rows[i].label;
            return {
              title: `${t`${name}:`} `,
              value: `${percentText(rows[i].share.percent, i18n.locale)} (${num(rows[i].share.count)})`,
            };
          }}
        >
          <span class="donut-total" data-testid="total-calls">
            {loading ? "—" : <Flash value={health.total}>{num(health.total)}</Flash>}
          </span>
          <span class="donut-caption">{t`Total Calls`}</span>
        </DonutChart>
        <ul class="health-legend">
          {rows.map((r) => (
            <li key={r.key} data-testid={`share-${r.key}`} data-count={r.share.count} data-percent={r.share.percent}>
              <span class="dot" style={{ background: r.color }} aria-hidden="true" />
              <span class="legend-label">{r.label}</span>
              {loading ? (
                <span class="legend-figures muted">—</span>
              ) : (
                <span class="legend-figures">
                  <span class="legend-percent">{percentText(r.share.percent, i18n.locale)}</span>
                  <span class="legend-count">
                    <Flash value={r.share.count}>({num(r.share.count)})</Flash>
                  </span>
                </span>
              )}
            </li>
          ))}
        </ul>
      </div>
    </section>
  );
});
