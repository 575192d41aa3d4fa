/**
 * The console's client of `/api/v1`: the shared one, configured to send the session's CSRF
 * token on every state-changing call and to end the session when a signed-in call answers 401.
 * Answers are checked against the route's response schema from the contract.
 */

import { PROXY_API } from "../../server/contract/proxy-api.js";
import { ApiError, createApiClient } from "../shared/api-client.js";
import { wholeContractApi } from "../shared/contract-api.js";

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

/**
 * One call of a route of the proxy service, named by its contract key
 * (`api("PUT /rules/:id", { params: { id }, body })`): the body is checked at compile time
 * against the entry's schema (a member it does not name is an error, not a 400 from the
 * service) and the answer at run time against its 2xx schema.
 */
export const api = wholeContractApi(client, PROXY_API);
