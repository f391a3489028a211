// The dashboard's calls (spec §7 'Groups and metrics'). Lists are read from the response data;
// a paged answer ({content: [...]}) is read the same way.
import { api, type RequestOptions } from "../../api";
import type { GroupMetric } from "../../api/types";
import type { ChannelHealth, ClientAppHealth } from "./health";
import type { RunType } from "./prefs";
import type { GroupInfo } from "./rows";

function listOf<T>(data: unknown): T[] {
  if (Array.isArray(data)) return data as T[];
  if (data && typeof data === "object" && Array.isArray((data as { content?: unknown }).content)) {
    return (data as { content: T[] }).content;
  }
  return [];
}

export async function fetchGroups(opts: RequestOptions = {}): Promise<GroupInfo[]> {
  const data = await api.get<unknown>("trs/v1/groups", opts);
  return listOf<{ id: number; name?: string | null; channel?: string | null }>(data)
    .filter((g) => g && Number.isInteger(g.id))
    .map((g) => ({ id: g.id, name: g.name ?? String(g.id), channel: g.channel ?? "" }));
}

export async function fetchHealth(opts: RequestOptions = {}): Promise<ChannelHealth[]> {
  const data = await api.get<unknown>("trs/v1/groups/health", opts);
  return listOf<{ channel: string; clientApps?: ClientAppHealth[] | null }>(data).map((h) => ({
    channel: h.channel,
    clientApps: listOf<ClientAppHealth>(h.clientApps),
  }));
}

export async function fetchGroupMetric(
  groupId: number,
  startDate: string,
  runType: RunType,
  opts: RequestOptions = {},
): Promise<GroupMetric[]> {
  const data = await api.get<unknown>(`trs/v1/groups/${groupId}/metric`, {
    ...opts,
    query: { level: "case", startDate, caseRunType: runType },
  });
  return listOf<GroupMetric>(data);
}
