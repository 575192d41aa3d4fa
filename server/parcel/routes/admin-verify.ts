import type { Router } from "express";
import type { VerifyStatus } from "../../contract/parcel-verify.js";
import type { Actor, ParcelContext } from "../context.js";

/**
 * `GET /admin/verify` and `POST /admin/verify` (behind the administrator's session): the check
 * of every stored blob against its name (domain/blob-verifier.ts). POST starts one in the
 * background, or leaves a running one alone, and answers how it stands.
 */
export function adminVerifyRouter(ctx: ParcelContext): Router {
  const router = ctx.routes.router("/admin");

  router.get("/verify", (_req, res) => {
    const status: VerifyStatus = ctx.verify.status();
    res.json(status);
  });

  router.post("/verify", (req, res) => {
    if (ctx.verify.start()) ctx.audit(req, res.locals.admin as Actor, "admin.verify", "system");
    const status: VerifyStatus = ctx.verify.status();
    res.json(status);
  });
  return router;
}
