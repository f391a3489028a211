// @vitest-environment jsdom
import { beforeEach, describe, expect, it } from "vitest";
import { clearAll, getTenantConfig, getToken, getUser, KEYS, saveSession, saveTenantConfig } from "./storage";
import type { LoggedInUser } from "./types";

const user: LoggedInUser = {
  id: 3,
  username: "ops@example.com",
  roles: ["ROLE_ADMIN"],
  accessType: "read-write",
  accessToken: "abc.def",
  remember: true,
};

describe("local storage", () => {
  beforeEach(() => localStorage.clear());

  it("keeps the user with id, username, roles, accessType, accessToken and remember, and the token", () => {
    saveSession(user);
    expect(JSON.parse(localStorage.getItem(KEYS.user)!)).toEqual(user);
    expect(getUser()).toEqual(user);
    expect(getToken()).toBe("abc.def");
  });

  it("ignores a stored user that is damaged or incomplete", () => {
    localStorage.setItem(KEYS.user, "{not json");
    expect(getUser()).toBeUndefined();
    localStorage.setItem(KEYS.user, JSON.stringify({ id: 1, username: "x" }));
    expect(getUser()).toBeUndefined();
  });

  it("keeps the tenant config", () => {
    expect(getTenantConfig()).toBeUndefined();
    saveTenantConfig({ apiBaseUrl: "/api", ssoUrl: "https://sso.example.com/login", name: "acme" });
    expect(getTenantConfig()).toEqual({ apiBaseUrl: "/api", ssoUrl: "https://sso.example.com/login", name: "acme" });
  });

  it("sign-out clears everything but the language choice", () => {
    saveSession(user);
    saveTenantConfig({ apiBaseUrl: "/api" });
    localStorage.setItem(KEYS.locale, "fr");
    localStorage.setItem("dashboard.channel", "voice");
    clearAll();
    expect(getUser()).toBeUndefined();
    expect(getToken()).toBeUndefined();
    expect(getTenantConfig()).toBeUndefined();
    expect(localStorage.getItem("dashboard.channel")).toBeNull();
    expect(localStorage.getItem(KEYS.locale)).toBe("fr");
    expect(localStorage.length).toBe(1);
  });
});
