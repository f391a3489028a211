// The typed API client: base address from the tenant config, Bearer token from local storage,
// 30 s time-out, envelope unwrapping and the global error banner (spec §7, §8).
import { t } from "@lingui/core/macro";

export const REQUEST_TIMEOUT_MS = 30000;

export type Query = Record<string, string | number | boolean | null | undefined>;

export interface RequestOptions {
  query?: Query;
  /** Sent as JSON, or as is when it is FormData. */
  body?: unknown;
  /** No global banner on failure: the caller shows the failure itself. */
  quiet?: boolean;
  /** No 'Please wait ...' overlay while it runs. */
  background?: boolean;
  signal?: AbortSignal;
  timeoutMs?: number;
  headers?: Record<string, string>;
}

/** One field's failure in an error body: `rule` is required, invalid, tooShort, tooLong, taken, mismatch or forbidden. */
export interface FieldError {
  field: string;
  rule: string;
  message: string;
}

/** A failed call. `status` is 0 when no HTTP answer came (time-out, network, abort). */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly messages: string[];
  /** The fields the server named, to show beside them. */
  readonly fields: FieldError[];
  constructor(status: number, code: string, messages: string[], fields: FieldError[] = []) {
    super(messages.join(" ") || code);
    this.name = "ApiError";
    this.status = status;
    this.code = code;
    this.messages = messages;
    this.fields = fields;
  }
}

function fieldsOf(body: unknown): FieldError[] {
  const list = isEnvelope(body) ? (body as { fields?: unknown }).fields : undefined;
  if (!Array.isArray(list)) return [];
  return list
    .filter((f): f is FieldError => !!f && typeof f.field === "string" && typeof f.rule === "string")
    .map((f) => ({ field: f.field, rule: f.rule, message: typeof f.message === "string" ? f.message : "" }));
}

export interface ClientDeps {
  fetch: typeof fetch;
  /** Base address of the API, e.g. `/api` or `https://host/api`. */
  baseUrl: () => string;
  token: () => string | undefined;
  /** Shows a failure to the user (the global error banner). */
  onError: (error: ApiError) => void;
  /** Marks a request as under way; returns the function that marks it done. */
  onStart?: () => () => void;
  timeoutMs?: number;
}

export function joinUrl(base: string, path: string, query?: Query): string {
  const url = `${base.replace(/\/+$/, "")}/${path.replace(/^\/+/, "")}`;
  if (!query) return url;
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) {
    if (v !== undefined && v !== null) params.append(k, String(v));
  }
  const qs = params.toString();
  return qs ? `${url}${url.includes("?") ? "&" : "?"}${qs}` : url;
}

function isEnvelope(body: unknown): body is { code: string; data?: unknown; messages?: unknown } {
  return !!body && typeof body === "object" && typeof (body as { code?: unknown }).code === "string";
}

function messagesOf(body: unknown): string[] {
  if (!isEnvelope(body) || !Array.isArray(body.messages)) return [];
  return body.messages.filter((m): m is string => typeof m === "string" && m.trim() !== "");
}

export function createClient(deps: ClientDeps) {
  const timeoutMs = deps.timeoutMs ?? REQUEST_TIMEOUT_MS;

  /** Runs `work` with the token, the time-out and the caller's abort signal applied. */
  async function withRequest<T>(
    method: string,
    path: string,
    opts: RequestOptions,
    work: (res: Response) => Promise<T>,
  ): Promise<T> {
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, opts.timeoutMs ?? timeoutMs);
    const onCallerAbort = () => controller.abort();
    opts.signal?.addEventListener("abort", onCallerAbort);
    const done = opts.background ? undefined : deps.onStart?.();

    const headers: Record<string, string> = { Accept: "application/json", ...opts.headers };
    const token = deps.token();
    if (token && !headers.Authorization) headers.Authorization = `Bearer ${token}`;
    let body: BodyInit | undefined;
    if (opts.body instanceof FormData) {
      body = opts.body;
    } else if (opts.body !== undefined) {
      headers["Content-Type"] = "application/json";
      body = JSON.stringify(opts.body);
    }

    try {
      const res = await deps.fetch(joinUrl(deps.baseUrl(), path, opts.query), {
        method,
        headers,
        body,
        signal: controller.signal,
      });
      return await work(res);
    } catch (e) {
      let err: ApiError;
      if (e instanceof ApiError) err = e;
      else if (timedOut) {
        err = new ApiError(0, "TIMEOUT", [t`The server did not answer within 30 seconds. Please try again.`]);
      } else if (opts.signal?.aborted) {
        throw new ApiError(0, "ABORTED", []); // the caller gave up: nothing to show
      } else {
        err = new ApiError(0, "NETWORK", [t`The server could not be reached.`]);
      }
      if (!opts.quiet) deps.onError(err);
      throw err;
    } finally {
      clearTimeout(timer);
      opts.signal?.removeEventListener("abort", onCallerAbort);
      done?.();
    }
  }

  async function failure(res: Response, body: unknown): Promise<ApiError> {
    const code = isEnvelope(body) && body.code !== "OK" ? body.code : `HTTP_${res.status}`;
    if (res.status === 401) return new ApiError(401, code, [t`Access is denied!`]);
    const messages = messagesOf(body);
    const status = res.status;
    return new ApiError(
      status,
      code,
      messages.length ? messages : [t`The request failed (HTTP ${status}).`],
      fieldsOf(body),
    );
  }

  /** Calls the API and unwraps `{"code":"OK","data":...}` into the data. */
  function request<T>(method: string, path: string, opts: RequestOptions = {}): Promise<T> {
    return withRequest(method, path, opts, async (res) => {
      const text = await res.text();
      let body: unknown;
      try {
        body = text ? JSON.parse(text) : undefined;
      } catch {
        if (res.ok) {
          throw new ApiError(res.status, "BAD_RESPONSE", [t`The server sent an answer the console cannot read.`]);
        }
        body = undefined;
      }
      if (res.ok && isEnvelope(body) && body.code === "OK") return body.data as T;
      if (res.ok && !isEnvelope(body)) {
        throw new ApiError(res.status, "BAD_RESPONSE", [t`The server sent an answer the console cannot read.`]);
      }
      throw await failure(res, body);
    });
  }

  /** Calls the API and hands back the raw response (downloads); failures as for `request`. */
  function raw(method: string, path: string, opts: RequestOptions = {}): Promise<Response> {
    return withRequest(method, path, opts, async (res) => {
      if (res.ok) return res;
      let body: unknown;
      try {
        body = await res.json();
      } catch {
        body = undefined;
      }
      throw await failure(res, body);
    });
  }

  return {
    request,
    raw,
    get: <T>(path: string, opts?: RequestOptions) => request<T>("GET", path, opts),
    post: <T>(path: string, body?: unknown, opts?: RequestOptions) => request<T>("POST", path, { ...opts, body }),
    put: <T>(path: string, body?: unknown, opts?: RequestOptions) => request<T>("PUT", path, { ...opts, body }),
    patch: <T>(path: string, body?: unknown, opts?: RequestOptions) => request<T>("PATCH", path, { ...opts, body }),
    del: <T>(path: string, opts?: RequestOptions) => request<T>("DELETE", path, opts),
  };
}

export type ApiClient = ReturnType<typeof createClient>;
