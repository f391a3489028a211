// Alert events (spec §2 'Alerts list', 'Alert details'): the paged list filtered by status, one
// event with its runs and notifications, and how many are open (the shell's Alerts entry).
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useEffect } from "react";
import { navBadges } from "../../lib/badges";
import { api } from "../index";
import type { AlertDetails, AlertEventPage, OpenAlerts } from "../types";

/** The status chips: Failure (7), Pass (3), Warning (4). */
export type AlertStatusId = 7 | 3 | 4;

export interface AlertListParams {
  /** 0-based, as the server counts. */
  pageNo: number;
  pageSize: number;
  status?: AlertStatusId;
}

export const alertKeys = {
  all: ["alerts"] as const,
  lists: () => [...alertKeys.all, "list"] as const,
  list: (p: AlertListParams) => [...alertKeys.lists(), p] as const,
  detail: (id: number) => [...alertKeys.all, "detail", id] as const,
  open: () => [...alertKeys.all, "open"] as const,
};

/** One page of events, newest first; the page shown stays while the next one loads. */
export function useAlertEvents(p: AlertListParams) {
  return useQuery({
    queryKey: alertKeys.list(p),
    queryFn: ({ signal }) =>
      api.get<AlertEventPage>("alerts/events", {
        signal,
        query: { pageNo: p.pageNo, pageSize: p.pageSize, status: p.status },
      }),
    placeholderData: keepPreviousData,
    refetchInterval: 30_000,
  });
}

/** One event with its runs and the state of each notification (refreshed while some wait). */
export function useAlertEvent(id: number) {
  return useQuery({
    queryKey: alertKeys.detail(id),
    queryFn: ({ signal }) => api.get<AlertDetails>(`alerts/events/${id}`, { signal, quiet: true }),
    enabled: Number.isInteger(id) && id > 0,
    retry: false,
    refetchInterval: (q) => (q.state.data?.notifications.some((n) => n.state === "queued") ? 3000 : false),
  });
}

/** How many events are open, kept in the navigation's badges while signed in. */
export function useOpenAlertsBadge(signedIn: boolean) {
  const q = useQuery({
    queryKey: alertKeys.open(),
    queryFn: ({ signal }) => api.get<OpenAlerts>("alerts/events/open", { signal, background: true, quiet: true }),
    enabled: signedIn,
    refetchInterval: 30_000,
  });
  const open = signedIn ? q.data?.open : undefined;
  useEffect(() => {
    navBadges.set((b) => ({ ...b, alerts: open }));
  }, [open]);
}
