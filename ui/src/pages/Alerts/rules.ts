// The alert screens' rules, pure: the status chips and their URL value, an event's status kind,
// and the search and status filter of an event's runs. Tested beside.
import type { AlertStatusId } from "../../api/queries/alerts";
import type { AlertStateFilter, SpecRun as RunItem } from "../../api/types";
import { type StatusKind, statusKindOfId } from "../Drill/format";

/** The chips in the spec's order: Failure (7), Pass (3), Warning (4). */
export const STATUS_CHIPS: AlertStatusId[] = [7, 3, 4];

/** The status of the URL's `status` parameter, when it is one of the chips. */
export function statusOfParam(value: string | null): AlertStatusId | undefined {
  const n = Number(value);
  return (STATUS_CHIPS as number[]).includes(n) ? (n as AlertStatusId) : undefined;
}

/** Clicking a chip selects it; clicking the selected one shows every status again. */
export function toggleStatus(current: AlertStatusId | undefined, chip: AlertStatusId): AlertStatusId | undefined {
  return current === chip ? undefined : chip;
}

/** An event's status kind, from its first run's status id (section 3's), else its own statusId. */
export function eventKind(e: { testRuns?: { runStatusId?: number }[]; statusId?: number }): StatusKind {
  return statusKindOfId(e.testRuns?.[0]?.runStatusId ?? e.statusId ?? 7);
}

/** Whether an event is open: true, false, or undefined when the API does not say (section 3 has no `open`). */
export function openState(e: { open?: boolean | null }): boolean | undefined {
  return typeof e.open === "boolean" ? e.open : undefined;
}

/** Runs whose id or test case name contains the search (any case) and of the status kind. */
export function filterRuns(runs: RunItem[], search: string, kind: StatusKind | ""): RunItem[] {
  const s = search.trim().toLowerCase();
  return runs.filter(
    (r) =>
      (!s ||
        String(r.runId).includes(s) ||
        String(r.testCaseName ?? "")
          .toLowerCase()
          .includes(s)) &&
      (!kind || statusKindOfId(r.runStatusId) === kind),
  );
}

/** One page (1-based) of a list held whole. */
export function pageSlice<T>(items: T[], page: number, size: number): T[] {
  return items.slice((page - 1) * size, page * size);
}

/** An event as the acknowledgement rules read it: cxwatch's fields, absent from a vendor's API. */
export interface Acknowledgeable {
  open?: boolean | null;
  acknowledgedBy?: string | null;
}

/** Whether the API keeps acknowledgements (cxwatch's addition): the event says who, or null. */
export function tracksAcknowledgement(e: Acknowledgeable): boolean {
  return e.acknowledgedBy !== undefined;
}

/** Whether the event can be acknowledged now: the API keeps them, it is open, nobody has it. */
export function canAcknowledge(e: Acknowledgeable): boolean {
  return tracksAcknowledgement(e) && e.open === true && e.acknowledgedBy === null;
}

/** What caused a notification, from its cause (`alert:{id}`, `recovery:{id}`, `escalation:{id}`). */
export function notificationCause(cause: string): "alert" | "recovery" | "escalation" {
  return cause.startsWith("recovery:") ? "recovery" : cause.startsWith("escalation:") ? "escalation" : "alert";
}

/** Whether the address asks to acknowledge (the alert mail's link: `?acknowledge=1`). */
export function asksAcknowledge(search: string): boolean {
  return new URLSearchParams(search).get("acknowledge") === "1";
}

/**
 * What the opening's notifications came to, from the timeline's `notified` entries of cause
 * alert: `sent` when every one was sent, `partly` when some failed and the others were sent,
 * `failed` when every one failed, `pending` while some wait to be sent and none failed or all
 * that are done were sent, `none` when the event notified nobody. The timeline says 'notified'
 * only for `sent`.
 */
export type OpeningOutcome = "sent" | "partly" | "failed" | "pending" | "none";

export function openingOutcome(entries: { kind: string; notification?: { cause: string; state: string } | null }[]): {
  outcome: OpeningOutcome;
  failed: number;
  total: number;
} {
  const sends = entries
    .filter((e) => e.kind === "notified" && e.notification && notificationCause(e.notification.cause) === "alert")
    .map((e) => e.notification?.state);
  const total = sends.length;
  const failed = sends.filter((s) => s === "failed").length;
  const sent = sends.filter((s) => s === "sent").length;
  const outcome: OpeningOutcome =
    total === 0
      ? "none"
      : failed === total
        ? "failed"
        : sent === total
          ? "sent"
          : failed > 0 && sent + failed === total
            ? "partly"
            : "pending";
  return { outcome, failed, total };
}

/** cxwatch's state filters of the list, in the toolbar's order. */
export const STATE_FILTERS: AlertStateFilter[] = ["open", "unacknowledged", "mine"];

/** The state of the URL's `state` parameter, when it is one of the filters. */
export function stateOfParam(value: string | null): AlertStateFilter | undefined {
  return (STATE_FILTERS as string[]).includes(value ?? "") ? (value as AlertStateFilter) : undefined;
}

/** When extending a mute that ends at `until` (RFC 3339) at `now` ends: an hour after the later. */
export function extendedUntil(until: string, now: Date, hours = 1): Date {
  const end = Date.parse(until);
  return new Date(Math.max(Number.isNaN(end) ? 0 : end, now.getTime()) + hours * 3_600_000);
}

/**
 * Whom a notification went to, as the caller may see it: the address for administrators;
 * for others (the server masks it) the distribution list's name, with a webhook's host.
 */
export function recipientShown(
  n: { recipient: string; recipientHidden?: boolean | null },
  listName: string | undefined,
): string {
  if (!n.recipientHidden) return n.recipient;
  return [listName, n.recipient].filter(Boolean).join(" ");
}
