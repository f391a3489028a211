// A list as the spec's API answers it (an array: `data` of the response data, spec §7) or as
// cxwatch's API answers a paged call (`{content, totalElements}`), shown as one page either way.
// An array is searched, filtered, sorted and paged here in the browser; a page is used as is
// (the server already did all of that).

/** One page of a list, as the tables show it. */
export interface ListPage<T> {
  content: T[];
  totalElements: number;
}

/** A value a row is sorted or searched by. */
export type Cell = string | number | boolean | null | undefined;

export interface LocalListParams<T> {
  /** 0-based page and its size. */
  pageNo: number;
  pageSize: number;
  /** Free text: a row matches when one of `searchIn`'s values contains it (case and accents ignored). */
  search?: string;
  searchIn?: (row: T) => Cell[];
  /** Keeps the rows it answers true for. */
  filter?: (row: T) => boolean;
  /** The field and direction, and how to read a field of a row (default: the row's property). */
  sort?: { field: string; dir: "asc" | "desc" };
  sortValue?: (row: T, field: string) => Cell;
}

/** True for cxwatch's page shape (`content` an array). */
export function isListPage<T>(answer: unknown): answer is ListPage<T> {
  return (
    !!answer &&
    typeof answer === "object" &&
    !Array.isArray(answer) &&
    Array.isArray((answer as { content?: unknown }).content)
  );
}

/** Lower case without accents, for a search that ignores both. */
export function fold(text: string): string {
  return text.normalize("NFD").replace(/\p{M}/gu, "").toLowerCase();
}

const collator = new Intl.Collator(undefined, { numeric: true, sensitivity: "base" });

/** Compares two cells: empty last, numbers as numbers, text in the reader's order. */
export function compareCells(a: Cell, b: Cell): number {
  const ea = a === null || a === undefined || a === "";
  const eb = b === null || b === undefined || b === "";
  if (ea || eb) return ea === eb ? 0 : ea ? 1 : -1;
  if (typeof a === "number" && typeof b === "number") return a - b;
  if (typeof a === "boolean" && typeof b === "boolean") return Number(a) - Number(b);
  return collator.compare(String(a), String(b));
}

/** The items of an answer: an array as is, a page's content, anything else none. */
export function itemsOf<T>(answer: T[] | ListPage<T> | null | undefined): T[] {
  if (Array.isArray(answer)) return answer;
  if (isListPage<T>(answer)) return answer.content;
  return [];
}

/**
 * The page to show of an answer. A page is used as is (its total included); an array is searched,
 * filtered, sorted (stable, empty values last in both directions) and cut to `pageNo`/`pageSize`.
 * Undefined while there is no answer.
 */
export function toListPage<T>(
  answer: T[] | ListPage<T> | null | undefined,
  p: LocalListParams<T>,
): ListPage<T> | undefined {
  if (answer === undefined || answer === null) return undefined;
  if (isListPage<T>(answer)) {
    const total = Number(answer.totalElements);
    return { content: answer.content, totalElements: Number.isFinite(total) ? total : answer.content.length };
  }
  if (!Array.isArray(answer)) return { content: [], totalElements: 0 };
  let rows = answer.slice();
  if (p.filter) rows = rows.filter(p.filter);
  const needle = fold((p.search ?? "").trim());
  if (needle && p.searchIn) {
    const searchIn = p.searchIn;
    rows = rows.filter((r) =>
      searchIn(r).some((v) => v !== null && v !== undefined && fold(String(v)).includes(needle)),
    );
  }
  const sort = p.sort;
  if (sort) {
    const read = p.sortValue ?? ((r: T, f: string) => (r as Record<string, Cell>)[f]);
    const sign = sort.dir === "desc" ? -1 : 1;
    rows = rows
      .map((r, i) => ({ r, i, v: read(r, sort.field) }))
      .sort((a, b) => {
        const ea = a.v === null || a.v === undefined || a.v === "";
        const eb = b.v === null || b.v === undefined || b.v === "";
        // Empty values stay last whichever the direction.
        const c = ea || eb ? compareCells(a.v, b.v) : sign * compareCells(a.v, b.v);
        return c || a.i - b.i;
      })
      .map((x) => x.r);
  }
  const size = Math.max(1, Math.floor(p.pageSize) || 1);
  const start = Math.max(0, Math.floor(p.pageNo)) * size;
  return { content: rows.slice(start, start + size), totalElements: rows.length };
}
