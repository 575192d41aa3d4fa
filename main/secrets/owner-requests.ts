import { tokenAccount, type SecretStore } from "./keychain.js";

/**
 * The window's requests for a parcel the operator owns carry its manage token, attached here by
 * the main process instead of being handed to the page: the parcel pages are the same pages
 * every LAN device loads, so no token may ever reach them (ipc/handlers.ts gives them none).
 * Only requests to the parcel service's own origins, only its owner routes, only when the page
 * sent no credentials of its own, and only for a parcel whose token the app keeps.
 */

/** `/api/v1/uploads/<id>...` and `/api/v1/parcels/<id>/...`: where a manage token is asked for. */
const OWNER_ROUTE = /^\/api\/v1\/(?:uploads|parcels)\/([A-Za-z0-9_-]{16,64})(?:\/|$)/;

/** The parcel id an owner request is about, if `url` is one to the parcel service. */
export function ownerRequestParcel(url: string, parcelOrigins: readonly string[]): string | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") return null;
  if (!parcelOrigins.some((own) => sameOrigin(own, parsed.origin))) return null;
  return OWNER_ROUTE.exec(parsed.pathname)?.[1] ?? null;
}

function sameOrigin(own: string, origin: string): boolean {
  try {
    return new URL(own).origin === origin;
  } catch {
    return false;
  }
}

/**
 * The `Authorization` header to add to a request of the window, or null to leave it as sent.
 * `headers` are the request's own (any case); `secrets` is where the tokens are kept.
 */
export function ownerAuthorization(
  url: string,
  headers: Record<string, string | string[] | undefined>,
  parcelOrigins: readonly string[],
  secrets: Pick<SecretStore, "get">,
): string | null {
  if (Object.keys(headers).some((name) => name.toLowerCase() === "authorization")) return null;
  const id = ownerRequestParcel(url, parcelOrigins);
  if (id === null) return null;
  let token: string | null;
  try {
    token = secrets.get(tokenAccount(id));
  } catch {
    // No keychain: the page keeps this window's tokens itself (renderer/parcel/ui/tokens.ts).
    return null;
  }
  return token ? `Bearer ${token}` : null;
}
