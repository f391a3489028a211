import type { MessageDescriptor } from "@lingui/core";
import { useLingui } from "@lingui/react";
import { Suspense, useEffect } from "react";
import { Redirect, Route, Switch } from "wouter";
import { useLiveUpdates } from "../api/live";
import { useOpenAlertsBadge } from "../api/queries/alerts";
import { Banners } from "../components/Banners";
import { LoadingOverlay } from "../components/LoadingOverlay";
import { Shell } from "../components/Shell";
import { startIdleTimer } from "../lib/idle";
import { noteIdleSignOut, session, signOut, signsOutWhenIdle } from "../lib/session";
import { useStore } from "../lib/store";
import { useTabTitle } from "../lib/title";
import { NotFoundPage } from "../pages/NotFound";
import { Providers } from "./providers";
import { NOT_FOUND_TITLE, routes } from "./routes";

/** Signs the user out after 15 minutes without activity, while signed in (spec §4). */
function useIdleSignOut(signedIn: boolean) {
  useEffect(() => {
    if (!signedIn) return;
    return startIdleTimer({
      target: window,
      onIdle: () => {
        // Noted first: sign-out then stays on the console (no identity provider logout).
        noteIdleSignOut();
        signOut();
      },
    });
  }, [signedIn]);
}

/** The Alerts entry's count of open alert events (inside the query client's provider). */
function OpenAlertsBadge({ signedIn }: { signedIn: boolean }) {
  useOpenAlertsBadge(signedIn);
  return null;
}

/**
 * The tab's title from the route table, in the reader's language. Rendered before the page, so
 * a page that words its own (the dashboard's worst state) sets it after.
 */
function TabTitle({ title }: { title: MessageDescriptor }) {
  const { i18n } = useLingui();
  useTabTitle(i18n._(title));
  return null;
}

export function App() {
  const user = useStore(session);
  useIdleSignOut(signsOutWhenIdle(user));
  // Dashboards refresh when runs arrive (embedded mode); one stream for the whole app.
  useLiveUpdates(!!user);

  return (
    <Providers>
      <OpenAlertsBadge signedIn={!!user} />
      <Banners />
      <LoadingOverlay />
      <Switch>
        {routes.map(({ path, component: Page, access, title }) => (
          <Route key={path} path={path}>
            <TabTitle title={title} />
            {access === "guest" ? (
              user ? (
                <Redirect to="/dashboard" replace />
              ) : (
                <Page />
              )
            ) : access === "protected" ? (
              user ? (
                <Shell>
                  {/* A screen loaded on first use: the shell stays while its file comes. */}
                  <Suspense fallback={null}>
                    <Page />
                  </Suspense>
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
          <TabTitle title={NOT_FOUND_TITLE} />
          {user ? (
            <Shell>
              <NotFoundPage />
            </Shell>
          ) : (
            // Signed out, no shell: the page is its own main landmark and offers the sign-in.
            <main class="not-found-page">
              <NotFoundPage signIn />
            </main>
          )}
        </Route>
      </Switch>
    </Providers>
  );
}
