// The typed API client: base address from the tenant config, Bearer token from local storage,
// 30 s time-out, tolerant reading of the answer (an envelope with or without `code`, or the bare
// value) and the global error banner (spec §7, §8).
import { i18n } from "@lingui/core";
import { t } from "@lingui/core/macro";
import { failureText } from "./errorText";
import type { ErrorCode } from "./types";

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

/**
 * The code of a failed call: cxwatch's (`ErrorCode` of the OpenAPI document), the console's own
 * when no answer came or it was unreadable, `HTTP_{status}` when the answer named none, or any
 * other a vendor's API names.
 */
export type FailureCode =
  | ErrorCode
  | "TIMEOUT"
  | "NETWORK"
  | "ABORTED"
  | "BAD_RESPONSE"
  | `HTTP_${number}`
  | (string & {});

/** A failed call. `status` is 0 when no HTTP answer came (time-out, network, abort). */
export class ApiError extends Error {
  readonly status: number;
  readonly code: FailureCode;
  readonly messages: string[];
  /** The fields the server named, to show beside them. */
  readonly fields: FieldError[];
  /** The server's own messages (English), when `messages` are the console's words for them. */
  readonly serverMessages: string[];
  /** Why a message could not be sent (a channel test's 502): `reasonCode`, `reasonStatus`. */
  readonly reason?: { code: string; status?: number };
  constructor(
    status: number,
    code: FailureCode,
    messages: string[],
    fields: FieldError[] = [],
    serverMessages: string[] = messages,
    reason?: { code: string; status?: number },
  ) {
    super(messages.join(" ") || code);
    this.name = "ApiError";
    this.status = status;
    this.code = code;
    this.messages = messages;
    this.fields = fields;
    this.serverMessages = serverMessages;
    this.reason = reason;
  }
}

function reasonOf(body: unknown): { code: string; status?: number } | undefined {
  if (!isObject(body)) return undefined;
  const { reasonCode, reasonStatus } = body as { reasonCode?: unknown; reasonStatus?: unknown };
  if (typeof reasonCode !== "string" || !reasonCode) return undefined;
  return { code: reasonCode, status: typeof reasonStatus === "number" ? reasonStatus : undefined };
}

function fieldsOf(body: unknown): FieldError[] {
  const list = isObject(body) ? (body as { fields?: unknown }).fields : undefined;
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

function isObject(body: unknown): body is object {
  return !!body && typeof body === "object" && !Array.isArray(body);
}

function isEnvelope(body: unknown): body is { code?: unknown; data?: unknown; messages?: unknown } {
  return (
    !!body &&
    typeof body === "object" &&
    !Array.isArray(body) &&
    ("code" in (body as object) || "data" in (body as object))
  );
}

/**
 * Whether a `code` names a failure. The spec promises `code` on write answers only and does not
 * say its success value (cxwatch answers "OK", a vendor may answer "SUCCESS", 200 or nothing), so
 * a 2xx answer is a success whatever its code, except a numeric code outside 200–299 and the
 * failure codes the spec names (§8: ERR_BAD_RESPONSE, ERR_BAD_REQUEST, fail).
 */
export function isFailureCode(code: unknown): boolean {
  if (typeof code === "number") return code < 200 || code > 299;
  if (typeof code !== "string") return false;
  const c = code.trim();
  if (/^\d+$/.test(c)) {
    const n = Number(c);
    return n < 200 || n > 299;
  }
  return /^(err(or)?([_-].*)?|fail(ed|ure)?)$/i.test(c);
}

/** A code that names a failure on a non-2xx answer: any word, or a number outside 2xx. */
function isFailureCodeOrWord(code: unknown): boolean {
  return typeof code === "number" || /^\d+$/.test(String(code).trim()) ? isFailureCode(code) : true;
}

/**
 * What a 2xx answer carries: the `data` of an envelope (an object with `data` or `code`), else the
 * body itself (a vendor may answer a read with the bare value).
 */
export function unwrap(body: unknown): unknown {
  return isEnvelope(body) ? body.data : body;
}

function messagesOf(body: unknown): string[] {
  const messages = isObject(body) ? (body as { messages?: unknown }).messages : undefined;
  if (!Array.isArray(messages)) return [];
  return messages.filter((m): m is string => typeof m === "string" && m.trim() !== "");
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

  async function failure(
    res: Response,
    body: unknown,
    call: { method: string; path: string; query?: Query },
  ): Promise<ApiError> {
    // The server's own code when it names the failure (a non-2xx answer's code, unless it is a
    // success code such as "OK"); otherwise the HTTP status.
    const given = isEnvelope(body) ? body.code : undefined;
    const named =
      (typeof given === "string" && given.trim() !== "") || typeof given === "number"
        ? res.ok
          ? isFailureCode(given)
          : !/^(ok|success)$/i.test(String(given)) && isFailureCodeOrWord(given)
        : false;
    const code = named ? String(given) : `HTTP_${res.status}`;
    if (res.status === 401) return new ApiError(401, code, [t`Access is denied!`]);
    const server = messagesOf(body);
    const status = res.status;
    // The console's words where it knows what the failure means (the server writes English).
    const own = failureText({ ...call, status, code }, !i18n.locale || i18n.locale.startsWith("en"));
    const messages = own
      ? [i18n._(own.own), ...(own.detail ? server : [])]
      : server.length
        ? server
        : [t`The request failed (HTTP ${status}).`];
    return new ApiError(status, code, messages, fieldsOf(body), server, reasonOf(body));
  }

  /**
   * Calls the API and hands back what it answered: the `data` of an envelope, or the body itself.
   * A failure is judged by the HTTP status and a failure `code` (isFailureCode), never by the
   * value returned; an empty 2xx answer is undefined.
   */
  function request<T>(method: string, path: string, opts: RequestOptions = {}): Promise<T> {
    return withRequest(method, path, opts, async (res) => {
      const text = await res.text();
      let body: unknown;
      try {
        body = text.trim() ? JSON.parse(text) : undefined;
      } catch {
        if (res.ok) {
          throw new ApiError(res.status, "BAD_RESPONSE", [t`The server sent an answer the console cannot read.`]);
        }
        body = undefined;
      }
      if (res.ok && !(isEnvelope(body) && isFailureCode(body.code))) return unwrap(body) as T;
      throw await failure(res, body, { method, path, query: opts.query });
    });
  }

  /** Calls the API for its outcome only (a delete): resolves when it succeeded, whatever it returned. */
  function succeeds(method: string, path: string, opts: RequestOptions = {}): Promise<true> {
    return request<unknown>(method, path, opts).then(() => true as const);
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
      throw await failure(res, body, { method, path, query: opts.query });
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
    /** A delete judged by its status and code, not by the value it returns. */
    remove: (path: string, opts?: RequestOptions) => succeeds("DELETE", path, opts),
  };
}

export type ApiClient = ReturnType<typeof createClient>;
