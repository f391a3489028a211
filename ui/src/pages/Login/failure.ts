// Why a sign-in failed, from the API error, and the message the Login page shows for it:
// wrong credentials (spec §8's sentence), too many attempts (429: how long to wait, from the
// server's message: sign-in is locked, for how long), or a service that cannot be reached (no answer, or 502/503/504 from a
// proxy whose upstream is down) — never 'check your credentials' for the last two.
import type { MessageDescriptor } from "@lingui/core";
import { msg } from "@lingui/core/macro";
import { ApiError } from "../../api";

export type LoginFailure =
  | { kind: "credentials" }
  /** `waitSecs`: what the server said, when it said it. */
  | { kind: "throttled"; waitSecs?: number }
  | { kind: "unreachable" }
  /** Any other failure of the server (500 …): not the user's credentials either. */
  | { kind: "server"; status: number };

/** Statuses a proxy answers when the service behind it is down or does not answer. */
const UNREACHABLE_STATUSES = new Set([502, 503, 504]);

/** The wait in cxwatch's 429 message: 'Too many failed sign-in attempts; try again in N seconds'. */
const WAIT_IN_MESSAGE = /try again in (\d+) seconds?/i;

export function loginFailure(err: unknown): LoginFailure {
  if (!(err instanceof ApiError)) return { kind: "unreachable" };
  if (err.status === 0) return { kind: "unreachable" };
  if (err.status === 429) {
    const secs = err.serverMessages.map((m) => WAIT_IN_MESSAGE.exec(m)?.[1]).find((s) => s !== undefined);
    return secs === undefined ? { kind: "throttled" } : { kind: "throttled", waitSecs: Number(secs) };
  }
  if (UNREACHABLE_STATUSES.has(err.status)) return { kind: "unreachable" };
  if (err.status >= 500) return { kind: "server", status: err.status };
  return { kind: "credentials" };
}

const CREDENTIALS = msg`Please check your credentials and try again, otherwise contact support`;
const WAIT_SECONDS = msg({
  message:
    "Sign-in is locked after too many failed attempts. Try again in {count, plural, one {# second} other {# seconds}}.",
});
const WAIT_MINUTES = msg({
  message:
    "Sign-in is locked after too many failed attempts. Try again in {count, plural, one {# minute} other {# minutes}}.",
});
const WAIT_LATER = msg`Sign-in is locked after too many failed attempts. Try again later.`;
const UNREACHABLE = msg`The service cannot be reached. Try again later, otherwise contact support.`;
const SERVER = msg`The sign-in failed because of a problem on the server (HTTP {status}). Try again later, otherwise contact support.`;

/** The message for a failure, with its values (give it to `i18n._`). */
export function loginFailureMessage(f: LoginFailure): MessageDescriptor {
  switch (f.kind) {
    case "credentials":
      return CREDENTIALS;
    case "throttled": {
      const secs = f.waitSecs;
      if (secs === undefined || !Number.isFinite(secs) || secs <= 0) return WAIT_LATER;
      // Under a minute in seconds; otherwise in whole minutes, rounded up.
      if (secs < 60) return { ...WAIT_SECONDS, values: { count: secs } };
      return { ...WAIT_MINUTES, values: { count: Math.ceil(secs / 60) } };
    }
    case "unreachable":
      return UNREACHABLE;
    case "server":
      return { ...SERVER, values: { status: f.status } };
  }
}
