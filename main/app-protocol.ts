import { extname, isAbsolute, join, relative, resolve } from "node:path";

/**
 * The app's own pages, at `app://gatehouse/...`: the Desktop screen (a page bundled with the
 * app, never served by the services, so no LAN device can ever load it) and the start-up or
 * failure message. The scheme is registered standard and secure before the app is ready
 * (main/electron/protocol-electron.ts), so these pages have an origin of their own, storage,
 * and relative URLs; the main process serves them from the built files with a strict CSP.
 * Only a frame showing one of them may use the privileged half of the bridge (ipc/sender.ts).
 * No `electron` import: every decision here is tested in Node.
 */

export const APP_SCHEME = "app";
export const APP_HOST = "gatehouse";
export const APP_ORIGIN = `${APP_SCHEME}://${APP_HOST}`;

/** The Desktop screen (renderer/desktop.html, built into renderer/dist-desktop). */
export const DESKTOP_PAGE = `${APP_ORIGIN}/desktop.html`;
/** The start-up and failure sentence (its text is kept by the main process). */
export const MESSAGE_PATH = "/message";

/** Where the built Desktop screen lives under the app's folder (a checkout or the asar). */
export const DESKTOP_UI_DIR = join("renderer", "dist-desktop");

/**
 * Whether `url` is one of the app's own pages: exactly `app://gatehouse/` and a path, no user,
 * password or port. Parsed, and also compared as text, because Node's URL gives non-special
 * schemes an opaque host (origin "null"): `app://gatehouse.evil/`, `app://gatehouse@evil/` and
 * `app://evil/` all fail here.
 */
export function isAppUrl(url: string): boolean {
  if (!url.startsWith(`${APP_ORIGIN}/`)) return false;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  return (
    parsed.protocol === `${APP_SCHEME}:` &&
    parsed.host === APP_HOST &&
    parsed.username === "" &&
    parsed.password === "" &&
    parsed.port === ""
  );
}

/**
 * The policy of every app page: scripts, styles and images from the app itself (QR codes are
 * drawn as data: images), no network at all (the page talks to the main process through the
 * bridge only), no plugins, no frames, no form posts.
 */
export const APP_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'none'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".woff2": "font/woff2",
  ".json": "application/json",
};

/** What the app protocol answers for a URL (the adapter turns it into a Response). */
export type AppAnswer =
  | { kind: "file"; path: string; type: string }
  | { kind: "message" }
  | { kind: "refused"; status: 400 | 404 };

/**
 * Maps an `app://` request to a file under `root` (the built Desktop screen), the message page,
 * or a refusal: another host, a path that leaves `root` once decoded (`..`, encoded slashes,
 * backslashes), a hidden file, or a type the page never loads.
 */
export function appAnswer(root: string, url: string): AppAnswer {
  if (!isAppUrl(url)) return { kind: "refused", status: 400 };
  const { pathname } = new URL(url);
  if (pathname === MESSAGE_PATH) return { kind: "message" };
  let path: string;
  try {
    path = decodeURIComponent(pathname);
  } catch {
    return { kind: "refused", status: 400 };
  }
  if (path.includes("\\") || path.includes("\0") || /(^|\/)\./.test(path))
    return { kind: "refused", status: 400 };
  const file = resolve(root, `.${path === "/" ? "/desktop.html" : path}`);
  const inside = relative(resolve(root), file);
  if (inside === "" || inside.startsWith("..") || isAbsolute(inside))
    return { kind: "refused", status: 400 };
  const type = TYPES[extname(file).toLowerCase()];
  if (!type) return { kind: "refused", status: 404 };
  return { kind: "file", path: file, type };
}

/** Headers of every app page answer. */
export function appHeaders(type: string): Record<string, string> {
  return {
    "content-type": type,
    "content-security-policy": APP_CSP,
    "x-content-type-options": "nosniff",
    "cache-control": "no-store",
  };
}
