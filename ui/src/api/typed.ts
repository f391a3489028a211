// The API's paths as the server's OpenAPI document declares them (`paths` of schema.d.ts): a call
// names an operation by its path template and method, and TypeScript checks the path parameters,
// the query, the body and the answer's `data` against that operation. Only the types are the
// document's: the call goes through the tolerant client (client.ts), which takes any 2xx answer,
// unwraps `data`, and shows failures, so a vendor's API behind the proxy is read as before.
import type { ApiClient, RequestOptions } from "./client";
import type { paths } from "./schema";

export type Method = "get" | "put" | "post" | "delete" | "patch";

/** The path templates that have an operation for `M` (`"/users/{id}"` for "get"). */
export type PathsWith<M extends Method> = {
  [P in keyof paths]: paths[P][M] extends { responses: unknown } ? P : never;
}[keyof paths];

/** The operation of `M` on path `P`. */
export type Operation<P extends keyof paths, M extends Method> = NonNullable<paths[P][M]>;

type Parameters<O> = O extends { parameters: infer X } ? X : never;

/** An operation's path parameters (`{ id: number }`), or never when it has none. */
export type PathParams<O> =
  Parameters<O> extends { path: infer X } ? (X extends Record<string, unknown> ? X : never) : never;

/** An operation's query parameters, or never when it has none. */
export type QueryParams<O> =
  Parameters<O> extends { query?: infer X } ? (X extends Record<string, unknown> ? X : never) : never;

type ContentOf<C> = C extends { content: infer X } ? X[keyof X] : never;

/** An operation's request body (a JSON body, or a multipart form's parts), or never. */
export type BodyOf<O> = O extends { requestBody?: infer B } ? ContentOf<NonNullable<B>> : never;

type Success<O> = O extends { responses: { 200: infer R } } ? ContentOf<R> : never;

/** What a success answer carries: the envelope's `data` (client.ts unwraps it). */
export type DataOf<O> = Success<O> extends { data: infer D } ? D : Success<O>;

/** The `data` of a GET on `P`. */
export type GetData<P extends PathsWith<"get">> = DataOf<Operation<P, "get">>;
/** The query of a GET on `P`. */
export type GetQuery<P extends PathsWith<"get">> = QueryParams<Operation<P, "get">>;

type PathPart<O> = [PathParams<O>] extends [never] ? { path?: never } : { path: PathParams<O> };
type QueryPart<O> = [QueryParams<O>] extends [never] ? { query?: never } : { query?: QueryParams<O> };
type BodyPart<O> = [BodyOf<O>] extends [never]
  ? { body?: never }
  : { body?: BodyOf<O> | (BodyOf<O> extends Record<string, unknown> ? never : FormData) | FormData };

/** The client's options of a call (quiet, in the background, a signal, …), without what the operation types. */
export type CallOptions = Omit<RequestOptions, "query" | "body">;

/** What a call of operation `O` takes: its path parameters, query and body, and the client's options. */
export type Init<O> = CallOptions & PathPart<O> & QueryPart<O> & BodyPart<O>;

/** An `Init` may be left out when the operation has no path parameter. */
type InitArgs<O> = [PathParams<O>] extends [never] ? [init?: Init<O>] : [init: Init<O>];

/** `/users/{id}` with `{ id: 7 }`: `users/7` (each value percent-encoded), relative to the API's base. */
export function fillPath(template: string, params: Record<string, unknown> = {}): string {
  return template.replace(/^\//, "").replace(/\{([^}]+)\}/g, (_, name: string) => {
    const v = params[name];
    if (v === undefined || v === null) throw new Error(`${template}: no value for {${name}}`);
    return encodeURIComponent(String(v));
  });
}

/** The typed calls over a tolerant client: `paths.get("/users/{id}", { path: { id } })`. */
export function typedClient(api: ApiClient) {
  function call<M extends Method, P extends PathsWith<M>>(
    method: M,
    path: P,
    init: Init<Operation<P, M>> | undefined,
  ): Promise<DataOf<Operation<P, M>>> {
    const {
      path: params,
      query,
      body,
      ...opts
    } = (init ?? {}) as Init<unknown> & {
      path?: Record<string, unknown>;
      query?: RequestOptions["query"];
      body?: unknown;
    };
    return api.request(method.toUpperCase(), fillPath(path, params), { ...opts, query, body });
  }
  return {
    get: <P extends PathsWith<"get">>(path: P, ...[init]: InitArgs<Operation<P, "get">>) => call("get", path, init),
    post: <P extends PathsWith<"post">>(path: P, ...[init]: InitArgs<Operation<P, "post">>) => call("post", path, init),
    put: <P extends PathsWith<"put">>(path: P, ...[init]: InitArgs<Operation<P, "put">>) => call("put", path, init),
    patch: <P extends PathsWith<"patch">>(path: P, ...[init]: InitArgs<Operation<P, "patch">>) =>
      call("patch", path, init),
    /** A delete judged by its status and code, not by the value it returns (a vendor may answer anything). */
    remove: <P extends PathsWith<"delete">>(path: P, ...[init]: InitArgs<Operation<P, "delete">>) =>
      call("delete", path, init).then(() => true as const),
    /** The raw response of a GET (downloads); failures as for the others. */
    raw: <P extends PathsWith<"get">>(path: P, ...[init]: InitArgs<Operation<P, "get">>) => {
      const {
        path: params,
        query,
        ...opts
      } = (init ?? {}) as Init<unknown> & {
        path?: Record<string, unknown>;
        query?: RequestOptions["query"];
      };
      return api.raw("GET", fillPath(path, params), { ...opts, query });
    },
  };
}

export type TypedClient = ReturnType<typeof typedClient>;
