// Alert settings (spec §7 'Alerts'): the paged list, one setting, the alert statuses, the
// contact groups a setting may send to, save and delete.
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { itemsOf, type ListPage } from "../../lib/listPage";
import { useApiFlavor } from "../../lib/tenant";
import { api } from "../index";
import { usePagedList } from "../lists";
import type { AlertSetting, AlertSettingSave, AlertStatus, ContactGroup } from "../types";

export type AlertSettingSortField = "id" | "name" | "testCaseGroupName" | "distributionName" | "active";

export interface AlertSettingListParams {
  /** 0-based, as the server counts. */
  pageNo: number;
  pageSize: number;
  search: string;
  sort: { field: AlertSettingSortField; dir: "asc" | "desc" };
}

export const alertSettingKeys = {
  all: ["alertSettings"] as const,
  lists: () => [...alertSettingKeys.all, "list"] as const,
  detail: (id: number) => [...alertSettingKeys.all, "detail", id] as const,
  statuses: () => [...alertSettingKeys.all, "statuses"] as const,
  contactGroups: () => [...alertSettingKeys.all, "contactGroups"] as const,
};

/** One page of settings (a page of the server's, or of the whole list); the page shown stays while the next one loads. */
export function useAlertSettings(p: AlertSettingListParams) {
  return usePagedList<AlertSetting>({
    key: alertSettingKeys.lists(),
    path: "alerts/settings",
    paged: {
      pageNo: p.pageNo,
      pageSize: p.pageSize,
      search: p.search || undefined,
      sort: `${p.sort.field},${p.sort.dir}`,
    },
    local: {
      pageNo: p.pageNo,
      pageSize: p.pageSize,
      search: p.search,
      searchIn: (a) => [a.name, a.testCaseGroupName, a.distributionName],
      sort: p.sort,
    },
  });
}

/** One setting; id 0 (a new setting) asks for nothing. */
export function useAlertSetting(id: number) {
  return useQuery({
    queryKey: alertSettingKeys.detail(id),
    queryFn: ({ signal }) => api.get<AlertSetting>(`alerts/settings/${id}`, { signal }),
    enabled: id > 0,
    staleTime: 0,
  });
}

/** Every alert status (failure 7, pass 3, warning 4). */
export function useAlertStatuses() {
  return useQuery({
    queryKey: alertSettingKeys.statuses(),
    queryFn: ({ signal }) => api.get<AlertStatus[]>("alerts/allStatus", { signal, background: true }),
    staleTime: 300_000,
  });
}

/**
 * The distribution lists a setting may send to (id, name). cxwatch's API answers them at
 * `alerts/contactGroups`; under flavour "spec" they are read from section 7's `GET distributions`.
 */
export function useContactGroups() {
  const cxwatch = useApiFlavor() === "cxwatch";
  return useQuery({
    queryKey: [...alertSettingKeys.contactGroups(), cxwatch],
    queryFn: ({ signal }): Promise<ContactGroup[]> =>
      cxwatch
        ? api.get<ContactGroup[]>("alerts/contactGroups", { signal, background: true })
        : api
            // Quiet: a read-only user may not read the lists; the select is then empty.
            .get<ContactGroup[] | ListPage<ContactGroup>>("distributions", { signal, background: true, quiet: true })
            .then(contactGroupsOf),
    staleTime: 30_000,
  });
}

/** Id and name of each list of an answer of `GET distributions` (an array or a page). */
export function contactGroupsOf(answer: ContactGroup[] | ListPage<ContactGroup> | undefined): ContactGroup[] {
  return itemsOf(answer)
    .filter((d) => d && typeof d.id === "number")
    .map((d) => ({ id: d.id, name: String(d.name ?? "") }));
}

/** Creates (no id) or updates a setting; field failures are the form's to show. */
export function useSaveAlertSetting() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: AlertSettingSave & { id?: number }) =>
      body.id
        ? api.put<AlertSetting>(`alerts/settings/${body.id}`, body, { quiet: true })
        : api.post<AlertSetting>("alerts/settings", body, { quiet: true }),
    onSuccess: (d) => {
      qc.setQueryData(alertSettingKeys.detail(d.id), d);
      return qc.invalidateQueries({ queryKey: alertSettingKeys.lists() });
    },
  });
}

/** Deletes one setting: true when the server answered a success (status and code), whatever the value it returns. */
export function deleteAlertSetting(id: number): Promise<boolean> {
  return api.remove(`alerts/settings/${id}`);
}
