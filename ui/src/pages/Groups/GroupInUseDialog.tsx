// Before a group in use is deleted: what the delete takes with it (its alert settings and
// reports, deleted; the users and maintenance windows that have it, which lose it), each a link
// to change it instead. Shown in place of 'This action cannot be undone.', so that nothing goes
// without being named; the delete with what uses it is a choice of its own.
import { plural } from "@lingui/core/macro";
import { useLingui } from "@lingui/react/macro";
import type { GroupDependents } from "../../api/types";
import { Modal } from "../../components/Modal";
import { Uses } from "../shared/Uses";
import type { InUse } from "../shared/useCheckedDelete";

export type GroupInUse = InUse<GroupDependents>;

export function GroupInUseDialog(props: {
  groups: GroupInUse[] | null;
  busy: boolean;
  onCancel: () => void;
  onDeleteAll: () => void;
}) {
  const { t } = useLingui();
  const groups = props.groups ?? [];
  return (
    <Modal
      open={!!props.groups}
      onClose={props.onCancel}
      size="medium"
      role="alertdialog"
      title={groups.length === 1 ? t`This group is in use` : t`These groups are in use`}
      testId="group-in-use-dialog"
    >
      {groups.map((g) => {
        const name = g.name;
        return (
          <div key={g.id} class="list-in-use" data-testid="group-in-use">
            <p>
              <strong>{t`Deleting ${name} also:`}</strong>
            </p>
            <Uses
              title={
                g.uses.openAlerts > 0
                  ? plural(g.uses.openAlerts, {
                      one: "Deletes these alert settings and closes their # open alert",
                      other: "Deletes these alert settings and closes their # open alerts",
                    })
                  : t`Deletes these alert settings`
              }
              items={g.uses.alertSettings}
              href={(id) => `/report/setting/${id}`}
            />
            <Uses
              title={t`Deletes these reports and their schedules`}
              items={g.uses.reports}
              href={(id) => `/report/edit/${id}`}
            />
            <Uses title={t`Takes it from these users`} items={g.uses.users} href={(id) => `/users/${id}`} />
            <Uses
              title={t`Takes it from these maintenance windows (one left covering nothing is ended)`}
              items={g.uses.maintenanceWindows.map((w) => ({ id: w.id, name: w.name.trim() || t`Window ${w.id}` }))}
              href={(id) => `/settings/maintenance/${id}`}
            />
          </div>
        );
      })}
      <p>{t`Nothing has been deleted yet. To keep them, cancel and give them another group first. Each change is recorded in the audit log.`}</p>
      <div class="form-actions">
        <button type="button" class="button secondary" onClick={props.onCancel} data-testid="group-in-use-cancel">
          {t`Cancel`}
        </button>
        <button
          type="button"
          class="button danger"
          onClick={props.onDeleteAll}
          disabled={props.busy}
          data-testid="group-in-use-delete"
        >
          {t`Delete all of this`}
        </button>
      </div>
    </Modal>
  );
}
