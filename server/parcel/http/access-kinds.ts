// Apart from the route table (route-access.ts) so the service context can name the kinds
// without importing the table, whose guards import the context back.

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
