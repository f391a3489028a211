// Why a single sign-on came back to the login page: the server redirects to
// /login?sso_error=<code> (docs/sso.md); each code has its message in both languages.
import type { MessageDescriptor } from "@lingui/core";
import { msg } from "@lingui/core/macro";

export const SSO_ERROR_PARAM = "sso_error";

const MESSAGES: Record<string, MessageDescriptor> = {
  provider_down: msg`The identity provider cannot be reached. Try again later, or sign in with your password.`,
  provider_untrusted: msg`The identity provider's certificate is not trusted by this console. Contact your administrator, or sign in with your password.`,
  wrong_issuer: msg`The identity provider is not the one configured for this console. Contact your administrator.`,
  state: msg`This sign-in has expired or was already used. Start single sign-on again.`,
  not_allowed: msg`Your account is not allowed to use this console. Contact your administrator.`,
  provider_error: msg`The identity provider refused the sign-in. Try again, or contact your administrator.`,
  invalid_token: msg`The identity provider's answer could not be verified. Start single sign-on again.`,
  not_configured: msg`Single sign-on is not configured for this console.`,
};

const FALLBACK: MessageDescriptor = msg`Single sign-on failed. Try again, or contact your administrator.`;

/** The message for a code from the address, or undefined when there is none. */
export function ssoErrorMessage(code: string | null | undefined): MessageDescriptor | undefined {
  if (!code) return undefined;
  return Object.hasOwn(MESSAGES, code) ? MESSAGES[code] : FALLBACK;
}

/** The code in a location's query, and the query without it (so a reload does not repeat it). */
export function takeSsoError(search: string): { code: string | null; rest: string } {
  const params = new URLSearchParams(search);
  const code = params.get(SSO_ERROR_PARAM);
  params.delete(SSO_ERROR_PARAM);
  const rest = params.toString();
  return { code, rest: rest ? `?${rest}` : "" };
}
