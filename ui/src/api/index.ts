// The console's API client instance, wired to local storage, the banners and the overlay, and
// its typed view (`client`): the OpenAPI document's paths, parameters and bodies.
import { showError } from "../lib/banners";
import { begin } from "../lib/loading";
import { getToken } from "../lib/storage";
import { apiBaseUrl } from "../lib/tenant";
import { createClient } from "./client";
import { typedClient } from "./typed";

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

/** The API by the document's paths: `client.get("/users/{id}", { path: { id } })`. */
export const client = typedClient(api);
