// What every screen runs inside: translations and the server-state cache.
import { I18nProvider } from "@lingui/react";
import { QueryClientProvider } from "@tanstack/react-query";
import type { ComponentChildren } from "preact";
import { signOutOnServer } from "../api/auth";
import { i18n } from "../i18n";
import { queryClient } from "../lib/queryClient";
import { signOutHooks } from "../lib/session";

// A sign-out ends the token on the server, best effort, and forgets every cached answer.
signOutHooks.add((token) => {
  queryClient.clear();
  return signOutOnServer(token);
});

export function Providers({ children }: { children: ComponentChildren }) {
  return (
    <QueryClientProvider client={queryClient}>
      <I18nProvider i18n={i18n}>{children}</I18nProvider>
    </QueryClientProvider>
  );
}
