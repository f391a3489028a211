// 'Please wait ...' while any request is under way.
import { Trans } from "@lingui/react/macro";
import { pending } from "../lib/loading";
import { useStore } from "../lib/store";

export function LoadingOverlay() {
  const count = useStore(pending);
  if (count <= 0) return null;
  return (
    <div class="loading-overlay" role="status" aria-live="polite" data-testid="loading">
      <div class="loading-box">
        <span class="spinner" aria-hidden="true" />
        <span>
          <Trans>Please wait ...</Trans>
        </span>
      </div>
    </div>
  );
}
