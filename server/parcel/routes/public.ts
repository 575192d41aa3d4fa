import type { Router } from "express";
import { PARCEL_API } from "../../contract/parcel.js";
import { serveOpenApi } from "../../http/openapi.js";
import type { ParcelContext } from "../context.js";
import { publicPolicy } from "../domain/policy.js";
import { currentVisitor, startVisitor } from "../http/identity.js";
import { VERSION } from "../../version.js";

/** `GET /health`, `GET /openapi.json` and `GET /policy`. */
export function publicRouter(ctx: ParcelContext): Router {
  const r = ctx.routes.router();

  r.endpoint("GET /health", () => {
    const initialized = ctx.repos.identity.anyAdmin();
    return { ok: true, initialized, version: VERSION };
  });

  r.raw(
    "GET /openapi.json",
    serveOpenApi(
      {
        title: "Gatehouse parcel API",
        version: VERSION,
        description:
          "Send files as a parcel, pick a parcel up by its code, and run the service as its " +
          "administrator. Times are Unix seconds, sizes bytes; a failure answers " +
          "`{ error, code, params }`.",
      },
      PARCEL_API,
    ),
  );

  r.endpoint("GET /policy", (_input, req, res) => {
    const visitor = currentVisitor(ctx, req) ?? startVisitor(ctx, req, res);
    return {
      ...publicPolicy(ctx.policy()),
      public_url: ctx.entryFor(req).origin,
      access_urls: ctx.entries.origins,
      visitor_expires: visitor.expiresAt,
    };
  });

  return r;
}
