// Authentication calls (spec §7 'Authentication').

import { hasCxwatchApi } from "../lib/tenant";
import type { LoggedInUser } from "../lib/types";
import { client } from "./index";
import type { SignedInUser } from "./types";

export interface SignInForm {
  username: string;
  password: string;
  remember: boolean;
  /** A kiosk session for a wall display (only for users an administrator allowed it). */
  kiosk?: boolean;
}

export function toLoggedInUser(r: SignedInUser, remember: boolean): LoggedInUser {
  return {
    id: r.id,
    username: r.username,
    roles: Array.isArray(r.roles) ? r.roles : [],
    accessType: r.accessType,
    accessToken: r.accessToken,
    remember,
    // Kept only for a kiosk session: the spec's logged-in user has no such field.
    ...(r.kiosk === true ? { kiosk: true } : {}),
  };
}

/** Quiet: a failed sign-in shows its own modal instead of the banner. */
export async function signIn(form: SignInForm): Promise<LoggedInUser> {
  // The spec's body, with `kiosk` only when a kiosk session is asked for.
  const { kiosk, ...body } = form;
  const r: SignedInUser = await client.post("/auth/signin", { body: kiosk ? { ...body, kiosk } : body, quiet: true });
  return toLoggedInUser(r, form.remember);
}

export async function exchangeSsoId(id: string): Promise<LoggedInUser> {
  const r: SignedInUser = await client.get("/auth/getToken", { query: { id } });
  return toLoggedInUser(r, r.remember === true);
}

/**
 * Ends the token's session on the server. Best effort, and given the token explicitly: the
 * browser's copy is cleared at once, whatever the server says. `auth/signout` is cxwatch's
 * addition: under flavour "spec" the sign-out is local only and nothing is sent.
 */
export async function signOutOnServer(token: string): Promise<void> {
  if (!hasCxwatchApi()) return;
  try {
    await client.post("/auth/signout", {
      quiet: true,
      background: true,
      timeoutMs: 5000,
      headers: { Authorization: `Bearer ${token}` },
    });
  } catch {
    // ignored
  }
}
