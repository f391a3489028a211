// The incident ribbon: each group failing now, named, with since when and for how long, above the
// fold; the name opens the group's hourly chart, 'failing runs' lists today's failing runs of the
// group (/report/drill). The browser tab's title and icon follow the worst state, for a tab left behind.
import { Plural, Trans, useLingui } from "@lingui/react/macro";
import { memo, useEffect } from "react";
import { Link } from "wouter";
import { groupDrillPath } from "../Drill/links";
import { pad2 } from "./hourly";
import { durationText, tabIcon, type WorstState } from "./severity";

export interface Incident {
  id: number;
  name: string;
  /** Hour (0-23) the streak of failing hours began. */
  since: number;
  /** Minutes from then to now. */
  minutes: number;
}

export const IncidentRibbon = memo(function IncidentRibbon({
  incidents,
  date,
  runType,
  onOpen,
}: {
  incidents: Incident[];
  /** The dashboard's day (YYYY-MM-DD) and run type: the failing runs listed are those. */
  date: string;
  runType: "Manual" | "Schedule";
  onOpen: (id: number) => void;
}) {
  const { t } = useLingui();
  if (incidents.length === 0) return null;
  const count = incidents.length;
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
          const since = `${pad2(i.since)}:00`;
          const duration = durationText(i.minutes);
          return (
            <li key={i.id}>
              <button
                type="button"
                class="incident-link"
                data-testid="incident"
                data-group-id={i.id}
                onClick={() => onOpen(i.id)}
              >
                {t`${name}: failing since ${since} (${duration})`}
              </button>{" "}
              <Link
                class="incident-runs"
                data-testid="incident-runs"
                aria-label={t`Failing runs of ${name}`}
                href={groupDrillPath({ groupId: i.id, status: "failure", date, runType })}
              >
                <Trans>failing runs</Trans>
              </Link>
            </li>
          );
        })}
      </ul>
    </section>
  );
});

/** Title and icon of the browser tab: the worst state first, for a tab left in the background. */
export function useTabState(state: WorstState, failing: string[]) {
  const { t } = useLingui();
  const first = failing[0] ?? "";
  const more = failing.length - 1;
  const title =
    state === "failure"
      ? more > 0
        ? t`✖ ${first} +${more} failing · Dashboard · cxwatch`
        : t`✖ ${first} failing · Dashboard · cxwatch`
      : state === "warning"
        ? t`▲ Warnings · Dashboard · cxwatch`
        : t`Dashboard · cxwatch`;
  useEffect(() => {
    document.title = title;
    const link = document.querySelector<HTMLLinkElement>("link[rel=icon]");
    if (link) link.href = state === "failure" || state === "warning" ? tabIcon(state) : "/favicon.svg";
  }, [title, state]);
  useEffect(
    () => () => {
      document.title = "cxwatch";
      const link = document.querySelector<HTMLLinkElement>("link[rel=icon]");
      if (link) link.href = "/favicon.svg";
    },
    [],
  );
}
