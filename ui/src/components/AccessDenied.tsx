// What a screen shows to a user who may not use it, and what a screen shows when the item it
// opens could not be loaded: the right reason, not 'for administrators'.
import { Trans, useLingui } from "@lingui/react/macro";
import type { ComponentChildren } from "preact";
import { reasonOf, refusalOf } from "../lib/refusal";

/** `reason` replaces the default 'This page is for administrators.' */
export function AccessDenied({ reason }: { reason?: ComponentChildren } = {}) {
  return (
    <section class="page" data-testid="access-denied">
      <h1 class="page-title">
        <Trans>Access is denied!</Trans>
      </h1>
      <p class="muted">{reason ?? <Trans>This page is for administrators.</Trans>}</p>
    </section>
  );
}

/**
 * The item of the page could not be loaded: it does not exist (404), it is outside the
 * caller's test case groups (403), or the call failed. The reason is the failure's message,
 * which the API client words in the console's language for these operations.
 */
export function Refused({ error, fallback }: { error: unknown; fallback: string }) {
  const { t } = useLingui();
  const kind = refusalOf(error);
  const said = kind === "failed" ? undefined : reasonOf(error);
  const title = kind === "missing" ? t`Not found` : kind === "hidden" ? t`Access is denied!` : t`Something went wrong`;
  return (
    <section class="page" data-testid="refused" data-refusal={kind}>
      <h1 class="page-title">{title}</h1>
      <p class="muted" data-testid="refused-reason">
        {said || fallback}
      </p>
    </section>
  );
}
