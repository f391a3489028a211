// A number that lights up for a moment when it changes (not when it first appears), so that
// a change on a wall display catches the eye.
import type { ComponentChildren } from "preact";
import { useEffect, useRef, useState } from "react";

/** How long a changed number stays highlighted. */
export const FLASH_MS = 4000;

export function Flash({ value, children }: { value: number | string | null | undefined; children: ComponentChildren }) {
  const last = useRef(value);
  const [on, setOn] = useState(false);
  useEffect(() => {
    const before = last.current;
    last.current = value;
    if (before == null || value == null || before === value) return;
    setOn(true);
    const timer = setTimeout(() => setOn(false), FLASH_MS);
    return () => clearTimeout(timer);
  }, [value]);
  return (
    <span class={on ? "flash is-changed" : "flash"} data-changed={on ? "true" : undefined}>
      {children}
    </span>
  );
}
