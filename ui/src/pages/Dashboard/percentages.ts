// Overall Health: totals and whole-number percentages (spec §9: dashboard percentages rounded
// to whole numbers).
//
// Rounding rule (largest remainder, also called Hamilton's method): each share is first rounded
// down; the points still missing to reach 100 go one each to the shares with the largest
// fractional remainders (ties: the larger count first, then pass, warning, failure order).
// So the three shown percentages always add up to 100 when there is at least one run, a share
// that is not zero never shows more than one point away from its exact value, and with no runs
// every share is 0.

import type { Counts } from "./hourly";
import { total } from "./rows";

export function roundPercentages(values: number[]): number[] {
  const sum = values.reduce((a, b) => a + b, 0);
  if (sum <= 0) return values.map(() => 0);
  const exact = values.map((v) => (v * 100) / sum);
  const floors = exact.map((e) => Math.floor(e));
  let missing = 100 - floors.reduce((a, b) => a + b, 0);
  const order = values
    .map((v, i) => ({ i, rem: exact[i] - floors[i], v }))
    .sort((a, b) => b.rem - a.rem || b.v - a.v || a.i - b.i);
  for (const o of order) {
    if (missing <= 0) break;
    if (o.rem === 0) continue;
    floors[o.i] += 1;
    missing -= 1;
  }
  return floors;
}

export interface Share {
  count: number;
  percent: number;
}

export interface OverallHealth {
  total: number;
  pass: Share;
  warning: Share;
  failure: Share;
}

/** Overall health over the rows shown (each already under the rate filter). */
export function overallHealth(rows: { counts: Counts }[]): OverallHealth {
  const sum: Counts = { success: 0, warning: 0, failure: 0 };
  for (const r of rows) {
    sum.success += r.counts.success;
    sum.warning += r.counts.warning;
    sum.failure += r.counts.failure;
  }
  const [p, w, f] = roundPercentages([sum.success, sum.warning, sum.failure]);
  return {
    total: total(sum),
    pass: { count: sum.success, percent: p },
    warning: { count: sum.warning, percent: w },
    failure: { count: sum.failure, percent: f },
  };
}

/** A whole percentage as written in the language: '94%' in English, '94 %' (narrow no-break space) in French. */
export function percentText(percent: number, locale: string): string {
  return locale.startsWith("fr") ? `${percent}\u202f%` : `${percent}%`;
}
