/**
 * Same-origin client of `/api/v1`. It keeps the CSRF token and sends it on every
 * state-changing call; a 401 on a signed-in call tells the app the session is gone.
 */

import { paramsOf } from "../shared/error-table.js";

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** The rest of the error body: a stable `code` and the values its sentence names. */
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = "ApiError";
  }

  /** The service's stable name for the failure ("" when it gave none). */
  get code(): string {
    return typeof this.details.code === "string" ? this.details.code : "";
  }

  /** The values the service's sentence mentions (a port, a status, a name). */
  get params(): Record<string, string | number> {
    return paramsOf(this.details);
  }
}

export const BASE = "/api/v1";

let csrf = "";
let onExpired: () => void = () => {};

export function setCsrf(token: string): void {
  csrf = token;
}

/** Registers what happens when a signed-in call answers 401 (back to the login form). */
export function setExpiredHandler(handler: () => void): void {
  onExpired = handler;
}

const AUTH_PATHS = new Set(["/auth/status", "/auth/login", "/auth/setup"]);

async function errorFrom(res: Response): Promise<ApiError> {
  let message = "";
  let details: Record<string, unknown> = {};
  try {
    const body = (await res.json()) as unknown;
    if (typeof body === "object" && body !== null && !Array.isArray(body)) {
      details = body as Record<string, unknown>;
      if (typeof details.error === "string") message = details.error;
    }
  } catch {
    // not JSON: fall back to the status line below
  }
  return new ApiError(
    res.status,
    message || `HTTP ${res.status} ${res.statusText}`.trim(),
    details,
  );
}

/** Performs one call and returns the raw response (throws ApiError when not 2xx). */
export async function request(method: string, path: string, body?: unknown): Promise<Response> {
  const headers: Record<string, string> = { Accept: "application/json" };
  if (method !== "GET" && method !== "HEAD") headers["X-CSRF-Token"] = csrf;
  let payload: string | undefined;
  if (body !== undefined) {
    headers["Content-Type"] = "application/json";
    payload = JSON.stringify(body);
  }
  let res: Response;
  try {
    res = await fetch(BASE + path, { method, headers, body: payload, credentials: "same-origin" });
  } catch {
    // status 0: the service could not be reached at all
    throw new ApiError(0, "");
  }
  if (!res.ok) {
    const err = await errorFrom(res);
    if (res.status === 401 && !AUTH_PATHS.has(path) && path !== "/auth/password") onExpired();
    throw err;
  }
  return res;
}

export async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
  const res = await request(method, path, body);
  if (res.status === 204) return undefined as T;
  return (await res.json()) as T;
}

/** Node ids contain `/`; each path segment is encoded. */
export function nodePath(id: string): string {
  return encodeURIComponent(id);
}
