// Test Case Groups (/settings/test-case-group/2): the groups, paged, searched and sorted by
// the server (or in the browser, of section 7's list); New and edit open the editor in a dialog. Read-only administrators see the list
// without New, edit or delete; restricted users see access denied (the server refuses them
// anyway).
import { useLingui } from "@lingui/react/macro";
import { useState } from "react";
import {
  deleteGroup,
  deleteGroupWithDependents,
  type GroupListParams,
  type GroupSortField,
  groupDependents,
  groupKeys,
  usePagedGroups,
} from "../../api/queries/groups";
import type { SpecGroup as Group } from "../../api/types";
import { AccessDenied } from "../../components/AccessDenied";
import type { Column } from "../../components/DataTable";
import { canWrite, isRestricted, session } from "../../lib/session";
import { useStore } from "../../lib/store";
import { ListScreen, RowDelete, RowEditButton, useListScreen } from "../shared/ListScreen";
import { searchedListOf } from "../shared/listParams";
import { useCheckedDelete } from "../shared/useCheckedDelete";
import { GroupDialog } from "./GroupDialog";
import { GroupInUseDialog } from "./GroupInUseDialog";
import "./Groups.css";
import { groupInUse } from "./rules";

const SORT_FIELDS: GroupSortField[] = ["id", "name", "caseCount"];

/** The list's state from the URL's query string. */
export function paramsOf(search: string): GroupListParams & { page: number } {
  return searchedListOf(new URLSearchParams(search), SORT_FIELDS, { field: "id", dir: "desc" });
}

export function TestCaseGroupsPage() {
  const me = useStore(session);
  return isRestricted(me) ? <AccessDenied /> : <GroupsList writable={canWrite(me)} />;
}

function GroupsList({ writable }: { writable: boolean }) {
  const { t } = useLingui();
  const [editing, setEditing] = useState<number | null>(null);
  const list = useListScreen({
    parse: paramsOf,
    useList: usePagedGroups,
    name: (g) => g.name,
    remove: {
      deleteOne: deleteGroup,
      listKey: groupKeys.all,
      many: (count) => t`${count} test case groups`,
      failed: t`The test case group could not be deleted.`,
    },
  });
  const checked = useCheckedDelete({
    list,
    dependents: groupDependents,
    inUse: groupInUse,
    deleteWith: deleteGroupWithDependents,
    failed: t`The test case group could not be deleted.`,
  });
  const screen = checked.screen;
  const columns: Column<Group>[] = [
    { key: "id", label: t`ID`, sortable: true, render: (g) => g.id },
    { key: "name", label: t`Label`, sortable: true, render: (g) => g.name },
    {
      key: "caseCount",
      label: t`Test Cases`,
      sortable: true,
      // Section 7's list promises id, name and channel only: no counts, nothing said.
      render: (g) => {
        if (g.caseCount === undefined || g.caseCount === null) return "—";
        const caseCount = g.caseCount;
        const ivrCount = g.ivrCount ?? 0;
        return t`${caseCount} from ${ivrCount} IVR Applications`;
      },
    },
  ];

  return (
    <ListScreen
      list={screen}
      testId="settings-test-case-group"
      className="groups-list"
      title={t`Test Cases Groups`}
      writable={writable}
      create={{ onClick: () => setEditing(0), testId: "new-group" }}
      tableTestId="groups-table"
      columns={columns}
      actions={
        writable
          ? (g) => (
              <>
                <RowEditButton onClick={() => setEditing(g.id)} testId="edit-group" name={g.name} />
                <RowDelete list={screen} row={g} testId="delete-group" />
              </>
            )
          : undefined
      }
    >
      {editing !== null ? <GroupDialog id={editing} onClose={() => setEditing(null)} /> : null}
      <GroupInUseDialog
        groups={checked.inUse}
        busy={checked.busy}
        onCancel={checked.cancel}
        onDeleteAll={checked.deleteAll}
      />
    </ListScreen>
  );
}
