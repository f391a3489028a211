// @vitest-environment jsdom
import { i18n } from "@lingui/core";
import { beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { canWrite, isRestricted, session, signOut, signOutHooks, signsOutWhenIdle, startSession } from "./session";
import { KEYS } from "./storage";
import type { LoggedInUser } from "./types";

beforeAll(() => i18n.loadAndActivate({ locale: "en", messages: {} }));

const user: LoggedInUser = {
  id: 4,
  username: "ops@example.com",
  roles: ["ROLE_ADMIN"],
  accessType: "read-write",
  accessToken: "token-4",
  remember: false,
};

describe("session", () => {
  beforeEach(() => {
    localStorage.clear();
    window.history.replaceState(null, "", "/");
  });

  it("starts: stores the user and goes to /dashboard", () => {
    startSession(user);
    expect(session.get()).toEqual(user);
    expect(JSON.parse(localStorage.getItem(KEYS.user)!)).toEqual(user);
    expect(window.location.pathname).toBe("/dashboard");
  });

  it("signs out: clears local storage (but the language), returns to / and hands the token on", () => {
    const hook = vi.fn<(token: string) => void>();
    signOutHooks.add(hook);
    startSession(user);
    localStorage.setItem(KEYS.locale, "fr");
    localStorage.setItem("something", "else");
    signOut();
    expect(session.get()).toBeUndefined();
    expect(window.location.pathname).toBe("/");
    expect(localStorage.getItem(KEYS.user)).toBeNull();
    expect(localStorage.getItem(KEYS.token)).toBeNull();
    expect(localStorage.getItem("something")).toBeNull();
    expect(localStorage.getItem(KEYS.locale)).toBe("fr");
    expect(hook).toHaveBeenCalledExactlyOnceWith("token-4");
    signOutHooks.delete(hook);
  });

  it("knows restricted and read-only users", () => {
    expect(isRestricted(user)).toBe(false);
    expect(isRestricted({ ...user, roles: ["ROLE_USER", "ROLE_ADMIN"] })).toBe(true);
    expect(isRestricted(undefined)).toBe(true);
    expect(canWrite(user)).toBe(true);
    expect(canWrite({ ...user, accessType: "read-only" })).toBe(false);
    expect(canWrite({ ...user, accessType: "READ-WRITE" })).toBe(false);
  });

  it("a kiosk session is read-only, opens the wall mode and is not signed out when idle", () => {
    const kiosk = { ...user, kiosk: true };
    expect(canWrite(kiosk)).toBe(false);
    expect(signsOutWhenIdle(kiosk)).toBe(false);
    expect(signsOutWhenIdle(user)).toBe(true);
    expect(signsOutWhenIdle(undefined)).toBe(false);
    startSession(kiosk);
    expect(window.location.pathname + window.location.search).toBe("/dashboard?wall=1");
  });
});
