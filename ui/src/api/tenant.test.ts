// @vitest-environment jsdom
import { beforeEach, describe, expect, it, vi } from "vitest";
import { getTenantConfig } from "./storage";
import { apiBaseUrl, loadTenantConfig, ssoRedirectUrl, tenant } from "./tenant";

const ok = (data: unknown) =>
  new Response(JSON.stringify({ code: "OK", data }), { headers: { "Content-Type": "application/json" } });

describe("tenant config", () => {
  beforeEach(() => {
    localStorage.clear();
    tenant.set({ apiBaseUrl: "/api" });
  });

  it("is fetched with ac=<host> when nothing is stored, then stored and used", async () => {
    const fetchMock = vi.fn<typeof fetch>(async () =>
      ok({ name: "acme", host: "console.acme.test", apiBaseUrl: "https://api.acme.test/api", ssoUrl: "https://sso.acme.test/login", version: "0.1.0" }),
    );
    const config = await loadTenantConfig(fetchMock, "console.acme.test:8443");
    expect(fetchMock.mock.calls[0][0]).toBe("/tenant-config?ac=console.acme.test%3A8443");
    expect(config.apiBaseUrl).toBe("https://api.acme.test/api");
    expect(getTenantConfig()?.ssoUrl).toBe("https://sso.acme.test/login");
    expect(apiBaseUrl()).toBe("https://api.acme.test/api");
  });

  it("is not fetched again once stored", async () => {
    const fetchMock = vi.fn<typeof fetch>(async () => ok({ apiBaseUrl: "/api" }));
    await loadTenantConfig(fetchMock, "h");
    await loadTenantConfig(fetchMock, "h");
    expect(fetchMock).toHaveBeenCalledTimes(1);
  });

  it("defaults the API base to /api and stores nothing when the fetch fails", async () => {
    const failing = vi.fn<typeof fetch>(async () => new Response("<!doctype html>", { status: 200 }));
    expect((await loadTenantConfig(failing, "h")).apiBaseUrl).toBe("/api");
    expect(getTenantConfig()).toBeUndefined();
    const missingBase = vi.fn<typeof fetch>(async () => ok({ name: "x", ssoUrl: "" }));
    const c = await loadTenantConfig(missingBase, "h");
    expect(c.apiBaseUrl).toBe("/api");
    expect(c.ssoUrl).toBeNull();
  });
});

describe("single sign-on address", () => {
  it("adds <origin>/callback as redirect_uri, keeping the address's own query", () => {
    expect(ssoRedirectUrl("https://sso.acme.test/login?tenant=a", "https://console.acme.test")).toBe(
      "https://sso.acme.test/login?tenant=a&redirect_uri=https%3A%2F%2Fconsole.acme.test%2Fcallback",
    );
  });
});
