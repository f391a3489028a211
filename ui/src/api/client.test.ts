import { i18n } from "@lingui/core";
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { ApiError, createClient, joinUrl, REQUEST_TIMEOUT_MS } from "./client";

beforeAll(() => i18n.loadAndActivate({ locale: "en", messages: {} }));

type FetchMock = ReturnType<typeof vi.fn<typeof fetch>>;

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "Content-Type": "application/json" },
  });
}

function setup(fetchImpl: FetchMock, token: string | null = "tok-1") {
  const errors: ApiError[] = [];
  let started = 0;
  let finished = 0;
  const client = createClient({
    fetch: fetchImpl,
    baseUrl: () => "/api/",
    token: () => token ?? undefined,
    onError: (e) => errors.push(e),
    onStart: () => {
      started++;
      return () => finished++;
    },
  });
  return { client, errors, counts: () => ({ started, finished }) };
}

describe("joinUrl", () => {
  it("joins base and path with one slash and adds the query, skipping empty values", () => {
    expect(joinUrl("/api/", "/auth/signin")).toBe("/api/auth/signin");
    expect(joinUrl("https://h/api", "trs/v1/groups", { level: "case", x: undefined, y: null, n: 0 })).toBe(
      "https://h/api/trs/v1/groups?level=case&n=0",
    );
    expect(joinUrl("/api", "a?b=1", { c: "d e" })).toBe("/api/a?b=1&c=d+e");
  });
});

describe("api client", () => {
  afterEach(() => vi.useRealTimers());

  it("unwraps the data of an OK envelope and sends the Bearer token and JSON body", async () => {
    const fetchMock: FetchMock = vi.fn(async () => json(200, { code: "OK", data: { id: 7 }, messages: [] }));
    const { client, errors, counts } = setup(fetchMock);
    await expect(client.post("auth/signin", { username: "a" })).resolves.toEqual({ id: 7 });
    const [url, init] = fetchMock.mock.calls[0];
    expect(url).toBe("/api/auth/signin");
    expect(init?.method).toBe("POST");
    const headers = init?.headers as Record<string, string>;
    expect(headers.Authorization).toBe("Bearer tok-1");
    expect(headers["Content-Type"]).toBe("application/json");
    expect(init?.body).toBe('{"username":"a"}');
    expect(errors).toEqual([]);
    expect(counts()).toEqual({ started: 1, finished: 1 });
  });

  it("sends no Authorization header without a token", async () => {
    const fetchMock: FetchMock = vi.fn(async () => json(200, { code: "OK", data: [] }));
    const { client } = setup(fetchMock, null);
    await client.get("trs/v1/groups");
    const headers = fetchMock.mock.calls[0][1]?.headers as Record<string, string>;
    expect(headers.Authorization).toBeUndefined();
  });

  it("turns 401 into 'Access is denied!' on the banner", async () => {
    const fetchMock: FetchMock = vi.fn(async () =>
      json(401, { code: "UNAUTHORIZED", messages: ["Access is denied!"] }),
    );
    const { client, errors } = setup(fetchMock);
    const err = await client.get("trs/v1/groups").catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(401);
    expect(errors.map((e) => e.messages)).toEqual([["Access is denied!"]]);
  });

  it("shows the messages array of other failures", async () => {
    const fetchMock: FetchMock = vi.fn(async () =>
      json(400, { code: "BAD_REQUEST", messages: ["name is required", "channel is unknown"] }),
    );
    const { client, errors } = setup(fetchMock);
    const err = (await client.post("trs/v1/groups", {}).catch((e: unknown) => e)) as ApiError;
    expect(err.code).toBe("BAD_REQUEST");
    expect(err.messages).toEqual(["name is required", "channel is unknown"]);
    expect(errors).toHaveLength(1);
    expect(errors[0].messages).toEqual(["name is required", "channel is unknown"]);
  });

  it("takes a 2xx answer as a success whatever its code, and reads without code or envelope", async () => {
    const fetchMock: FetchMock = vi
      .fn<typeof fetch>()
      .mockResolvedValueOnce(json(200, { data: [{ id: 1 }] }))
      .mockResolvedValueOnce(json(201, { code: "SUCCESS", data: { id: 2 } }))
      .mockResolvedValueOnce(json(200, { code: 200, data: 3 }))
      .mockResolvedValueOnce(json(200, [{ id: 4 }]))
      .mockResolvedValueOnce(json(200, { id: 5, name: "bare" }))
      .mockResolvedValueOnce(new Response(null, { status: 204 }))
      .mockResolvedValueOnce(json(200, { code: "CONFLICT", data: 6 }));
    const { client, errors } = setup(fetchMock);
    await expect(client.get("a")).resolves.toEqual([{ id: 1 }]);
    await expect(client.post("b", {})).resolves.toEqual({ id: 2 });
    await expect(client.get("c")).resolves.toBe(3);
    await expect(client.get("d")).resolves.toEqual([{ id: 4 }]);
    await expect(client.get("e")).resolves.toEqual({ id: 5, name: "bare" });
    await expect(client.del("f")).resolves.toBeUndefined();
    await expect(client.get("g")).resolves.toBe(6);
    expect(errors).toEqual([]);
  });

  it("treats a 2xx answer with a failure code (numeric outside 2xx, ERR_*, fail) as a failure", async () => {
    const fetchMock: FetchMock = vi
      .fn<typeof fetch>()
      .mockResolvedValueOnce(json(200, { code: "fail", messages: ["taken"] }))
      .mockResolvedValueOnce(json(200, { code: 409, messages: ["conflict"] }))
      .mockResolvedValueOnce(json(200, { code: "ERR_BAD_REQUEST", messages: [] }));
    const { client, errors } = setup(fetchMock);
    await expect(client.get("x")).rejects.toMatchObject({ code: "fail", messages: ["taken"] });
    await expect(client.get("x")).rejects.toMatchObject({ code: "409", messages: ["conflict"] });
    await expect(client.get("x")).rejects.toMatchObject({ code: "ERR_BAD_REQUEST" });
    expect(errors).toHaveLength(3);
  });

  it("judges a delete by its status and code, not by the value it returns", async () => {
    const fetchMock: FetchMock = vi
      .fn<typeof fetch>()
      .mockResolvedValueOnce(json(200, { code: "SUCCESS", data: false }))
      .mockResolvedValueOnce(new Response(null, { status: 204 }))
      .mockResolvedValueOnce(json(200, { code: "OK", data: 7 }))
      .mockResolvedValueOnce(json(404, { messages: ["gone"] }));
    const { client } = setup(fetchMock);
    await expect(client.remove("users/1")).resolves.toBe(true);
    await expect(client.remove("users/2")).resolves.toBe(true);
    await expect(client.remove("users/3")).resolves.toBe(true);
    await expect(client.remove("users/4")).rejects.toMatchObject({ status: 404, messages: ["gone"] });
    expect(fetchMock.mock.calls[0][1]?.method).toBe("DELETE");
  });

  it("names the HTTP status when a failure has no messages, and rejects unreadable answers", async () => {
    const fetchMock: FetchMock = vi
      .fn<typeof fetch>()
      .mockResolvedValueOnce(new Response("<html>gateway</html>", { status: 502 }))
      .mockResolvedValueOnce(new Response("<!doctype html>", { status: 200 }));
    const { client, errors } = setup(fetchMock);
    await expect(client.get("x")).rejects.toMatchObject({ status: 502, messages: ["The request failed (HTTP 502)."] });
    await expect(client.get("x")).rejects.toMatchObject({ code: "BAD_RESPONSE" });
    expect(errors).toHaveLength(2);
  });

  it("stays quiet when asked: the caller shows the failure", async () => {
    const fetchMock: FetchMock = vi.fn(async () => json(401, { code: "UNAUTHORIZED", messages: ["bad"] }));
    const { client, errors } = setup(fetchMock);
    await expect(client.post("auth/signin", {}, { quiet: true })).rejects.toBeInstanceOf(ApiError);
    expect(errors).toEqual([]);
  });

  it("gives up after 30 s with a time-out error", async () => {
    vi.useFakeTimers();
    const fetchMock: FetchMock = vi.fn(
      (_url, init) =>
        new Promise<Response>((_resolve, reject) => {
          init?.signal?.addEventListener("abort", () =>
            reject(new DOMException("The operation was aborted.", "AbortError")),
          );
        }),
    );
    const { client, errors, counts } = setup(fetchMock);
    const result = client.get("slow").catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(REQUEST_TIMEOUT_MS - 1);
    expect(fetchMock.mock.calls[0][1]?.signal?.aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    const err = (await result) as ApiError;
    expect(err.code).toBe("TIMEOUT");
    expect(errors.map((e) => e.code)).toEqual(["TIMEOUT"]);
    expect(counts()).toEqual({ started: 1, finished: 1 });
  });

  it("reports a network failure", async () => {
    const fetchMock: FetchMock = vi.fn(async () => {
      throw new TypeError("Failed to fetch");
    });
    const { client, errors } = setup(fetchMock);
    await expect(client.get("x")).rejects.toMatchObject({ code: "NETWORK" });
    expect(errors[0].messages).toEqual(["The server could not be reached."]);
  });

  it("does not show a banner when the caller aborts", async () => {
    const fetchMock: FetchMock = vi.fn(
      (_url, init) =>
        new Promise<Response>((_resolve, reject) => {
          init?.signal?.addEventListener("abort", () => reject(new DOMException("aborted", "AbortError")));
        }),
    );
    const { client, errors } = setup(fetchMock);
    const caller = new AbortController();
    const result = client.get("x", { signal: caller.signal });
    caller.abort();
    await expect(result).rejects.toMatchObject({ code: "ABORTED" });
    expect(errors).toEqual([]);
  });

  it("hands back the raw response for downloads, and fails like request otherwise", async () => {
    const fetchMock: FetchMock = vi
      .fn<typeof fetch>()
      .mockResolvedValueOnce(new Response("a,b\n1,2", { status: 200 }))
      .mockResolvedValueOnce(json(404, { code: "NOT_FOUND", messages: ["no such report"] }));
    const { client, errors } = setup(fetchMock);
    const res = await client.raw("GET", "trs/v1/reports/1/export");
    expect(await res.text()).toBe("a,b\n1,2");
    await expect(client.raw("GET", "trs/v1/reports/2/export")).rejects.toMatchObject({ status: 404 });
    expect(errors[0].messages).toEqual(["no such report"]);
  });

  it("does not count background requests for the overlay", async () => {
    const fetchMock: FetchMock = vi.fn(async () => json(200, { code: "OK", data: 1 }));
    const { client, counts } = setup(fetchMock);
    await client.get("x", { background: true });
    expect(counts()).toEqual({ started: 0, finished: 0 });
  });
});

beforeEach(() => vi.restoreAllMocks());

describe("field errors", () => {
  it("keeps the fields the server named, for the form to show beside them", async () => {
    const body = {
      code: "CONFLICT",
      messages: ["That e-mail address is taken."],
      fields: [{ field: "username", rule: "taken", message: "That e-mail address is taken." }, { bad: 1 }],
    };
    const fetchMock: FetchMock = vi.fn(async () => json(409, body));
    const { client } = setup(fetchMock, "t");
    const err = await client.post("users", {}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).fields).toEqual([
      { field: "username", rule: "taken", message: "That e-mail address is taken." },
    ]);
  });
});
