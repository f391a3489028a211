// A list screen's state in the address (page, size, search, sort, filters): read it, and change
// some keys while keeping the others. An empty value removes its key. The history entry is
// replaced, so Back leaves the screen rather than stepping through every page looked at.
import { useLocation, useSearch } from "wouter";

export type UrlParamChange = Record<string, string | number | undefined>;

export function useUrlParams(): [search: string, setParams: (next: UrlParamChange) => void] {
  const search = useSearch();
  const [location, navigate] = useLocation();
  const setParams = (next: UrlParamChange) => {
    const q = new URLSearchParams(search);
    for (const [k, v] of Object.entries(next)) {
      if (v === undefined || v === "") q.delete(k);
      else q.set(k, String(v));
    }
    const qs = q.toString();
    navigate(qs ? `${location}?${qs}` : location, { replace: true });
  };
  return [search, setParams];
}
