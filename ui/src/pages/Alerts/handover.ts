// The handover's rules, pure: the start choices (since my previous sign-in, the last 8, 12 or
// 24 hours) and their address value, and the night's counts by kind. Tested beside.
import type { HandoverEntry } from "../../api/types";

export type SinceChoice = "signin" | "8h" | "12h" | "24h";
export const SINCE_CHOICES: SinceChoice[] = ["signin", "8h", "12h", "24h"];

/** The choice of the address's `since` parameter; the previous sign-in by default. */
export function sinceOfParam(value: string | null): SinceChoice {
  return (SINCE_CHOICES as string[]).includes(value ?? "") ? (value as SinceChoice) : "signin";
}

/**
 * The start asked of the server for `choice` at `now` (RFC 3339, to the minute so the query
 * stays the same while the page is open), or undefined for the previous sign-in (the server
 * knows it).
 */
export function sinceTime(choice: SinceChoice, now: Date): string | undefined {
  const hours = choice === "8h" ? 8 : choice === "12h" ? 12 : choice === "24h" ? 24 : 0;
  if (!hours) return undefined;
  const t = Math.floor(now.getTime() / 60_000) * 60_000 - hours * 3_600_000;
  return new Date(t).toISOString();
}

export interface HandoverCounts {
  opened: number;
  acknowledged: number;
  muted: number;
  closed: number;
}

/** How many of each kind happened. */
export function countsOf(entries: Pick<HandoverEntry, "kind">[]): HandoverCounts {
  const c: HandoverCounts = { opened: 0, acknowledged: 0, muted: 0, closed: 0 };
  for (const e of entries) c[e.kind] += 1;
  return c;
}
