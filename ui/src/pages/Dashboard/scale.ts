// One y-scale for every row's chart, so that a bar of 1 run is a third of a bar of 3 in any
// row ('Each row has its own y-scale'). Pure, tested beside.
import type { Counts } from "./hourly";
import type { RateIndex } from "./rows";
import { STATUS_KEYS } from "./rows";

/** The tallest stacked hour (under the filter) over all rows; 0 when there are no runs. */
export function sharedScaleMax(rows: readonly { hours: readonly Counts[] }[], filter: readonly RateIndex[]): number {
  let max = 0;
  for (const r of rows) {
    for (const h of r.hours) {
      let n = 0;
      for (const i of filter) n += h[STATUS_KEYS[i]];
      if (n > max) max = n;
    }
  }
  return max;
}
