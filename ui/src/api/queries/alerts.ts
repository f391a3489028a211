// Alert events (spec §2 'Alerts list', 'Alert details'): the paged list filtered by status, one
// event with its runs and notifications, and how many are open (the shell's Alerts entry).
import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect } from "react";
import { navBadges } from "../../lib/badges";
import { isListPage, itemsOf, type ListPage, toListPage } from "../../lib/listPage";
import { useApiFlavor } from "../../lib/tenant";
import { client } from "../index";
import type { GetQuery } from "../typed";
import type { AlertStateFilter, Handover, SpecAlertDetails, SpecAlertEvent } from "../types";

/** The status chips: Failure (7), Pass (3), Warning (4). */
export type AlertStatusId = 7 | 3 | 4;

export interface AlertListParams {
  /** 0-based, as the server counts. */
  pageNo: number;
  pageSize: number;
  status?: AlertStatusId;
  /** cxwatch's state filter: open, unacknowledged, or the caller's; ignored on a vendor's API. */
  state?: AlertStateFilter;
}

export const alertKeys = {
  all: ["alerts"] as const,
  lists: () => [...alertKeys.all, "list"] as const,
  detail: (id: number) => [...alertKeys.all, "detail", id] as const,
  open: () => [...alertKeys.all, "open"] as const,
  handover: (since: string | undefined) => [...alertKeys.all, "handover", since ?? ""] as const,
};

/** Events asked at once when the spec's API is filtered by status in the browser. */
export const SPEC_FILTER_WINDOW = 1000;

/**
 * The call of a page of events. Section 7 lists pageNo and pageSize only: under flavour "spec" a
 * status filter asks the newest SPEC_FILTER_WINDOW events and filters and pages them here.
 */
export function eventsCall(p: AlertListParams, cxwatch: boolean): GetQuery<"/alerts/events"> {
  if (cxwatch) return { pageNo: p.pageNo, pageSize: p.pageSize, status: p.status, state: p.state };
  if (p.status === undefined) return { pageNo: p.pageNo, pageSize: p.pageSize };
  return { pageNo: 0, pageSize: SPEC_FILTER_WINDOW };
}

/** One page of events, newest first; the page shown stays while the next one loads. */
export function useAlertEvents(p: AlertListParams) {
  const cxwatch = useApiFlavor() === "cxwatch";
  const query = eventsCall(p, cxwatch);
  const local = !cxwatch && p.status !== undefined;
  return useQuery({
    queryKey: [...alertKeys.lists(), query],
    queryFn: ({ signal }): Promise<ListPage<SpecAlertEvent> | SpecAlertEvent[]> =>
      client.get("/alerts/events", { signal, query }),
    placeholderData: keepPreviousData,
    select: (answer): ListPage<SpecAlertEvent> => {
      const items = itemsOf(answer);
      if (local) {
        return (
          toListPage(items, {
            pageNo: p.pageNo,
            pageSize: p.pageSize,
            filter: (e) => statusIdOf(e) === p.status,
          }) ?? { content: [], totalElements: 0 }
        );
      }
      // A page as is; an array (a vendor that ignored the paging) as one page of its own.
      return isListPage<SpecAlertEvent>(answer)
        ? { content: answer.content, totalElements: Number(answer.totalElements) || answer.content.length }
        : { content: items, totalElements: items.length };
    },
    refetchInterval: 30_000,
  });
}

/** An event's status id: its first run's (section 3), else its own. */
export function statusIdOf(e: SpecAlertEvent): number | undefined {
  return e.testRuns?.[0]?.runStatusId ?? e.statusId;
}

/** One event with its runs and the state of each notification (refreshed while some wait). */
export function useAlertEvent(id: number) {
  return useQuery({
    queryKey: alertKeys.detail(id),
    queryFn: ({ signal }): Promise<SpecAlertDetails> =>
      client.get("/alerts/events/{id}", { signal, path: { id }, quiet: true }),
    enabled: Number.isInteger(id) && id > 0,
    retry: false,
    refetchInterval: (q) => (q.state.data?.notifications?.some((n) => n.state === "queued") ? 3000 : false),
  });
}

/** How many open events the first page of `alerts/events` shows: undefined when they do not say. */
export function openOnPage(answer: ListPage<SpecAlertEvent> | SpecAlertEvent[] | undefined): number | undefined {
  const items = itemsOf(answer);
  if (!items.some((e) => typeof e.open === "boolean")) return undefined;
  return items.filter((e) => e.open === true).length;
}

/**
 * How many events are open, kept in the navigation's badges while signed in. cxwatch's API
 * counts them (`alerts/events/open`); under flavour "spec" they are counted on the first page of
 * `alerts/events` (events with `open` true), and there is no badge when the events do not say.
 */
export function useOpenAlertsBadge(signedIn: boolean) {
  const cxwatch = useApiFlavor() === "cxwatch";
  const q = useQuery({
    queryKey: [...alertKeys.open(), cxwatch],
    queryFn: ({ signal }): Promise<number | undefined> =>
      cxwatch
        ? client.get("/alerts/events/open", { signal, background: true, quiet: true }).then((o) => o?.open)
        : client
            .get("/alerts/events", {
              signal,
              background: true,
              quiet: true,
              query: { pageNo: 0, pageSize: 100 },
            })
            .then(openOnPage),
    enabled: signedIn,
    refetchInterval: 30_000,
  });
  const open = signedIn ? q.data : undefined;
  useEffect(() => {
    navBadges.set((b) => ({ ...b, alerts: open }));
  }, [open]);
}

/**
 * Acknowledges an open event (cxwatch's addition): who and when are recorded and its
 * escalation stops. The details it answers replace the cached ones; the lists are read again.
 */
export function useAcknowledgeAlert() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => client.post("/alerts/{id}/acknowledge", { path: { id } }),
    onSuccess: (d, id) => {
      qc.setQueryData(alertKeys.detail(id), d);
      return qc.invalidateQueries({ queryKey: alertKeys.lists() });
    },
  });
}

/** Adds a comment to an event through section 7's `PUT alerts/{id}`. */
export function useCommentAlert() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ id, comment }: { id: number; comment: string }) =>
      client.put("/alerts/{id}", { path: { id }, body: { comment }, quiet: true }),
    onSuccess: (d, { id }) => {
      qc.setQueryData(alertKeys.detail(id), d);
    },
  });
}

/**
 * The handover (cxwatch's addition): what opened, was acknowledged, muted or closed since
 * `since` (RFC 3339), or since the caller's previous sign-in when not given.
 */
export function useHandover(since: string | undefined, enabled: boolean) {
  return useQuery({
    queryKey: alertKeys.handover(since),
    queryFn: ({ signal }): Promise<Handover> =>
      client.get("/alerts/handover", { signal, query: since ? { since } : {} }),
    enabled,
  });
}
