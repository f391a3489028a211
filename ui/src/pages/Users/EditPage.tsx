// The user form (/users/{id}; id 0 = new). Admins edit anyone; others only their own profile,
// without role or group fields, with a Change Password dialog (spec §2, §5, §6). A read-only
// account sees the form read-only, without Save: on its own profile it changes its password only.
import { useLingui } from "@lingui/react/macro";
import { useEffect, useId, useState } from "react";
import { useLocation, useParams } from "wouter";
import { ApiError } from "../../api";
import { useGroupChoices } from "../../api/queries/groups";
import { useChangePassword, useSaveUser, useUser } from "../../api/queries/users";
import { AccessDenied, Refused } from "../../components/AccessDenied";
import { controlProps, Field, FormActions, TextField } from "../../components/Field";
import { Modal } from "../../components/Modal";
import { MultiSelect } from "../../components/MultiSelect/MultiSelect";
import { showError, showSuccess } from "../../lib/banners";
import { ROUTES } from "../../lib/nav";
import { canWrite, isRestricted, noteRoleChangeSignOut, session, signOut } from "../../lib/session";
import { useStore } from "../../lib/store";
import { useApiFlavor } from "../../lib/tenant";
import {
  ADMIN,
  type Errors,
  emptyForm,
  type FieldName,
  fromUser,
  type Rule,
  type SelfDemotion,
  selfDemotion,
  toSave,
  USER,
  type UserFormValues,
  validatePasswordChange,
  validateUser,
  visibleFields,
} from "./rules";
import "./Users.css";

/** Server field names (camelCase body fields) to the form's. */
const FORM_FIELD: Record<string, FieldName> = { roles: "role", testCaseGroups: "groups" };

/** The server's field failures as the form's errors, with its messages as fallback texts. */
function serverErrors(err: unknown): { errors: Errors; texts: Partial<Record<FieldName, string>> } | null {
  if (!(err instanceof ApiError) || !err.fields.length) return null;
  const errors: Errors = {};
  const texts: Partial<Record<FieldName, string>> = {};
  for (const f of err.fields) {
    const name = FORM_FIELD[f.field] ?? (f.field as FieldName);
    errors[name] = f.rule as Rule;
    texts[name] = f.message;
  }
  return { errors, texts };
}

function useRuleText() {
  const { t } = useLingui();
  return (field: FieldName, rule: Rule | undefined, fallback?: string): string | undefined => {
    if (!rule) return undefined;
    switch (rule) {
      case "required":
        return field === "role" ? t`this field is required` : t`Required`;
      case "invalid":
        return field === "username" ? t`Please enter an e-mail address` : t`This value is not valid`;
      case "tooShort":
        return t`At least 12 characters`;
      case "tooLong":
        return t`At most 128 characters`;
      case "taken":
        return t`This e-mail address is already used`;
      case "mismatch":
        return field === "oldPassword" ? t`The current password is not correct` : t`The passwords do not match`;
      case "forbidden":
        return t`You may not change this`;
      case "weak":
        return t`This password is too easy to guess: avoid common passwords, patterns and your own name`;
      default:
        return fallback || t`This value is not valid`;
    }
  };
}

export function UserEditPage() {
  const { t } = useLingui();
  const params = useParams<{ id: string }>();
  const id = Number(params.id);
  const me = useStore(session);
  const admin = !isRestricted(me);
  const own = !!me && me.id === id;
  if (!Number.isInteger(id) || id < 0) return <AccessDenied />;
  if (!admin && !own) return <AccessDenied />;
  if (id === 0 && !canWrite(me))
    return <AccessDenied reason={t`Your access is read-only: you can see the users but not add one.`} />;
  return (
    <UserForm
      key={id}
      id={id}
      admin={admin}
      own={own}
      readOnly={!canWrite(me)}
      title={id === 0 ? t`New User` : t`User Profile`}
    />
  );
}

function UserForm({
  id,
  admin,
  own,
  readOnly,
  title,
}: {
  id: number;
  admin: boolean;
  own: boolean;
  readOnly: boolean;
  title: string;
}) {
  const { t } = useLingui();
  const uid = useId();
  const [, navigate] = useLocation();
  const ruleText = useRuleText();
  const creating = id === 0;
  const mode = { creating, admin, own, readOnly };
  const user = useUser(id);
  const groups = useGroupChoices();
  const save = useSaveUser();
  const [v, setV] = useState<UserFormValues>(emptyForm);
  const [errors, setErrors] = useState<Errors>({});
  const [texts, setTexts] = useState<Partial<Record<FieldName, string>>>({});
  const [passwordOpen, setPasswordOpen] = useState(false);
  const [asking, setAsking] = useState<SelfDemotion | null>(null);

  useEffect(() => {
    if (user.data) setV(fromUser(user.data));
  }, [user.data]);

  // Kiosk sessions are cxwatch's addition: not offered on a spec-only API.
  const cxwatch = useApiFlavor() === "cxwatch";
  const show = { ...visibleFields(mode, v.role), ...(cxwatch ? {} : { kiosk: false }) };
  const set = <K extends keyof UserFormValues>(k: K, value: UserFormValues[K]) => {
    setV((prev) => ({ ...prev, [k]: value }));
    setErrors((prev) => ({ ...prev, [k]: undefined }));
  };
  const err = (k: FieldName) => ruleText(k, errors[k], texts[k]);
  const fid = (k: string) => `${uid}-${k}`;

  const submit = (e: Event) => {
    e.preventDefault();
    void trySave(false);
  };

  const trySave = async (confirmed: boolean) => {
    // Nothing to save: never say 'saved' for what was not.
    if (!show.save) return;
    const found = validateUser(v, mode);
    setErrors(found);
    setTexts({});
    if (Object.keys(found).length) return;
    // Giving up one's own rights is asked first.
    const demotion = selfDemotion(v, mode, user.data);
    if (demotion && !confirmed) {
      setAsking(demotion);
      return;
    }
    setAsking(null);
    const body = toSave(v, mode, user.data ? { roles: user.data.roles, accessType: user.data.accessType } : undefined);
    if (!cxwatch) delete body.kiosk;
    try {
      await save.mutateAsync(creating ? body : { ...body, id });
    } catch (failure) {
      const fields = serverErrors(failure);
      if (fields) {
        setErrors(fields.errors);
        setTexts(fields.texts);
      } else if (failure instanceof ApiError) showError(failure.messages);
      return;
    }
    if (demotion) {
      // The server ended this session with the old rights: sign in again with the new ones,
      // which land where they may be (the dashboard).
      noteRoleChangeSignOut();
      signOut();
      return;
    }
    showSuccess(creating ? t`User has been successfully created` : t`User has been successfully updated`);
    if (admin) navigate(ROUTES.adminSettings);
    else window.location.reload();
  };

  if (user.isError) return <Refused error={user.error} fallback={t`The user could not be loaded.`} />;
  const loading = !creating && !user.data;

  return (
    <section class="page user-form" data-testid="user-form" aria-busy={loading}>
      <h1 class="page-title">{title}</h1>
      {show.readOnly ? (
        <p class="muted" data-testid="read-only-note">
          {own
            ? t`Your access is read-only: you can change your password. An administrator changes your username, names and permissions.`
            : t`Your access is read-only: you can see this user but not change it.`}
        </p>
      ) : null}
      <form class="form card" onSubmit={submit} noValidate>
        <TextField
          id={fid("firstName")}
          label={t`First Name`}
          required
          error={err("firstName")}
          value={v.firstName}
          onValue={(x) => set("firstName", x)}
          readOnly={show.readOnly}
          autoComplete="given-name"
          testId="input-firstName"
        />
        <TextField
          id={fid("lastName")}
          label={t`Last Name`}
          required
          error={err("lastName")}
          value={v.lastName}
          onValue={(x) => set("lastName", x)}
          readOnly={show.readOnly}
          autoComplete="family-name"
          testId="input-lastName"
        />
        <TextField
          id={fid("username")}
          label={t`Username`}
          required
          error={err("username")}
          type="email"
          value={v.username}
          onValue={(x) => set("username", x)}
          readOnly={show.readOnly}
          autoComplete="off"
          testId="input-username"
        />
        {show.permissions ? (
          <Field id={fid("role")} label={t`Permissions`} required error={err("role")}>
            <select
              {...controlProps(fid("role"), true, err("role"))}
              value={v.role}
              disabled={show.readOnly}
              onChange={(e) => set("role", e.currentTarget.value as UserFormValues["role"])}
              data-testid="input-role"
            >
              <option value="">{t`Select`}</option>
              <option value={ADMIN}>{t`Administrator`}</option>
              <option value={USER}>{t`User`}</option>
            </select>
          </Field>
        ) : null}
        {show.accessType ? (
          <Field id={fid("accessType")} label={t`Access Type`} error={err("accessType")}>
            <select
              {...controlProps(fid("accessType"), false, err("accessType"))}
              value={v.accessType}
              disabled={show.readOnly}
              onChange={(e) => set("accessType", e.currentTarget.value as UserFormValues["accessType"])}
              data-testid="input-accessType"
            >
              <option value="read-write">{t`Read and write`}</option>
              <option value="read-only">{t`Read only`}</option>
            </select>
          </Field>
        ) : null}
        {show.kiosk ? (
          <div class="field">
            <label class="checkbox" for={fid("kiosk")}>
              <input
                id={fid("kiosk")}
                type="checkbox"
                checked={v.kiosk}
                disabled={show.readOnly}
                aria-describedby={`${fid("kiosk")}-help`}
                onChange={(e) => set("kiosk", e.currentTarget.checked)}
                data-testid="input-kiosk"
              />
              <span>{t`Allow kiosk sessions`}</span>
            </label>
            <span class="field-help muted" id={`${fid("kiosk")}-help`}>
              {t`For a wall display: sign in at /login?kiosk. The session is read-only and is not signed out when idle.`}
            </span>
          </div>
        ) : null}
        {show.groups ? (
          <div class="field" data-testid="field-groups">
            <MultiSelect
              label={t`Test Case Groups`}
              options={(groups.data ?? []).map((g) => ({ value: g.id, label: g.name }))}
              selected={v.groups.map((g) => g.id)}
              onChange={(ids) =>
                set(
                  "groups",
                  (groups.data ?? []).filter((g) => ids.includes(g.id)),
                )
              }
              summary={(() => {
                const n = v.groups.length;
                const m = groups.data?.length ?? 0;
                return t`${n} of ${m} selected`;
              })()}
              selectAllLabel={t`Select All`}
              testId="input-groups"
              disabled={show.readOnly}
            />
            {err("groups") ? <span class="field-error">{err("groups")}</span> : null}
          </div>
        ) : null}
        {show.password ? (
          <TextField
            id={fid("password")}
            label={t`Password`}
            required
            error={err("password")}
            type="password"
            value={v.password}
            onValue={(x) => set("password", x)}
            autoComplete="new-password"
            testId="input-password"
          />
        ) : null}
        <FormActions
          saving={save.isPending || loading}
          noSave={!show.save}
          onCancel={admin ? () => navigate(ROUTES.adminSettings) : undefined}
        >
          {/* Offered once the form shows whose password it is. */}
          {!loading && (show.changePassword || show.resetPassword) ? (
            <button
              type="button"
              class="button secondary"
              onClick={() => setPasswordOpen(true)}
              data-testid="change-password"
            >
              {show.changePassword ? t`Change Password` : t`Reset Password`}
            </button>
          ) : null}
        </FormActions>
      </form>
      <DemotionDialog
        demotion={asking}
        busy={save.isPending}
        onCancel={() => setAsking(null)}
        onConfirm={() => void trySave(true)}
      />
      <PasswordDialog open={passwordOpen} id={id} reset={show.resetPassword} onClose={() => setPasswordOpen(false)} />
    </section>
  );
}

/** Asks an administrator who is about to take rights from themselves. */
function DemotionDialog({
  demotion,
  busy,
  onCancel,
  onConfirm,
}: {
  demotion: SelfDemotion | null;
  busy: boolean;
  onCancel: () => void;
  onConfirm: () => void;
}) {
  const { t } = useLingui();
  return (
    <Modal
      open={!!demotion}
      onClose={onCancel}
      size="small"
      role="alertdialog"
      title={t`Change your own permissions?`}
      testId="demotion-dialog"
    >
      {demotion?.role ? (
        <p>{t`You are making yourself a User: you will no longer manage settings or users, and will see only the test case groups given to you.`}</p>
      ) : null}
      {demotion?.noGroups ? (
        <p class="demotion-warning" data-testid="demotion-no-groups">
          <strong>{t`You have chosen no test case group: you will see no dashboard, report or alert data, and only another administrator can give you groups or rights again.`}</strong>
        </p>
      ) : null}
      {demotion?.access ? (
        <p>{t`You are making your own access read-only: you will no longer change anything in the console.`}</p>
      ) : null}
      <p>{t`You will be signed out, then sign in again with your new permissions.`}</p>
      <div class="form-actions">
        <button type="button" class="button secondary" onClick={onCancel} data-testid="demotion-cancel">
          {t`Cancel`}
        </button>
        <button type="button" class="button danger" onClick={onConfirm} disabled={busy} data-testid="demotion-confirm">
          {t`Change my permissions`}
        </button>
      </div>
    </Modal>
  );
}

/** Your own password (current, new, confirm), or an admin's reset (new only). */
function PasswordDialog({
  open,
  id,
  reset,
  onClose,
}: {
  open: boolean;
  id: number;
  reset: boolean;
  onClose: () => void;
}) {
  const { t } = useLingui();
  const uid = useId();
  const ruleText = useRuleText();
  const change = useChangePassword();
  const empty = { oldPassword: "", newPassword: "", confirmPassword: "" };
  const [v, setV] = useState(empty);
  const [errors, setErrors] = useState<Errors>({});
  const [texts, setTexts] = useState<Partial<Record<FieldName, string>>>({});
  const close = () => {
    setV(empty);
    setErrors({});
    onClose();
  };
  const submit = async (e: Event) => {
    e.preventDefault();
    const found = validatePasswordChange(v, reset);
    setErrors(found);
    setTexts({});
    if (Object.keys(found).length) return;
    try {
      await change.mutateAsync(
        reset ? { id, newPassword: v.newPassword } : { id, oldPassword: v.oldPassword, newPassword: v.newPassword },
      );
    } catch (failure) {
      const fields = serverErrors(failure);
      if (fields) {
        setErrors(fields.errors);
        setTexts(fields.texts);
      } else if (failure instanceof ApiError) showError(failure.messages);
      return;
    }
    showSuccess(t`The password has been changed.`);
    close();
  };
  const input = (k: "oldPassword" | "newPassword" | "confirmPassword", label: string, auto: string) => {
    const error = ruleText(k, errors[k], texts[k]);
    const id = `${uid}-${k}`;
    return (
      <TextField
        id={id}
        label={label}
        required
        error={error}
        type="password"
        value={v[k]}
        onValue={(value) => setV((prev) => ({ ...prev, [k]: value }))}
        autoComplete={auto}
        testId={`input-${k}`}
      />
    );
  };
  return (
    <Modal
      open={open}
      onClose={close}
      size="small"
      title={reset ? t`Reset Password` : t`Change Password`}
      testId="password-dialog"
    >
      <form class="form single" onSubmit={submit} noValidate>
        {reset ? null : input("oldPassword", t`Current Password`, "current-password")}
        {input("newPassword", t`New Password`, "new-password")}
        {reset ? null : input("confirmPassword", t`Confirm Password`, "new-password")}
        <FormActions onCancel={close} saving={change.isPending} />
      </form>
    </Modal>
  );
}
