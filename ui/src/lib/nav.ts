// What the side navigation and the mobile footer hold, per user and screen size (spec §2).
import type { MessageDescriptor } from "@lingui/core";
import { msg } from "@lingui/core/macro";
import { isRestricted } from "./session";
import type { LoggedInUser } from "./types";

export type NavIcon =
  | "dashboard"
  | "reports"
  | "alerts"
  | "settings"
  | "alertSettings"
  | "groups"
  | "distribution"
  | "admin"
  | "maintenance"
  | "site"
  | "user"
  | "home"
  | "signout";

export interface NavLink {
  key: string;
  label: MessageDescriptor;
  icon: NavIcon;
  href: string;
}

export interface NavGroup {
  key: string;
  label: MessageDescriptor;
  icon: NavIcon;
  children: NavLink[];
}

export type NavEntry = NavLink | NavGroup;

export const isGroup = (e: NavEntry): e is NavGroup => "children" in e;

export const ROUTES = {
  home: "/",
  dashboard: "/dashboard",
  reports: "/reports",
  alerts: "/alerts",
  alertSettings: "/settings/alert-settings/1",
  testCaseGroups: "/settings/test-case-group/2",
  distributionLists: "/settings/distribution-list/3",
  adminSettings: "/settings/admin-settings/4",
  maintenance: "/settings/maintenance",
  site: "/settings/site",
  user: (id: number | string) => `/users/${id}`,
} as const;

const alertSettings: NavLink = {
  key: "alert-settings",
  label: msg`Alert Settings`,
  icon: "alertSettings",
  href: ROUTES.alertSettings,
};

const maintenanceLink: NavLink = {
  key: "maintenance",
  label: msg`Maintenance Windows`,
  icon: "maintenance",
  href: ROUTES.maintenance,
};

const siteLink: NavLink = {
  key: "site",
  label: msg`Site`,
  icon: "site",
  href: ROUTES.site,
};

/**
 * The side navigation: Dashboard, Reports (not on mobile), Alerts, Settings (its sub-items only
 * when the first role is not ROLE_USER; on mobile only Alert Settings), User Profile. Settings
 * is left out when it would hold nothing. Sign out is a button the shell adds. With
 * `maintenance` (cxwatch's own API), Settings also holds Maintenance Windows, after
 * Alert Settings, on a phone too, and, for administrators, Site (the first-run
 * checklist, engine keys, outbound channels and the audit log), last.
 */
export function sideNav(user: LoggedInUser | undefined, mobile: boolean, maintenance = false): NavEntry[] {
  const entries: NavEntry[] = [{ key: "dashboard", label: msg`Dashboard`, icon: "dashboard", href: ROUTES.dashboard }];
  if (!mobile) {
    entries.push({ key: "reports", label: msg`Reports`, icon: "reports", href: ROUTES.reports });
  }
  entries.push({ key: "alerts", label: msg`Alerts`, icon: "alerts", href: ROUTES.alerts });
  if (!isRestricted(user)) {
    const children: NavLink[] = mobile
      ? [alertSettings]
      : [
          alertSettings,
          {
            key: "test-case-groups",
            label: msg`Test Cases Groups`,
            icon: "groups",
            href: ROUTES.testCaseGroups,
          },
          {
            key: "distribution-list",
            label: msg`Distribution List`,
            icon: "distribution",
            href: ROUTES.distributionLists,
          },
          {
            key: "admin-settings",
            label: msg`Admin Settings`,
            icon: "admin",
            href: ROUTES.adminSettings,
          },
        ];
    if (maintenance) children.splice(1, 0, maintenanceLink);
    if (maintenance) children.push(siteLink);
    entries.push({ key: "settings", label: msg`Settings`, icon: "settings", children });
  }
  if (user) {
    entries.push({
      key: "profile",
      label: msg`User Profile`,
      icon: "user",
      href: ROUTES.user(user.id),
    });
  }
  return entries;
}

/**
 * The mobile footer menu: dashboard, alerts, alert settings, own user page, home. Alert
 * settings only for whom the side menu offers Settings (not a restricted user).
 */
export function footerNav(user: LoggedInUser | undefined): NavLink[] {
  const links: NavLink[] = [
    { key: "dashboard", label: msg`Dashboard`, icon: "dashboard", href: ROUTES.dashboard },
    { key: "alerts", label: msg`Alerts`, icon: "alerts", href: ROUTES.alerts },
  ];
  if (!isRestricted(user)) links.push(alertSettings);
  if (user) {
    links.push({ key: "profile", label: msg`Profile`, icon: "user", href: ROUTES.user(user.id) });
  }
  links.push({ key: "home", label: msg`Home`, icon: "home", href: ROUTES.home });
  return links;
}

/** Whether a link is the current page (a settings list matches whatever its id). */
export function isActive(href: string, location: string): boolean {
  if (href === "/") return location === "/";
  return location === href || location.startsWith(`${href}/`);
}
