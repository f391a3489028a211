// At most `limit` tasks running at once; the others wait their turn, first come first served.
// A task whose signal aborts while it waits leaves the queue without running.

export interface Gate {
  run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T>;
  /** Tasks running now. */
  readonly active: number;
  /** Tasks waiting for a turn. */
  readonly waiting: number;
}

export function createGate(limit: number): Gate {
  const max = Math.max(1, limit);
  let active = 0;
  const queue: (() => void)[] = [];

  const next = () => {
    active--;
    queue.shift()?.();
  };

  return {
    get active() {
      return active;
    },
    get waiting() {
      return queue.length;
    },
    run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
      const start = (): Promise<T> => {
        active++;
        let p: Promise<T>;
        try {
          p = task();
        } catch (e) {
          p = Promise.reject(e);
        }
        return p.finally(next);
      };
      if (active < max && !queue.length) return start();
      return new Promise<T>((resolve, reject) => {
        if (signal?.aborted) return reject(signal.reason);
        const turn = () => {
          signal?.removeEventListener("abort", onAbort);
          start().then(resolve, reject);
        };
        const onAbort = () => {
          const i = queue.indexOf(turn);
          if (i >= 0) queue.splice(i, 1);
          reject(signal?.reason);
        };
        signal?.addEventListener("abort", onAbort, { once: true });
        queue.push(turn);
      });
    },
  };
}
