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
}
