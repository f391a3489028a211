// Before a delete is confirmed: the lists that cannot go because something uses them, and what
// (alert settings that send or escalate to them, reports scheduled to them), each a link to
// change it. Shown instead of 'This action cannot be undone.', which would only end in a refusal.
import { useLingui } from "@lingui/react/macro";
import { Modal } from "../../components/Modal";
import { Uses } from "../shared/Uses";
import type { InUse } from "../shared/useCheckedDelete";
import type { ListUses } from "./rules";

export type ListInUse = InUse<ListUses>;

export function InUseDialog(props: { lists: ListInUse[] | null; free: number; onClose: () => void }) {
  const { t } = useLingui();
  const lists = props.lists ?? [];
  const free = props.free;
  return (
    <Modal
      open={!!props.lists}
      onClose={props.onClose}
      size="medium"
      role="alertdialog"
      title={lists.length === 1 ? t`This list is in use` : t`These lists are in use`}
      testId="list-in-use-dialog"
    >
      {lists.map((l) => {
        const name = l.name;
        return (
          <div key={l.id} class="list-in-use" data-testid="list-in-use">
            <p>
              <strong>{t`${name} cannot be deleted while these use it:`}</strong>
            </p>
            <Uses
              title={t`Alert settings that send to it`}
              items={l.uses.alertSettings}
              href={(id) => `/report/setting/${id}`}
            />
            <Uses
              title={t`Alert settings that escalate to it`}
              items={l.uses.escalations}
              href={(id) => `/report/setting/${id}`}
            />
            <Uses
              title={t`Reports scheduled to it`}
              items={l.uses.reportSchedules}
              href={(id) => `/report/edit/${id}`}
            />
          </div>
        );
      })}
      <p>{t`Choose another list for them, or remove them, then delete the list. Nothing has been deleted.`}</p>
      {free > 0 ? (
        <p class="muted">{t`The lists in use are no longer selected: Delete Selected now deletes the others.`}</p>
      ) : null}
      <div class="form-actions">
        <button type="button" class="button primary" onClick={props.onClose} data-testid="list-in-use-close">
          {t`Close`}
        </button>
      </div>
    </Modal>
  );
}
