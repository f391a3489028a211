// The alert setting form's Alert Statuses: the failure statuses and the warning statuses the
// group's channel offers, each a group of checkboxes of the same making.
import { useLingui } from "@lingui/react/macro";
import type { AlertStatus } from "../../api/types";
import { type FieldMessage, fid, type SettingForm } from "./rules";

export function AlertStatusFields({
  form,
  err,
  offered,
}: {
  form: SettingForm;
  err: FieldMessage;
  /** The statuses the group's channel offers. */
  offered: AlertStatus[];
}) {
  const { t } = useLingui();
  const chosen = form.values.alertStatus;
  const toggle = (code: string, on: boolean) =>
    form.set(
      { alertStatus: on ? [...chosen.filter((c) => c !== code), code] : chosen.filter((c) => c !== code) },
      "alertStatus",
    );
  const error = err("alertStatus");
  const group = (statusGroup: string, title: string) => (
    <StatusGroup
      title={title}
      statuses={offered.filter((s) => s.statusGroup === statusGroup)}
      chosen={chosen}
      onToggle={toggle}
    />
  );
  return (
    <fieldset
      class={error ? "status-fields has-error" : "status-fields"}
      aria-describedby={error ? fid("status-error") : undefined}
      data-testid="field-alert-status"
    >
      <legend class="field-label">
        {t`Alert Statuses`}
        <span class="required" aria-hidden="true">
          {" *"}
        </span>
      </legend>
      <div class="status-groups">
        {group("TRS_FAIL", t`Failure`)}
        {group("TRS_WARN", t`Warning`)}
      </div>
      {error ? (
        <span class="field-error" id={fid("status-error")} role="alert" data-testid="error-alertStatus">
          {error}
        </span>
      ) : null}
    </fieldset>
  );
}

/** One group of statuses (Failure or Warning): a checkbox per status. */
function StatusGroup({
  title,
  statuses,
  chosen,
  onToggle,
}: {
  title: string;
  statuses: AlertStatus[];
  chosen: string[];
  onToggle: (code: string, on: boolean) => void;
}) {
  const { t } = useLingui();
  // The catalogue's statuses in the interface's language; another status keeps the server's text.
  const text = (s: AlertStatus) => (s.code === "FAIL" ? t`Failure` : s.code === "WARN" ? t`Warning` : s.text);
  return (
    <div class="status-group">
      <span class="status-group-title">{title}</span>
      {statuses.map((s) => (
        <label class="check-field" key={s.code}>
          <input
            type="checkbox"
            checked={chosen.includes(s.code)}
            onChange={(e) => onToggle(s.code, e.currentTarget.checked)}
            data-testid={`status-${s.code}`}
          />
          <span>{text(s)}</span>
        </label>
      ))}
    </div>
  );
}
