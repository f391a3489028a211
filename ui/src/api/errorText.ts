// What a failed call says, in the console's language: the server writes its
// messages in English ('Report 12 is not in your test case groups.', 'No mail server is
// configured…'), so the console says them itself from what does not depend on the language —
// the operation (method and path), the answer's status and its error code. Pure.
import type { MessageDescriptor } from "@lingui/core";
import { msg } from "@lingui/core/macro";

export interface FailedCall {
  method: string;
  /** The path under the API's base, as called: `reports/12`, `distributions/testContact`. */
  path: string;
  query?: Record<string, unknown>;
  status: number;
  code: string;
}

/** A sentence of the console's own for a failed call, with its values (give it to `i18n._`). */
export type FailureText = MessageDescriptor;

const REPORT_HIDDEN = msg`Report {id} is not in your test case groups.`;
const REPORT_MISSING = msg`Report {id} does not exist.`;
const ALERT_HIDDEN = msg`Alert {id} is not in your test case groups.`;
const ALERT_MISSING = msg`Alert {id} does not exist.`;
const GROUP_HIDDEN = msg`Test case group {id} is not in your test case groups.`;
const GROUP_MISSING = msg`Test case group {id} does not exist.`;
const RUN_HIDDEN = msg`Test run {id} is not in your test case groups.`;
const RUN_MISSING = msg`Test run {id} does not exist.`;
const SETTING_MISSING = msg`Alert setting {id} does not exist.`;
const SETTING_HIDDEN = msg`Alert setting {id} is not in your test case groups.`;
const LIST_MISSING = msg`Distribution list {id} does not exist.`;
const USER_MISSING = msg`User {id} does not exist.`;
const NO_MAIL = msg`No mail server is configured on this site: a test e-mail cannot be sent.`;
const NO_SMS = msg`No SMS gateway is configured on this site: a test SMS cannot be sent.`;
const NO_VOICE = msg`No voice gateway is configured on this site: a test call cannot be made.`;

/** The items a path names by id, and what a 403 and a 404 of theirs say. */
const ITEMS: { path: RegExp; hidden?: MessageDescriptor; missing: MessageDescriptor }[] = [
  { path: /^reports\/(\d+)(\/|$)/, hidden: REPORT_HIDDEN, missing: REPORT_MISSING },
  { path: /^alerts\/events\/(\d+)(\/|$)/, hidden: ALERT_HIDDEN, missing: ALERT_MISSING },
  { path: /^alerts\/(\d+)(\/|$)/, hidden: SETTING_HIDDEN, missing: SETTING_MISSING },
  { path: /^trs\/v1\/groups\/(\d+)(\/|$)/, hidden: GROUP_HIDDEN, missing: GROUP_MISSING },
  { path: /^trs\/v1\/testruns\/(\d+)(\/|$)/, hidden: RUN_HIDDEN, missing: RUN_MISSING },
  { path: /^distributions\/(\d+)$/, missing: LIST_MISSING },
  { path: /^users\/(\d+)(\/|$)/, missing: USER_MISSING },
];

/** Said for a code whatever the operation, on pages in another language than English. */
const BY_CODE: Record<string, MessageDescriptor> = {
  FORBIDDEN: msg`Your access does not allow this.`,
  NOT_FOUND: msg`What was asked for does not exist.`,
  CONFLICT: msg`This change conflicts with the data saved on the server.`,
  NOT_CONFIGURED: msg`This site has no server configured for this.`,
  BAD_REQUEST: msg`The server refused the request as it was sent.`,
  TOO_MANY_REQUESTS: msg`Too many attempts. Try again later.`,
  INTERNAL: msg`The server failed. Try again later, otherwise contact support.`,
  BAD_GATEWAY: msg`A server the console depends on failed. Try again later.`,
  GATEWAY_TIMEOUT: msg`A server the console depends on did not answer. Try again later.`,
  UNAVAILABLE: msg`The database cannot be reached; nothing was done. Try again in a few seconds.`,
  INSUFFICIENT_STORAGE: msg`The server's disk is full; nothing was saved. Try again once space is freed.`,
};

/** Codes whose own words (the server's, in English) say more than the sentence by code. */
const DETAILED = new Set(["CONFLICT", "BAD_REQUEST", "BAD_GATEWAY"]);

/**
 * The console's words for a failed call: `own` replaces the server's messages (a sentence of
 * the operation, or, when `english` is false, one by code); `detail` is true when the server's
 * own words should follow, as the detail of a sentence by code. Undefined: keep the server's.
 */
export function failureText(call: FailedCall, english: boolean): { own: FailureText; detail: boolean } | undefined {
  const path = call.path.replace(/^\/+/, "").replace(/^api\//, "");
  const method = call.method.toUpperCase();
  if (method === "POST" && /^distributions\/testContact$/.test(path) && call.code === "NOT_CONFIGURED") {
    const q = call.query ?? {};
    const given = (k: string) => typeof q[k] === "string" && (q[k] as string).trim() !== "";
    const own = given("email") ? NO_MAIL : given("sms") ? NO_SMS : given("voice") ? NO_VOICE : undefined;
    if (own) return { own, detail: false };
  }
  if (method === "GET" && (call.status === 403 || call.status === 404)) {
    for (const item of ITEMS) {
      const m = item.path.exec(path);
      if (!m) continue;
      const said = call.status === 404 ? item.missing : item.hidden;
      if (said) return { own: { ...said, values: { id: Number(m[1]) } }, detail: false };
    }
  }
  if (english) return undefined;
  const own = BY_CODE[call.code] ?? BY_CODE[codeOfStatus(call.status)];
  return own ? { own, detail: DETAILED.has(call.code) } : undefined;
}

/** The code cxwatch gives a status, for a vendor's answer that named none (`HTTP_403`). */
function codeOfStatus(status: number): string {
  switch (status) {
    case 400:
      return "BAD_REQUEST";
    case 403:
      return "FORBIDDEN";
    case 404:
      return "NOT_FOUND";
    case 409:
      return "CONFLICT";
    case 429:
      return "TOO_MANY_REQUESTS";
    case 502:
      return "BAD_GATEWAY";
    case 504:
      return "GATEWAY_TIMEOUT";
    default:
      return status >= 500 ? "INTERNAL" : "";
  }
}
