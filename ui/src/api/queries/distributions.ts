// Distribution lists (spec §7 'Distributions'): the paged list, one list, the contact types,
// save, delete, and the per-row test message (testContact).
import { useMutation, useQuery } from "@tanstack/react-query";
import { client } from "../index";
import { usePagedList } from "../lists";
import { resource } from "../resource";
import type { Distribution, DistributionDependents } from "../types";

export type DistributionSortField = "id" | "name" | "lastModifiedTime";

export interface DistributionListParams {
  /** 0-based, as the server counts. */
  pageNo: number;
  pageSize: number;
  search: string;
  /** Contact type id: 1 Email, 2 SMS, 4 Voice; cxwatch's 8 Webhook, 16 Microsoft Teams, 32 Slack, 64 Mattermost. */
  type?: 1 | 2 | 4 | 8 | 16 | 32 | 64;
  sort: { field: DistributionSortField; dir: "asc" | "desc" };
}

export const distributionKeys = {
  all: ["distributions"] as const,
  lists: () => [...distributionKeys.all, "list"] as const,
  detail: (id: number) => [...distributionKeys.all, "detail", id] as const,
  types: () => [...distributionKeys.all, "types"] as const,
};

/** One page of lists (a page of the server's, or of the whole list); the page shown stays while the next one loads. */
export function useDistributions(p: DistributionListParams) {
  return usePagedList<Distribution, "/distributions">({
    key: distributionKeys.lists(),
    path: "/distributions",
    paged: {
      pageNo: p.pageNo,
      pageSize: p.pageSize,
      search: p.search || undefined,
      type: p.type,
      sort: `${p.sort.field},${p.sort.dir}`,
    },
    local: {
      pageNo: p.pageNo,
      pageSize: p.pageSize,
      search: p.search,
      searchIn: (d) => [
        d.name,
        ...(d.label ?? []),
        ...(d.email ?? []),
        ...(d.contacts ?? []).flatMap((c) => [c.name, c.info]),
      ],
      filter: p.type ? (d) => hasContactType(d, p.type as number) : undefined,
      sort: p.sort,
    },
  });
}

/** Whether a list has a contact of type `type` (1 Email, 2 SMS, 4 Voice), from its contacts or its `type` column. */
function hasContactType(d: Distribution, type: number): boolean {
  if (Array.isArray(d.contacts) && d.contacts.length) return d.contacts.some((c) => Number(c.type) === type);
  const names: Record<number, string[]> = { 1: ["1", "email"], 2: ["2", "sms", "text/sms"], 4: ["4", "voice"] };
  return (d.type ?? []).some((t) => names[type]?.includes(String(t).toLowerCase()));
}

const lists = resource({ collection: "/distributions", item: "/distributions/{id}", keys: distributionKeys });

/** One list; id 0 (a new list) asks for nothing. */
export const useDistribution = lists.useOne;

/** Email, SMS and Voice, each saying whether a server is configured to send it. */
export function useDistributionTypes() {
  return useQuery({
    queryKey: distributionKeys.types(),
    queryFn: ({ signal }) => client.get("/distributions/types", { signal, background: true }),
    staleTime: 60_000,
  });
}

/** Creates (no id) or updates a list; field failures are the form's to show. */
export const useSaveDistribution = lists.useSave;

/** Deletes one list: true when the server answered a success (status and code), whatever the value it returns. */
export const deleteDistribution = lists.remove;

/**
 * What uses a list (cxwatch's addition: alert settings that send or escalate to it, reports
 * scheduled to it), asked before a delete is confirmed: the server refuses to delete a list in
 * use, and the screen says so before it asks 'cannot be undone'.
 */
export function distributionDependents(id: number): Promise<DistributionDependents> {
  return client.get("/distributions/{id}/dependents", { path: { id }, quiet: true });
}

/** Sends a real test message to one address or number; the row shows the outcome. */
export function useTestContact() {
  return useMutation({
    mutationFn: (
      query: Partial<Record<"email" | "sms" | "voice" | "webhook" | "teams" | "slack" | "mattermost", string>>,
    ) => client.post("/distributions/testContact", { query, quiet: true }),
  });
}
