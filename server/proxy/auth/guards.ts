import { type Request, type RequestHandler, type Response } from "express";
import { isIP } from "node:net";
import { budgetedJson } from "../../http/body-budget.js";
import { parseCookies } from "../../http/cookies.js";
import type { ProxyAccess } from "../../contract/access.js";
import { PROXY_API } from "../../contract/proxy-api.js";
import { HttpError } from "../../http/errors.js";
import { RouteTable, type Method } from "../../http/route-table.js";
import { tokensEqual } from "./passwords.js";
import type { Accounts, Session } from "./accounts.js";

export const SESSION_COOKIE = "svc_session";
const SAFE = new Set(["GET", "HEAD", "OPTIONS"]);

export type { ProxyAccess };

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

/** An `Origin`-style header value as a normalised origin, or null when it is not one. */
function parseOrigin(value: string): string | null {
  if (value === "null") return null;
  try {
    const url = new URL(value);
    return url.protocol === "http:" || url.protocol === "https:" ? url.origin : null;
  } catch {
    return null;
  }
}

/**
 * State-changing requests: `Sec-Fetch-Site: cross-site` is refused, and `Origin` and
 * `X-Service-Origin`, when present, must be the request's own origin (the UI is served from
 * the same origin). Scheme and host compare case-insensitively, as URLs do.
 */
export const sameOriginGuard: RequestHandler = (req, _res, next) => {
  if (!isStateChanging(req)) return next();
  if ((req.get("sec-fetch-site") ?? "").trim().toLowerCase() === "cross-site") {
    return next(new HttpError(403, "auth.cross_site", "Cross-site requests are not allowed"));
  }
  const own = ownOrigin(req);
  for (const header of ["origin", "x-service-origin"]) {
    const value = req.get(header);
    if (value === undefined) continue;
    if (!own || parseOrigin(value) !== own) {
      return next(new HttpError(403, "auth.origin", "This origin is not allowed"));
    }
  }
  next();
};

/** A `Host` header's host name without port and brackets, lower-cased; null when malformed. */
export function hostName(host: string | undefined): string | null {
  // Only the characters of `name[:port]` and `[ipv6]:port`: the URL parser would read the part
  // before an `@` as user info and drop a `/`, `?` or `#` tail, so `evil.example@localhost`
  // or `localhost/x` would pass as `localhost`.
  if (!host || !/^[a-z0-9._\-:[\]]+$/i.test(host)) return null;
  try {
    return new URL(`http://${host}`).hostname.replace(/^\[|\]$/g, "").toLowerCase();
  } catch {
    return null;
  }
}

/**
 * 421 unless `Host` names this machine: `localhost`, one of its interface addresses, or a host
 * name the operator configured. A web page on another name that resolves here (DNS rebinding)
 * can then never talk to the console.
 */
export function hostGuard(
  addresses: () => Iterable<string>,
  extraHosts: readonly string[] = [],
): RequestHandler {
  const named = new Set(
    ["localhost", ...extraHosts]
      .map((h) => h.replace(/^\[|\]$/g, "").toLowerCase())
      // The unspecified address is a bind address, never a name this machine is reached by.
      .filter((h) => h !== "0.0.0.0" && h !== "::"),
  );
  let cache: { at: number; ips: Set<string> } | null = null;
  const machineIps = (): Set<string> => {
    // Interfaces change (DHCP, a cable plugged in); a few seconds of caching is enough.
    if (!cache || Date.now() - cache.at > 5000) {
      cache = { at: Date.now(), ips: new Set([...addresses()].map((a) => a.toLowerCase())) };
    }
    return cache.ips;
  };
  return (req, _res, next) => {
    const name = hostName(req.get("host"));
    const known =
      name !== null &&
      (named.has(name) || (isIP(name) !== 0 && (machineIps().has(name) || isLoopback(name))));
    if (!known) {
      return next(
        new HttpError(421, "request.wrong_host", "This address is not one this console answers on"),
      );
    }
    next();
  };
}

function isLoopback(ip: string): boolean {
  return ip === "::1" || /^127\./.test(ip);
}

export function sessionFrom(accounts: Accounts, req: Request): Session | null {
  return accounts.session(parseCookies(req.get("cookie")).get(SESSION_COOKIE));
}

/** The session the route's guard admitted (routes of `session` access only). */
export function sessionOf(res: Response): Session {
  const session = res.locals.session as Session | undefined;
  if (!session) throw new HttpError(401, "auth.sign_in", "Sign in first");
  return session;
}

/**
 * The guard of a `session` route: a live session (401), and for state-changing methods the
 * session's CSRF token in `X-CSRF-Token` (403). The session's stored hash goes to
 * `res.locals.sessionId` for the streams.
 */
export function requireSession(accounts: Accounts): RequestHandler {
  return (req, res, next) => {
    const session = sessionFrom(accounts, req);
    if (!session) return next(new HttpError(401, "auth.sign_in", "Sign in first"));
    if (isStateChanging(req)) {
      const token = req.get("x-csrf-token") ?? "";
      if (!tokensEqual(token, session.csrf)) {
        return next(new HttpError(403, "auth.csrf", "The CSRF token is missing or wrong"));
      }
    }
    res.locals.sessionId = session.idHash;
    res.locals.session = session;
    next();
  };
}

/** JSON bodies of state-changing routes, read only after the route's guard admitted the caller. */
const jsonBody = budgetedJson(2 * 1024 * 1024);

/**
 * The proxy service's route table, made from its contract: the entries of `open` access
 * (health, the API document, the sign-in routes) need no session, every other one does.
 */
export function proxyRouteTable(accounts: Accounts): RouteTable<ProxyAccess, typeof PROXY_API> {
  const session = requireSession(accounts);
  return new RouteTable({
    contract: PROXY_API,
    guard: (access, method: Method) => {
      const body = method === "GET" ? [] : [jsonBody];
      return access === "open" ? body : [session, ...body];
    },
  });
}
