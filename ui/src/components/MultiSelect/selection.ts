// Pure helpers of the multi-select: toggling keeps the options' order, Select All toggles all.

export type SelectAllState = "all" | "some" | "none";

export function toggleValue<V>(options: readonly V[], selected: readonly V[], value: V): V[] {
  const set = new Set(selected);
  if (set.has(value)) set.delete(value);
  else set.add(value);
  return options.filter((o) => set.has(o));
}

export function selectAllState<V>(options: readonly V[], selected: readonly V[]): SelectAllState {
  const set = new Set(selected);
  const n = options.filter((o) => set.has(o)).length;
  if (n === 0) return "none";
  return n === options.length ? "all" : "some";
}

/** Select All: everything, or nothing when everything is already selected. */
export function toggleAll<V>(options: readonly V[], selected: readonly V[]): V[] {
  return selectAllState(options, selected) === "all" ? [] : [...options];
}
