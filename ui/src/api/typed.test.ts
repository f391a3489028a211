import { i18n } from "@lingui/core";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { createClient } from "./client";
import { fillPath, typedClient } from "./typed";

beforeAll(() => i18n.loadAndActivate({ locale: "en", messages: {} }));

function answering(status: number, body: unknown) {
  const fetch = vi.fn<typeof globalThis.fetch>(
    async () =>
      new Response(body === undefined ? null : JSON.stringify(body), {
        status,
        headers: { "Content-Type": "application/json" },
      }),
  );
  const errors: string[] = [];
  const api = createClient({
    fetch,
    baseUrl: () => "https://vendor.example/api",
    token: () => "tok",
    onError: (e) => errors.push(e.code),
  });
  return { client: typedClient(api), fetch, errors };
}

describe("fillPath", () => {
  it("puts each path parameter in its place, percent-encoded, relative to the API's base", () => {
    expect(fillPath("/users/{id}", { id: 7 })).toBe("users/7");
    expect(fillPath("/alerts/autojiraticket/{alertSettingId}", { alertSettingId: 3 })).toBe("alerts/autojiraticket/3");
    expect(fillPath("/trs/v1/recordings/{id}", { id: "a/b c" })).toBe("trs/v1/recordings/a%2Fb%20c");
    expect(fillPath("/reports/timeframes")).toBe("reports/timeframes");
  });

  it("refuses a template whose parameter has no value", () => {
    expect(() => fillPath("/users/{id}", {})).toThrow("{id}");
  });
});

describe("typedClient", () => {
  it("sends the operation's method, path, query and body through the tolerant client", async () => {
    const { client, fetch } = answering(200, { code: "OK", data: { id: 7 }, messages: [] });
    const user = await client.put("/users/{id}", {
      path: { id: 7 },
      body: { username: "a@b.c", firstName: "A", lastName: "B", roles: ["ROLE_USER"], accessType: "read-only" },
      quiet: true,
    });
    expect(user.id).toBe(7);
    const [url, init] = fetch.mock.calls[0];
    expect(url).toBe("https://vendor.example/api/users/7");
    expect(init?.method).toBe("PUT");
    expect(JSON.parse(String(init?.body))).toEqual({
      username: "a@b.c",
      firstName: "A",
      lastName: "B",
      roles: ["ROLE_USER"],
      accessType: "read-only",
    });

    await client.get("/users", { query: { pageNo: 0, pageSize: 10, role: "ROLE_USER" } });
    expect(fetch.mock.calls[1][0]).toBe("https://vendor.example/api/users?pageNo=0&pageSize=10&role=ROLE_USER");
  });

  it("reads a vendor's bare answer as the client does (no envelope, no code)", async () => {
    const { client } = answering(200, [{ id: 1, name: "North" }]);
    const groups = await client.get("/trs/v1/groups");
    expect(groups).toEqual([{ id: 1, name: "North" }]);
  });

  it("judges a delete by its status, whatever it answers", async () => {
    const { client } = answering(204, undefined);
    await expect(client.remove("/reports/{id}", { path: { id: 4 } })).resolves.toBe(true);
    const failing = answering(409, { code: "CONFLICT", messages: ["in use"] });
    await expect(failing.client.remove("/distributions/{id}", { path: { id: 4 } })).rejects.toMatchObject({
      status: 409,
      code: "CONFLICT",
    });
    expect(failing.errors).toEqual(["CONFLICT"]);
  });
});
