// How unusual a count of the latency heat map is: a cell is coloured by its
// count against the usual, not by its bucket (every hour has slow steps, so colouring by
// bucket made every hour red). In the bucket × hour map, a cell's share of its hour's
// latencies against the bucket's share over the whole range; in the day × hour map, the slow
// latencies (buckets at or above the warning threshold) of a day's hour against the median
// hour. The spike is the most unusual day and hour.

/** 0 usual, 1 above the usual, 2 well above, 3 far above. */
export type Level = 0 | 1 | 2 | 3;

export interface HeatBucketLike {
  lowerBound: number;
}
export interface HeatHourLike {
  hour: number;
  bucketCounts?: number[];
  runCount?: number;
}
export interface HeatDayLike {
  date: string;
  latencyByHr: HeatHourLike[];
}

/** The median of some numbers (0 for none). */
export function median(values: number[]): number {
  if (!values.length) return 0;
  const v = values.slice().sort((a, b) => a - b);
  const m = Math.floor(v.length / 2);
  return v.length % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

/**
 * How far a count is above what is usual for it: the ratio of (count + 1) to (usual + 1), so
 * that small numbers (1 against 0) do not shout; 1.5×, 3× and 6× make the steps.
 */
export function level(count: number, usual: number): Level {
  if (count <= 0) return 0;
  const r = (count + 1) / (usual + 1);
  return r >= 6 ? 3 : r >= 3 ? 2 : r >= 1.5 ? 1 : 0;
}

/** Latencies of an hour at or above the warning threshold (the buckets starting there or above). */
export function slowCount(h: HeatHourLike, buckets: HeatBucketLike[], warnMs: number): number {
  let n = 0;
  buckets.forEach((b, i) => {
    if (b.lowerBound >= warnMs) n += h.bucketCounts?.[i] ?? 0;
  });
  return n;
}

/**
 * The bucket × hour map's levels: a cell's count against the usual count of its bucket for
 * that hour's traffic (the hour's latencies × the bucket's median share of an hour).
 * `levels[b][h]` for the buckets and the hours given.
 */
export function bucketLevels(hours: HeatHourLike[], nBuckets: number): Level[][] {
  const totals = hours.map((h) => (h.bucketCounts ?? []).reduce((a, n) => a + n, 0));
  return Array.from({ length: nBuckets }, (_, b) => {
    // The median hour's share, so that the spike's own hours do not raise the usual.
    const share = median(hours.flatMap((h, i) => (totals[i] ? [(h.bucketCounts?.[b] ?? 0) / totals[i]] : [])));
    return hours.map((h, i) => level(h.bucketCounts?.[b] ?? 0, totals[i] * share));
  });
}

export interface DayGrid {
  dates: string[];
  /** slow[d][hour] (24 hours). */
  slow: number[][];
  /** The median slow count of the hours with runs. */
  usual: number;
  levels: Level[][];
}

/** The day × hour map of slow latencies with their levels against the median hour. */
export function dayGrid(days: HeatDayLike[], buckets: HeatBucketLike[], warnMs: number): DayGrid {
  const slow = days.map((d) => {
    const row = Array.from({ length: 24 }, () => 0);
    for (const h of d.latencyByHr) if (h.hour >= 0 && h.hour < 24) row[h.hour] = slowCount(h, buckets, warnMs);
    return row;
  });
  const withRuns: number[] = [];
  days.forEach((d, di) => {
    for (const h of d.latencyByHr)
      if ((h.runCount ?? 0) > 0 && h.hour >= 0 && h.hour < 24) withRuns.push(slow[di][h.hour]);
  });
  const usual = median(withRuns);
  return { dates: days.map((d) => d.date), slow, usual, levels: slow.map((row) => row.map((n) => level(n, usual))) };
}

export interface Spike {
  date: string;
  hour: number;
  count: number;
  usual: number;
  level: Level;
}

/** The most unusual day and hour (the highest count among the highest level); null when none stands out. */
export function spikeOf(grid: DayGrid): Spike | null {
  let best: Spike | null = null;
  grid.slow.forEach((row, d) => {
    row.forEach((count, hour) => {
      const l = grid.levels[d][hour];
      if (l === 0) return;
      if (!best || l > best.level || (l === best.level && count > best.count)) {
        best = { date: grid.dates[d], hour, count, usual: grid.usual, level: l };
      }
    });
  });
  return best;
}
