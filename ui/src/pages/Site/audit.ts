// The audit log's 'Change' column, pure: the values that differ between before and after, a
// time among them (a column named `…_ms`, `…_at`, `…_time`, or an RFC 3339 text) shown in the
// site's time as every other time of the console is, not as raw milliseconds.

export interface AuditChange {
  before?: unknown;
  after?: unknown;
}

/** A column that holds an instant: epoch seconds (`…_at`) or milliseconds (`…_ms`, `…_time`). */
const TIME_KEY = /(_ms|_at|_time|Ms|At|Time)$/;
/** Durations and leases are lengths, not instants. */
const NOT_AN_INSTANT = /duration|lease|timeout|delay|retention/i;
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;

/** Whether `value` under `key` is an instant to show in site time. */
export function isInstant(key: string, value: unknown): boolean {
  if (NOT_AN_INSTANT.test(key)) return false;
  if (typeof value === "number") return TIME_KEY.test(key) && Number.isInteger(value) && value >= 1e9;
  return typeof value === "string" && RFC3339.test(value);
}

/**
 * What changed, in a few words: up to four values that differ between before and after, each
 * as `key: value` ('—' when it went away); instants through `time` (`formatSiteTime` at the
 * site's zone).
 */
export function changeOf(e: AuditChange, time: (v: string | number) => string): string {
  const before = (e.before ?? {}) as Record<string, unknown>;
  const after = (e.after ?? {}) as Record<string, unknown>;
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].filter(
    (k) => JSON.stringify(before[k]) !== JSON.stringify(after[k]),
  );
  const shown = (k: string, v: unknown) => (isInstant(k, v) ? time(v as string | number) : JSON.stringify(v));
  return keys
    .slice(0, 4)
    .map((k) => `${k}: ${k in after ? shown(k, after[k]) : "—"}`)
    .join(", ");
}
