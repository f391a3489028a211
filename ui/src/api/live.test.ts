import { describe, expect, it } from "vitest";
import { connectLive, type LiveMessage, parseEvents, retryDelay } from "./live";

describe("parseEvents", () => {
  it("splits whole events, keeps the rest, skips comments", () => {
    const { messages, rest } = parseEvents(
      'event: open\ndata: {"kind":"open"}\n\n: keep-alive\n\nevent: runs\r\ndata: {"runs":2}\r\n\r\nevent: ru',
    );
    expect(messages).toEqual([
      { event: "open", data: '{"kind":"open"}' },
      { event: "runs", data: '{"runs":2}' },
    ]);
    expect(rest).toBe("event: ru");
  });
});

describe("retryDelay", () => {
  it("grows to 30 s", () => {
    expect([0, 1, 2, 5, 9].map(retryDelay)).toEqual([1000, 2000, 4000, 30000, 30000]);
  });
});

function stream(chunks: string[]): Response {
  const enc = new TextEncoder();
  return new Response(
    new ReadableStream({
      start(c) {
        for (const ch of chunks) c.enqueue(enc.encode(ch));
        c.close();
      },
    }),
    { status: 200, headers: { "Content-Type": "text/event-stream" } },
  );
}

describe("connectLive", () => {
  it("reconnects after a drop and says so; stops on 404 (proxy mode)", async () => {
    const answers = [
      stream(["event: open\ndata: {}\n\n", "event: runs\ndata: {}\n\n"]),
      stream(["event: open\ndata: {}\n\n"]),
      new Response("{}", { status: 404 }),
    ];
    const seen: [LiveMessage, boolean][] = [];
    const calls: RequestInit[] = [];
    let done: () => void = () => {};
    const finished = new Promise<void>((r) => (done = r));
    connectLive({
      fetch: async (_url, init) => {
        calls.push(init ?? {});
        const next = answers.shift();
        if (!next) throw new Error("no more");
        if (answers.length === 0) setTimeout(done, 10);
        return next;
      },
      url: () => "/api/live",
      token: () => "tok",
      onMessage: (m, again) => seen.push([m, again]),
      setTimeout: (f) => setTimeout(f, 0),
    });
    await finished;
    expect(seen.map(([m, again]) => `${m.event}:${again}`)).toEqual(["open:false", "runs:false", "open:true"]);
    expect(calls).toHaveLength(3);
    expect((calls[0].headers as Record<string, string>).Authorization).toBe("Bearer tok");
  });

  it("does not connect without a token", async () => {
    let called = false;
    connectLive({
      fetch: async () => {
        called = true;
        return new Response();
      },
      url: () => "/api/live",
      token: () => undefined,
      onMessage: () => {},
      setTimeout: (f) => setTimeout(f, 0),
    });
    await new Promise((r) => setTimeout(r, 10));
    expect(called).toBe(false);
  });
});
