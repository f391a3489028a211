// 'refreshed 12 s ago': how long ago the numbers on screen were fetched. Pure, tested beside.

export interface Ago {
  n: number;
  unit: "s" | "min" | "h";
}

/** Whole seconds under a minute, whole minutes under an hour, then whole hours (never negative). */
export function agoOf(atMs: number, nowMs: number): Ago {
  const s = Math.max(0, Math.floor((nowMs - atMs) / 1000));
  if (s < 60) return { n: s, unit: "s" };
  const m = Math.floor(s / 60);
  if (m < 60) return { n: m, unit: "min" };
  return { n: Math.floor(m / 60), unit: "h" };
}
