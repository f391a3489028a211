// Idle sign-out: after 900000 ms (15 minutes) with no activity the session ends (spec §4, §9).

export const IDLE_TIMEOUT_MS = 900000;
export const ACTIVITY_EVENTS = ["mousemove", "keydown", "mousedown", "touchstart", "scroll"] as const;

export interface IdleTimerOptions {
  timeoutMs?: number;
  onIdle: () => void;
  /** Where activity is listened for (the window). */
  target: Pick<EventTarget, "addEventListener" | "removeEventListener">;
  now?: () => number;
}

/**
 * Calls `onIdle` once when no activity event has happened for `timeoutMs`. Activity only
 * records a time stamp (mousemove fires often); the single timer re-arms itself for the
 * time left. Returns the function that stops watching.
 */
export function startIdleTimer(opts: IdleTimerOptions): () => void {
  const timeoutMs = opts.timeoutMs ?? IDLE_TIMEOUT_MS;
  const now = opts.now ?? (() => Date.now());
  let last = now();
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;

  const onActivity = () => {
    last = now();
  };
  const arm = (ms: number) => {
    timer = setTimeout(check, ms);
  };
  function check() {
    if (stopped) return;
    const idle = now() - last;
    if (idle >= timeoutMs) {
      stop();
      opts.onIdle();
    } else {
      arm(timeoutMs - idle);
    }
  }
  function stop() {
    stopped = true;
    if (timer !== undefined) clearTimeout(timer);
    for (const e of ACTIVITY_EVENTS) {
      opts.target.removeEventListener(e, onActivity, { capture: true } as EventListenerOptions);
    }
  }

  for (const e of ACTIVITY_EVENTS) {
    opts.target.addEventListener(e, onActivity, { capture: true, passive: true });
  }
  arm(timeoutMs);
  return stop;
}
