// Why a notification or a channel test failed: the server answers a stable code beside its
// English reason (`reasonCode`, `reasonStatus`; docs/notifications.md 'Reason codes'), and
// the console says it in the reader's language. The English text stays for the log and for
// administrators who want the detail.
import type { I18n, MessageDescriptor } from "@lingui/core";
import { msg } from "@lingui/core/macro";

const MESSAGES: Record<string, MessageDescriptor> = {
  untrusted_certificate: msg`The server's certificate is not trusted: give the CA that signed it in the configuration.`,
  rate_limited: msg`The receiver asked to wait: it will be tried again when it said.`,
  timeout: msg`The receiver did not answer in time.`,
  unreachable: msg`The receiver cannot be reached.`,
  bad_address: msg`The address is not valid: correct the contact.`,
  authentication_failed: msg`The mail server refused the credentials: check the configured user name and password.`,
  mail_refused: msg`The mail server refused the message.`,
  mail_deferred: msg`The mail server refused the message for now: it will be tried again.`,
  not_configured: msg`The channel is not configured: nothing was sent.`,
  blocked_host: msg`This address is on the server itself or its local network: it is refused unless allowed in the configuration.`,
  failed: msg`The message could not be delivered.`,
};

/** The reason in the reader's language, or undefined when there is no code. */
export function deliveryReason(
  i18n: I18n,
  code: string | null | undefined,
  status?: number | null,
): string | undefined {
  if (!code) return undefined;
  if (code === "http_status") {
    const s = status ?? 0;
    if (s === 401 || s === 403) return i18n._(msg`The receiver refused the credentials (HTTP ${s}).`);
    if (s === 404 || s === 410) return i18n._(msg`No such receiver at this address (HTTP ${s}): correct the contact.`);
    return i18n._(msg`The receiver answered HTTP ${s}.`);
  }
  return i18n._(Object.hasOwn(MESSAGES, code) ? MESSAGES[code] : MESSAGES.failed);
}
