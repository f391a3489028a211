import { I18nProvider } from "@lingui/react";
import { useEffect } from "react";
import { Redirect, Route, Switch } from "wouter";
import { signOutOnServer } from "../api/auth";
import { Banners } from "../components/Banners";
import { LoadingOverlay } from "../components/LoadingOverlay";
import { Shell } from "../components/Shell";
import { i18n } from "../i18n";
import { startIdleTimer } from "../lib/idle";
import { session, signOut, signOutHooks } from "../lib/session";
import { useStore } from "../lib/store";
import { NotFoundPage } from "../pages/NotFound";
import { routes } from "./routes";

// A sign-out also ends the token on the server, best effort.
signOutHooks.add((token) => void signOutOnServer(token));

/** Signs the user out after 15 minutes without activity, while signed in (spec §4). */
function useIdleSignOut(signedIn: boolean) {
  useEffect(() => {
    if (!signedIn) return;
    return startIdleTimer({ target: window, onIdle: signOut });
  }, [signedIn]);
}

export function App() {
  const user = useStore(session);
  useIdleSignOut(!!user);

  return (
    <I18nProvider i18n={i18n}>
      <Banners />
      <LoadingOverlay />
      <Switch>
        {routes.map(({ path, component: Page, access }) => (
          <Route key={path} path={path}>
            {access === "guest" ? (
              user ? (
                <Redirect to="/dashboard" replace />
              ) : (
                <Page />
              )
            ) : access === "protected" ? (
              user ? (
                <Shell>
                  <Page />
                </Shell>
              ) : (
                <Redirect to="/" replace />
              )
            ) : (
              <Page />
            )}
          </Route>
        ))}
        <Route>
          {user ? (
            <Shell>
              <NotFoundPage />
            </Shell>
          ) : (
            <NotFoundPage />
          )}
        </Route>
      </Switch>
    </I18nProvider>
  );
}
