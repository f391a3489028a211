// Issue-tracker tickets (spec §7 'Issue-tracker calls'): whether a Jira is configured, its
// people, projects and statuses, one ticket, and the create and edit forms (multipart: a
// `data` JSON part and an optional `file`).
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { api } from "../index";
import type { AutoTicketPage, IssueData, IssueKey, IssueView, JiraProject, JiraSettings, JiraUser } from "../types";

export const jiraKeys = {
  all: ["jira"] as const,
  config: () => [...jiraKeys.all, "config"] as const,
  users: () => [...jiraKeys.all, "users"] as const,
  projects: () => [...jiraKeys.all, "projects"] as const,
  statuses: () => [...jiraKeys.all, "statuses"] as const,
  issue: (key: string) => [...jiraKeys.all, "issue", key] as const,
  autoTickets: (settingId: number, pageNo: number, pageSize: number) =>
    [...jiraKeys.all, "auto", settingId, pageNo, pageSize] as const,
};

/** Whether the console has a Jira: the ticket controls are hidden without one. */
export function useJiraConfig() {
  return useQuery({
    queryKey: jiraKeys.config(),
    queryFn: ({ signal }) => api.get<JiraSettings>("jira/v1/config", { signal, quiet: true }),
    staleTime: 5 * 60 * 1000,
  });
}

/** Everyone tickets can be assigned to or mention. A failure is only logged (spec §8). */
export function useJiraUsers(username: string, enabled = true) {
  return useQuery({
    queryKey: jiraKeys.users(),
    enabled,
    queryFn: ({ signal }) =>
      api.get<JiraUser[]>("jira/v1/users", { signal, quiet: true, query: { username: "" } }).catch((e) => {
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
    queryFn: ({ signal }) => api.get<JiraProject[]>("jira/v1/projects", { signal, query: { username } }),
    staleTime: 60 * 1000,
  });
}

export function useJiraStatuses(username: string, enabled = true) {
  return useQuery({
    queryKey: jiraKeys.statuses(),
    enabled,
    queryFn: ({ signal }) => api.get<string[]>("jira/v1/issueStatus", { signal, query: { username } }),
    staleTime: 60 * 1000,
  });
}

export function useJiraIssue(key: string | null | undefined, username: string) {
  return useQuery({
    queryKey: jiraKeys.issue(key ?? ""),
    enabled: !!key,
    queryFn: ({ signal }) => api.get<IssueView>("jira/v1/issue", { signal, query: { username, issueId: key ?? "" } }),
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
  return api.post<IssueKey>("jira/v1/issue", formOf(data, file), { quiet: true });
}

export function updateIssue(key: string, username: string, data: IssueData, file: File | null): Promise<IssueKey> {
  return api.put<IssueKey>("jira/v1/issue", formOf(data, file), { quiet: true, query: { username, issueId: key } });
}

/** Changes a ticket the alert engine opened; the server also keeps its description on the alert. */
export function updateAutoTicket(id: number, data: IssueData, file: File | null): Promise<IssueKey> {
  return api.put<IssueKey>(`autojiraticket/${id}`, formOf(data, file), { quiet: true });
}

/** The tickets the alert engine opened for setting `settingId`, newest first, one page. */
export function useAutoTickets(settingId: number, pageNo: number, pageSize: number) {
  return useQuery({
    queryKey: jiraKeys.autoTickets(settingId, pageNo, pageSize),
    queryFn: ({ signal }) =>
      api.get<AutoTicketPage>(`alerts/autojiraticket/${settingId}`, { signal, query: { pageNo, pageSize } }),
    enabled: Number.isInteger(settingId) && settingId > 0,
    placeholderData: keepPreviousData,
  });
}
