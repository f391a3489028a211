// @vitest-environment jsdom
// The small row chart in a DOM: what it draws (bars stacked per slot on the shared scale, only
// segments with runs, the hour labels and whole-number ticks), when (at once when eager, else
// in its turn in idle time, a few charts per turn), and its tooltip (text, never markup).
import { render } from "preact";
import { act } from "preact/test-utils";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { IDLE_BATCH } from "./drawQueue";
import { MiniBarChart, type MiniBarChartProps } from "./MiniBarChart";

const LABELS = Array.from({ length: 24 }, (_, h) => String(h).padStart(2, "0"));
const slots = (at: Record<number, number>) => LABELS.map((_, h) => at[h] ?? 0);

function props(over: Partial<MiniBarChartProps> = {}): MiniBarChartProps {
  return {
    labels: LABELS,
    series: [
      { name: "Pass", color: "#1e9e5a", values: slots({ 9: 6, 14: 4 }) },
      { name: "Failure", color: "#d93a3a", values: slots({ 14: 2 }) },
    ],
    kinds: ["pass", "failure"],
    height: 104,
    yMax: 10,
    tooltip: (i) => ({
      title: "Time Slot: ",
      value: `${LABELS[i]}:00`,
      list: [{ title: "<b>x</b>", value: 1, color: "red" }],
    }),
    ...over,
  };
}

let root: HTMLElement;
beforeEach(() => {
  root = document.createElement("div");
  document.body.appendChild(root);
});
afterEach(() => {
  render(null, root);
  root.remove();
  vi.useRealTimers();
});

describe("MiniBarChart", () => {
  it("draws each slot's segments stacked on the shared scale, and nothing for an empty one", () => {
    act(() => render(<MiniBarChart {...props()} eager />, root));
    const chart = root.querySelector(".cx-chart") as HTMLElement;
    expect(chart.dataset.drawn).toBe("true");
    expect(chart.dataset.s1).toBe("failure");
    const plotH = 104 - 14 - 24;
    // Ticks 0, 5, 10 (the shared top), so a run is plotH / 10 px high.
    const ticks = [...root.querySelectorAll(".cx-mini-y text")].map((t) => t.textContent);
    expect(ticks).toEqual(["0", "5", "10"]);
    const pass = [...root.querySelectorAll(".dataset-0 rect")];
    const fail = [...root.querySelectorAll(".dataset-1 rect")];
    expect(pass).toHaveLength(2);
    expect(fail).toHaveLength(1);
    const h = (r: Element) => Number(r.getAttribute("height"));
    const y = (r: Element) => Number(r.getAttribute("y"));
    expect(h(pass[0])).toBeCloseTo((6 * plotH) / 10);
    expect(y(pass[0])).toBeCloseTo(plotH - (6 * plotH) / 10);
    // Hour 14: failure on top of pass.
    expect(y(fail[0]) + h(fail[0])).toBeCloseTo(y(pass[1]));
    expect(pass[1].getAttribute("x")).toBe(`${Math.round(((14 + 0.15) / 24) * 10000) / 100}%`);
    expect([...root.querySelectorAll(".cx-mini-x text")].map((t) => t.textContent)).toEqual(LABELS);
  });

  it("takes its own top above the shared one", () => {
    act(() => render(<MiniBarChart {...props({ yMax: 3 })} eager />, root));
    const ticks = [...root.querySelectorAll(".cx-mini-y text")].map((t) => Number(t.textContent));
    expect(ticks[ticks.length - 1]).toBeGreaterThanOrEqual(6);
  });

  it("draws charts that are not eager in their turn, a batch per idle period", () => {
    vi.useFakeTimers();
    const n = IDLE_BATCH + 3;
    act(() =>
      render(
        <div>
          {Array.from({ length: n }, (_, i) => (
            <MiniBarChart key={i} {...props()} />
          ))}
        </div>,
        root,
      ),
    );
    const drawn = () => root.querySelectorAll(".cx-chart[data-drawn=true]").length;
    expect(drawn()).toBe(0);
    act(() => {
      vi.advanceTimersToNextTimer();
    });
    expect(drawn()).toBe(IDLE_BATCH);
    act(() => {
      vi.advanceTimersToNextTimer();
    });
    expect(drawn()).toBe(n);
    expect(root.querySelectorAll("svg")).toHaveLength(n);
  });

  it("shows the slot's tooltip as text under the pointer", () => {
    act(() => render(<MiniBarChart {...props()} eager />, root));
    const frame = root.querySelector(".cx-mini") as HTMLElement;
    frame.getBoundingClientRect = () => ({ left: 0, top: 0, width: 34 + 240 + 10, height: 104 }) as DOMRect;
    act(() => {
      frame.dispatchEvent(new MouseEvent("pointermove", { clientX: 34 + 145, bubbles: true }));
    });
    const tip = root.querySelector(".cx-mini-tip");
    expect(tip?.querySelector(".title")?.textContent).toBe("Time Slot: 14:00");
    expect(tip?.querySelector("li")?.textContent).toContain("<b>x</b>");
    expect(tip?.querySelector("b")).toBeNull();
    act(() => {
      frame.dispatchEvent(new MouseEvent("pointerleave", { bubbles: false }));
    });
    expect(root.querySelector(".cx-mini-tip")).toBeNull();
  });
});
