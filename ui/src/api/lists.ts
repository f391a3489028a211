// One list query for both flavours of API (lib/tenant's apiFlavor). Under "cxwatch" the server
// pages, searches and sorts (today's paged call, one query a page); under "spec" the list is
// asked for once with only the parameters section 7 lists, as the spec's array, and paged in the
// browser (lib/listPage). Either answer shape is accepted under either flavour.
import { keepPreviousData, type QueryKey, useQuery } from "@tanstack/react-query";
import { type ListPage, type LocalListParams, toListPage } from "../lib/listPage";
import { useApiFlavor } from "../lib/tenant";
import type { Query, RequestOptions } from "./client";
import { client } from "./index";
import type { GetQuery, PathsWith } from "./typed";

export type { ListPage } from "../lib/listPage";

export interface ListQuery<T, P extends PathsWith<"get">> {
  /** The list's key prefix (what a save or delete invalidates). */
  key: QueryKey;
  /** cxwatch's paged call. */
  path: P;
  /** The section 7 call's path when it is not `path` (e.g. the groups list). */
  specPath?: PathsWith<"get">;
  /** cxwatch's paged call's parameters: paging, search, sort and filters. */
  paged: GetQuery<P>;
  /** The section 7 call's own parameters (none for most lists). */
  spec?: Query;
  /** How the browser searches, filters, sorts and pages the spec's array. */
  local: LocalListParams<T>;
  options?: Omit<RequestOptions, "query" | "signal">;
  refetchInterval?: number;
  enabled?: boolean;
}

/** The query key of a list: the page asked for (cxwatch), or the whole list (spec). */
export function listKey(key: QueryKey, cxwatch: boolean, paged: object, spec: Query = {}): QueryKey {
  return cxwatch ? [...key, "page", paged] : [...key, "all", spec];
}

/** One page of a list, whatever the API's flavour; the page shown stays while the next loads. */
export function usePagedList<T, P extends PathsWith<"get">>(l: ListQuery<T, P>) {
  const cxwatch = useApiFlavor() === "cxwatch";
  const query = (cxwatch ? l.paged : (l.spec ?? {})) as Query;
  const path: PathsWith<"get"> = cxwatch ? l.path : (l.specPath ?? l.path);
  return useQuery({
    queryKey: listKey(l.key, cxwatch, l.paged, l.spec),
    // The path is a type parameter here; each list's call is checked where it is declared.
    queryFn: ({ signal }) => client.get(path, { ...l.options, signal, query } as never) as Promise<T[] | ListPage<T>>,
    placeholderData: keepPreviousData,
    select: (answer): ListPage<T> => toListPage(answer, l.local) ?? { content: [], totalElements: 0 },
    refetchInterval: l.refetchInterval,
    enabled: l.enabled,
  });
}
