// Small pieces the maintenance screens and the dashboard's banner share: a window's state badge
// and when it covers (once: from and to; weekly: its half hours by day).
import { useLingui } from "@lingui/react/macro";
import type { MaintenanceWindow } from "../../api/types";
import { formatSiteTime } from "../../lib/siteTime";
import { useSiteTimeZone } from "../../lib/tenant";

export function WindowState({ w }: { w: MaintenanceWindow }) {
  const { t } = useLingui();
  const text = w.state === "active" ? t`Active` : w.state === "scheduled" ? t`Scheduled` : t`Ended`;
  return (
    <span class={`window-state window-${w.state}`} data-testid="window-state" data-state={w.state}>
      {text}
    </span>
  );
}

export function WindowWhen({ w }: { w: MaintenanceWindow }) {
  const { t, i18n } = useLingui();
  const zone = useSiteTimeZone();
  const fmt = (v: string) => formatSiteTime(v, zone, i18n.locale).slice(0, 16);
  const days = [t`Mon`, t`Tue`, t`Wed`, t`Thu`, t`Fri`, t`Sat`, t`Sun`];
  if (w.kind === "once") {
    const from = fmt(w.startTime);
    const to = w.endTime ? fmt(w.endTime) : "";
    return <span class="window-when">{t`${from} to ${to}`}</span>;
  }
  const slots = w.schedule.map((s) => `${days[s.dayOfWeek - 1] ?? ""} ${s.startTimeSlot}–${s.endTimeSlot}`).join(", ");
  return <span class="window-when">{t`Weekly: ${slots}`}</span>;
}

/**
 * A window's reason as the reader reads it: the one someone typed, else, for a mute made from
 * an alert (which stores none), 'Muted from alert 12 (Billing IVR)' in the reader's
 * language.
 */
export function useWindowReason(): (w: MaintenanceWindow) => string {
  const { t } = useLingui();
  return (w) => {
    if (w.reason.trim() || w.alertId === null || w.alertId === undefined) return w.reason;
    const alert = w.alertId;
    // A mute of a whole group covers no single test case: it names the group.
    const named = w.testCases.length ? w.testCases : w.testCaseGroups;
    const name = named.map((c) => c.name).join(", ");
    return t`Muted from alert ${alert} (${name})`;
  };
}
