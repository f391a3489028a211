// The alert setting form's escalation (cxwatch's own): a second contact group, and after how
// many minutes without an acknowledgement it is told.
import { useLingui } from "@lingui/react/macro";
import type { ContactGroup } from "../../api/types";
import { controlProps, Field } from "../../components/Field";
import { ESCALATION_DELAY_MAX, type FieldMessage, fid, type SettingForm } from "./rules";

export function EscalationFields({
  form,
  err,
  lists,
}: {
  form: SettingForm;
  err: FieldMessage;
  lists: ContactGroup[];
}) {
  const { t } = useLingui();
  const v = form.values;
  return (
    <div class="escalation-fields" data-testid="field-escalation">
      <Field id={fid("escalation-list")} label={t`Escalate to`} error={err("escalationDistributionId")}>
        <select
          {...controlProps(fid("escalation-list"), false, err("escalationDistributionId"))}
          value={v.escalationDistributionId || ""}
          onChange={(e) =>
            form.set(
              { escalationDistributionId: Number(e.currentTarget.value) || 0 },
              "escalationDistributionId",
              "escalationDelayMin",
            )
          }
          data-testid="input-escalation-list"
        >
          <option value="">{t`No escalation`}</option>
          {lists.map((l) => (
            <option key={l.id} value={l.id}>
              {l.name}
            </option>
          ))}
        </select>
      </Field>
      {v.escalationDistributionId ? (
        <Field
          id={fid("escalation-delay")}
          label={t`Escalate after (minutes, when nobody acknowledged)`}
          required
          error={err("escalationDelayMin")}
        >
          <input
            {...controlProps(fid("escalation-delay"), true, err("escalationDelayMin"))}
            type="number"
            min={1}
            max={ESCALATION_DELAY_MAX}
            step={1}
            value={v.escalationDelayMin}
            onInput={(e) => form.set({ escalationDelayMin: Number(e.currentTarget.value) }, "escalationDelayMin")}
            data-testid="input-escalation-delay"
          />
        </Field>
      ) : null}
    </div>
  );
}
