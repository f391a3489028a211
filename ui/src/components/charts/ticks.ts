// Y-axis ticks for counts: whole numbers only (a run count of 0.25 means nothing), about four
// steps of 1, 2 or 5 times a power of ten, from 0 to the first tick at or above the maximum.

export function countTicks(max: number): number[] {
  const top = Number.isFinite(max) && max > 0 ? max : 0;
  if (top === 0) return [0, 1];
  const raw = top / 4;
  const mag = 10 ** Math.floor(Math.log10(raw));
  let step = [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= raw) ?? 10 * mag;
  step = Math.max(1, Math.round(step));
  const end = Math.ceil(top / step) * step;
  const ticks: number[] = [];
  for (let v = 0; v <= end; v += step) ticks.push(v);
  return ticks;
}
