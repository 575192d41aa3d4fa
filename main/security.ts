/** Navigation and content rules of the desktop window (no `electron` import: tested in Node). */

export { CONTENT_SECURITY_POLICY as CSP } from "../server/http/csp.js";

/** The window may only show the app's own service origins (and its own start-up page). */
export function isAllowedNavigation(url: string, ownOrigins: string[]): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  if (parsed.protocol === "data:") return url.startsWith("data:text/html");
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") return false;
  return ownOrigins.includes(parsed.origin);
}
