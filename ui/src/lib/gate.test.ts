import { describe, expect, it } from "vitest";
import { createGate } from "./gate";

const tick = () => new Promise((r) => setTimeout(r, 0));

function deferred<T>() {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe("createGate", () => {
  it("runs at most `limit` tasks at once, the others in the order they came", async () => {
    const gate = createGate(2);
    const started: number[] = [];
    const tasks = [0, 1, 2, 3, 4].map(() => deferred<number>());
    const results = tasks.map((d, i) =>
      gate.run(() => {
        started.push(i);
        return d.promise;
      }),
    );
    const failure = results[0].catch((e: Error) => e.message);
    expect(started).toEqual([0, 1]);
    expect(gate.waiting).toBe(3);
    tasks[1].resolve(1);
    await tick();
    expect(started).toEqual([0, 1, 2]);
    tasks[0].reject(new Error("no"));
    await tick();
    expect(started).toEqual([0, 1, 2, 3]);
    for (const [i, d] of tasks.entries()) d.resolve(i);
    expect(await failure).toBe("no");
    expect(await Promise.all(results.slice(1))).toEqual([1, 2, 3, 4]);
    expect(gate.active).toBe(0);
  });

  it("drops a waiting task whose signal aborts, and frees its turn", async () => {
    const gate = createGate(1);
    const first = deferred<string>();
    const ran: string[] = [];
    const a = gate.run(() => first.promise);
    const c = new AbortController();
    const b = gate.run(async () => {
      ran.push("b");
      return "b";
    }, c.signal);
    const d = gate.run(async () => {
      ran.push("d");
      return "d";
    });
    c.abort(new Error("gone"));
    await expect(b).rejects.toThrow("gone");
    first.resolve("a");
    expect(await a).toBe("a");
    expect(await d).toBe("d");
    expect(ran).toEqual(["d"]);
  });

  it("a task that throws at once still frees its turn", async () => {
    const gate = createGate(1);
    await expect(
      gate.run(() => {
        throw new Error("sync");
      }),
    ).rejects.toThrow("sync");
    expect(await gate.run(async () => 1)).toBe(1);
  });
});
