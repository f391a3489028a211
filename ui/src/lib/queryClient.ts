// The one cache of server state (TanStack Query). Failures already show the global banner in
// the API client, so queries are not retried behind the user's back.
import { QueryClient } from "@tanstack/react-query";

export const queryClient = new QueryClient({
  defaultOptions: {
    queries: { retry: false, refetchOnWindowFocus: false, staleTime: 30_000 },
    mutations: { retry: false },
  },
});
