// Incidents (cxwatch's addition, `alerts/incidents`): alert events that opened close together and
// share a cause, as one outage. Only under flavour "cxwatch": a vendor's API has none, and the
// screens that show them hide (docs/proxy.md).
import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useApiFlavor } from "../../lib/tenant";
import { client } from "../index";
import type { Schema } from "../types";
import { alertKeys } from "./alerts";
import { maintenanceKeys } from "./maintenance";

export type Incident = Schema<"Incident">;
export type IncidentAlert = Schema<"IncidentAlert">;
export type IncidentFilter = "open" | "resolved";

export interface IncidentListParams {
  /** 0-based, as the server counts. */
  pageNo: number;
  pageSize: number;
  state?: IncidentFilter;
}

export const incidentKeys = {
  all: ["incidents"] as const,
  lists: () => [...incidentKeys.all, "list"] as const,
  detail: (id: number) => [...incidentKeys.all, "detail", id] as const,
};

/** One page of incidents, newest first (none asked under flavour "spec"). */
export function useIncidents(p: IncidentListParams) {
  const cxwatch = useApiFlavor() === "cxwatch";
  const query = { pageNo: p.pageNo, pageSize: p.pageSize, state: p.state };
  return useQuery({
    queryKey: [...incidentKeys.lists(), query],
    queryFn: ({ signal }) => client.get("/alerts/incidents", { signal, query }),
    enabled: cxwatch,
    placeholderData: keepPreviousData,
    refetchInterval: 30_000,
  });
}

/** One incident with its alerts; `id` undefined (an alert without one, or flavour "spec"): none asked. */
export function useIncident(id: number | null | undefined) {
  const cxwatch = useApiFlavor() === "cxwatch";
  const ok = cxwatch && typeof id === "number" && Number.isInteger(id) && id > 0;
  return useQuery({
    queryKey: incidentKeys.detail(ok ? id : 0),
    queryFn: ({ signal }) => client.get("/alerts/incidents/{id}", { signal, path: { id: id as number }, quiet: true }),
    enabled: ok,
    retry: false,
    refetchInterval: 30_000,
  });
}

/** After acting on an incident: its answer cached, its alerts and the lists read again. */
function refresh(qc: ReturnType<typeof useQueryClient>, d: Incident) {
  qc.setQueryData(incidentKeys.detail(d.incidentId), d);
  void qc.invalidateQueries({ queryKey: incidentKeys.lists() });
  return qc.invalidateQueries({ queryKey: alertKeys.all });
}

/** Acknowledges every open alert of an incident. */
export function useAcknowledgeIncident() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => client.post("/alerts/incidents/{id}/acknowledge", { path: { id } }),
    onSuccess: (d) => refresh(qc, d),
  });
}

/** Mutes every open alert of an incident until `until` (each alert's test case). */
export function useMuteIncident() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ id, until }: { id: number; until: string }) =>
      client.post("/alerts/incidents/{id}/mute", { path: { id }, body: { until } }),
    onSuccess: (d) => {
      void qc.invalidateQueries({ queryKey: maintenanceKeys.all });
      return refresh(qc, d);
    },
  });
}
