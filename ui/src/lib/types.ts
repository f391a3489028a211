// Shapes the console keeps in the browser itself (local storage), not sent by the API as such.

export type Role = "ROLE_ADMIN" | "ROLE_USER";
export type AccessType = "read-write" | "read-only";

/** The logged-in user, kept in local storage (spec §3). */
export interface LoggedInUser {
  id: number;
  username: string;
  roles: Role[] | string[];
  accessType: AccessType | string;
  accessToken: string;
  remember: boolean;
  /** A kiosk session (a wall display): read-only on the server, never signed out when idle. */
  kiosk?: boolean;
}

/** The tenant config, kept in local storage. */
export interface TenantConfig {
  name?: string;
  host?: string;
  apiBaseUrl: string;
  ssoUrl?: string | null;
  version?: string;
  /**
   * IANA time zone of the site (days and hours of the metrics are counted in it); null when
   * the server did not say (e.g. a vendor's console), undefined in a value stored by an older
   * console.
   */
  timezone?: string | null;
  /**
   * What the API behind the console offers: "cxwatch" (cxwatch's own API, with its additions) or
   * "spec" (only the spec's section 7 calls, e.g. a vendor's service behind the proxy). Undefined
   * in a value stored by an older console.
   */
  apiFlavor?: ApiFlavor;
}

/** What the API behind the console offers (the tenant config's `apiFlavor`). */
export type ApiFlavor = "cxwatch" | "spec";
