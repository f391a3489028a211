// Alert Settings (/settings/alert-settings/1): the settings of the caller's test case groups,
// paged by the server. The URL holds the page, size, search and sort. New, edit and delete show
// only to callers who may change things (the server checks again).
import { useLingui } from "@lingui/react/macro";
import { Link } from "wouter";
import type { AlertSettingListParams, AlertSettingSortField } from "../../api/queries/alertSettings";
import { alertSettingKeys, deleteAlertSetting, useAlertSettings } from "../../api/queries/alertSettings";
import { useJiraConfig } from "../../api/queries/jira";
import { canWrite, session } from "../../lib/session";
import { useStore } from "../../lib/store";
import { ListScreen, RowDelete, RowLink, useListScreen } from "../shared/ListScreen";
import { searchedListOf } from "../shared/listParams";
import { useAlertSettingColumns } from "./columns";
import "./AlertSettings.css";

const SORT_FIELDS: AlertSettingSortField[] = ["id", "name", "testCaseGroupName", "distributionName", "active"];

/** The list's state from the URL's query string. */
export function paramsOf(search: string): AlertSettingListParams & { page: number } {
  return searchedListOf(new URLSearchParams(search), SORT_FIELDS, { field: "name", dir: "asc" });
}

export function AlertSettingListPage() {
  const { t } = useLingui();
  const write = canWrite(useStore(session));
  // The auto tickets of a setting exist only where a Jira is configured.
  const tickets = !!useJiraConfig().data?.configured;
  const columns = useAlertSettingColumns();
  const list = useListScreen({
    parse: paramsOf,
    useList: useAlertSettings,
    name: (s) => s.name,
    remove: {
      deleteOne: deleteAlertSetting,
      listKey: alertSettingKeys.lists(),
      many: (count) => t`${count} alert settings`,
      failed: t`The alert setting could not be deleted.`,
    },
  });

  return (
    <ListScreen
      list={list}
      testId="alert-setting-list"
      title={t`Alert Settings`}
      writable={write}
      create={{ href: "/report/setting/0", testId: "new-alert-setting" }}
      tableTestId="alert-settings-table"
      columns={columns}
      actions={(s) => {
        const name = s.name;
        return (
          <>
            <RowLink href={`/report/setting/${s.id}`} testId="edit-alert-setting" name={name} view={!write} />
            {write ? <RowDelete list={list} row={s} testId="delete-alert-setting" /> : null}
            {tickets ? (
              <Link
                href={`/report/setting/autojiratickets/${s.id}`}
                class="button link"
                data-testid="auto-tickets"
                aria-label={t`Auto tickets of ${name}`}
              >
                {t`Auto Tickets`}
              </Link>
            ) : null}
          </>
        );
      }}
    />
  );
}
