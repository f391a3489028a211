// Maintenance windows (cxwatch's addition): the paged list, one window, save, end
// early, the dashboard's banner (`maintenance/now`) and the mute of an alert. None of it exists
// in a vendor's API (section 7): the screens that use it show only under flavour "cxwatch".
import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useApiFlavor } from "../../lib/tenant";
import { client } from "../index";
import type { MaintenanceWindow, MaintenanceWindowSave, MuteTarget } from "../types";
import { alertKeys } from "./alerts";
import { groupKeys } from "./groups";

export interface WindowListParams {
  /** 0-based, as the server counts. */
  pageNo: number;
  pageSize: number;
}

export const maintenanceKeys = {
  all: ["maintenance"] as const,
  lists: () => [...maintenanceKeys.all, "list"] as const,
  detail: (id: number) => [...maintenanceKeys.all, "detail", id] as const,
  now: () => [...maintenanceKeys.all, "now"] as const,
};

/** Whether the API offers maintenance windows (cxwatch's own). */
export function useHasMaintenance(): boolean {
  return useApiFlavor() === "cxwatch";
}

/** One page of windows, newest first. */
export function useMaintenanceWindows(p: WindowListParams) {
  const enabled = useHasMaintenance();
  return useQuery({
    queryKey: [...maintenanceKeys.lists(), p.pageNo, p.pageSize],
    queryFn: ({ signal }) =>
      client.get("/maintenance/windows", { signal, query: { pageNo: p.pageNo, pageSize: p.pageSize } }),
    placeholderData: keepPreviousData,
    enabled,
  });
}

/** One window; id 0 (a new one) asks for nothing. */
export function useMaintenanceWindow(id: number) {
  return useQuery({
    queryKey: maintenanceKeys.detail(id),
    queryFn: ({ signal }) => client.get("/maintenance/windows/{id}", { signal, path: { id }, quiet: true }),
    enabled: id > 0,
    staleTime: 0,
  });
}

/** Creates (no id) or replaces a window; field failures are the form's to show. */
export function useSaveWindow() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ id, body }: { id: number; body: MaintenanceWindowSave }): Promise<MaintenanceWindow> =>
      id
        ? client.put("/maintenance/windows/{id}", { path: { id }, body, quiet: true })
        : client.post("/maintenance/windows", { body, quiet: true }),
    onSuccess: (w) => {
      qc.setQueryData(maintenanceKeys.detail(w.id), w);
      return qc.invalidateQueries({ queryKey: maintenanceKeys.all });
    },
  });
}

/** Ends a window now. */
export function useEndWindow() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => client.post("/maintenance/windows/{id}/end", { path: { id } }),
    onSuccess: () => qc.invalidateQueries({ queryKey: maintenanceKeys.all }),
  });
}

/** The windows covering now and those starting within 24 hours (the dashboard's banner). */
export function useMaintenanceNow(enabled: boolean) {
  const has = useHasMaintenance();
  return useQuery({
    queryKey: maintenanceKeys.now(),
    queryFn: ({ signal }) => client.get("/maintenance/now", { signal, background: true, quiet: true }),
    enabled: enabled && has,
    refetchInterval: 60_000,
  });
}

/**
 * Mutes an open alert until `until`: an ad-hoc window on its test case or its whole group; a
 * live mute of the same thing is extended instead (the answer says `extended`).
 */
export function useMuteAlert() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ id, until, target }: { id: number; until: string; target?: MuteTarget }) =>
      client.post("/alerts/{id}/mute", { path: { id }, body: { until, target } }),
    onSuccess: (_, { id }) => {
      void qc.invalidateQueries({ queryKey: alertKeys.detail(id) });
      void qc.invalidateQueries({ queryKey: groupKeys.all });
      return qc.invalidateQueries({ queryKey: maintenanceKeys.all });
    },
  });
}

/** Ends an alert's active mute now (its window), and reads the alert again. */
export function useUnmuteAlert() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ windowId }: { id: number; windowId: number }) =>
      client.post("/maintenance/windows/{id}/end", { path: { id: windowId } }),
    onSuccess: (_, { id }) => {
      void qc.invalidateQueries({ queryKey: alertKeys.detail(id) });
      void qc.invalidateQueries({ queryKey: groupKeys.all });
      return qc.invalidateQueries({ queryKey: maintenanceKeys.all });
    },
  });
}
