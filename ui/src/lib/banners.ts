// Global success and error banners; each disappears on its own after 6 s (spec §4, §9).
import { createStore } from "./store";

export const BANNER_HIDE_MS = 6000;

export type BannerKind = "success" | "error";

export interface Banner {
  id: number;
  kind: BannerKind;
  messages: string[];
}

export const banners = createStore<Banner[]>([]);

let nextId = 1;
const timers = new Map<number, ReturnType<typeof setTimeout>>();

function show(kind: BannerKind, messages: string[] | string): number {
  const list = (Array.isArray(messages) ? messages : [messages]).filter((m) => m?.trim());
  const id = nextId++;
  const banner: Banner = { id, kind, messages: list };
  // The same text shown twice in a row is shown once, with its timer restarted.
  const same = banners.get().find((b) => b.kind === kind && b.messages.join("\n") === list.join("\n"));
  if (same) dismiss(same.id);
  banners.set((prev) => [...prev, banner]);
  timers.set(
    id,
    setTimeout(() => dismiss(id), BANNER_HIDE_MS),
  );
  return id;
}

export const showSuccess = (messages: string[] | string) => show("success", messages);
export const showError = (messages: string[] | string) => show("error", messages);

export function dismiss(id: number): void {
  const t = timers.get(id);
  if (t !== undefined) clearTimeout(t);
  timers.delete(id);
  banners.set((prev) => (prev.some((b) => b.id === id) ? prev.filter((b) => b.id !== id) : prev));
}

export function dismissAll(): void {
  for (const b of banners.get()) dismiss(b.id);
}
