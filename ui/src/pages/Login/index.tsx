// Login (/): username, password, Remember Me, Login, single sign-on (desktop) and language.
import { Trans, useLingui } from "@lingui/react/macro";
import { useEffect, useRef, useState } from "react";
import { useSearch } from "wouter";
import { ApiError } from "../../api";
import { signIn } from "../../api/auth";
import { ErrorIcon, KeyIcon, LogoIcon } from "../../components/icons";
import { LanguageSelect } from "../../components/LanguageSelect";
import { Modal } from "../../components/Modal";
import { useIsMobile } from "../../lib/media";
import { startSession, takeIdleSignOut, takeRoleChangeSignOut } from "../../lib/session";
import { useStore } from "../../lib/store";
import { ssoRedirectUrl, tenant } from "../../lib/tenant";
import { VERSION } from "../../lib/version";
import { prefetchDashboard } from "../Dashboard/prefetch";
import { type LoginFailure, loginFailure, loginFailureMessage } from "./failure";
import { ssoErrorMessage, takeSsoError } from "./ssoErrors";
import { LOGIN_ERROR_MS, LOGIN_NOTICE_MS, type LoginFields, validateLogin } from "./validation";

export function LoginPage() {
  const { t, i18n } = useLingui();
  const mobile = useIsMobile();
  const config = useStore(tenant);
  const [fields, setFields] = useState<LoginFields>({ username: "", password: "" });
  const [remember, setRemember] = useState(false);
  const [touched, setTouched] = useState<Record<keyof LoginFields, boolean>>({
    username: false,
    password: false,
  });
  const [busy, setBusy] = useState(false);
  // Read once: an idle sign-out says why the user is back here.
  const [idle] = useState(() => takeIdleSignOut());
  // Read once: the user's own permissions changed, which ends their sessions.
  const [roleChanged] = useState(() => takeRoleChangeSignOut());
  const [failed, setFailed] = useState<LoginFailure | null>(null);
  // Read once: a single sign-on that came back here says why (the code leaves the address).
  const [ssoError] = useState(() => {
    const { code, rest } = takeSsoError(window.location.search);
    if (code) window.history.replaceState(window.history.state, "", `${window.location.pathname}${rest}`);
    return ssoErrorMessage(code);
  });
  // '/login?kiosk': a wall display signs in for a kiosk session (read-only, never signed out
  // when idle), if an administrator allowed the user one.
  const kiosk = new URLSearchParams(useSearch()).has("kiosk");
  const [refused, setRefused] = useState<string | null>(null);
  const hideTimer = useRef<ReturnType<typeof setTimeout>>(undefined);

  useEffect(() => () => clearTimeout(hideTimer.current), []);

  const errors = validateLogin(fields);
  const showError = (k: keyof LoginFields) => touched[k] && errors[k] === "required";

  async function submit(e: Event) {
    e.preventDefault();
    if (busy) return;
    setTouched({ username: true, password: true });
    // The check marks the fields but does not block the call (spec §2).
    setBusy(true);
    try {
      const user = await signIn({ username: fields.username, password: fields.password, remember, kiosk });
      startSession(user);
      // The dashboard's calls go out now, while the page changes (they need only the token).
      prefetchDashboard();
    } catch (err) {
      if (kiosk && err instanceof ApiError && err.status === 403) {
        setRefused(t`This user may not open a kiosk session: an administrator allows it in the user’s form.`);
        return;
      }
      const failure = loginFailure(err);
      setFailed(failure);
      clearTimeout(hideTimer.current);
      // Wrong credentials: the spec's short modal; a wait or an outage stays long enough to read.
      const shown = failure.kind === "credentials" ? LOGIN_ERROR_MS : LOGIN_NOTICE_MS;
      hideTimer.current = setTimeout(() => setFailed(null), shown);
    } finally {
      setBusy(false);
    }
  }

  const field = (name: keyof LoginFields, label: string, type: "text" | "password", autoComplete: string) => (
    <div class={`field ${showError(name) ? "has-error" : ""}`}>
      <label for={`login-${name}`}>
        {label}
        <span class="required-mark" aria-hidden="true">
          {" "}
          *
        </span>
      </label>
      <input
        id={`login-${name}`}
        name={name}
        type={type as "text"}
        autoComplete={autoComplete}
        required
        aria-required="true"
        aria-invalid={showError(name) ? "true" : undefined}
        aria-describedby={showError(name) ? `login-${name}-error` : undefined}
        value={fields[name]}
        onInput={(e) => setFields({ ...fields, [name]: (e.currentTarget as HTMLInputElement).value })}
        onBlur={() => setTouched({ ...touched, [name]: true })}
      />
      {showError(name) ? (
        <p class="field-error" id={`login-${name}-error`}>
          {t`Required`}
        </p>
      ) : null}
    </div>
  );

  return (
    <div class="login-page">
      {/* A landmark, so that nothing on the page sits outside one (axe 'region'). */}
      <header class="login-lang">
        <LanguageSelect />
      </header>
      <main class="login-card" aria-labelledby="login-title">
        <div class="login-brand">
          <LogoIcon size={36} />
          <div>
            <div class="brand-name">cxwatch</div>
            <div class="brand-sub">
              <Trans>Client Experience Monitoring</Trans>
            </div>
          </div>
        </div>
        <h1 id="login-title" class="login-title">
          <Trans>Sign in to your account</Trans>
        </h1>
        {idle ? (
          <p class="login-notice" role="status" data-testid="idle-notice">
            <Trans>You were signed out after 15 minutes without activity. Sign in again to go on.</Trans>
          </p>
        ) : null}
        {roleChanged ? (
          <p class="login-notice" role="status" data-testid="role-change-notice">
            <Trans>Your permissions have changed. Sign in again to go on with them.</Trans>
          </p>
        ) : null}
        {ssoError ? (
          <p class="login-notice error" role="alert" data-testid="sso-error">
            {i18n._(ssoError)}
          </p>
        ) : null}
        {kiosk ? (
          <p class="login-notice" role="status" data-testid="kiosk-notice">
            <Trans>
              Kiosk session for a wall display: read-only, and not signed out after 15 minutes without activity.
            </Trans>
          </p>
        ) : null}
        {refused ? (
          <p class="login-notice is-error" role="alert" data-testid="kiosk-refused">
            {refused}
          </p>
        ) : null}
        <form onSubmit={submit} noValidate data-testid="login-form">
          {field("username", t`Username`, "text", "username")}
          {field("password", t`Password`, "password", "current-password")}
          {kiosk ? null : (
            <label class="checkbox">
              <input
                type="checkbox"
                name="remember"
                checked={remember}
                onChange={(e) => setRemember((e.currentTarget as HTMLInputElement).checked)}
              />
              <span>
                <Trans>Remember Me</Trans>
              </span>
            </label>
          )}
          <button type="submit" class="button primary block" disabled={busy} data-testid="login-button">
            <Trans>Login</Trans>
          </button>
        </form>
        {!mobile && config.ssoUrl ? (
          <>
            <div class="divider">
              <span>
                <Trans>or</Trans>
              </span>
            </div>
            <button
              type="button"
              class="button secondary block"
              data-testid="sso-button"
              onClick={() => {
                window.location.assign(ssoRedirectUrl(config.ssoUrl ?? "", window.location.origin));
              }}
            >
              <KeyIcon size={18} />
              <Trans>Sign in with single sign-on</Trans>
            </button>
          </>
        ) : null}
      </main>
      <footer class="login-footer">v{VERSION}</footer>
      <Modal open={failed !== null} role="alertdialog" size="small" label={t`Sign-in failed`} testId="login-error">
        <div class="login-error" data-failure={failed?.kind}>
          <ErrorIcon size={28} />
          <p>{failed ? i18n._(loginFailureMessage(failed)) : null}</p>
        </div>
      </Modal>
    </div>
  );
}
