// The distribution list form (/report/distribution/{id}; id 0 = new): the list label, then
// rows of label, type and e-mail or number, each with a Confirm that sends a real test message
// (spec §2 'Distribution list form', §5). Saving returns to the list only on success.
import { useLingui } from "@lingui/react/macro";
import { useEffect, useId, useState } from "react";
import { useLocation, useParams } from "wouter";
import { ApiError } from "../../api";
import { useDistribution, useSaveDistribution, useTestContact } from "../../api/queries/distributions";
import { AccessDenied, Refused } from "../../components/AccessDenied";
import { controlProps, Field, FormActions, TextField } from "../../components/Field";
import { showError, showSuccess } from "../../lib/banners";
import { deliveryReason } from "../../lib/deliveryReason";
import { ROUTES } from "../../lib/nav";
import { canWrite, isRestricted, session } from "../../lib/session";
import { useStore } from "../../lib/store";
import { DeliveryNotice } from "./DeliveryNotice";
import "./distributions.css";
import { useApiFlavor } from "../../lib/tenant";
import { useContactTypeName } from "./columns";
import {
  type ContactRow,
  type ContactTypeId,
  canDeleteRow,
  confirmQuery,
  type DistributionFormValues,
  EMAIL,
  type Errors,
  emptyForm,
  emptyRow,
  fromDistribution,
  infoRule,
  inputTypeOf,
  isWebhook,
  offeredTypes,
  type Rule,
  TYPE_NAMES,
  toSave,
  validateDistribution,
} from "./rules";

export function DistributionEditPage() {
  const { t } = useLingui();
  const params = useParams<{ id: string }>();
  const id = Number(params.id);
  const me = useStore(session);
  if (!Number.isInteger(id) || id < 0 || isRestricted(me)) return <AccessDenied />;
  const writable = canWrite(me);
  if (id === 0 && !writable)
    return <AccessDenied reason={t`Your access is read-only: you can see the distribution lists but not add one.`} />;
  return <DistributionForm key={id} id={id} writable={writable} />;
}

/** What a row's Confirm came to: the message shown beside it. */
interface Confirmed {
  ok: boolean;
  text: string;
}

/** The form; for a read-only account (`writable` false) shown without Save, Confirm or row edits. */
function DistributionForm({ id, writable }: { id: number; writable: boolean }) {
  const { t, i18n } = useLingui();
  const uid = useId();
  const [, navigate] = useLocation();
  const creating = id === 0;
  const list = useDistribution(id);
  const save = useSaveDistribution();
  const test = useTestContact();
  const [v, setV] = useState<DistributionFormValues>(emptyForm);
  const [errors, setErrors] = useState<Errors>({});
  const [texts, setTexts] = useState<Record<string, string>>({});
  const [confirmed, setConfirmed] = useState<Record<number, Confirmed | undefined>>({});
  const [confirming, setConfirming] = useState<number | null>(null);
  const cxwatch = useApiFlavor() === "cxwatch";
  const shownName = useContactTypeName();
  const typeName = (x: ContactTypeId) => shownName(TYPE_NAMES[x] ?? "");

  useEffect(() => {
    if (list.data) setV(fromDistribution(list.data));
  }, [list.data]);

  const ruleText = (field: string, rule: Rule | undefined): string | undefined => {
    if (!rule) return undefined;
    if (rule === "required") return t`Required`;
    if (rule === "tooLong") return t`At most 100 characters`;
    if (rule === "taken") return t`Another distribution list has this name`;
    if (field.endsWith(".info")) {
      const i = Number(field.match(/\[(\d+)\]/)?.[1] ?? -1);
      const type = v.contacts[i]?.type ?? 0;
      if (type === EMAIL) return t`Please enter an e-mail address`;
      if (isWebhook(type)) return t`Please enter the webhook's address, e.g. https://hooks.example.com/…`;
      return t`Please enter an international number, e.g. +15145550100`;
    }
    return texts[field] || t`This value is not valid`;
  };
  const err = (field: string) => ruleText(field, errors[field]);
  const clear = (...fields: string[]) =>
    setErrors((prev) => {
      const next = { ...prev };
      for (const f of fields) delete next[f];
      return next;
    });
  const setRow = (i: number, patch: Partial<ContactRow>) => {
    setV((prev) => ({ ...prev, contacts: prev.contacts.map((r, j) => (j === i ? { ...r, ...patch } : r)) }));
    clear(...Object.keys(patch).map((k) => `contacts[${i}].${k}`), `contacts[${i}].info`);
    setConfirmed((prev) => ({ ...prev, [i]: undefined }));
  };
  const addRow = () => {
    setV((prev) => ({ ...prev, contacts: [...prev.contacts, emptyRow()] }));
    clear("contacts");
  };
  const deleteRow = (i: number) => {
    setV((prev) => ({ ...prev, contacts: prev.contacts.filter((_, j) => j !== i) }));
    // Messages follow their rows' new positions.
    setErrors({});
    setConfirmed({});
  };

  const confirmRow = async (i: number) => {
    const row = v.contacts[i];
    const rule = infoRule(row);
    if (rule) {
      setErrors((prev) => ({ ...prev, [`contacts[${i}].info`]: rule }));
      return;
    }
    setConfirming(i);
    try {
      await test.mutateAsync(confirmQuery(row));
      const name = typeName(row.type as ContactTypeId);
      const text =
        row.type === EMAIL
          ? t`Email has been confirmed.`
          : isWebhook(row.type)
            ? t`${name} has been confirmed.`
            : t`Text/SMS has been confirmed.`;
      setConfirmed((prev) => ({ ...prev, [i]: { ok: true, text } }));
      showSuccess(text);
    } catch (failure) {
      // The reason in the reader's language when the server gave its code, then its detail.
      const said =
        failure instanceof ApiError ? deliveryReason(i18n, failure.reason?.code, failure.reason?.status) : undefined;
      const messages =
        failure instanceof ApiError
          ? said
            ? [said, ...failure.serverMessages]
            : failure.messages
          : [t`The test message could not be sent.`];
      setConfirmed((prev) => ({ ...prev, [i]: { ok: false, text: messages.join(" ") } }));
      if (failure instanceof ApiError && failure.fields.length) {
        setErrors((prev) => ({ ...prev, [`contacts[${i}].info`]: "invalid" }));
      } else showError(messages);
    } finally {
      setConfirming(null);
    }
  };

  const submit = async (e: Event) => {
    e.preventDefault();
    // Nothing to save: never say 'saved' for what was not.
    if (!writable) return;
    const found = validateDistribution(v);
    setErrors(found);
    setTexts({});
    if (Object.keys(found).length) return;
    try {
      await save.mutateAsync(creating ? toSave(v) : { ...toSave(v), id });
    } catch (failure) {
      if (failure instanceof ApiError && failure.fields.length) {
        const next: Errors = {};
        const msgs: Record<string, string> = {};
        for (const f of failure.fields) {
          next[f.field] = f.rule as Rule;
          msgs[f.field] = f.message;
        }
        setErrors(next);
        setTexts(msgs);
      } else if (failure instanceof ApiError) showError(failure.messages);
      return;
    }
    // The spec's wording, leading space included.
    showSuccess(
      creating ? t` Distribution has been successfully created` : t` Distribution has been successfully updated`,
    );
    navigate(ROUTES.distributionLists);
  };

  if (list.isError) return <Refused error={list.error} fallback={t`The distribution list could not be loaded.`} />;
  const loading = !creating && !list.data;
  const fid = (k: string) => `${uid}-${k}`;

  return (
    <section class="page distribution-form" data-testid="distribution-form" aria-busy={loading}>
      <h1 class="page-title">{creating ? t`New Distribution List` : t`Distribution List`}</h1>
      <DeliveryNotice />
      {writable ? null : (
        <p class="muted" data-testid="read-only-note">
          {t`Your access is read-only: you can see this list but not change it.`}
        </p>
      )}
      <form class="form card" onSubmit={submit} noValidate>
        <TextField
          id={fid("name")}
          label={t`List Label`}
          required
          error={err("name")}
          value={v.name}
          onValue={(x) => {
            setV((prev) => ({ ...prev, name: x }));
            clear("name");
          }}
          readOnly={!writable}
          testId="input-name"
        />
        <fieldset class="contact-rows">
          <legend>{t`Contacts`}</legend>
          {err("contacts") ? (
            <span class="field-error" role="alert">
              {t`At least one contact is required`}
            </span>
          ) : null}
          {v.contacts.map((row, i) => {
            const n = i + 1;
            const result = confirmed[i];
            return (
              <fieldset class="contact-row" key={i} data-testid={`contact-row-${i}`}>
                <legend class="visually-hidden">{t`Contact ${n}`}</legend>
                <TextField
                  id={fid(`c${i}-name`)}
                  label={t`Label`}
                  required
                  error={err(`contacts[${i}].name`)}
                  value={row.name}
                  onValue={(x) => setRow(i, { name: x })}
                  readOnly={!writable}
                  testId={`input-contact-name-${i}`}
                />
                <Field id={fid(`c${i}-type`)} label={t`Type`} required error={err(`contacts[${i}].type`)}>
                  <select
                    {...controlProps(fid(`c${i}-type`), true, err(`contacts[${i}].type`))}
                    value={row.type || ""}
                    disabled={!writable}
                    onChange={(e) => setRow(i, { type: (Number(e.currentTarget.value) || 0) as ContactTypeId | 0 })}
                    data-testid={`input-contact-type-${i}`}
                  >
                    <option value="">{t`Select`}</option>
                    {offeredTypes(cxwatch || isWebhook(row.type)).map((x) => (
                      <option key={x} value={x}>
                        {typeName(x)}
                      </option>
                    ))}
                  </select>
                </Field>
                <TextField
                  id={fid(`c${i}-info`)}
                  label={row.type === EMAIL ? t`Email` : isWebhook(row.type) ? t`Webhook URL` : t`Number`}
                  required
                  type={inputTypeOf(row.type)}
                  error={err(`contacts[${i}].info`)}
                  value={row.info}
                  onValue={(x) => setRow(i, { info: x })}
                  readOnly={!writable}
                  autoComplete="off"
                  testId={`input-contact-info-${i}`}
                />
                {writable ? (
                  <div class="contact-actions">
                    <button
                      type="button"
                      class="button secondary"
                      onClick={() => void confirmRow(i)}
                      disabled={confirming !== null}
                      aria-busy={confirming === i}
                      data-testid={`confirm-contact-${i}`}
                    >
                      {confirming === i ? t`Sending…` : t`Confirm`}
                    </button>
                    {canDeleteRow(v.contacts) ? (
                      <button
                        type="button"
                        class="button link danger-text"
                        onClick={() => deleteRow(i)}
                        data-testid={`delete-contact-${i}`}
                      >
                        {/* The name begins with what the button shows (WCAG 2.5.3), then says which row. */}
                        {t`Delete row`}
                        <span class="visually-hidden"> {t`Contact ${n}`}</span>
                      </button>
                    ) : null}
                  </div>
                ) : null}
                {result ? (
                  <p
                    class={result.ok ? "contact-result ok" : "contact-result failed"}
                    role="status"
                    data-testid={`confirm-result-${i}`}
                  >
                    {result.text}
                  </p>
                ) : null}
              </fieldset>
            );
          })}
          {writable ? (
            <button type="button" class="button link" onClick={addRow} data-testid="add-contact">
              {t`Add row`}
            </button>
          ) : null}
        </fieldset>
        <FormActions
          saving={save.isPending || loading}
          noSave={!writable}
          onCancel={() => navigate(ROUTES.distributionLists)}
        />
      </form>
    </section>
  );
}
