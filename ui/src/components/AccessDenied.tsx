// What a screen shows to a user who may not use it.
import { Trans } from "@lingui/react/macro";
import type { ComponentChildren } from "preact";

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
