// The console's API client instance, wired to local storage, the banners and the overlay.
import { showError } from "../app/banners";
import { begin } from "../app/loading";
import { createClient } from "./client";
import { getToken } from "./storage";
import { apiBaseUrl } from "./tenant";

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
