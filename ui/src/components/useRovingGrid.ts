// One tab stop for a grid of links (the heat map put hundreds of links in the tab
// order): the links carry data-r / data-c (row and column); one of them is tabbable (the one
// marked data-start, else the first), the arrow keys, Home and End move between them.
import { type RefObject, useEffect } from "react";

const SELECTOR = "a[data-r][data-c]";

function pos(el: Element): [number, number] {
  return [Number(el.getAttribute("data-r")), Number(el.getAttribute("data-c"))];
}

/** The link an arrow key leads to from `from`, or undefined at the edge. */
export function nextCell(items: Element[], from: Element, key: string): Element | undefined {
  const [r, c] = pos(from);
  const at = items.map((el) => ({ el, p: pos(el) }));
  const nearest = (list: typeof at, score: (p: [number, number]) => number) =>
    list.sort((a, b) => score(a.p) - score(b.p))[0]?.el;
  switch (key) {
    case "ArrowRight":
      return nearest(
        at.filter((x) => x.p[0] === r && x.p[1] > c),
        (p) => p[1],
      );
    case "ArrowLeft":
      return nearest(
        at.filter((x) => x.p[0] === r && x.p[1] < c),
        (p) => -p[1],
      );
    case "ArrowDown":
      return nearest(
        at.filter((x) => x.p[0] > r),
        (p) => (p[0] - r) * 1000 + Math.abs(p[1] - c),
      );
    case "ArrowUp":
      return nearest(
        at.filter((x) => x.p[0] < r),
        (p) => (r - p[0]) * 1000 + Math.abs(p[1] - c),
      );
    case "Home":
      return nearest(
        at.filter((x) => x.p[0] === r),
        (p) => p[1],
      );
    case "End":
      return nearest(
        at.filter((x) => x.p[0] === r),
        (p) => -p[1],
      );
    default:
      return undefined;
  }
}

export function useRovingGrid(ref: RefObject<HTMLElement | null>, deps: unknown[]) {
  useEffect(() => {
    const root = ref.current;
    if (!root) return;
    const items = Array.from(root.querySelectorAll(SELECTOR));
    if (!items.length) return;
    const start = items.find((el) => el.hasAttribute("data-start")) ?? items[0];
    for (const el of items) el.setAttribute("tabindex", el === start ? "0" : "-1");
    const onKey = (e: KeyboardEvent) => {
      const from = (e.target as Element | null)?.closest?.(SELECTOR);
      if (!from || !root.contains(from)) return;
      const to = nextCell(Array.from(root.querySelectorAll(SELECTOR)), from, e.key);
      if (!to) return;
      e.preventDefault();
      from.setAttribute("tabindex", "-1");
      to.setAttribute("tabindex", "0");
      (to as HTMLElement).focus();
    };
    root.addEventListener("keydown", onKey);
    return () => root.removeEventListener("keydown", onKey);
  }, deps);
}
