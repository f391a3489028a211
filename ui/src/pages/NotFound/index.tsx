import { Trans } from "@lingui/react/macro";
import { Link } from "wouter";

/** 'This page could not be found'; signed out (`signIn`), with the way to the sign-in page. */
export function NotFoundPage({ signIn = false }: { signIn?: boolean }) {
  return (
    <div class="not-found" data-testid="not-found">
      <p class="not-found-code" aria-hidden="true">
        404
      </p>
      <h1>
        <Trans>This page could not be found</Trans>
      </h1>
      {signIn ? (
        <p>
          <Link href="/" class="button primary" data-testid="not-found-sign-in">
            <Trans>Sign in</Trans>
          </Link>
        </p>
      ) : null}
    </div>
  );
}
