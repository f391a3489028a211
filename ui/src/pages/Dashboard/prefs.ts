// The dashboard's remembered choices (local storage): channel, chosen groups, rate filter.
// Run type and date live only as long as the page (they survive refreshes, not reloads).

import { ALL_RATES, normaliseFilter, type RateIndex } from "./rows";

export type Channel = "voice" | "web";
export type RunType = "Manual" | "Schedule";

export const STORAGE_KEYS = {
  channel: "cxwatch.dashboard.channel",
  groups: "cxwatch.dashboard.groups",
  filter: "cxwatch.dashboard.filter",
} as const;

export interface KeyValueStore {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
}

function safeStore(): KeyValueStore | null {
  try {
    return typeof localStorage === "undefined" ? null : localStorage;
  } catch {
    return null;
  }
}

function read(store: KeyValueStore | null, key: string): unknown {
  if (!store) return undefined;
  try {
    const raw = store.getItem(key);
    return raw === null ? undefined : JSON.parse(raw);
  } catch {
    return undefined;
  }
}

function write(store: KeyValueStore | null, key: string, value: unknown): void {
  try {
    store?.setItem(key, JSON.stringify(value));
  } catch {
    // Storage full or blocked: the choice just isn't remembered.
  }
}

/** Spec §4: the stored selection, else Digital on a phone and Voice on a desktop. */
export function initialChannel(isPhone: boolean, store = safeStore()): Channel {
  const v = read(store, STORAGE_KEYS.channel);
  if (v === "voice" || v === "web") return v;
  return isPhone ? "web" : "voice";
}

export function saveChannel(c: Channel, store = safeStore()): void {
  write(store, STORAGE_KEYS.channel, c);
}

/** Stored chosen group ids, or null when nothing (valid) was stored. */
export function storedGroups(store = safeStore()): number[] | null {
  const v = read(store, STORAGE_KEYS.groups);
  if (!Array.isArray(v)) return null;
  return v.filter((x): x is number => Number.isInteger(x));
}

export function saveGroups(ids: number[], store = safeStore()): void {
  write(store, STORAGE_KEYS.groups, ids);
}

export function initialFilter(store = safeStore()): RateIndex[] {
  return normaliseFilter(read(store, STORAGE_KEYS.filter)) ?? [...ALL_RATES];
}

export function saveFilter(f: RateIndex[], store = safeStore()): void {
  write(store, STORAGE_KEYS.filter, f);
}

/**
 * The chosen groups once the group list is known: the remembered ids that still exist (in list
 * order); every group when nothing was ever chosen on this browser.
 */
export function reconcileGroups(available: { id: number }[], remembered: number[] | null): number[] {
  if (remembered === null) return available.map((g) => g.id);
  const keep = new Set(remembered);
  return available.filter((g) => keep.has(g.id)).map((g) => g.id);
}
