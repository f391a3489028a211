// The console's API client instance, wired to local storage, the banners and the overlay.
import { showError } from "../lib/banners";
import { begin } from "../lib/loading";
import { getToken } from "../lib/storage";
import { apiBaseUrl } from "../lib/tenant";
import { createClient } from "./client";

export type { RequestOptions } from "./client";
export { ApiError } from "./client";
export * from "./types";

export const api = createClient({
  fetch: (input, init) => globalThis.fetch(input, init),
  baseUrl: apiBaseUrl,
  token: getToken,
  onError: (err) => showError(err.messages),
  onStart: begin,
});
