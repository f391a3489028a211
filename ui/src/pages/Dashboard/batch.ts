// Groups items that arrive close together: the first item starts a timer, and everything added
// before it fires is handed over at once. `done()` hands over what is left.

export interface Batcher<T> {
  add(item: T): void;
  done(): void;
}

export function createBatcher<T>(delayMs: number, flush: (items: T[]) => void): Batcher<T> {
  let pending: T[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;
  const run = () => {
    timer = undefined;
    const batch = pending;
    pending = [];
    if (batch.length) flush(batch);
  };
  return {
    add(item) {
      pending.push(item);
      if (timer === undefined) timer = setTimeout(run, delayMs);
    },
    done() {
      clearTimeout(timer);
      run();
    },
  };
}
