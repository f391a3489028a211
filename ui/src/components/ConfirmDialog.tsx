// The delete confirmation (spec §2): 'Are you sure you want to delete {item}? This action
// cannot be undone.' with Cancel and Delete.
import { useLingui } from "@lingui/react/macro";
import { Modal } from "./Modal";

export interface ConfirmDialogProps {
  open: boolean;
  /** What is deleted, as the sentence names it. */
  item: string;
  onCancel: () => void;
  onConfirm: () => void;
  busy?: boolean;
}

export function ConfirmDialog({ open, item, onCancel, onConfirm, busy }: ConfirmDialogProps) {
  const { t } = useLingui();
  return (
    <Modal open={open} onClose={onCancel} size="small" title={t`Delete`} role="alertdialog" testId="confirm-dialog">
      <p>{t`Are you sure you want to delete ${item}? This action cannot be undone.`}</p>
      <div class="form-actions">
        <button type="button" class="button secondary" onClick={onCancel} data-testid="confirm-cancel">
          {t`Cancel`}
        </button>
        <button type="button" class="button danger" onClick={onConfirm} disabled={busy} data-testid="confirm-delete">
          {t`Delete`}
        </button>
      </div>
    </Modal>
  );
}
