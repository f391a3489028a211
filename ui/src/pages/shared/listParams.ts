// What every paged list screen reads from its address (useUrlParams): `page` (1-based), `size`,
// and for the searched and sorted lists `search` and `sort` ('field,dir'). A value the screen does
// not know falls back to its default, so a hand-edited address still shows a list. Pure.
import { pageOf, pageSizeOf } from "../../components/paging";

export type SortDir = "asc" | "desc";

/** The page shown: 1-based for the address and the pager, 0-based for the server. */
export interface PagingParams {
  page: number;
  pageNo: number;
  pageSize: number;
}

/** A searched and sorted list's state. */
export interface SearchedListParams<Field extends string> extends PagingParams {
  search: string;
  sort: { field: Field; dir: SortDir };
}

/** The page and page size of a query string. */
export function pagingOf(q: URLSearchParams): PagingParams {
  const page = pageOf(q.get("page"));
  return { page, pageNo: page - 1, pageSize: pageSizeOf(q.get("size")) };
}

/**
 * Paging, search and sort of a query string. The sort's field must be one of `fields` and its
 * direction 'asc' or 'desc'; either part that is not falls back to `fallback`'s, on its own.
 */
export function searchedListOf<Field extends string>(
  q: URLSearchParams,
  fields: readonly Field[],
  fallback: { field: Field; dir: SortDir },
): SearchedListParams<Field> {
  const [field, dir] = (q.get("sort") ?? "").split(",");
  return {
    ...pagingOf(q),
    search: q.get("search") ?? "",
    sort: {
      field: fields.includes(field as Field) ? (field as Field) : fallback.field,
      dir: dir === "asc" || dir === "desc" ? dir : fallback.dir,
    },
  };
}

/** A comma-separated list parameter ('a,b'); none when missing or empty. */
export function listOf(value: string | null): string[] {
  return value ? value.split(",").filter(Boolean) : [];
}
