// 3. Controls: Run Type, test case groups, Filter by, Select Date, and the refresh line. The
// same controls appear in the sticky top bar.
import { useLingui } from "@lingui/react/macro";
import { memo } from "react";
import { ChatIcon, PhoneIcon } from "../../components/icons";
import { MultiSelect } from "../../components/MultiSelect/MultiSelect";
import { formatClock, zoneLabel } from "../../lib/siteTime";
import { useSiteTimeZone } from "../../lib/tenant";
import { DateField } from "./DateField";
import { RefreshIcon } from "./icons";
import type { RunType } from "./prefs";
import { ALL_RATES, type GroupInfo, type RateIndex } from "./rows";

export interface ControlsProps {
  runType: RunType;
  onRunType: (r: RunType) => void;
  groups: GroupInfo[];
  chosen: number[];
  onChosen: (ids: number[]) => void;
  filter: RateIndex[];
  onFilter: (f: RateIndex[]) => void;
  date: string;
  onDate: (d: string) => void;
  lastRefreshed: Date | null;
  refreshing: boolean;
  problem: string | null;
  onRefresh: () => void;
  /** The sticky bar's variant (prefix for test ids). */
  variant: "main" | "sticky";
  /** Told when one of the drop-down lists opens or closes. */
  onMenu?: (open: boolean) => void;
}

const collator = new Intl.Collator(undefined, { sensitivity: "base", numeric: true });
const sortedByName = (groups: GroupInfo[]) =>
  [...groups].sort((a, b) => collator.compare(a.name, b.name) || a.id - b.id);

export const Controls = memo(function Controls(p: ControlsProps) {
  const { t, i18n } = useLingui();
  const rateNames = [t`Pass Rate`, t`Warning Rate`, t`Failure Rate`];
  const n = p.chosen.length;
  const m = p.groups.length;
  const filterSummary =
    p.filter.length === ALL_RATES.length
      ? t`All`
      : p.filter.length === 0
        ? t`None`
        : p.filter.map((i) => rateNames[i]).join(", ");
  const id = (s: string) => `${p.variant}-${s}`;
  const timeZone = useSiteTimeZone();
  // With the zone's name: the operator may not be where the site is.
  const time = p.lastRefreshed
    ? `${formatClock(p.lastRefreshed, timeZone)} ${zoneLabel(p.lastRefreshed, timeZone, i18n.locale)}`.trim()
    : "";

  return (
    <div class={`controls controls-${p.variant}`} data-testid={id("controls")}>
      <div class="control">
        <span class="control-label" id={id("runtype-label")}>
          {t`Run Type`}
        </span>
        <fieldset class="seg" aria-labelledby={id("runtype-label")}>
          {(["Manual", "Schedule"] as RunType[]).map((r) => (
            <button
              type="button"
              key={r}
              class={`seg-option ${p.runType === r ? "is-on" : ""}`}
              aria-pressed={p.runType === r}
              onClick={() => p.onRunType(r)}
              data-testid={id(`runtype-${r}`)}
            >
              {r === "Manual" ? t`Manual` : t`Schedule`}
            </button>
          ))}
        </fieldset>
      </div>
      <MultiSelect
        class="control control-groups"
        label={t`Test Case Groups`}
        options={sortedByName(p.groups).map((g) => ({
          value: g.id,
          label: g.name,
          icon:
            g.channel === "web" ? <ChatIcon size={16} title={t`Digital`} /> : <PhoneIcon size={16} title={t`Voice`} />,
        }))}
        selected={p.chosen}
        onChange={p.onChosen}
        summary={t`${n} of ${m} selected`}
        selectAllLabel={t`Select All`}
        testId={id("groups")}
        onOpenChange={p.onMenu}
      />
      <MultiSelect
        class="control control-filter"
        label={t`Filter by`}
        options={ALL_RATES.map((r) => ({ value: r, label: rateNames[r] }))}
        selected={p.filter}
        onChange={(f) => p.onFilter(f as RateIndex[])}
        summary={filterSummary}
        testId={id("filter")}
        onOpenChange={p.onMenu}
      />
      <DateField date={p.date} onDate={p.onDate} testId={id("date")} />
      <div class="control control-refresh">
        <span class="refresh-text" aria-live="polite" data-testid={id("last-refreshed")}>
          {time ? t`Last refreshed ${time}` : p.refreshing ? t`Please wait ...` : ""}
          {p.problem ? (
            <span class="refresh-problem" title={p.problem}>
              {" "}
              {time ? t`(refresh failed)` : t`The data could not be loaded.`}
            </span>
          ) : null}
        </span>
        <button
          type="button"
          class={`icon-button refresh-button ${p.refreshing ? "is-spinning" : ""}`}
          onClick={p.onRefresh}
          disabled={p.refreshing}
          aria-label={t`Refresh`}
          title={t`Refresh`}
          data-testid={id("refresh")}
        >
          <RefreshIcon size={18} />
        </button>
      </div>
    </div>
  );
});
