// Form fields: a label with the required asterisk, the control, and the message beside it
// (spec §5: 'Required', 'this field is required'); and the form's Save and Cancel.
import { useLingui } from "@lingui/react/macro";
import type { ComponentChildren } from "preact";

export interface FieldProps {
  /** The control's id (the label points at it). */
  id: string;
  label: string;
  required?: boolean;
  /** The message shown beside the field, already translated. */
  error?: string;
  children: ComponentChildren;
}

export function Field({ id, label, required, error, children }: FieldProps) {
  return (
    <div class={error ? "field has-error" : "field"} data-testid={`field-${id}`}>
      <label for={id} class="field-label">
        {label}
        {required ? (
          <span class="required" aria-hidden="true">
            {" *"}
          </span>
        ) : null}
      </label>
      {children}
      {error ? (
        <span class="field-error" id={`${id}-error`} role="alert" data-testid={`error-${id}`}>
          {error}
        </span>
      ) : null}
    </div>
  );
}

/** Props for an input inside a Field: its id, required state and error link. */
export function controlProps(id: string, required: boolean, error?: string) {
  return {
    id,
    name: id,
    required,
    "aria-invalid": error ? true : undefined,
    "aria-describedby": error ? `${id}-error` : undefined,
  };
}

export interface TextFieldProps {
  id: string;
  label: string;
  required?: boolean;
  error?: string;
  value: string;
  onValue: (value: string) => void;
  type?: "text" | "email" | "password" | "tel" | "url";
  autoComplete?: string;
  testId?: string;
  /** Shown, not editable (a read-only form). */
  readOnly?: boolean;
}

/** A labelled text input with its message beside it: the form field most screens need. */
export function TextField({
  id,
  label,
  required = false,
  error,
  value,
  onValue,
  type = "text",
  autoComplete,
  testId,
  readOnly,
}: TextFieldProps) {
  return (
    <Field id={id} label={label} required={required} error={error}>
      <input
        {...controlProps(id, required, error)}
        // Preact's input typings narrow on one literal `type` at a time; every one of ours
        // takes the same attributes.
        type={type as "text"}
        value={value}
        onInput={(e) => onValue(e.currentTarget.value)}
        autoComplete={autoComplete}
        readOnly={readOnly}
        data-testid={testId}
      />
    </Field>
  );
}

export interface FormActionsProps {
  onCancel?: () => void;
  saving?: boolean;
  saveLabel?: string;
  /** No Save button: the form shows what it cannot change. */
  noSave?: boolean;
  children?: ComponentChildren;
}

export function FormActions({ onCancel, saving, saveLabel, noSave, children }: FormActionsProps) {
  const { t } = useLingui();
  return (
    <div class="form-actions">
      {children}
      {onCancel ? (
        <button type="button" class="button secondary" onClick={onCancel} data-testid="form-cancel">
          {t`Cancel`}
        </button>
      ) : null}
      {noSave ? null : (
        <button type="submit" class="button primary" disabled={saving} data-testid="form-save">
          {saveLabel ?? t`Save`}
        </button>
      )}
    </div>
  );
}
