import type { RequestHandler } from "express";
import { budgetedJson } from "../../http/body-budget.js";
import { HttpError } from "../../http/errors.js";
import type { ParcelContext } from "../context.js";

const SAFE = new Set(["GET", "HEAD", "OPTIONS"]);

/** 421 for a `Host` that is no configured entry (every /api/v1 path except /health). */
export function hostGuard(ctx: ParcelContext): RequestHandler {
  return (req, _res, next) => {
    if (req.path === "/health") return next();
    if (!ctx.entries.hostKnown(req.get("host"))) {
      return next(
        new HttpError(
          421,
          "request.wrong_host",
          "This address is not one of the service's entry addresses",
        ),
      );
    }
    next();
  };
}

/**
 * State-changing requests need `Origin` equal to an entry origin; `X-Service-Origin`, when
 * sent, must equal `Origin` and be an entry; `Sec-Fetch-Site: cross-site` is refused. Header
 * values are compared the way HTTP defines them: the fetch site case-insensitively, origins on
 * their parsed, lower-cased scheme, host and port. A value that does not parse is refused.
 */
export function originGuard(ctx: ParcelContext): RequestHandler {
  return (req, _res, next) => {
    if (req.get("sec-fetch-site")?.trim().toLowerCase() === "cross-site") {
      return next(new HttpError(403, "auth.cross_site", "Cross-site requests are not allowed"));
    }
    if (SAFE.has(req.method)) return next();
    const origin = req.get("origin");
    if (!origin)
      return next(new HttpError(403, "auth.origin_required", "The Origin header is required"));
    const entry = ctx.entries.byOrigin(origin);
    if (!entry) return next(new HttpError(403, "auth.origin", "This origin is not allowed"));
    const declared = req.get("x-service-origin");
    if (declared !== undefined && ctx.entries.byOrigin(declared) !== entry) {
      return next(
        new HttpError(
          403,
          "auth.service_origin",
          "X-Service-Origin must equal Origin and be an entry address",
        ),
      );
    }
    next();
  };
}

export const apiNoStore: RequestHandler = (_req, res, next) => {
  res.setHeader("Cache-Control", "no-store");
  next();
};

export { CONTENT_SECURITY_POLICY } from "../../http/csp.js";

/** JSON body parser for the routes that take JSON (never for raw file PUTs). */
export const jsonBody: RequestHandler = budgetedJson(1024 * 1024);
