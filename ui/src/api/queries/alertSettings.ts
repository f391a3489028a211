// Alert settings (spec §7 'Alerts'): the paged list, one setting, the alert statuses, the
// contact groups a setting may send to, save and delete.
import { useQuery } from "@tanstack/react-query";
import { itemsOf, type ListPage } from "../../lib/listPage";
import { useApiFlavor } from "../../lib/tenant";
import { client } from "../index";
import { usePagedList } from "../lists";
import { resource } from "../resource";
import type { AlertSetting, ContactGroup } from "../types";

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
  return usePagedList<AlertSetting, "/alerts/settings">({
    key: alertSettingKeys.lists(),
    path: "/alerts/settings",
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

const settings = resource({ collection: "/alerts/settings", item: "/alerts/settings/{id}", keys: alertSettingKeys });

/** One setting; id 0 (a new setting) asks for nothing. */
export const useAlertSetting = settings.useOne;

/** Every alert status (failure 7, pass 3, warning 4). */
export function useAlertStatuses() {
  return useQuery({
    queryKey: alertSettingKeys.statuses(),
    queryFn: ({ signal }) => client.get("/alerts/allStatus", { signal, background: true }),
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
        ? client.get("/alerts/contactGroups", { signal, background: true })
        : client
            // Quiet: a read-only user may not read the lists; the select is then empty.
            .get("/distributions", { signal, background: true, quiet: true })
            .then(contactGroupsOf),
    staleTime: 30_000,
  });
}

/** Id and name of each list of an answer of `GET distributions` (an array or a page). */
export function contactGroupsOf(
  answer: ContactGroup[] | ListPage<Partial<ContactGroup>> | Partial<ContactGroup>[] | undefined,
): ContactGroup[] {
  return itemsOf(answer)
    .filter((d): d is Partial<ContactGroup> & { id: number } => !!d && typeof d.id === "number")
    .map((d) => ({ id: d.id, name: String(d.name ?? "") }));
}

/** Creates (no id) or updates a setting; field failures are the form's to show. */
export const useSaveAlertSetting = settings.useSave;

/** Deletes one setting: true when the server answered a success (status and code), whatever the value it returns. */
export const deleteAlertSetting = settings.remove;
