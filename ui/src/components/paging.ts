// Paging of lists (spec §2 'Settings lists', §9): 10, 20, 50 or 100 rows a page, 10 by default.

export const PAGE_SIZES = [10, 20, 50, 100] as const;
export const DEFAULT_PAGE_SIZE = 10;

/** A page size from a URL parameter; anything else is the default. */
export function pageSizeOf(value: unknown): number {
  const n = Number(value);
  return (PAGE_SIZES as readonly number[]).includes(n) ? n : DEFAULT_PAGE_SIZE;
}

/** Number of pages (at least 1). */
export function pageCount(total: number, size: number): number {
  return Math.max(1, Math.ceil(Math.max(0, total) / size));
}

/** A 1-based page number from a URL parameter, within 1..pages. */
export function pageOf(value: unknown, pages = Number.POSITIVE_INFINITY): number {
  const n = Math.floor(Number(value));
  if (!Number.isFinite(n) || n < 1) return 1;
  return Math.min(n, Math.max(1, pages));
}

/** First and last row shown ('1 - 10 of N items'); 0 - 0 for an empty list. */
export function rangeOf(page: number, size: number, total: number): { from: number; to: number } {
  if (total <= 0) return { from: 0, to: 0 };
  const from = (page - 1) * size + 1;
  return { from: Math.min(from, total), to: Math.min(page * size, total) };
}
