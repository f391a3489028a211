// Live updates for the dashboard: `GET api/live` streams server-sent events (`open`, `runs`,
// `resync`) when ingest stores runs the user may see; each one marks the dashboard's queries
// stale so the open dashboard refreshes within a second or two, not at its next 30 s poll.
// Read with fetch (the stream needs the Bearer token, which EventSource cannot send). After a
// network drop (an error, the stream ending, 40 s of silence, or the browser coming back
// online) it reconnects with a growing delay and refreshes once. An API without the stream
// (flavour "spec") is not asked; one that answers 404 is not asked again; either way the
// dashboard keeps its 30 s poll.
import { useEffect } from "react";
import { queryClient } from "../lib/queryClient";
import { getToken } from "../lib/storage";
import { apiBaseUrl, useApiFlavor } from "../lib/tenant";
import { groupKeys } from "./queries/groups";

export interface LiveMessage {
  /** The SSE event type: open, runs or resync. */
  event: string;
  data: string;
}

/**
 * Splits what arrived so far into whole events (ending in a blank line) and the rest,
 * following the SSE format: `event:` and `data:` fields, comment lines (`:`) ignored.
 */
export function parseEvents(buffer: string): { messages: LiveMessage[]; rest: string } {
  const text = buffer.replace(/\r\n?/g, "\n");
  const blocks = text.split("\n\n");
  const rest = blocks.pop() ?? "";
  const messages: LiveMessage[] = [];
  for (const block of blocks) {
    let event = "message";
    const data: string[] = [];
    for (const line of block.split("\n")) {
      if (line === "" || line.startsWith(":")) continue;
      const colon = line.indexOf(":");
      const field = colon < 0 ? line : line.slice(0, colon);
      let value = colon < 0 ? "" : line.slice(colon + 1);
      if (value.startsWith(" ")) value = value.slice(1);
      if (field === "event") event = value;
      else if (field === "data") data.push(value);
    }
    if (data.length > 0 || event !== "message") messages.push({ event, data: data.join("\n") });
  }
  return { messages, rest };
}

/** Delay before the n-th reconnection (0-based): 1 s, 2 s, 4 s … at most 30 s. */
export function retryDelay(attempt: number): number {
  return Math.min(30000, 1000 * 2 ** Math.min(attempt, 5));
}

/** A stream silent this long (the server sends a comment every 15 s) is taken as dropped. */
export const SILENCE_MS = 40000;

export interface LiveDeps {
  fetch: typeof fetch;
  url: () => string;
  token: () => string | undefined;
  /** Called for each event; `reconnected` is true for the `open` of a later connection. */
  onMessage: (message: LiveMessage, reconnected: boolean) => void;
  setTimeout: (f: () => void, ms: number) => unknown;
  clearTimeout?: (handle: unknown) => void;
  /** Where `online`/`offline` are announced (the window): offline drops the stream, online
   * connects again at once. */
  online?: Pick<EventTarget, "addEventListener" | "removeEventListener">;
}

/** Keeps a stream open until the returned function is called. */
export function connectLive(deps: LiveDeps): () => void {
  let stopped = false;
  let attempt = 0;
  let connections = 0;
  let current = new AbortController();
  let wake: (() => void) | undefined;

  async function once(): Promise<"retry" | "stop"> {
    const token = deps.token();
    if (!token) return "stop";
    current = new AbortController();
    const conn = current;
    let watchdog: unknown;
    const quiet = () => {
      if (watchdog !== undefined) deps.clearTimeout?.(watchdog);
      watchdog = deps.setTimeout(() => conn.abort(), SILENCE_MS);
    };
    try {
      quiet();
      const res = await deps.fetch(deps.url(), {
        headers: { Authorization: `Bearer ${token}`, Accept: "text/event-stream" },
        signal: conn.signal,
        cache: "no-store",
      });
      // 404: no stream here (proxy mode); 401/403: not (or no longer) allowed.
      if (res.status === 404 || res.status === 401 || res.status === 403) return "stop";
      if (!res.ok || !res.body) return "retry";
      const reconnected = connections > 0;
      connections += 1;
      const reader = res.body.getReader();
      const decoder = new TextDecoder();
      let buffer = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return "retry";
        quiet();
        attempt = 0;
        buffer += decoder.decode(value, { stream: true });
        const { messages, rest } = parseEvents(buffer);
        buffer = rest;
        for (const m of messages) deps.onMessage(m, reconnected);
      }
    } finally {
      if (watchdog !== undefined) deps.clearTimeout?.(watchdog);
    }
  }

  // Offline: the stream is dead, drop it now. Back online: connect again at once.
  let soon = false;
  const onOffline = () => current.abort();
  const onOnline = () => {
    attempt = 0;
    soon = true;
    current.abort();
    wake?.();
  };
  deps.online?.addEventListener("online", onOnline);
  deps.online?.addEventListener("offline", onOffline);

  async function loop() {
    while (!stopped) {
      let next: "retry" | "stop";
      try {
        next = await once();
      } catch {
        next = "retry";
      }
      if (stopped || next === "stop") return;
      if (!soon) {
        await new Promise<void>((resolve) => {
          wake = resolve;
          deps.setTimeout(resolve, retryDelay(attempt));
        });
      }
      wake = undefined;
      soon = false;
      attempt += 1;
    }
  }

  void loop();
  return () => {
    stopped = true;
    deps.online?.removeEventListener("online", onOnline);
    deps.online?.removeEventListener("offline", onOffline);
    current.abort();
  };
}

/** At most one refresh per this long, however fast runs arrive. */
const REFRESH_EVERY_MS = 1000;

/**
 * Refreshes the dashboard's queries on each live event, at most once a second (the last
 * event of a burst is never lost). Mount once, at the app's top, while signed in. The stream
 * is cxwatch's addition: under flavour "spec" it is never asked for, and the dashboard keeps
 * its 30 s refresh.
 */
export function useLiveUpdates(signedIn: boolean): void {
  const cxwatch = useApiFlavor() === "cxwatch";
  useEffect(() => {
    if (!signedIn || !cxwatch || typeof ReadableStream === "undefined") return;
    let last = 0;
    let pending: ReturnType<typeof setTimeout> | undefined;
    const refresh = () => {
      pending = undefined;
      last = Date.now();
      void queryClient.invalidateQueries({ queryKey: groupKeys.all, refetchType: "active" });
    };
    const stop = connectLive({
      fetch: (input, init) => globalThis.fetch(input, init),
      url: () => `${apiBaseUrl().replace(/\/$/, "")}/live`,
      token: getToken,
      setTimeout: (f, ms) => setTimeout(f, ms),
      clearTimeout: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
      online: window,
      onMessage: (m, reconnected) => {
        if (m.event === "open" && !reconnected) return;
        if (pending) return;
        const wait = Math.max(0, last + REFRESH_EVERY_MS - Date.now());
        pending = setTimeout(refresh, wait);
      },
    });
    return () => {
      stop();
      if (pending) clearTimeout(pending);
    };
  }, [signedIn, cxwatch]);
}
