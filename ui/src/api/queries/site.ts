// The site page (cxwatch's addition): the first-run checklist's counts, the
// test engines' API keys (made, listed, revoked), the outbound channels with their test, and the
// audit log, paged and searched by the server. None of it exists in a vendor's API (section 7):
// the page and its menu entry show only under flavour "cxwatch".
import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useApiFlavor } from "../../lib/tenant";
import { client } from "../index";
import type { ApiKeyCreated, SiteChannelKind, SiteChannelTested } from "../types";

export const siteKeys = {
  all: ["site"] as const,
  checklist: () => [...siteKeys.all, "checklist"] as const,
  apiKeys: () => [...siteKeys.all, "apikeys"] as const,
  channels: () => [...siteKeys.all, "channels"] as const,
  audit: (p: AuditParams) => [...siteKeys.all, "audit", p] as const,
};

/** Whether the API offers the site page (cxwatch's own). */
export function useHasSite(): boolean {
  return useApiFlavor() === "cxwatch";
}

/** Asked again this often while the engines have posted no run yet, so the first one shows. */
export const WAIT_FOR_RUN_MS = 3000;

/** How many keys, runs, groups, lists and alert settings exist. */
export function useSiteChecklist(enabled = true) {
  const has = useHasSite();
  return useQuery({
    queryKey: siteKeys.checklist(),
    queryFn: ({ signal }) => client.get("/site/checklist", { signal, background: true }),
    enabled: has && enabled,
    staleTime: 0,
    refetchInterval: (q) => (q.state.data && q.state.data.runs === 0 ? WAIT_FOR_RUN_MS : false),
  });
}

export function useApiKeys() {
  const has = useHasSite();
  return useQuery({
    queryKey: siteKeys.apiKeys(),
    queryFn: ({ signal }) => client.get("/site/apikeys", { signal }),
    enabled: has,
  });
}

/** Makes a key; its failures (a name taken) are the form's to show. */
export function useCreateApiKey() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (name: string): Promise<ApiKeyCreated> => client.post("/site/apikeys", { body: { name }, quiet: true }),
    onSuccess: () => qc.invalidateQueries({ queryKey: siteKeys.all }),
  });
}

export function useRevokeApiKey() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (name: string) => client.remove("/site/apikeys/{name}", { path: { name } }),
    onSuccess: () => qc.invalidateQueries({ queryKey: siteKeys.all }),
  });
}

export function useSiteChannels() {
  const has = useHasSite();
  return useQuery({
    queryKey: siteKeys.channels(),
    queryFn: ({ signal }) => client.get("/site/channels", { signal }),
    enabled: has,
  });
}

/** Tests a channel; the failure is the dialog's to show. */
export function useTestChannel() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ channel, to }: { channel: SiteChannelKind; to?: string }): Promise<SiteChannelTested> =>
      client.post("/site/channels/{channel}/test", {
        path: { channel },
        body: to ? { to } : {},
        quiet: true,
        timeoutMs: 30000,
      }),
    onSettled: () => qc.invalidateQueries({ queryKey: siteKeys.channels() }),
  });
}

export interface AuditParams {
  /** 0-based, as the server counts. */
  pageNo: number;
  pageSize: number;
  search?: string;
  kind?: string;
  action?: string;
  /** RFC 3339, inclusive. */
  from?: string;
  /** RFC 3339, exclusive. */
  to?: string;
}

/** One page of the audit log, newest first (read-write administrators). */
export function useAudit(p: AuditParams, enabled = true) {
  const has = useHasSite();
  return useQuery({
    queryKey: siteKeys.audit(p),
    queryFn: ({ signal }) =>
      client.get("/audit", {
        signal,
        query: {
          pageNo: p.pageNo,
          pageSize: p.pageSize,
          search: p.search || undefined,
          kind: p.kind || undefined,
          action: p.action || undefined,
          from: p.from || undefined,
          to: p.to || undefined,
        },
      }),
    placeholderData: keepPreviousData,
    enabled: has && enabled,
  });
}
