// What was typed in a ticket dialog whose save Jira refused: the spec's
// dialog closes on a failure (§8), so the draft is kept, per item ticketed, for the dialog to
// restore when it is opened again; a save that succeeds, or Cancel, forgets it. Kept in the
// tab's session storage (a reload keeps it, another tab does not see it). The CSV file cannot
// be kept: the browser does not let a page choose a file again.
import type { Mention } from "./mentions";

export interface TicketDraft {
  project: string;
  summary: string;
  assignee: string;
  labels: string[];
  description: string;
  mentions: Mention[];
  /** Edit mode's status. */
  status?: string;
}

/** The key of what is ticketed: one draft per report, alert, auto ticket or existing ticket. */
export function draftKey(target: {
  reportId?: number;
  alertId?: number;
  autoTicketId?: number;
  ticket?: string | null;
}): string {
  if (target.autoTicketId !== undefined) return `auto:${target.autoTicketId}`;
  if (target.ticket) return `ticket:${target.ticket}`;
  if (target.alertId !== undefined) return `alert:${target.alertId}`;
  return `report:${target.reportId ?? 0}`;
}

const PREFIX = "cxwatch.ticketDraft.";

/** A draft as read back: only what has the draft's shape. */
export function parseDraft(text: string | null): TicketDraft | null {
  if (!text) return null;
  try {
    const d = JSON.parse(text) as Partial<TicketDraft>;
    const str = (x: unknown) => typeof x === "string";
    if (!d || !str(d.project) || !str(d.summary) || !str(d.assignee) || !str(d.description)) return null;
    if (!Array.isArray(d.labels) || !d.labels.every(str) || !Array.isArray(d.mentions)) return null;
    return {
      project: d.project as string,
      summary: d.summary as string,
      assignee: d.assignee as string,
      labels: d.labels,
      description: d.description as string,
      mentions: d.mentions.filter((m) => m && typeof m === "object"),
      ...(str(d.status) ? { status: d.status } : {}),
    };
  } catch {
    return null;
  }
}

export function loadDraft(key: string, storage: Pick<Storage, "getItem"> | undefined = store()): TicketDraft | null {
  try {
    return parseDraft(storage?.getItem(PREFIX + key) ?? null);
  } catch {
    return null;
  }
}

export function saveDraft(key: string, draft: TicketDraft, storage: Pick<Storage, "setItem"> | undefined = store()) {
  try {
    storage?.setItem(PREFIX + key, JSON.stringify(draft));
  } catch {
    // No session storage (or full): the draft is lost, as before.
  }
}

export function forgetDraft(key: string, storage: Pick<Storage, "removeItem"> | undefined = store()) {
  try {
    storage?.removeItem(PREFIX + key);
  } catch {
    // Nothing kept.
  }
}

function store(): Storage | undefined {
  try {
    return globalThis.sessionStorage;
  } catch {
    return undefined;
  }
}
