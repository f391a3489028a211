// Everything the console keeps in the browser's local storage, in one place.
import type { LoggedInUser, TenantConfig } from "./types";

export const KEYS = {
  tenantConfig: "tenantConfig",
  user: "user",
  token: "accessToken",
  locale: "locale",
} as const;

function store(): Storage | undefined {
  try {
    return globalThis.localStorage ?? undefined;
  } catch {
    return undefined; // storage disabled by the browser
  }
}

export function readJson<T>(key: string): T | undefined {
  const raw = store()?.getItem(key);
  if (raw == null) return undefined;
  try {
    return JSON.parse(raw) as T;
  } catch {
    return undefined;
  }
}

export function writeJson(key: string, value: unknown): void {
  store()?.setItem(key, JSON.stringify(value));
}

export function readString(key: string): string | undefined {
  return store()?.getItem(key) ?? undefined;
}

export function writeString(key: string, value: string): void {
  store()?.setItem(key, value);
}

export function getToken(): string | undefined {
  return readString(KEYS.token) || undefined;
}

function isUser(value: unknown): value is LoggedInUser {
  if (!value || typeof value !== "object") return false;
  const u = value as Record<string, unknown>;
  return (
    (typeof u.id === "number" || typeof u.id === "string") &&
    typeof u.username === "string" &&
    Array.isArray(u.roles) &&
    typeof u.accessToken === "string"
  );
}

export function getUser(): LoggedInUser | undefined {
  const u = readJson<unknown>(KEYS.user);
  return isUser(u) ? u : undefined;
}

/** Stores the signed-in user and their token (the token also on its own, for the client). */
export function saveSession(user: LoggedInUser): void {
  writeJson(KEYS.user, user);
  writeString(KEYS.token, user.accessToken);
}

export function getTenantConfig(): TenantConfig | undefined {
  const c = readJson<TenantConfig>(KEYS.tenantConfig);
  return c && typeof c === "object" && typeof c.apiBaseUrl === "string" ? c : undefined;
}

export function saveTenantConfig(config: TenantConfig): void {
  writeJson(KEYS.tenantConfig, config);
}

/**
 * Sign-out and idle time-out: clears all local storage. The interface language is a choice
 * about this browser, not about the session, so it is written back.
 */
export function clearAll(): void {
  const s = store();
  if (!s) return;
  const locale = s.getItem(KEYS.locale);
  s.clear();
  if (locale) s.setItem(KEYS.locale, locale);
}
