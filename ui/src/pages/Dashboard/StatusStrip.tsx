// The status strip above the fold: one badge per chosen group for the last 15 minutes, worst
// first, each with a colour, an icon and words (never colour alone). A click opens the
// group's hourly chart.
import { plural } from "@lingui/core/macro";
import { useLingui } from "@lingui/react/macro";
import { useQuery } from "@tanstack/react-query";
import { memo, useMemo, useState } from "react";
import { recentQuery } from "../../api/queries/groups";
import { zonedParts } from "../../lib/siteTime";
import { Flash } from "./Flash";
import { pad2 } from "./hourly";
import type { RunType } from "./prefs";
import { type Badge, maintenanceOf, STRIP_MINUTES, STRIP_SHOWN, stripBadges } from "./strip";
import { LIVE } from "./useDashboard";

const ICON = { failure: "✖", warning: "▲", pass: "✔", maintenance: "⚙", none: "–" } as const;

function hhmm(iso: string | undefined, timeZone: string): string {
  if (!iso) return "";
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return "";
  const p = zonedParts(d, timeZone);
  return `${pad2(Number(p.hour))}:${p.minute}`;
}

export const StatusStrip = memo(function StatusStrip({
  chosen,
  runType,
  runTypeName,
  timeZone,
  isPhone,
  onOpen,
}: {
  chosen: number[];
  runType: RunType;
  runTypeName: string;
  timeZone: string;
  isPhone: boolean;
  onOpen: (id: number) => void;
}) {
  const { t } = useLingui();
  const q = useQuery({ ...recentQuery(STRIP_MINUTES, runType, { background: true, quiet: true }), ...LIVE });
  const badges = useMemo(() => stripBadges(q.data?.groups ?? [], chosen), [q.data, chosen]);
  const [all, setAll] = useState(false);
  // Worst first, so that what is cut off is the calmest; a phone scrolls the row sideways.
  const cut = !isPhone && !all && badges.length > STRIP_SHOWN;
  const shown = cut ? badges.slice(0, STRIP_SHOWN) : badges;
  const hiddenCount = badges.length - shown.length;
  if (chosen.length === 0) return null;
  const from = hhmm(q.data?.from, timeZone);
  const to = hhmm(q.data?.to, timeZone);
  const minutes = STRIP_MINUTES;
  const groupCount = badges.length;
  const text = (b: Badge) => {
    const runs = b.successCount + b.warningCount + b.failureCount;
    const failed = b.failureCount;
    const warned = b.warningCount;
    const inWindow = maintenanceOf(b);
    // Runs in a maintenance window are neither red nor counted: they are said apart.
    const apart = inWindow > 0 && b.state !== "maintenance" ? ` · ${t`${inWindow} in maintenance`}` : "";
    switch (b.state) {
      case "failure":
        return t`Failing: ${failed} of ${runs}` + apart;
      case "warning":
        return t`Warnings: ${warned} of ${runs}` + apart;
      case "pass":
        return t`Passing: ${runs} of ${runs}` + apart;
      case "maintenance":
        return plural(inWindow, { one: "Maintenance: # run", other: "Maintenance: # runs" });
      default:
        return t`No runs`;
    }
  };
  return (
    <section class="status-strip" aria-labelledby="strip-title" data-testid="status-strip" aria-busy={!q.data}>
      <h2 class="strip-title" id="strip-title">
        {t`Last ${minutes} min`}
        <span class="strip-when muted">
          {from && to ? ` · ${from}–${to}` : ""} · {runTypeName}
        </span>
      </h2>
      {isPhone && badges.length > 1 ? (
        // The phone's row scrolls sideways: say so, and how many there are.
        <p class="strip-hint muted" data-testid="strip-hint">
          {t`${groupCount} groups: swipe sideways to see them all`}
        </p>
      ) : null}
      {q.isError ? (
        <p class="muted strip-problem">{t`The last minutes could not be loaded.`}</p>
      ) : !q.data ? (
        <p class="muted strip-problem">…</p>
      ) : (
        <ul class="strip-badges">
          {shown.map((b) => (
            <li key={b.groupId}>
              <button
                type="button"
                class={`strip-badge is-${b.state}`}
                data-testid="strip-badge"
                data-group-id={b.groupId}
                data-state={b.state}
                onClick={() => onOpen(b.groupId)}
              >
                <span class="strip-icon" aria-hidden="true">
                  {ICON[b.state]}
                </span>
                <span class="strip-name">{b.name}</span>
                <span class="strip-text">
                  <Flash value={`${b.failureCount}/${b.warningCount}/${b.successCount}/${maintenanceOf(b)}`}>
                    {text(b)}
                  </Flash>
                </span>
              </button>
            </li>
          ))}
          {cut || (all && badges.length > STRIP_SHOWN) ? (
            <li>
              <button
                type="button"
                class="button secondary small strip-more"
                aria-expanded={all}
                onClick={() => setAll(!all)}
                data-testid="strip-more"
              >
                {all ? t`Show fewer` : t`Show ${hiddenCount} more`}
              </button>
            </li>
          ) : null}
        </ul>
      )}
    </section>
  );
});
