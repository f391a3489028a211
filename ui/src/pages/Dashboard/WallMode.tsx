// Wall mode, for the night shift's wall display: the dark theme, no controls, every group as a
// tile in large type (WallBoard.tsx), and how fresh the numbers are ('refreshed 12 s ago'). On
// with `?wall=1` in the address (a kiosk session opens it), so that a display can be pointed at
// it; `&sound=1` when it was started with sound.
import { useLingui } from "@lingui/react/macro";
import { useEffect, useState } from "react";
import { useLocation, useSearch } from "wouter";
import { agoOf } from "./ago";

/**
 * Whether wall mode is on and has sound, and a way to change either (both live in the
 * address, so that a display can be pointed at it; the sound still needs a click on the page).
 */
export function useWallMode(): [boolean, (on: boolean, sound?: boolean) => void, boolean] {
  const search = useSearch();
  const [location, navigate] = useLocation();
  const q = new URLSearchParams(search);
  const on = q.get("wall") === "1";
  const sound = on && q.get("sound") === "1";
  useEffect(() => {
    const root = document.documentElement;
    root.classList.toggle("wall", on);
    return () => root.classList.remove("wall");
  }, [on]);
  const set = (next: boolean, withSound = false) =>
    navigate(next ? `${location}?wall=1${withSound ? "&sound=1" : ""}` : location, { replace: true });
  return [on, set, sound];
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
