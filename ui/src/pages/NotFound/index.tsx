import { Trans } from "@lingui/react/macro";

export function NotFoundPage() {
  return (
    <div class="not-found" data-testid="not-found">
      <p class="not-found-code" aria-hidden="true">
        404
      </p>
      <h1>
        <Trans>This page could not be found</Trans>
      </h1>
    </div>
  );
}
