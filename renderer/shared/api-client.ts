/**
 * The one HTTP client of every page: same-origin calls to a service's `/api/v1`, one error
 * type, and each answer checked against the contract's schema before the page sees it. A page
 * configures what it adds to a request (a CSRF token, an `X-Service-Origin`, a Bearer token)
 * and what a failed call means to it (a 401 that ends the session).
 */

import { paramsOf } from "./error-table.js";

/** Anything that checks an unknown value and returns it typed: a zod (or zod mini) schema. */
export interface Parser<T> {
  parse(data: unknown): T;
}

/** Status of an ApiError when the service could not be reached at all. */
export const UNREACHABLE = 0;
/** Code of an ApiError when the answer did not have the contract's shape. */
export const UNEXPECTED_ANSWER = "client.unexpected_answer";

export class ApiError extends Error {
  constructor(
    /** HTTP status, or 0 when the service could not be reached at all. */
    readonly status: number,
    message: string,
    /** The JSON error body (`error`, `code`, `params`, extra members), or {}. */
    readonly body: Record<string, unknown> = {},
    /** Seconds from `Retry-After` (429, 423), or null. */
    readonly retryAfter: number | null = null,
  ) {
    super(message);
    this.name = "ApiError";
  }

  /** The service's stable name for the failure ("" when it gave none, or was not reached). */
  get code(): string {
    return typeof this.body.code === "string" ? this.body.code : "";
  }

  /** The values the service's sentence mentions (a limit, a count, a name). */
  get params(): Record<string, string | number> {
    return paramsOf(this.body);
  }
}

export interface CallOptions {
  /** A parcel's `manage_token`, sent as `Authorization: Bearer`. */
  token?: string;
  signal?: AbortSignal;
}

export interface ApiClientConfig {
  /** Prefix of every path (default `/api/v1`). */
  base?: string;
  /** Headers the page adds to a call of this method (CSRF token, service origin). */
  headers?(method: string): Record<string, string>;
  /** Told of every failed answer before it is thrown (a 401 that ends the session). */
  onError?(error: ApiError, path: string): void;
}

export interface ApiClient {
  readonly base: string;
  /** Performs one call and returns the raw response; throws ApiError unless it is 2xx. */
  request(method: string, path: string, body?: unknown, options?: CallOptions): Promise<Response>;
  /** One call whose JSON answer is checked by `parser` (the route's response schema). */
  call<T>(
    parser: Parser<T>,
    method: string,
    path: string,
    body?: unknown,
    options?: CallOptions,
  ): Promise<T>;
  /** One call that answers 204 (or whose body the page does not read). */
  send(method: string, path: string, body?: unknown, options?: CallOptions): Promise<void>;
}

/** The service answered in a form the page does not understand (an older page cached, a bug). */
export function unexpectedAnswer(status: number): ApiError {
  return new ApiError(status, "The service answered in a form this page does not understand.", {
    code: UNEXPECTED_ANSWER,
  });
}

/** An ApiError from a non-2xx answer: its JSON body when there is one, else the status line. */
export async function errorFrom(res: Response): Promise<ApiError> {
  let body: Record<string, unknown> = {};
  try {
    const parsed: unknown = await res.json();
    if (parsed && typeof parsed === "object" && !Array.isArray(parsed))
      body = parsed as Record<string, unknown>;
  } catch {
    // not JSON: the status line below says what happened
  }
  const message =
    typeof body.error === "string" ? body.error : `HTTP ${res.status} ${res.statusText}`.trim();
  const retry = Number(res.headers.get("Retry-After"));
  return new ApiError(
    res.status,
    message,
    body,
    Number.isFinite(retry) && retry > 0 ? retry : null,
  );
}

export function createApiClient(config: ApiClientConfig = {}): ApiClient {
  const base = config.base ?? "/api/v1";
  const fail = (error: ApiError, path: string): ApiError => {
    config.onError?.(error, path);
    return error;
  };

  const request: ApiClient["request"] = async (method, path, body, options = {}) => {
    const headers: Record<string, string> = {
      Accept: "application/json",
      ...config.headers?.(method),
    };
    if (options.token) headers.Authorization = `Bearer ${options.token}`;
    let payload: string | undefined;
    if (body !== undefined) {
      headers["Content-Type"] = "application/json";
      payload = JSON.stringify(body);
    }
    let res: Response;
    try {
      res = await fetch(base + path, {
        method,
        headers,
        body: payload,
        credentials: "same-origin",
        signal: options.signal,
      });
    } catch (err) {
      if (err instanceof DOMException && err.name === "AbortError") throw err;
      throw fail(new ApiError(UNREACHABLE, "The service could not be reached."), path);
    }
    if (!res.ok) throw fail(await errorFrom(res), path);
    return res;
  };

  const call: ApiClient["call"] = async (parser, method, path, body, options) => {
    const res = await request(method, path, body, options);
    let data: unknown;
    try {
      data = await res.json();
    } catch {
      data = undefined;
    }
    try {
      return parser.parse(data);
    } catch {
      // The page and the service disagree about the contract (an older page cached, a bug):
      // said as one sentence, never shown half-read.
      throw fail(unexpectedAnswer(res.status), path);
    }
  };

  const send: ApiClient["send"] = async (method, path, body, options) => {
    const res = await request(method, path, body, options);
    // Drain the body so the connection is free for the next call.
    await res.body?.cancel().catch(() => undefined);
  };

  return { base, request, call, send };
}
