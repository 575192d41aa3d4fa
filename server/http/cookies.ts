/** Minimal cookie parsing and serialisation (no dependency needed for this much). */
export function parseCookies(header: string | undefined): Map<string, string> {
  const out = new Map<string, string>();
  if (!header) return out;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq <= 0) continue;
    const name = part.slice(0, eq).trim();
    let value = part.slice(eq + 1).trim();
    if (value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
    if (!out.has(name)) {
      try {
        out.set(name, decodeURIComponent(value));
      } catch {
        out.set(name, value);
      }
    }
  }
  return out;
}

export interface CookieOptions {
  maxAgeSeconds: number;
  secure?: boolean;
}

/** HttpOnly; SameSite=Strict; Path=/ always: the only kind of cookie these services set. */
export function serializeCookie(name: string, value: string, options: CookieOptions): string {
  const parts = [
    `${name}=${encodeURIComponent(value)}`,
    `Max-Age=${Math.max(0, Math.floor(options.maxAgeSeconds))}`,
    "Path=/",
    "HttpOnly",
    "SameSite=Strict",
  ];
  if (options.maxAgeSeconds > 0) {
    parts.push(`Expires=${new Date(Date.now() + options.maxAgeSeconds * 1000).toUTCString()}`);
  } else {
    parts.push("Expires=Thu, 01 Jan 1970 00:00:00 GMT");
  }
  if (options.secure) parts.push("Secure");
  return parts.join("; ");
}

/** Appends a Set-Cookie header without dropping earlier ones. */
export function appendSetCookie(
  res: { getHeader(n: string): unknown; setHeader(n: string, v: string[]): unknown },
  cookie: string,
): void {
  const prev = res.getHeader("Set-Cookie");
  const list = Array.isArray(prev) ? (prev as string[]) : typeof prev === "string" ? [prev] : [];
  res.setHeader("Set-Cookie", [...list, cookie]);
}
