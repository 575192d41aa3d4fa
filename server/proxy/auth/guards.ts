import type { Request, RequestHandler } from "express";
import { parseCookies } from "../../http/cookies.js";
import { HttpError } from "../../http/errors.js";
import { tokensEqual } from "./passwords.js";
import type { Accounts, Session } from "./accounts.js";

export const SESSION_COOKIE = "svc_session";
const SAFE = new Set(["GET", "HEAD", "OPTIONS"]);
/** State-changing paths that work without a session (no session exists yet). */
const OPEN_PATHS = new Set(["/auth/setup", "/auth/login"]);
/** First path segments the API serves; anything else falls through to the 404 answer. */
const API_AREAS = new Set([
  "auth",
  "status",
  "subscriptions",
  "nodes",
  "rules",
  "settings",
  "connections",
  "system",
  "events",
  "logs",
]);

export function isStateChanging(req: Request): boolean {
  return !SAFE.has(req.method);
}

/** The request's own origin (scheme + Host), lower-cased and without a default port. */
function ownOrigin(req: Request): string | null {
  const host = req.get("host");
  if (!host) return null;
  try {
    return new URL(`${req.protocol}://${host}`).origin;
  } catch {
    return null;
  }
}

/**
 * State-changing requests: `Sec-Fetch-Site: cross-site` is refused, and an `Origin`, when
 * present, must be the request's own origin (the UI is served from the same origin).
 */
export const sameOriginGuard: RequestHandler = (req, _res, next) => {
  if (!isStateChanging(req)) return next();
  if ((req.get("sec-fetch-site") ?? "").toLowerCase() === "cross-site") {
    return next(new HttpError(403, "Cross-site requests are not allowed"));
  }
  const origin = req.get("origin");
  if (origin === undefined) return next();
  let declared: string | null = null;
  try {
    declared = origin === "null" ? null : new URL(origin).origin;
  } catch {
    declared = null;
  }
  if (!declared || declared !== ownOrigin(req)) {
    return next(new HttpError(403, "This origin is not allowed"));
  }
  next();
};

export function sessionFrom(accounts: Accounts, req: Request): Session | null {
  return accounts.session(parseCookies(req.get("cookie")).get(SESSION_COOKIE));
}

/**
 * Every path except setup, login and status needs a live session (401); state-changing
 * ones also need the session's CSRF token in `X-CSRF-Token` (403). The session's stored
 * hash goes to `res.locals.sessionId` for the streams.
 */
export function sessionGuard(accounts: Accounts): RequestHandler {
  return (req, res, next) => {
    const open = OPEN_PATHS.has(req.path) || (req.path === "/auth/status" && !isStateChanging(req));
    if (open || !API_AREAS.has(req.path.split("/")[1] ?? "")) return next();
    const session = sessionFrom(accounts, req);
    if (!session) return next(new HttpError(401, "Sign in first"));
    if (isStateChanging(req)) {
      const token = req.get("x-csrf-token") ?? "";
      if (!tokensEqual(token, session.csrf)) {
        return next(new HttpError(403, "The CSRF token is missing or wrong"));
      }
    }
    res.locals.sessionId = session.idHash;
    res.locals.session = session;
    next();
  };
}
