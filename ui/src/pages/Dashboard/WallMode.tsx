// Wall mode, for the night shift's wall display: large type, the dark theme, no controls, and
// how fresh the numbers are ('refreshed 12 s ago'). On with `?wall=1` in the address (a kiosk
// session opens it), so that a display can be pointed at it.
import { useLingui } from "@lingui/react/macro";
import { useEffect, useState } from "react";
import { useLocation, useSearch } from "wouter";
import { agoOf } from "./ago";

/** Whether wall mode is on, and a way to turn it on or off (it lives in the address). */
export function useWallMode(): [boolean, (on: boolean) => void] {
  const search = useSearch();
  const [location, navigate] = useLocation();
  const on = new URLSearchParams(search).get("wall") === "1";
  useEffect(() => {
    const root = document.documentElement;
    root.classList.toggle("wall", on);
    return () => root.classList.remove("wall");
  }, [on]);
  const set = (next: boolean) => navigate(next ? `${location}?wall=1` : location, { replace: true });
  return [on, set];
}

/**
 * 'refreshed 12 s ago', ticking every second. `at` is when the numbers shown were fetched (the
 * queries' dataUpdatedAt), so a refetch for any reason (the 30 s poll, a live update, a click
 * on Refresh) sets it back to 0 s.
 */
export function RefreshedAgo({ at }: { at: Date | null }) {
  const { t } = useLingui();
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  if (!at) return null;
  const { n, unit } = agoOf(at.getTime(), Math.max(now, at.getTime()));
  const text =
    unit === "s" ? t`refreshed ${n} s ago` : unit === "min" ? t`refreshed ${n} min ago` : t`refreshed ${n} h ago`;
  return (
    <span class="refreshed-ago" data-testid="refreshed-ago" data-at={at.getTime()}>
      {text}
    </span>
  );
}
