// The first-run checklist of the site page: what a fresh install needs before
// the dashboard shows anything, in the order it can be done, each ticked from the server's counts
// and linking to where it is done. Pure.
import type { MessageDescriptor } from "@lingui/core";
import { msg } from "@lingui/core/macro";
import { ROUTES } from "../../lib/nav";

export interface ChecklistCounts {
  apiKeys: number;
  runs: number;
  groups: number;
  distributionLists: number;
  alertSettings: number;
}

export type ChecklistKey = "apiKey" | "run" | "group" | "distributionList" | "alertSetting";

export interface ChecklistItem {
  key: ChecklistKey;
  label: MessageDescriptor;
  /** What to do, said when it is not done yet. */
  hint: MessageDescriptor;
  done: boolean;
  /** Where it is done: a page of the console, or `#api-keys` on the site page itself. */
  href: string;
}

export const API_KEYS_ANCHOR = "#api-keys";

/** The items in the order they can be done: a group holds test cases the engines' runs made. */
export function checklistItems(c: ChecklistCounts): ChecklistItem[] {
  return [
    {
      key: "apiKey",
      label: msg`A test engine key`,
      hint: msg`Make a key below and give it to the test engine.`,
      done: c.apiKeys > 0,
      href: API_KEYS_ANCHOR,
    },
    {
      key: "run",
      label: msg`The first run received`,
      hint: msg`The engine posts its runs to /api/ingest/v1/runs with its key.`,
      done: c.runs > 0,
      href: API_KEYS_ANCHOR,
    },
    {
      key: "group",
      label: msg`A test case group`,
      hint: msg`Put the engine's test cases in a group: the dashboard shows groups.`,
      done: c.groups > 0,
      href: ROUTES.testCaseGroups,
    },
    {
      key: "distributionList",
      label: msg`A distribution list`,
      hint: msg`Say who is told when something fails.`,
      done: c.distributionLists > 0,
      href: ROUTES.distributionLists,
    },
    {
      key: "alertSetting",
      label: msg`An alert setting`,
      hint: msg`Say when a group's failures alert a distribution list.`,
      done: c.alertSettings > 0,
      href: ROUTES.alertSettings,
    },
  ];
}

/**
 * Whether an empty dashboard is empty because the site is not set up (no run received, or no
 * group to show them in), rather than because of its filters.
 */
export function needsSetUp(c: ChecklistCounts): boolean {
  return c.runs === 0 || c.groups === 0;
}

/** How many items are done. */
export function doneCount(items: ChecklistItem[]): number {
  return items.filter((i) => i.done).length;
}

/** The first item not done, where the page points first; undefined when all are. */
export function nextItem(items: ChecklistItem[]): ChecklistItem | undefined {
  return items.find((i) => !i.done);
}

/**
 * The audit log's dates (yyyy-mm-dd, the site's days) as the API's bounds: `from` at the start of
 * its day, `to` at the start of the day after (exclusive), in UTC for the site's zone offset of
 * that day (`offsetMinutes(date)`: minutes east of UTC).
 */
export function dayBounds(
  from: string,
  to: string,
  offsetMinutes: (isoDate: string) => number,
): { from?: string; to?: string } {
  const start = (iso: string) => {
    const t = Date.parse(`${iso}T00:00:00Z`);
    if (Number.isNaN(t)) return undefined;
    return new Date(t - offsetMinutes(iso) * 60000).toISOString().replace(".000Z", "Z");
  };
  const next = (iso: string) => {
    const t = Date.parse(`${iso}T00:00:00Z`);
    if (Number.isNaN(t)) return undefined;
    const after = new Date(t + 86400000).toISOString().slice(0, 10);
    return start(after);
  };
  return { from: from ? start(from) : undefined, to: to ? next(to) : undefined };
}

/** Minutes east of UTC of `timeZone` at noon UTC of `isoDate`. */
export function zoneOffsetMinutes(timeZone: string, isoDate: string): number {
  const at = new Date(`${isoDate}T12:00:00Z`);
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat("en-US", {
      timeZone,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
    })
      .formatToParts(at)
      .map((p) => [p.type, p.value]),
  );
  const local = Date.UTC(+parts.year, +parts.month - 1, +parts.day, +parts.hour, +parts.minute);
  return Math.round((local - at.getTime()) / 60000);
}
