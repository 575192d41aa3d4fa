import type { Router } from "express";
import type { Actor, ParcelContext } from "../context.js";
import { clientIp } from "../http/identity.js";

/**
 * `GET /admin/verify` and `POST /admin/verify` (behind the administrator's session): the check
 * of every stored blob against its name (domain/blob-verifier.ts). POST starts one in the
 * background, or leaves a running one alone, and answers how it stands.
 */
export function adminVerifyRouter(ctx: ParcelContext): Router {
  const router = ctx.routes.router("/admin");

  router.endpoint("GET /admin/verify", () => ctx.verify.status());

  router.endpoint("POST /admin/verify", (_input, req, res) => {
    if (ctx.verify.start())
      ctx.audit(res.locals.admin as Actor, "admin.verify", "system", clientIp(req));
    return ctx.verify.status();
  });
  return router;
}
