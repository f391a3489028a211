// The failing-now bar's alert state of a failing group (cxwatch's addition): from the
// server's `alert` of groups/recent, what the line says and where it leads. Pure; the bar words
// it in the console's language. A vendor's API has no `alert`: the bar names no state there.
import type { GroupAlert } from "../../api/types";
import { formatSiteTime, zonedParts } from "../../lib/siteTime";

export type AlertStateView =
  | { kind: "open"; href: string }
  | { kind: "acknowledged"; href: string; by: string; at: string }
  | { kind: "muted"; href: string; by: string; until: string; wholeGroup: boolean }
  | { kind: "notYet"; href: string; failures: number; threshold: number }
  | { kind: "noSetting"; href: string };

export const alertHref = (id: number) => `/alert/${id}`;
export const settingHref = (id: number) => `/report/setting/${id}`;
const windowHref = (id: number) => `/settings/maintenance/${id}`;

/**
 * A time for the bar in the site's zone: 'HH:mm' when it is on the site's day of `now`, else
 * the date too ('2026/11/30 08:00').
 */
export function shortSiteTime(value: string, now: Date, zone: string, locale: string): string {
  const full = formatSiteTime(value, zone, locale);
  if (!full) return "";
  const d = zonedParts(new Date(value), zone);
  const n = zonedParts(now, zone);
  const sameDay = d.year === n.year && d.month === n.month && d.day === n.day;
  return sameDay ? full.slice(11, 16) : full.slice(0, 16);
}

/** What the bar shows of `alert`, or null when there is nothing to show. */
export function alertStateView(
  alert: GroupAlert | undefined | null,
  now: Date,
  zone: string,
  locale: string,
): AlertStateView | null {
  if (!alert) return null;
  switch (alert.state) {
    case "open":
      return alert.alertId == null ? null : { kind: "open", href: alertHref(alert.alertId) };
    case "acknowledged":
      return alert.alertId == null
        ? null
        : {
            kind: "acknowledged",
            href: alertHref(alert.alertId),
            by: alert.by ?? "",
            at: alert.time ? shortSiteTime(alert.time, now, zone, locale) : "",
          };
    case "muted": {
      const href =
        alert.alertId != null ? alertHref(alert.alertId) : alert.windowId != null ? windowHref(alert.windowId) : null;
      return href === null
        ? null
        : {
            kind: "muted",
            href,
            by: alert.by ?? "",
            until: alert.until ? shortSiteTime(alert.until, now, zone, locale) : "",
            wholeGroup: alert.wholeGroup === true,
          };
    }
    case "notYet":
      return alert.alertSettingId == null
        ? null
        : {
            kind: "notYet",
            href: settingHref(alert.alertSettingId),
            failures: alert.failures ?? 0,
            threshold: alert.threshold ?? 0,
          };
    case "noSetting":
      return { kind: "noSetting", href: "/settings/alert-settings/1" };
    default:
      return null;
  }
}

/** The failing groups' alerts by group id, from groups/recent's answer. */
export function alertsByGroup(groups: { groupId: number; alert?: GroupAlert | null }[] | undefined) {
  const out = new Map<number, GroupAlert>();
  for (const g of groups ?? []) if (g.alert) out.set(g.groupId, g.alert);
  return out;
}
