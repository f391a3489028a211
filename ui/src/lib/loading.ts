// Counts requests under way; the 'Please wait ...' overlay shows while any is pending.
import { createStore } from "./store";

export const pending = createStore(0);

export function begin(): () => void {
  let done = false;
  pending.set((n) => n + 1);
  return () => {
    if (done) return;
    done = true;
    pending.set((n) => Math.max(0, n - 1));
  };
}
