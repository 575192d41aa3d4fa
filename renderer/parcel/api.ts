/**
 * Same-origin client of the parcel service's `/api/v1`. The service checks `Origin` on
 * state-changing requests (browsers send it on their own) and keeps identity in HttpOnly
 * cookies, so there is nothing to attach here except, for owners, a `manage_token`.
 */

import { paramsOf } from "../shared/error-table.js";

export class ApiError extends Error {
  constructor(
    /** HTTP status, or 0 when the service could not be reached at all. */
    readonly status: number,
    message: string,
    /** The JSON error body (`error`, `code`, `params`, e.g. `password_required`), or {}. */
    readonly body: Record<string, unknown> = {},
    /** Seconds from `Retry-After` on 429, or null. */
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

export const BASE = "/api/v1";

/**
 * `X-Service-Origin`: the page's own origin, so share links and cookies follow the address
 * the user actually opened, even behind a TLS-terminating reverse proxy.
 */
export function serviceOrigin(): Record<string, string> {
  const origin = window.location.origin;
  return origin && origin !== "null" ? { "X-Service-Origin": origin } : {};
}

export interface CallOptions {
  /** `manage_token` sent as `Authorization: Bearer`. */
  token?: string;
  signal?: AbortSignal;
}

export async function errorFrom(res: Response): Promise<ApiError> {
  let body: Record<string, unknown> = {};
  try {
    const parsed: unknown = await res.json();
    if (parsed && typeof parsed === "object") body = parsed as Record<string, unknown>;
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

/** Performs one call; throws ApiError unless the answer is 2xx. */
export async function request(
  method: string,
  path: string,
  body?: unknown,
  options: CallOptions = {},
): Promise<Response> {
  const headers: Record<string, string> = { Accept: "application/json", ...serviceOrigin() };
  if (options.token) headers.Authorization = `Bearer ${options.token}`;
  let payload: string | undefined;
  if (body !== undefined) {
    headers["Content-Type"] = "application/json";
    payload = JSON.stringify(body);
  }
  let res: Response;
  try {
    res = await fetch(BASE + path, {
      method,
      headers,
      body: payload,
      credentials: "same-origin",
      signal: options.signal,
    });
  } catch (err) {
    if (err instanceof DOMException && err.name === "AbortError") throw err;
    throw new ApiError(0, "The service could not be reached.");
  }
  if (!res.ok) throw await errorFrom(res);
  return res;
}

export async function api<T>(
  method: string,
  path: string,
  body?: unknown,
  options?: CallOptions,
): Promise<T> {
  const res = await request(method, path, body, options);
  if (res.status === 204) return undefined as T;
  return (await res.json()) as T;
}
