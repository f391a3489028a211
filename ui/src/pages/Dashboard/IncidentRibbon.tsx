// The incident ribbon: each group failing now (current.ts: a failed run in the last 15 minutes,
// or this hour on a spec-only API), named, with how many of its runs failed then, since when and
// for how long, above the fold; the name opens the group's hourly chart, 'failing runs' lists
// today's failing runs of the group (/report/drill). The browser tab's title and icon follow the
// worst state now, for a tab left behind. Under cxwatch's API each failing group also names
// its alert state with a link (alertState.ts): 'alert open, not acknowledged', 'acknowledged by
// Ana 03:12', 'muted until 04:00 by Ana', 'no alert yet: 4 of 5 failures'.
import { plural } from "@lingui/core/macro";
import { Plural, Trans, useLingui } from "@lingui/react/macro";
import { memo, useEffect } from "react";
import { Link } from "wouter";
import type { GroupAlert } from "../../api/types";
import { useSiteTimeZone } from "../../lib/tenant";
import { useTabTitle } from "../../lib/title";
import { groupDrillPath } from "../Drill/links";
import { type AlertStateView, alertStateView } from "./alertState";
import type { CurrentWindow, Incident } from "./current";
import { pad2 } from "./hourly";
import { durationText, tabIcon, type WorstState } from "./severity";

export const IncidentRibbon = memo(function IncidentRibbon({
  incidents,
  window,
  date,
  runType,
  onOpen,
  alerts,
}: {
  incidents: Incident[];
  /** Each failing group's alert state (cxwatch's groups/recent), by group id. */
  alerts?: Map<number, GroupAlert>;
  /** What 'now' covers: the last minutes, or the current hour. */
  window: CurrentWindow;
  /** The dashboard's day (YYYY-MM-DD) and run type: the failing runs listed are those. */
  date: string;
  runType: "Manual" | "Schedule";
  onOpen: (id: number) => void;
}) {
  const { t, i18n } = useLingui();
  const zone = useSiteTimeZone();
  if (incidents.length === 0) return null;
  const count = incidents.length;
  const now = new Date();
  return (
    <section class="incident-ribbon" role="status" aria-label={t`Failing now`} data-testid="incident-ribbon">
      <span class="incident-title">
        <span class="incident-mark" aria-hidden="true">
          ✖
        </span>
        <Plural value={count} one="# group failing now" other="# groups failing now" />
      </span>
      <ul class="incident-list">
        {incidents.map((i) => {
          const name = i.name;
          const failed = i.failed;
          const minutes = window.kind === "minutes" ? window.minutes : 0;
          const hourStart = window.kind === "hour" ? `${pad2(window.hour)}:00` : "";
          const howMuch =
            window.kind === "minutes"
              ? plural(i.runs, {
                  one: `${failed} of # run failing in the last ${minutes}\u00a0min`,
                  other: `${failed} of # runs failing in the last ${minutes}\u00a0min`,
                })
              : plural(i.runs, {
                  one: `${failed} of # run failing since ${hourStart}`,
                  other: `${failed} of # runs failing since ${hourStart}`,
                });
          const since = i.since === null ? null : `${pad2(i.since)}:00`;
          const duration = durationText(i.minutes ?? 0);
          const text =
            since === null || (window.kind === "hour" && i.since === window.hour)
              ? t`${name}: ${howMuch}`
              : t`${name}: ${howMuch} (failures since ${since}, ${duration})`;
          return (
            <li key={i.id}>
              <button
                type="button"
                class="incident-link"
                data-testid="incident"
                data-group-id={i.id}
                data-failed={i.failed}
                data-runs={i.runs}
                onClick={() => onOpen(i.id)}
              >
                {text}
              </button>{" "}
              <Link
                class="incident-runs"
                data-testid="incident-runs"
                aria-label={t`Failing runs of ${name}`}
                href={groupDrillPath({ groupId: i.id, status: "failure", date, runType })}
              >
                <Trans>failing runs</Trans>
              </Link>
              <AlertStateLink view={alertStateView(alerts?.get(i.id), now, zone, i18n.locale)} />
            </li>
          );
        })}
      </ul>
    </section>
  );
});

/** A failing group's alert state, a link to the alert (or the setting, or the window). */
function AlertStateLink({ view }: { view: AlertStateView | null }) {
  const { t } = useLingui();
  if (!view) return null;
  let text = "";
  switch (view.kind) {
    case "open":
      text = t`alert open, not acknowledged`;
      break;
    case "acknowledged": {
      const { by, at } = view;
      text = t`acknowledged by ${by} ${at}`;
      break;
    }
    case "muted": {
      const { by, until } = view;
      text = view.wholeGroup ? t`muted until ${until} by ${by}` : t`test case muted until ${until} by ${by}`;
      break;
    }
    case "notYet": {
      const { failures, threshold } = view;
      text = t`no alert yet: ${failures} of ${threshold} failures`;
      break;
    }
    case "noSetting":
      text = t`no alert setting`;
      break;
  }
  return (
    <Link
      class={`group-alert-state state-${view.kind}`}
      data-testid="incident-state"
      data-state={view.kind}
      href={view.href}
    >
      {text}
    </Link>
  );
}

/**
 * Title and icon of the browser tab: the worst state first, for a tab left in the background
 * ('✖ IVR failing · Dashboard – cxwatch'). The route's plain title ('Dashboard – cxwatch') is set
 * by the route table before this.
 */
export function useTabState(state: WorstState, failing: string[]) {
  const { t } = useLingui();
  const first = failing[0] ?? "";
  const more = failing.length - 1;
  const title =
    state === "failure"
      ? more > 0
        ? t`✖ ${first} +${more} failing · Dashboard`
        : t`✖ ${first} failing · Dashboard`
      : state === "warning"
        ? t`▲ Warnings · Dashboard`
        : t`Dashboard`;
  useTabTitle(title);
  useEffect(() => {
    const link = document.querySelector<HTMLLinkElement>("link[rel=icon]");
    if (link) link.href = state === "failure" || state === "warning" ? tabIcon(state) : "/favicon.svg";
  }, [state]);
  useEffect(
    () => () => {
      const link = document.querySelector<HTMLLinkElement>("link[rel=icon]");
      if (link) link.href = "/favicon.svg";
    },
    [],
  );
}
