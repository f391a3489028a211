// How runs read (spec §9): durations with 2 decimals and 'sec', latencies from ms to seconds
// with 2 decimals, MOS with 1 decimal, with the language's decimal separator; the run status
// from its alert-status id.
import { fixed } from "../../lib/numbers";

/** 'Pass', 'Warning' or 'Failure' kind of an alert-status id (3, 4, 7); STOPPED is 7. */
export type StatusKind = "pass" | "warning" | "failure";

export function statusKindOfId(id: number): StatusKind {
  return id === 3 ? "pass" : id === 4 ? "warning" : "failure";
}

/** The kind of a step result as the engine spells it: pass, warn, fail or stopped. */
export function statusKindOfResult(s: string): StatusKind {
  return s === "pass" ? "pass" : s === "warn" ? "warning" : "failure";
}

/** Seconds with 2 decimals (no unit), in the language's way. */
export function seconds2(sec: number | null | undefined, locale = "en"): string {
  return sec === null || sec === undefined || !Number.isFinite(sec) ? "" : fixed(sec, 2, locale);
}

/** Milliseconds shown as seconds with 2 decimals (no unit); '' when absent. */
export function msAsSeconds(ms: number | null | undefined, locale = "en"): string {
  return ms === null || ms === undefined || !Number.isFinite(ms) ? "" : fixed(ms / 1000, 2, locale);
}

/** MOS with 1 decimal; '' when absent. */
export function mos1(v: number | null | undefined, locale = "en"): string {
  return v === null || v === undefined || !Number.isFinite(v) ? "" : fixed(v, 1, locale);
}

/** Does this step's latency (ms) pass the threshold (seconds) of the route? */
export function slowerThan(latencyMs: number | null | undefined, thresholdSec: number | undefined): boolean {
  if (thresholdSec === undefined || latencyMs === null || latencyMs === undefined) return false;
  return latencyMs > thresholdSec * 1000;
}
