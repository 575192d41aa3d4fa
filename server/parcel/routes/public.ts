import type { Router } from "express";
import type { ParcelContext } from "../context.js";
import { publicPolicy } from "../domain/policy.js";
import { currentVisitor, startVisitor } from "../http/identity.js";
import { VERSION } from "../version.js";

/** `GET /health` and `GET /policy`. */
export function publicRouter(ctx: ParcelContext): Router {
  const r = ctx.routes.router();

  r.get("/health", (_req, res) => {
    const admin = ctx.db.prepare("SELECT 1 FROM admins LIMIT 1").get();
    res.json({ ok: true, initialized: Boolean(admin), version: VERSION });
  });

  r.get("/policy", (req, res) => {
    const visitor = currentVisitor(ctx, req) ?? startVisitor(ctx, req, res);
    res.json({
      ...publicPolicy(ctx.policy()),
      public_url: ctx.entryFor(req).origin,
      access_urls: ctx.entries.origins,
      visitor_expires: visitor.expiresAt,
    });
  });

  return r;
}
