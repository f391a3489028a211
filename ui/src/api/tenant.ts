// The tenant config: fetched once from `/tenant-config?ac=<host>` when nothing is stored, then
// kept in local storage. It gives the API base address and the single sign-on address.
import { createStore } from "../app/store";
import { getTenantConfig, saveTenantConfig } from "./storage";
import type { TenantConfig } from "./types";

export const DEFAULT_API_BASE = "/api";

export const tenant = createStore<TenantConfig>(
  getTenantConfig() ?? { apiBaseUrl: DEFAULT_API_BASE },
);

function parse(body: unknown): TenantConfig | undefined {
  if (!body || typeof body !== "object") return undefined;
  const env = body as { code?: unknown; data?: unknown };
  if (env.code !== "OK" || !env.data || typeof env.data !== "object") return undefined;
  const d = env.data as Record<string, unknown>;
  const str = (v: unknown) => (typeof v === "string" && v.trim() ? v.trim() : undefined);
  return {
    name: str(d.name),
    host: str(d.host),
    apiBaseUrl: str(d.apiBaseUrl) ?? DEFAULT_API_BASE,
    ssoUrl: str(d.ssoUrl) ?? null,
    version: str(d.version),
  };
}

/**
 * Returns the stored tenant config, or fetches and stores it. When the fetch fails, the
 * defaults are used for this visit and nothing is stored, so the next load asks again.
 */
export async function loadTenantConfig(
  fetchFn: typeof fetch,
  host: string,
  timeoutMs = 30000,
): Promise<TenantConfig> {
  const stored = getTenantConfig();
  if (stored) {
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
    // Unreachable or not JSON: fall through to the defaults.
  } finally {
    clearTimeout(timer);
  }
  return tenant.get();
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
