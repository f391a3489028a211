// The dashboard's first calls, made as soon as they can go: the sign-in page starts them the
// moment the token is in (before the dashboard is even drawn), and the dashboard again as it
// mounts (a reload), where each joins the call already under way.
//
// With cxwatch's API the table needs no group ids: the list, the health, every group's day
// (`groups/hourly`) and the strip's last minutes go out together. On a spec-only API the day of
// each group is its own `groups/{id}/metric` call: the groups chosen on this browser before are
// asked for at once, beside the list (the list then only drops the ones gone meanwhile).
import { groupMetricQuery, groupsHourlyQuery, groupsQuery, healthQuery, recentQuery } from "../../api/queries/groups";
import type { RunType } from "../../api/types";
import { queryClient } from "../../lib/queryClient";
import { siteToday } from "../../lib/siteTime";
import { hasCxwatchApi, siteTimeZone } from "../../lib/tenant";
import { storedGroups } from "./prefs";
import { STRIP_MINUTES } from "./strip";

/** How the dashboard's day queries are made (shared with useDashboard, so the keys and options agree). */
export const METRIC_CALL = { background: true, quiet: true } as const;

/**
 * Starts the calls the dashboard makes first, for `date` and `runType` (the dashboard's
 * defaults: today at the site, Manual). `ids`: the groups whose metric is asked for on a
 * spec-only API (default: those chosen on this browser before, if any).
 */
export function prefetchDashboard(
  date = siteToday(new Date(), siteTimeZone()),
  runType: RunType = "Manual",
  ids: readonly number[] = storedGroups() ?? [],
): void {
  // The first group list and health show the 'Please wait' overlay (not in the background).
  void queryClient.prefetchQuery({ ...groupsQuery({ quiet: true }), staleTime: 0 });
  void queryClient.prefetchQuery({ ...healthQuery({ quiet: true }), staleTime: 0 });
  if (hasCxwatchApi()) {
    void queryClient.prefetchQuery(groupsHourlyQuery(date, runType, METRIC_CALL));
    void queryClient.prefetchQuery(recentQuery(STRIP_MINUTES, runType, METRIC_CALL));
  } else {
    for (const id of ids) void queryClient.prefetchQuery(groupMetricQuery(id, date, runType, METRIC_CALL));
  }
}
