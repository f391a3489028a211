// The tenant config: fetched once from `/tenant-config?ac=<host>` when nothing is stored, then
// kept in local storage. It gives the API base address, the single sign-on address, the
// site's time zone and what the API behind the console offers (its flavour).

import { getTenantConfig, saveTenantConfig } from "./storage";
import { createStore, useStore } from "./store";
import type { ApiFlavor, TenantConfig } from "./types";

export const DEFAULT_API_BASE = "/api";
/** Spec §9: times are shown in the Toronto time zone unless the server names the site's. */
export const DEFAULT_TIME_ZONE = "America/Toronto";

const knownZones = new Map<string, boolean>();

/** True for a time zone name this browser knows (e.g. 'Europe/Paris'). Remembered: it is asked often. */
export function isTimeZone(name: string): boolean {
  let known = knownZones.get(name);
  if (known === undefined) {
    try {
      new Intl.DateTimeFormat("en", { timeZone: name });
      known = true;
    } catch {
      known = false;
    }
    knownZones.set(name, known);
  }
  return known;
}

export const tenant = createStore<TenantConfig>(getTenantConfig() ?? { apiBaseUrl: DEFAULT_API_BASE });

/** The flavour a tenant config names: "cxwatch" only when it says so, "spec" otherwise. */
export function flavorOf(value: unknown): ApiFlavor {
  return value === "cxwatch" ? "cxwatch" : "spec";
}

function parse(body: unknown): TenantConfig | undefined {
  if (!body || typeof body !== "object") return undefined;
  const env = body as { code?: unknown; data?: unknown };
  if (!env.data || typeof env.data !== "object" || Array.isArray(env.data)) return undefined;
  const d = env.data as Record<string, unknown>;
  const str = (v: unknown) => (typeof v === "string" && v.trim() ? v.trim() : undefined);
  const zone = str(d.timezone);
  return {
    name: str(d.name),
    host: str(d.host),
    apiBaseUrl: str(d.apiBaseUrl) ?? DEFAULT_API_BASE,
    ssoUrl: str(d.ssoUrl) ?? null,
    version: str(d.version),
    timezone: zone && isTimeZone(zone) ? zone : null,
    apiFlavor: flavorOf(d.apiFlavor),
  };
}

/**
 * Returns the stored tenant config, or fetches and stores it. When the fetch fails, the
 * defaults are used for this visit and nothing is stored, so the next load asks again. A value
 * stored by an older console (without `timezone` or `apiFlavor`) is asked for again, and kept if
 * that fails.
 */
export async function loadTenantConfig(fetchFn: typeof fetch, host: string, timeoutMs = 30000): Promise<TenantConfig> {
  const stored = getTenantConfig();
  if (stored && stored.timezone !== undefined && stored.apiFlavor !== undefined) {
    tenant.set(stored);
    return stored;
  }
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  try {
    const res = await fetchFn(`/tenant-config?ac=${encodeURIComponent(host)}`, {
      headers: { Accept: "application/json" },
      signal: controller.signal,
    });
    const config = res.ok ? parse(await res.json()) : undefined;
    if (config) {
      saveTenantConfig(config);
      tenant.set(config);
      return config;
    }
  } catch {
    // Unreachable or not JSON: fall through to what there is.
  } finally {
    clearTimeout(timer);
  }
  if (stored) tenant.set(stored);
  return tenant.get();
}

/** The site's time zone: the tenant config's, else America/Toronto. */
export function timeZoneOf(config: TenantConfig): string {
  const z = config.timezone;
  return z && isTimeZone(z) ? z : DEFAULT_TIME_ZONE;
}

export function siteTimeZone(): string {
  return timeZoneOf(tenant.get());
}

/** The site's time zone, for components. */
export function useSiteTimeZone(): string {
  return timeZoneOf(useStore(tenant));
}

/**
 * What the API behind the console offers: "cxwatch" when the tenant config says so, "spec"
 * otherwise (absent, unknown, or not loaded). Capabilities are learnt from this one answer,
 * never from failing calls.
 */
export function apiFlavor(): ApiFlavor {
  return flavorOf(tenant.get().apiFlavor);
}

/** True when cxwatch's own additions (live stream, server paging, groups/recent ...) exist. */
export function hasCxwatchApi(): boolean {
  return apiFlavor() === "cxwatch";
}

/** The API's flavour, for components. */
export function useApiFlavor(): ApiFlavor {
  return flavorOf(useStore(tenant).apiFlavor);
}

export function apiBaseUrl(): string {
  return tenant.get().apiBaseUrl || DEFAULT_API_BASE;
}

/** The single sign-on address with the console's `/callback` as its return URL. */
export function ssoRedirectUrl(ssoUrl: string, origin: string): string {
  const url = new URL(ssoUrl, origin);
  url.searchParams.set("redirect_uri", `${origin.replace(/\/+$/, "")}/callback`);
  return url.toString();
}
