/**
 * The console's client of `/api/v1`: the shared one, configured to send the session's CSRF
 * token on every state-changing call and to end the session when a signed-in call answers 401.
 * Answers are checked against the route's response schema from the contract.
 */

import type { z } from "zod";
import { ApiError, createApiClient } from "../shared/api-client.js";

export { ApiError };

let csrf = "";
let onExpired: () => void = () => {};

export function setCsrf(token: string): void {
  csrf = token;
}

/** Registers what happens when a signed-in call answers 401 (back to the login form). */
export function setExpiredHandler(handler: () => void): void {
  onExpired = handler;
}

/** Their 401 means a wrong password or no session yet, never a session that ended. */
const AUTH_PATHS = new Set(["/auth/status", "/auth/login", "/auth/setup", "/auth/password"]);

/**
 * What a failed call means to the console: a 401 outside sign-in ends the session. Also told
 * of the calls a worker makes on the console's behalf (the connections list).
 */
export function failed(err: ApiError, path: string): void {
  if (err.status === 401 && !AUTH_PATHS.has(path)) onExpired();
}

const client = createApiClient({
  headers: (method): Record<string, string> =>
    method !== "GET" && method !== "HEAD" ? { "X-CSRF-Token": csrf } : {},
  onError: failed,
});

export const BASE = client.base;
/** One call whose JSON answer is checked with the route's response schema. */
export const call = client.call;
/** One call whose answer the console does not read. */
export const send = client.send;
/** One call answered with bytes (a backup file). */
export const request = client.request;

/**
 * A request body exactly as its route's schema takes it: a member the schema does not name
 * (a stored rule's `id`, say) is a compile error here, not a 400 from the service.
 */
export type Exact<T, B> = B & Record<Exclude<keyof B, KeysOf<T>>, never>;
/** Every member name of each case of a union (`keyof` of a union keeps only the common ones). */
type KeysOf<T> = T extends unknown ? keyof T : never;

/** `body`, checked at compile time against `schema`'s input. */
export function bodyOf<S extends z.ZodType, B extends z.input<S>>(
  _schema: S,
  body: Exact<z.input<S>, B>,
): z.input<S> {
  return body;
}

/** Node ids contain `/`; each path segment is encoded. */
export function nodePath(id: string): string {
  return encodeURIComponent(id);
}
