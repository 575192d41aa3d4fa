/**
 * The parcel pages' client of the service's `/api/v1`: the shared client, with the page's own
 * origin on every call. The service checks `Origin` on state-changing requests (browsers send
 * it on their own) and keeps identity in HttpOnly cookies, so the only credential a page adds
 * is, for owners, a `manage_token`.
 */

import { createApiClient } from "../shared/api-client.js";

export { ApiError, type CallOptions } from "../shared/api-client.js";

export const BASE = "/api/v1";

/**
 * `X-Service-Origin`: the page's own origin, so share links and cookies follow the address
 * the user actually opened, even behind a TLS-terminating reverse proxy.
 */
export function serviceOrigin(): Record<string, string> {
  const origin = window.location.origin;
  return origin && origin !== "null" ? { "X-Service-Origin": origin } : {};
}

const client = createApiClient({ base: BASE, headers: serviceOrigin });

/** One call whose JSON answer is checked with the route's response schema. */
export const call = client.call;
/** One call whose answer the page does not read. */
export const send = client.send;
/** One call, the raw response (a download's headers). */
export const request = client.request;
