// /callback: the return address of single sign-on. Exchanges the query id for a token.
import { Trans } from "@lingui/react/macro";
import { useEffect } from "react";
import { navigate } from "wouter/use-browser-location";
import { exchangeSsoId } from "../../api/auth";
import { markSsoSession, startSession } from "../../lib/session";
import { prefetchDashboard } from "../Dashboard/prefetch";

export function CallbackPage() {
  useEffect(() => {
    const id = new URLSearchParams(window.location.search).get("id");
    if (!id) {
      // Spec §2 and §8: with no id the callback goes to /login.
      navigate("/login", { replace: true });
      return;
    }
    let live = true;
    exchangeSsoId(id)
      .then((user) => {
        if (!live) return;
        markSsoSession();
        startSession(user);
        prefetchDashboard();
      })
      .catch(() => live && navigate("/", { replace: true })); // the banner says why
    return () => {
      live = false;
    };
  }, []);
  return (
    <div class="center-page" role="status">
      <Trans>Signing you in ...</Trans>
    </div>
  );
}
