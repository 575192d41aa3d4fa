/**
 * Session cookies the services set for the operator, in the shape Electron's
 * `session.cookies.set` takes. The desktop signs in over HTTP from the main process and hands
 * these to the window's own session only: page scripts never see them (each keeps HttpOnly),
 * and no other browser ever gets them.
 */
export interface DesktopCookie {
  /** The service URL the cookie belongs to (Electron derives the host-only domain from it). */
  url: string;
  name: string;
  /** Exactly as the service sent it (still URL-encoded), which is what the browser sends back. */
  value: string;
  httpOnly: boolean;
  secure: boolean;
  sameSite: "unspecified" | "no_restriction" | "lax" | "strict";
  path: string;
  /** Unix seconds; absent for a cookie that lasts the browser session. */
  expirationDate?: number;
}

const SAME_SITE: Record<string, DesktopCookie["sameSite"]> = {
  strict: "strict",
  lax: "lax",
  none: "no_restriction",
};

/**
 * Parses one `Set-Cookie` header value. Returns null for a malformed header and for one that
 * removes its cookie (`Max-Age=0` or an `Expires` in the past): there is nothing to set.
 * `nowMs` is injected so the expiry a `Max-Age` gives is testable.
 */
export function parseSetCookie(
  header: string,
  url: string,
  nowMs: number = Date.now(),
): DesktopCookie | null {
  const [pair, ...attributes] = header.split(";");
  const eq = pair.indexOf("=");
  if (eq <= 0) return null;
  const cookie: DesktopCookie = {
    url,
    name: pair.slice(0, eq).trim(),
    value: pair.slice(eq + 1).trim(),
    httpOnly: false,
    secure: false,
    sameSite: "unspecified",
    path: "/",
  };
  let maxAge: number | null = null;
  let expires: number | null = null;
  for (const attribute of attributes) {
    const at = attribute.indexOf("=");
    const key = (at < 0 ? attribute : attribute.slice(0, at)).trim().toLowerCase();
    const value = at < 0 ? "" : attribute.slice(at + 1).trim();
    if (key === "httponly") cookie.httpOnly = true;
    else if (key === "secure") cookie.secure = true;
    else if (key === "samesite") cookie.sameSite = SAME_SITE[value.toLowerCase()] ?? "unspecified";
    else if (key === "path" && value.startsWith("/")) cookie.path = value;
    else if (key === "max-age" && /^-?\d+$/.test(value)) maxAge = Number(value);
    else if (key === "expires") {
      const ms = Date.parse(value);
      if (!Number.isNaN(ms)) expires = ms;
    }
  }
  // Max-Age wins over Expires, as in every browser.
  const endMs = maxAge !== null ? nowMs + maxAge * 1000 : expires;
  if (endMs !== null) {
    if (endMs <= nowMs) return null;
    cookie.expirationDate = Math.floor(endMs / 1000);
  }
  return cookie;
}

/** Every cookie a response sets, parsed; removals and malformed headers are left out. */
export function cookiesOf(response: Response, url: string, nowMs?: number): DesktopCookie[] {
  return response.headers
    .getSetCookie()
    .map((header) => parseSetCookie(header, url, nowMs))
    .filter((c): c is DesktopCookie => c !== null);
}

/** A `Cookie` request header carrying `cookies` (for the desktop's own follow-up calls). */
export function cookieHeader(cookies: readonly DesktopCookie[]): string {
  return cookies.map((c) => `${c.name}=${c.value}`).join("; ");
}
