/**
 * The parcel pages' client of the service's `/api/v1`: the shared client, with the page's own
 * origin on every call. The service checks `Origin` on state-changing requests (browsers send
 * it on their own) and keeps identity in HttpOnly cookies, so the only credential a page adds
 * is, for owners, a `manage_token`.
 */

import type { PARCEL_API } from "../../server/contract/parcel.js";
import {
  DeliveredCheckSchema,
  InboxGrantCheckSchema,
  PublicPolicyCheckSchema,
  RecipientViewCheckSchema,
  UploadCreatedCheckSchema,
} from "../../server/contract/parcel-public.js";
import { createApiClient } from "../shared/api-client.js";
import { forContract } from "../shared/contract-api.js";

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

/** The parcel service's contract, as the pages' calls are typed from it (no value loaded). */
export type ParcelApi = typeof PARCEL_API;

/** The pages' transport: the page's origin on every call; identity is in cookies. */
export const client = createApiClient({ base: BASE, headers: serviceOrigin });

/**
 * The light pages' calls (the shell, pickup, the inbox's send page): checked with the small
 * build's checks, so a recipient's page loads no more than it needs. The owner's and the
 * administrator's pages call through `api-full.ts`, which checks with the contract itself.
 */
export const api = forContract<ParcelApi>()(client, {
  "GET /policy": PublicPolicyCheckSchema,
  "POST /pickup/resolve": RecipientViewCheckSchema,
  "GET /pickup": RecipientViewCheckSchema,
  "GET /pickup/files/:file/download": null,
  "GET /pickup/archive": null,
  "POST /inbox/resolve": InboxGrantCheckSchema,
  "POST /uploads": UploadCreatedCheckSchema,
  // The inbox's send page: delivered, never a code to show.
  "POST /uploads/:id/publish": DeliveredCheckSchema,
  // Stopping while sending: one file left out, or the whole sending withdrawn (answers unread).
  "DELETE /uploads/:id/files/:file": null,
  "POST /parcels/:id/revoke": null,
  // Sent by the uploader's own transport (progress, resuming); answers checked there.
  "PUT /uploads/:id/files/:file": null,
  "HEAD /uploads/:id/files/:file": null,
  "PATCH /uploads/:id/files/:file": null,
});
