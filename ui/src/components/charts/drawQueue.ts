// When the dashboard's many small charts are drawn: one near the window at once (one shared
// IntersectionObserver), every other one in its turn while the browser is idle, a few per idle
// period, in the order they asked. So the numbers and the charts in view come first, and the
// rest follow without a scroll, without one long task.

export interface DrawTicket {
  /** The chart went away (or was drawn another way): forget it. */
  cancel(): void;
}

/** Charts drawn per idle period (about 0.3 ms each on the 2-core test machine). */
export const IDLE_BATCH = 12;
/** How near the window a chart is drawn at once (as the lazy frappe-charts did). */
const NEAR = "300px 0px";

interface Job {
  el: Element;
  draw: () => void;
}

const waiting = new Set<Job>();
const byElement = new WeakMap<Element, Job>();
let observer: IntersectionObserver | null = null;
let idleScheduled = false;

type IdleDeadline = { didTimeout: boolean; timeRemaining(): number };

function onIdle(cb: (d: IdleDeadline) => void): void {
  const w = globalThis as unknown as {
    requestIdleCallback?: (cb: (d: IdleDeadline) => void, o?: { timeout: number }) => number;
  };
  if (typeof w.requestIdleCallback === "function") w.requestIdleCallback(cb, { timeout: 200 });
  else setTimeout(() => cb({ didTimeout: true, timeRemaining: () => 0 }), 16);
}

function run(job: Job): void {
  waiting.delete(job);
  byElement.delete(job.el);
  observer?.unobserve(job.el);
  job.draw();
}

function pump(): void {
  idleScheduled = false;
  let n = 0;
  for (const job of waiting) {
    if (n++ >= IDLE_BATCH) break;
    run(job);
  }
  if (waiting.size) scheduleIdle();
}

function scheduleIdle(): void {
  if (idleScheduled) return;
  idleScheduled = true;
  onIdle(pump);
}

function nearObserver(): IntersectionObserver | null {
  if (typeof IntersectionObserver !== "function") return null;
  observer ??= new IntersectionObserver(
    (entries) => {
      for (const e of entries) {
        if (!e.isIntersecting) continue;
        const job = byElement.get(e.target);
        if (job) run(job);
      }
    },
    { rootMargin: NEAR },
  );
  return observer;
}

/** Calls `draw` once: when `el` nears the window, or in its turn in idle time, whichever is first. */
export function drawSoon(el: Element, draw: () => void): DrawTicket {
  const job: Job = { el, draw };
  waiting.add(job);
  byElement.set(el, job);
  nearObserver()?.observe(el);
  scheduleIdle();
  return {
    cancel() {
      if (!waiting.has(job)) return;
      waiting.delete(job);
      byElement.delete(el);
      observer?.unobserve(el);
    },
  };
}
