// The signed-in user: kept in local storage, observed by the shell and the routes.

import { navigate } from "wouter/use-browser-location";
import { dismissAll } from "./banners";
import { clearAll, getToken, getUser, saveSession } from "./storage";
import { createStore } from "./store";
import { hasCxwatchApi } from "./tenant";
import type { LoggedInUser } from "./types";

export const session = createStore<LoggedInUser | undefined>(getUser());

/** First role ROLE_USER means restricted (spec §3, §6). */
export function isRestricted(user: LoggedInUser | undefined): boolean {
  return !user || user.roles[0] === "ROLE_USER";
}

/** Anyone whose accessType is not 'read-write' is read-only (spec §6). */
export function canWrite(user: LoggedInUser | undefined): boolean {
  return !!user && user.accessType === "read-write" && user.kiosk !== true;
}

export function startSession(user: LoggedInUser): void {
  saveSession(user);
  session.set(user);
  // A kiosk session is for a wall display: it opens the dashboard's wall mode.
  navigate(user.kiosk ? "/dashboard?wall=1" : "/dashboard", { replace: true });
}

/** A kiosk session (a wall display) is never signed out when idle; everyone else is (spec §4). */
export function signsOutWhenIdle(user: LoggedInUser | undefined): boolean {
  return !!user && user.kiosk !== true;
}

/** Ends the session locally: clears local storage and returns to the login page. */
export function endSession(): void {
  clearAll();
  session.set(undefined);
  navigate("/", { replace: true });
}

/**
 * Sign out (the menu item, and the idle time-out): ends the session here at once; the hooks
 * tell the server, best effort, so the token stops working there too.
 */
export function signOut(): void {
  const token = getToken();
  const sso = takeSsoSession();
  dismissAll();
  endSession();
  const pending = token ? [...signOutHooks].map((hook) => hook(token)) : [];
  // Signed in through the identity provider: end that session too when it offers
  // RP-initiated logout (the server sends the browser there, or back to /login), once the
  // hooks are done (leaving the page would cancel the server's sign-out). Not after an idle
  // sign-out, whose login page says why the user is there.
  // Under flavour "spec" there is no such server call: the sign-out is local only.
  if (sso && !idleNoted() && hasCxwatchApi()) {
    void Promise.allSettled(pending).then(() => window.location.assign(SSO_LOGOUT_PATH));
  }
}

const SSO_KEY = "cxwatch.ssoSession";
/** The server's address that goes on to the identity provider's logout. */
export const SSO_LOGOUT_PATH = "/api/auth/sso/logout";

/** Notes that this session came from single sign-on (the /callback page). */
export function markSsoSession(): void {
  try {
    sessionStorage.setItem(SSO_KEY, "1");
  } catch {
    // No session storage: sign-out then only ends the console session.
  }
}

function takeSsoSession(): boolean {
  try {
    const was = sessionStorage.getItem(SSO_KEY) === "1";
    sessionStorage.removeItem(SSO_KEY);
    return was;
  } catch {
    return false;
  }
}

function idleNoted(): boolean {
  try {
    return sessionStorage.getItem(IDLE_KEY) === "1";
  } catch {
    return false;
  }
}

/**
 * What else a sign-out does with the token that ended (the app tells the server, and drops
 * its cached answers). Registered from above, so that this module imports nothing above lib/.
 */
export const signOutHooks = new Set<(token: string) => void | Promise<void>>();

const IDLE_KEY = "cxwatch.signedOutIdle";

/** Remembers, for the login page that follows, that the sign-out came from the idle time-out. */
export function noteIdleSignOut(): void {
  try {
    sessionStorage.setItem(IDLE_KEY, "1");
  } catch {
    // No session storage: the login page then says nothing.
  }
}

/** True once after an idle sign-out (the login page says why the user is there). */
export function takeIdleSignOut(): boolean {
  try {
    const was = sessionStorage.getItem(IDLE_KEY) === "1";
    sessionStorage.removeItem(IDLE_KEY);
    return was;
  } catch {
    return false;
  }
}

const ROLE_KEY = "cxwatch.signedOutRoleChanged";

/**
 * Remembers, for the login page that follows, that the session ended because the user's own
 * role or access changed (the server ends every session of such a user).
 */
export function noteRoleChangeSignOut(): void {
  try {
    sessionStorage.setItem(ROLE_KEY, "1");
  } catch {
    // No session storage: the login page then says nothing.
  }
}

/** True once after a sign-out for a changed role or access. */
export function takeRoleChangeSignOut(): boolean {
  try {
    const was = sessionStorage.getItem(ROLE_KEY) === "1";
    sessionStorage.removeItem(ROLE_KEY);
    return was;
  } catch {
    return false;
  }
}
