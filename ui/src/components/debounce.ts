// The search boxes wait 500 ms after the last key before they search (spec §9).
import { useEffect, useState } from "react";

export const SEARCH_DEBOUNCE_MS = 500;

/** Calls `fn` with the last value once `ms` have passed without a new one. */
export function debounce<T>(fn: (value: T) => void, ms = SEARCH_DEBOUNCE_MS) {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const call = (value: T) => {
    if (timer !== undefined) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = undefined;
      fn(value);
    }, ms);
  };
  call.cancel = () => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
  };
  return call;
}

/** `value`, once it has stayed the same for `ms`. */
export function useDebounced<T>(value: T, ms = SEARCH_DEBOUNCE_MS): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}
