// Issue-tracker tickets (spec §7 'Issue-tracker calls'): whether a Jira is configured, its
// people, projects and statuses, one ticket, and the create and edit forms (multipart: a
// `data` JSON part and an optional `file`).
import { keepPreviousData, useQuery, useQueryClient } from "@tanstack/react-query";
import { type ListPage, toListPage } from "../../lib/listPage";
import { session } from "../../lib/session";
import { useStore } from "../../lib/store";
import { hasCxwatchApi, useApiFlavor } from "../../lib/tenant";
import { client } from "../index";
import type { AutoTicket, IssueData, IssueKey, JiraSettings, JiraUser, ReportSave, WaitingAutoTicket } from "../types";

export const jiraKeys = {
  all: ["jira"] as const,
  config: () => [...jiraKeys.all, "config"] as const,
  users: () => [...jiraKeys.all, "users"] as const,
  projects: () => [...jiraKeys.all, "projects"] as const,
  statuses: () => [...jiraKeys.all, "statuses"] as const,
  issue: (key: string) => [...jiraKeys.all, "issue", key] as const,
  autoTickets: (settingId: number, pageNo: number, pageSize: number) =>
    [...jiraKeys.all, "auto", settingId, pageNo, pageSize] as const,
  waiting: (settingId: number) => [...jiraKeys.all, "waiting", settingId] as const,
};

/**
 * Whether the console has a Jira: the ticket controls are hidden without one. cxwatch's API says
 * so at `jira/v1/config`; under flavour "spec" (no such call) the issue tracker is there when
 * section 7's `GET jira/v1/projects?username=` answers 2xx, and its projects are kept for the
 * ticket dialog.
 */
export function useJiraConfig() {
  const cxwatch = useApiFlavor() === "cxwatch";
  const username = useStore(session)?.username ?? "";
  const qc = useQueryClient();
  return useQuery({
    queryKey: [...jiraKeys.config(), cxwatch],
    queryFn: ({ signal }): Promise<JiraSettings> =>
      cxwatch
        ? client.get("/jira/v1/config", { signal, quiet: true })
        : client.get("/jira/v1/projects", { signal, quiet: true, background: true, query: { username } }).then(
            (projects) => {
              if (Array.isArray(projects)) qc.setQueryData(jiraKeys.projects(), projects);
              return { configured: true };
            },
            () => ({ configured: false }),
          ),
    staleTime: 5 * 60 * 1000,
  });
}

/** Everyone tickets can be assigned to or mention. A failure is only logged (spec §8). */
export function useJiraUsers(username: string, enabled = true) {
  return useQuery({
    queryKey: jiraKeys.users(),
    enabled,
    queryFn: ({ signal }) =>
      client.get("/jira/v1/users", { signal, quiet: true, query: { username: "" } }).catch((e) => {
        console.error("Jira users could not be loaded", username, e);
        return [] as JiraUser[];
      }),
    staleTime: 60 * 1000,
  });
}

export function useJiraProjects(username: string, enabled = true) {
  return useQuery({
    queryKey: jiraKeys.projects(),
    enabled,
    queryFn: ({ signal }) => client.get("/jira/v1/projects", { signal, query: { username } }),
    staleTime: 60 * 1000,
  });
}

export function useJiraStatuses(username: string, enabled = true) {
  return useQuery({
    queryKey: jiraKeys.statuses(),
    enabled,
    queryFn: ({ signal }) => client.get("/jira/v1/issueStatus", { signal, query: { username } }),
    staleTime: 60 * 1000,
  });
}

export function useJiraIssue(key: string | null | undefined, username: string) {
  return useQuery({
    queryKey: jiraKeys.issue(key ?? ""),
    enabled: !!key,
    queryFn: ({ signal }) => client.get("/jira/v1/issue", { signal, query: { username, issueId: key ?? "" } }),
  });
}

function formOf(data: IssueData, file: File | null): FormData {
  const form = new FormData();
  form.append("data", new Blob([JSON.stringify(data)], { type: "application/json" }));
  if (file) form.append("file", file, file.name);
  return form;
}

/** Opens a ticket; answers its key. Failures are the caller's to show (quiet). */
export function createIssue(data: IssueData, file: File | null): Promise<IssueKey> {
  return client.post("/jira/v1/issue", { body: formOf(data, file), quiet: true });
}

/**
 * Stores a new ticket's key on what it was opened for, with section 4's follow-up call: the
 * report (`PUT reports/{id}` with the report and `jiraTicket`) or the alert (`PUT alerts/{id}`
 * with `{jiraTicket}`). cxwatch's API stores it itself when the ticket is created, so this is
 * for flavour "spec" only (a vendor keeps nothing server-side).
 */
export async function keepTicketKey(target: { reportId?: number; alertId?: number }, key: string): Promise<void> {
  if (!key || hasCxwatchApi()) return;
  if (target.reportId !== undefined) {
    const id = target.reportId;
    const report = await client.get("/reports/{id}", { path: { id } });
    // The report as it was read (a vendor's may carry fields of its own), with the ticket.
    const body = { ...(report as object), id, jiraTicket: key } as unknown as ReportSave;
    await client.put("/reports/{id}", { path: { id }, body });
  } else if (target.alertId !== undefined) {
    await client.put("/alerts/{id}", { path: { id: target.alertId }, body: { jiraTicket: key } });
  }
}

export function updateIssue(key: string, username: string, data: IssueData, file: File | null): Promise<IssueKey> {
  return client.put("/jira/v1/issue", { body: formOf(data, file), quiet: true, query: { username, issueId: key } });
}

/** Changes a ticket the alert engine opened; the server also keeps its description on the alert. */
export function updateAutoTicket(id: number, data: IssueData, file: File | null): Promise<IssueKey> {
  return client.put("/autojiraticket/{id}", { path: { id }, body: formOf(data, file), quiet: true });
}

/**
 * The tickets the alert engine opened for setting `settingId`, newest first, one page. Under
 * flavour "spec" the call carries no paging (section 7 lists none) and its list is paged here.
 */
export function useAutoTickets(settingId: number, pageNo: number, pageSize: number) {
  const cxwatch = useApiFlavor() === "cxwatch";
  return useQuery({
    queryKey: cxwatch ? jiraKeys.autoTickets(settingId, pageNo, pageSize) : [...jiraKeys.all, "auto", settingId, "all"],
    queryFn: ({ signal }): Promise<AutoTicket[] | ListPage<AutoTicket>> =>
      client.get("/alerts/autojiraticket/{alertSettingId}", {
        signal,
        path: { alertSettingId: settingId },
        query: cxwatch ? { pageNo, pageSize } : undefined,
      }),
    select: (answer): ListPage<AutoTicket> =>
      toListPage(answer, {
        pageNo,
        pageSize,
        sort: { field: "alertTime", dir: "desc" },
        sortValue: (a) => Date.parse(String(a.alertTime ?? "")) || undefined,
      }) ?? { content: [], totalElements: 0 },
    enabled: Number.isInteger(settingId) && settingId > 0,
    placeholderData: keepPreviousData,
  });
}

/**
 * The tickets of setting `settingId` the alert engine has not opened yet, with why the last
 * attempt failed (cxwatch's `alerts/autojiraticket/{id}/waiting`). A vendor's API has
 * no such call: under flavour "spec" nothing is asked and the list is empty. Refreshed every
 * 30 s while shown, as the engine retries.
 */
export function useWaitingAutoTickets(settingId: number) {
  const cxwatch = useApiFlavor() === "cxwatch";
  return useQuery({
    queryKey: jiraKeys.waiting(settingId),
    enabled: cxwatch && Number.isInteger(settingId) && settingId > 0,
    queryFn: ({ signal }): Promise<WaitingAutoTicket[]> =>
      client.get("/alerts/autojiraticket/{alertSettingId}/waiting", {
        signal,
        quiet: true,
        background: true,
        path: { alertSettingId: settingId },
      }),
    refetchInterval: 30 * 1000,
  });
}
