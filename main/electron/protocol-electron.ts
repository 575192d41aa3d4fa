import { protocol, session } from "electron";
import { readFile } from "node:fs/promises";
import { APP_SCHEME, appAnswer, appHeaders } from "../app-protocol.js";
import { ownerAuthorization } from "../secrets/owner-requests.js";
import type { SecretStore } from "../secrets/keychain.js";

/**
 * Electron's side of the app's own pages and of the tokens the main process attaches; the
 * decisions are in app-protocol.ts and secrets/owner-requests.ts.
 */

/**
 * Before the app is ready (Electron allows it once, then): `app://` is a standard scheme (its
 * pages get an origin, storage and relative URLs) and a secure one (like https).
 */
export function registerAppScheme(): void {
  protocol.registerSchemesAsPrivileged([
    { scheme: APP_SCHEME, privileges: { standard: true, secure: true, codeCache: true } },
  ]);
}

/** Serves `app://gatehouse/...` from the built Desktop screen in `root`, and the message page. */
export function serveAppPages(root: string, message: () => string): void {
  protocol.handle(APP_SCHEME, async (request) => {
    const answer = appAnswer(root, request.url);
    if (answer.kind === "refused") return new Response(null, { status: answer.status });
    if (answer.kind === "message")
      return new Response(message(), { headers: appHeaders("text/html; charset=utf-8") });
    try {
      return new Response(await readFile(answer.path), { headers: appHeaders(answer.type) });
    } catch {
      return new Response(null, { status: 404 });
    }
  });
}

/**
 * Adds the kept manage token to the window's own requests for the operator's parcels
 * (`fromWindow` tells the window's requests from any other), so no page ever holds one.
 */
export function attachOwnerTokens(
  parcelOrigins: () => readonly string[],
  secrets: Pick<SecretStore, "get">,
  fromWindow: (webContentsId: number | undefined) => boolean,
): void {
  // Every request of the session: ownerAuthorization itself keeps to the parcel service's own
  // origins and owner routes (no URL filter, whose port matching would be one more rule).
  session.defaultSession.webRequest.onBeforeSendHeaders((details, callback) => {
    const auth = fromWindow(details.webContentsId)
      ? ownerAuthorization(details.url, details.requestHeaders, parcelOrigins(), secrets)
      : null;
    callback({
      requestHeaders: auth
        ? { ...details.requestHeaders, Authorization: auth }
        : details.requestHeaders,
    });
  });
}
