// @vitest-environment jsdom
import { beforeEach, describe, expect, it, vi } from "vitest";
import { getTenantConfig, saveTenantConfig, getTenantConfig as stored } from "./storage";
import {
  apiBaseUrl,
  apiFlavor,
  flavorOf,
  hasCxwatchApi,
  loadTenantConfig,
  siteTimeZone,
  ssoRedirectUrl,
  tenant,
  timeZoneOf,
} from "./tenant";

const ok = (data: unknown) =>
  new Response(JSON.stringify({ code: "OK", data }), { headers: { "Content-Type": "application/json" } });

describe("tenant config", () => {
  beforeEach(() => {
    localStorage.clear();
    tenant.set({ apiBaseUrl: "/api" });
  });

  it("is fetched with ac=<host> when nothing is stored, then stored and used", async () => {
    const fetchMock = vi.fn<typeof fetch>(async () =>
      ok({
        name: "acme",
        host: "console.acme.test",
        apiBaseUrl: "https://api.acme.test/api",
        ssoUrl: "https://sso.acme.test/login",
        version: "0.1.0",
      }),
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

describe("site time zone", () => {
  beforeEach(() => {
    localStorage.clear();
    tenant.set({ apiBaseUrl: "/api" });
  });

  it("comes from the tenant config and is stored with it", async () => {
    const fetchMock = vi.fn<typeof fetch>(async () => ok({ apiBaseUrl: "/api", timezone: "Europe/Paris" }));
    await loadTenantConfig(fetchMock, "h");
    expect(siteTimeZone()).toBe("Europe/Paris");
    expect(stored()?.timezone).toBe("Europe/Paris");
  });

  it("is America/Toronto when the server names none (a vendor console) or one the browser does not know", async () => {
    await loadTenantConfig(
      vi.fn<typeof fetch>(async () => ok({ apiBaseUrl: "/api" })),
      "h",
    );
    expect(siteTimeZone()).toBe("America/Toronto");
    expect(stored()?.timezone).toBeNull();
    expect(timeZoneOf({ apiBaseUrl: "/api", timezone: "Mars/Olympus_Mons" })).toBe("America/Toronto");
    expect(timeZoneOf({ apiBaseUrl: "/api" })).toBe("America/Toronto");
  });

  it("is asked for again when the stored config predates it, and the stored one is kept if that fails", async () => {
    saveTenantConfig({ apiBaseUrl: "/api", name: "old" });
    const fetchMock = vi.fn<typeof fetch>(async () =>
      ok({ apiBaseUrl: "/api", name: "new", timezone: "Asia/Kolkata" }),
    );
    expect((await loadTenantConfig(fetchMock, "h")).timezone).toBe("Asia/Kolkata");
    expect(fetchMock).toHaveBeenCalledTimes(1);
    await loadTenantConfig(fetchMock, "h");
    expect(fetchMock).toHaveBeenCalledTimes(1);

    saveTenantConfig({ apiBaseUrl: "https://api.old.test/api", name: "old" });
    const down = vi.fn<typeof fetch>(async () => {
      throw new TypeError("offline");
    });
    const c = await loadTenantConfig(down, "h");
    expect(c.apiBaseUrl).toBe("https://api.old.test/api");
    expect(siteTimeZone()).toBe("America/Toronto");
  });
});

describe("API flavour", () => {
  beforeEach(() => {
    localStorage.clear();
    tenant.set({ apiBaseUrl: "/api" });
  });

  it("is the tenant config's apiFlavor, stored with it", async () => {
    await loadTenantConfig(
      vi.fn<typeof fetch>(async () => ok({ apiBaseUrl: "/api", apiFlavor: "cxwatch" })),
      "h",
    );
    expect(apiFlavor()).toBe("cxwatch");
    expect(hasCxwatchApi()).toBe(true);
    expect(stored()?.apiFlavor).toBe("cxwatch");
  });

  it("is spec when the config names none or an unknown one, or when nothing was loaded", async () => {
    expect(apiFlavor()).toBe("spec");
    await loadTenantConfig(
      vi.fn<typeof fetch>(async () => ok({ apiBaseUrl: "/api" })),
      "h",
    );
    expect(apiFlavor()).toBe("spec");
    expect(stored()?.apiFlavor).toBe("spec");
    expect(flavorOf("vendor-x")).toBe("spec");
    expect(flavorOf(undefined)).toBe("spec");
  });

  it("reads a config answered without code", async () => {
    const bare = vi.fn<typeof fetch>(async () => new Response(JSON.stringify({ data: { apiFlavor: "cxwatch" } })));
    await loadTenantConfig(bare, "h");
    expect(apiFlavor()).toBe("cxwatch");
  });

  it("is asked for again when the stored config predates it (a stored timezone is not enough)", async () => {
    saveTenantConfig({ apiBaseUrl: "/api", timezone: "Europe/Paris" });
    const fetchMock = vi.fn<typeof fetch>(async () =>
      ok({ apiBaseUrl: "/api", timezone: "Europe/Paris", apiFlavor: "cxwatch" }),
    );
    await loadTenantConfig(fetchMock, "h");
    expect(fetchMock).toHaveBeenCalledTimes(1);
    expect(apiFlavor()).toBe("cxwatch");
    await loadTenantConfig(fetchMock, "h");
    expect(fetchMock).toHaveBeenCalledTimes(1);
  });
});

describe("single sign-on address", () => {
  it("adds <origin>/callback as redirect_uri, keeping the address's own query", () => {
    expect(ssoRedirectUrl("https://sso.acme.test/login?tenant=a", "https://console.acme.test")).toBe(
      "https://sso.acme.test/login?tenant=a&redirect_uri=https%3A%2F%2Fconsole.acme.test%2Fcallback",
    );
  });
});
