// Type-only: the pages name these kinds without importing anything of the services.

/**
 * Who may call a parcel route:
 * - `public`: anyone on an entry address (health, policy, create an upload, resolve a code,
 *   open the inbox by its code; an inbox upload also needs the `inbox_session` cookie, checked
 *   in the handler);
 * - `visitor`: the browser's visitor cookie (`/mine`);
 * - `owner`: the parcel's manage token (Bearer) or its owner's visitor cookie;
 * - `owner-token`: the parcel's manage token itself (the key that opens its sealed code);
 * - `pickup`: the pickup cookie a resolved code gave;
 * - `admin-session`: sign-in, sign-out and status of the administrator;
 * - `admin`: the administrator's session.
 */
export type ParcelAccess =
  "public" | "visitor" | "owner" | "owner-token" | "pickup" | "admin-session" | "admin";

/**
 * Who may call a proxy route: `open` needs no session (no session can exist before the
 * sign-in routes, the health answer says only that the service runs, the API document
 * describes routes without revealing data); `session` needs a signed-in session, and its CSRF
 * token to change state.
 */
export type ProxyAccess = "open" | "session";
