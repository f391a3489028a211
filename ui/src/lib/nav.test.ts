// @vitest-environment jsdom
import { describe, expect, it } from "vitest";
import { footerNav, isActive, isGroup, type NavEntry, sideNav } from "./nav";
import type { LoggedInUser } from "./types";

const admin: LoggedInUser = {
  id: 12,
  username: "admin@example.com",
  roles: ["ROLE_ADMIN"],
  accessType: "read-write",
  accessToken: "t",
  remember: false,
};
const restricted: LoggedInUser = { ...admin, id: 13, roles: ["ROLE_USER", "ROLE_ADMIN"] };

const shape = (entries: NavEntry[]) =>
  entries.map((e) => (isGroup(e) ? { [e.key]: e.children.map((c) => c.href) } : e.href));

describe("side navigation", () => {
  it("desktop admin: every item, Settings with its four lists, own profile", () => {
    expect(shape(sideNav(admin, false))).toEqual([
      "/dashboard",
      "/reports",
      "/alerts",
      {
        settings: [
          "/settings/alert-settings/1",
          "/settings/test-case-group/2",
          "/settings/distribution-list/3",
          "/settings/admin-settings/4",
        ],
      },
      "/users/12",
    ]);
  });

  it("mobile admin: no Reports, Settings holds only Alert Settings", () => {
    expect(shape(sideNav(admin, true))).toEqual([
      "/dashboard",
      "/alerts",
      { settings: ["/settings/alert-settings/1"] },
      "/users/12",
    ]);
  });

  it("first role ROLE_USER: no settings sub-items", () => {
    expect(shape(sideNav(restricted, false))).toEqual(["/dashboard", "/reports", "/alerts", "/users/13"]);
  });
});

describe("mobile footer", () => {
  it("dashboard, alerts, alert settings, own user page, home", () => {
    expect(footerNav(admin).map((l) => l.href)).toEqual([
      "/dashboard",
      "/alerts",
      "/settings/alert-settings/1",
      "/users/12",
      "/",
    ]);
  });

  it("no alert settings for a user whose side menu has no Settings", () => {
    expect(footerNav(restricted).map((l) => l.href)).toEqual(["/dashboard", "/alerts", "/users/13", "/"]);
  });
});

describe("isActive", () => {
  it("matches the page and the pages under it", () => {
    expect(isActive("/dashboard", "/dashboard")).toBe(true);
    expect(isActive("/reports", "/reports/x")).toBe(true);
    expect(isActive("/reports", "/reportsx")).toBe(false);
    expect(isActive("/", "/dashboard")).toBe(false);
  });
});

describe("maintenance windows (cxwatch's API)", () => {
  it("sit under Settings after Alert Settings, on a phone too", () => {
    const settings = (mobile: boolean) =>
      (sideNav(admin, mobile, true).find((e) => e.key === "settings") as { children: { href: string }[] }).children.map(
        (c) => c.href,
      );
    expect(settings(false).slice(0, 2)).toEqual(["/settings/alert-settings/1", "/settings/maintenance"]);
    expect(settings(true)).toEqual(["/settings/alert-settings/1", "/settings/maintenance", "/settings/site"]);
  });

  it("with the site page last, for administrators on a desktop and a phone", () => {
    const settings = (mobile: boolean, flavorCxwatch: boolean) =>
      (
        sideNav(admin, mobile, flavorCxwatch).find((e) => e.key === "settings") as { children: { href: string }[] }
      ).children.map((c) => c.href);
    expect(settings(false, true).at(-1)).toBe("/settings/site");
    expect(settings(true, true).at(-1)).toBe("/settings/site");
    // A vendor's API has no site page.
    expect(settings(false, false)).not.toContain("/settings/site");
    expect(settings(true, false)).not.toContain("/settings/site");
    // Restricted users have no Settings at all.
    expect(sideNav(restricted, false, true).some((e) => e.key === "settings")).toBe(false);
  });
});
