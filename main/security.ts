/** Navigation and content rules of the desktop window (no `electron` import: tested in Node). */

import { CONTENT_SECURITY_POLICY } from "../server/http/csp.js";
import { APP_CSP, isAppUrl } from "./app-protocol.js";

export { CONTENT_SECURITY_POLICY as CSP };

/**
 * The window may show only the services' own origins and the app's own pages
 * (`app://gatehouse/...`). Everything else is refused: other sites, `data:` (a page made of
 * its URL could claim anything), `file:`, `javascript:`, `about:`, and unknown schemes.
 */
export function isAllowedNavigation(url: string, ownOrigins: readonly string[]): boolean {
  if (isAppUrl(url)) return true;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") return false;
  return ownOrigins.some((own) => {
    try {
      return new URL(own).origin === parsed.origin;
    } catch {
      return false;
    }
  });
}

/** The Content-Security-Policy the window enforces on an answer from `url`. */
export function cspFor(url: string): string {
  return isAppUrl(url) ? APP_CSP : CONTENT_SECURITY_POLICY;
}
