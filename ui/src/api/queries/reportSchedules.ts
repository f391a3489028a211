// Scheduled report mail (cxwatch's addition; the vendor's API has none, so screens offer it only
// under the "cxwatch" flavour): a report's schedule, save, remove, and a copy sent now to oneself.
import { useMutation, useQuery } from "@tanstack/react-query";
import { queryClient } from "../../lib/queryClient";
import { client } from "../index";
import type { Schema } from "../types";
import { reportKeys } from "./reports";

export type ReportSchedule = Schema<"ReportSchedule">;
export type ScheduleSave = Schema<"ScheduleSave">;

export const scheduleKeys = {
  one: (id: number) => [...reportKeys.all, "schedule", id] as const,
};

/** A report's schedule (null when it has none). */
export function useReportSchedule(id: number, enabled: boolean) {
  return useQuery({
    queryKey: scheduleKeys.one(id),
    // `data` is null when the report has none (the document's envelope marks it optional).
    queryFn: ({ signal }) =>
      client
        .get("/reports/{id}/schedule", { signal, path: { id } })
        .then((answer) => answer as unknown as ReportSchedule | null),
    enabled: enabled && id > 0,
    // The dialog mounts this at each opening and starts its form from the answer: asked
    // every time, also within the cache's 30 s after a save.
    refetchOnMount: "always",
  });
}

const refresh = (id: number) => {
  void queryClient.invalidateQueries({ queryKey: scheduleKeys.one(id) });
  void queryClient.invalidateQueries({ queryKey: reportKeys.lists() });
};

export function useSaveSchedule(id: number) {
  return useMutation({
    mutationFn: (body: ScheduleSave) => client.put("/reports/{id}/schedule", { path: { id }, body, quiet: true }),
    onSuccess: () => refresh(id),
  });
}

export function useDeleteSchedule(id: number) {
  return useMutation({
    mutationFn: () => client.remove("/reports/{id}/schedule", { path: { id }, quiet: true }),
    onSuccess: () => refresh(id),
  });
}

/** Mails a copy of the report as its schedule would now, to the caller (the schedule is unchanged). */
export function useSendReportNow(id: number) {
  return useMutation({
    mutationFn: (language: "en" | "fr") =>
      client.post("/reports/{id}/schedule/send", { path: { id }, body: { language }, quiet: true }),
  });
}
