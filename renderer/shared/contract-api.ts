/**
 * The pages' calls named by their contract entry: `api("PUT /settings", { body })`. The key is
 * a key of the service's contract, the params, query and body are the entry's schemas' inputs,
 * and the answer is its 2xx schema's output, checked at run time before the page sees it. So a
 * page never picks a method, a path and a schema by hand, and a route renamed or reshaped in the
 * contract is a compile error in every page that calls it. Type-only zod imports: a page loads
 * only the checks it is given.
 */

import type { z } from "zod";
import type { ApiClient, CallOptions, Parser } from "./api-client.js";

/** What the client reads of a contract entry (`RouteContract` without the document's words). */
interface EntryShape {
  params?: z.ZodType;
  query?: z.ZodType;
  body?: z.ZodType;
  responses: Readonly<Record<number, { description: string; schema?: z.ZodType }>>;
}

type Success = 200 | 201 | 202 | 204;
/** The entry's 2xx answer, or never when it answers none. */
type OkResponse<E extends EntryShape> = E["responses"][Extract<keyof E["responses"], Success>];
/** What a call of the entry resolves to: its 2xx schema's output, or nothing to read. */
export type Answer<E extends EntryShape> =
  OkResponse<E> extends { schema: infer S extends z.ZodType } ? z.output<S> : void;

/** A request body exactly as its route's schema takes it: an extra member is a compile error. */
export type Exact<T, B> = B & Record<Exclude<keyof B, KeysOf<T>>, never>;
/** Every member name of each case of a union (`keyof` of a union keeps only the common ones). */
type KeysOf<T> = T extends unknown ? keyof T : never;

type BodyIn<E extends EntryShape> = E extends { body: infer S extends z.ZodType }
  ? z.input<S>
  : never;

/** The options of one call: the entry's params, query and body, and the transport's. */
export type Options<E extends EntryShape, B> = CallOptions &
  (E extends { params: infer S extends z.ZodType } ? { params: z.input<S> } : { params?: never }) &
  (E extends { query: infer S extends z.ZodType } ? { query?: z.input<S> } : { query?: never }) &
  (E extends { body: z.ZodType } ? { body: Exact<BodyIn<E>, B> } : { body?: never });

/** Options are required when the entry has params or a body to give. */
type Args<E extends EntryShape, B> = E extends { params: z.ZodType } | { body: z.ZodType }
  ? [options: Options<E, B>]
  : [options?: Options<E, B>];

/** Each case of an answer with its members optional (what a light check may read of it). */
type Part<A> = A extends object ? Partial<A> : A;

/**
 * The answer checks a page's client carries, by contract key: every key it may call, with the
 * parser of its 2xx answer (null when the page does not read one). A light page gives small
 * checks (zod mini) for its few keys; each produces the contract's answer, or the part of it
 * the page reads (members the contract has, typed as the contract types them).
 */
export type Checks<C> = {
  readonly [K in keyof C]?: C[K] extends EntryShape
    ? Parser<Answer<C[K]>> | Parser<Part<Answer<C[K]>>> | null
    : never;
};

/** What a call resolves to: what the page's check for the key produces, or nothing to read. */
type Result<T, K extends keyof T> = T[K] extends Parser<infer O> ? O : void;

/** A check of every entry's whole answer. */
type WholeChecks<C extends Readonly<Record<string, EntryShape>>> = {
  readonly [K in keyof C]: C[K] extends EntryShape ? Parser<Answer<C[K]>> : never;
};

/** Every entry's 2xx schema, as the checks of a page that loads the whole contract. */
export function checksOf<C extends Readonly<Record<string, EntryShape>>>(
  contract: C,
): WholeChecks<C> {
  const checks: Record<string, Parser<unknown> | null> = {};
  // An entry without a JSON 2xx answer (a download, a stream, no body) is sent, never parsed.
  for (const [key, entry] of Object.entries(contract)) {
    const ok = Object.entries(entry.responses).find(([status]) => /^2\d\d$/.test(status));
    checks[key] = ok?.[1].schema ?? null;
  }
  return checks as WholeChecks<C>;
}

/** `/rules/:id` with `{ id: "a/b" }` → `/rules/a%2Fb`; a missing parameter is a bug, said so. */
export function pathOf(template: string, params: Record<string, unknown> = {}): string {
  return template.replace(/:([A-Za-z_]+)/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined || value === null)
      throw new TypeError(`missing :${name} for ${template}`);
    return encodeURIComponent(String(value));
  });
}

/** The query string of a call (`?a=1&b=x`), its undefined members left out; "" when empty. */
export function queryOf(query: Record<string, unknown> = {}): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query))
    if (value !== undefined && value !== null) search.set(name, String(value));
  const text = search.toString();
  return text ? `?${text}` : "";
}

/** Method and path of a call: the key's method, its path with params and query filled in. */
export function target(
  key: string,
  options: { params?: unknown; query?: unknown } = {},
): { method: string; path: string } {
  const space = key.indexOf(" ");
  const method = key.slice(0, space);
  const path =
    pathOf(key.slice(space + 1), options.params as Record<string, unknown> | undefined) +
    queryOf(options.query as Record<string, unknown> | undefined);
  return { method, path };
}

export interface ContractApi<C extends Readonly<Record<string, EntryShape>>, T> {
  /** One call of a contract entry, its answer checked and typed. */
  <Key extends keyof T & keyof C & string, B extends BodyIn<C[Key]> = BodyIn<C[Key]>>(
    key: Key,
    ...args: Args<C[Key], B>
  ): Promise<Result<T, Key>>;
  /** The same call, its raw response (bytes, a download's headers); throws ApiError unless 2xx. */
  raw<Key extends keyof T & keyof C & string, B extends BodyIn<C[Key]> = BodyIn<C[Key]>>(
    key: Key,
    ...args: Args<C[Key], B>
  ): Promise<Response>;
  /** The address of a call, for a link or a transport of its own (an upload with progress). */
  url<Key extends keyof T & keyof C & string>(
    key: Key,
    ...args: Args<Omit<C[Key], "body">, never>
  ): string;
}

/**
 * The clients of one service's contract `C`: `forContract<C>()(client, checks)` calls through the
 * page's configured `client` (its headers and onError) only the keys `checks` lists. Any other
 * key is a compile error, and refused at run time before a request is made.
 */
export function forContract<C extends Readonly<Record<string, EntryShape>>>() {
  return <T extends Checks<C>>(client: ApiClient, checks: T): ContractApi<C, T> =>
    contractApi(client, checks as Readonly<Record<string, Parser<unknown> | null | undefined>>);
}

/** A client that may call every entry of `contract`, each answer checked by its own schema. */
export function wholeContractApi<C extends Readonly<Record<string, EntryShape>>>(
  client: ApiClient,
  contract: C,
): ContractApi<C, WholeChecks<C>> {
  return contractApi(client, checksOf(contract));
}

function contractApi<R>(
  client: ApiClient,
  checks: Readonly<Record<string, Parser<unknown> | null | undefined>>,
): R {
  const known = (key: string): void => {
    if (!Object.prototype.hasOwnProperty.call(checks, key))
      throw new TypeError(`"${key}" is not a route this page's client knows`);
  };
  const options = (args: unknown[]): Options<EntryShape, unknown> =>
    (args[0] ?? {}) as Options<EntryShape, unknown>;

  const call = async (key: string, ...args: unknown[]): Promise<unknown> => {
    known(key);
    const o = options(args);
    const { method, path } = target(key, o);
    const check = checks[key];
    const transport: CallOptions = { signal: o.signal, token: o.token };
    if (check) return client.call(check, method, path, o.body, transport);
    return client.send(method, path, o.body, transport);
  };
  const raw = async (key: string, ...args: unknown[]): Promise<Response> => {
    known(key);
    const o = options(args);
    const { method, path } = target(key, o);
    return client.request(method, path, o.body, { signal: o.signal, token: o.token });
  };
  const url = (key: string, ...args: unknown[]): string => {
    known(key);
    return client.base + target(key, options(args)).path;
  };
  return Object.assign(call, { raw, url }) as R;
}
