// The one form hook of the edit pages: the values, whether they changed since they were loaded,
// each field's error and a submit that runs the page's rules before it sends and puts the
// fields the server refused beside them. An error is what the page words at render time (a
// rule's key, so that the words follow the language), or the server's own sentence.
//
// Not react-hook-form: every form here is controlled (the values decide which fields show at
// each change, a custom schedule picker and multi-selects are fields), so its uncontrolled
// registration buys nothing, and it would weigh more than the largest edit page itself.
import { useState } from "react";

/** A field the server refused, as the API's envelope names it in `fields`. */
export interface FieldRefusal {
  field: string;
  message: string;
}

export type FormErrors<F extends string, E> = Partial<Record<F, E>>;

/** `errors` without `fields` (the same object when none of them is there). */
export function without<F extends string, E>(errors: FormErrors<F, E>, fields: readonly F[]): FormErrors<F, E> {
  if (!fields.some((f) => f in errors)) return errors;
  const next = { ...errors };
  for (const f of fields) delete next[f];
  return next;
}

/** The fields a failure names (an `ApiError`'s `fields`), or none. */
export function refusedFields(failure: unknown): FieldRefusal[] {
  if (typeof failure !== "object" || failure === null || !("fields" in failure)) return [];
  const fields = (failure as { fields: unknown }).fields;
  if (!Array.isArray(fields)) return [];
  return fields.filter((f): f is FieldRefusal => typeof f?.field === "string" && typeof f?.message === "string");
}

/** The server's refusals as the form's errors (each field marked by `mark(message)`) and the
 * server's sentence of each field. */
export function fromRefusals<F extends string, E>(
  refusals: readonly FieldRefusal[],
  mark: (message: string) => E,
  fieldOf: (name: string) => F = (name) => name as F,
): { errors: FormErrors<F, E>; texts: Partial<Record<F, string>> } {
  const errors: FormErrors<F, E> = {};
  const texts: Partial<Record<F, string>> = {};
  for (const r of refusals) {
    const field = fieldOf(r.field);
    errors[field] = mark(r.message);
    texts[field] = r.message;
  }
  return { errors, texts };
}

export interface FormOptions<V, F extends string, E> {
  initial: V | (() => V);
  /** The page's rules, every problem at once. */
  validate?: (values: V) => FormErrors<F, E>;
  /** How a field the server refused is marked; without it a refusal is the caller's failure. */
  refused?: (message: string) => E;
  /** The form's name of a field the server names (default: the same). */
  fieldOf?: (name: string) => F;
}

export interface SubmitOptions<V, F extends string, E> {
  /** The values the rules check, when they are not the form's (default: the form's). */
  checked?: V;
  /** The rules found problems (nothing was sent). */
  onInvalid?: (errors: FormErrors<F, E>) => void;
  /** Sending failed and the failure named no field the form shows. */
  onFailure?: (failure: unknown) => void;
}

export interface Form<V, F extends string, E> {
  values: V;
  errors: FormErrors<F, E>;
  /** Changed since the form was loaded. */
  dirty: boolean;
  /** Changes some values; `clear` names the fields whose error goes with the change. */
  set: (patch: Partial<V>, ...clear: F[]) => void;
  /** Values read from the server: the form is clean again. */
  load: (values: V) => void;
  setError: (field: F, error: E) => void;
  setErrors: (errors: FormErrors<F, E>) => void;
  /** The server's sentence for a field it refused. */
  serverText: (field: F) => string | undefined;
  /** Runs the rules on `values` (default the form's): true when they pass. */
  check: (values?: V) => boolean;
  /** Marks the fields a failure names; false when it names none the form shows. */
  refuse: (failure: unknown) => boolean;
  /** The form's submit handler: the rules, then `send` with the values; a failure that names
   * fields marks them, any other goes to `onFailure`. */
  submit: (send: (values: V) => Promise<unknown>, options?: SubmitOptions<V, F, E>) => (e: Event) => Promise<void>;
}

export function useForm<V extends object, F extends string, E>(options: FormOptions<V, F, E>): Form<V, F, E> {
  const [values, setValues] = useState<V>(options.initial);
  const [errors, setErrors] = useState<FormErrors<F, E>>({});
  const [texts, setTexts] = useState<Partial<Record<F, string>>>({});
  const [dirty, setDirty] = useState(false);

  const run = (checked: V) => {
    const found = options.validate?.(checked) ?? {};
    setErrors(found);
    setTexts({});
    return found;
  };
  const refuse = (failure: unknown) => {
    const { refused } = options;
    const named = refusedFields(failure);
    if (!refused || !named.length) return false;
    const out = fromRefusals(named, refused, options.fieldOf);
    setErrors(out.errors);
    setTexts(out.texts);
    return true;
  };

  return {
    values,
    errors,
    dirty,
    set: (patch, ...clear) => {
      setValues((prev) => ({ ...prev, ...patch }));
      setDirty(true);
      if (clear.length) setErrors((prev) => without(prev, clear));
    },
    load: (v) => {
      setValues(v);
      setDirty(false);
    },
    setError: (field, error) => setErrors((prev) => ({ ...prev, [field]: error })),
    setErrors,
    serverText: (field) => texts[field],
    check: (checked = values) => Object.keys(run(checked)).length === 0,
    refuse,
    submit:
      (send, opts = {}) =>
      async (e: Event) => {
        e.preventDefault();
        const found = run(opts.checked ?? values);
        if (Object.keys(found).length) {
          opts.onInvalid?.(found);
          return;
        }
        try {
          await send(values);
        } catch (failure) {
          if (!refuse(failure)) opts.onFailure?.(failure);
        }
      },
  };
}
