// The console's API client instance, wired to local storage, the banners and the overlay.
import { showError } from "../lib/banners";
import { begin } from "../lib/loading";
import { createClient } from "./client";
import { getToken } from "../lib/storage";
import { apiBaseUrl } from "../lib/tenant";

export { ApiError } from "./client";
export type { RequestOptions } from "./client";
export * from "./types";

export const api = createClient({
  fetch: (input, init) => globalThis.fetch(input, init),
  baseUrl: apiBaseUrl,
  token: getToken,
  onError: (err) => showError(err.messages),
  onStart: begin,
});
