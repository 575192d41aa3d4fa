import type { Router } from "express";
import type { ParcelContext } from "../context.js";
import { adminAuditRouter } from "./admin-audit.js";
import { adminErrorsRouter } from "./admin-errors.js";
import { adminInboxRouter } from "./inbox.js";
import { adminParcelsRouter } from "./admin-parcels.js";
import { adminPasswordRouter } from "./admin-password.js";
import { adminSessionRouter } from "./admin-session.js";
import { adminSettingsRouter } from "./admin-settings.js";
import { adminVerifyRouter } from "./admin-verify.js";

/**
 * `/admin`: login, logout and status are open; every other route's guard (route-access.ts)
 * asks for the administrator's session once the route has matched.
 */
export function adminRouter(ctx: ParcelContext): Router {
  const router = ctx.routes.router("/admin");
  router.use(adminSessionRouter(ctx));
  router.use(adminPasswordRouter(ctx));
  router.use(adminParcelsRouter(ctx));
  router.use(adminSettingsRouter(ctx));
  router.use(adminVerifyRouter(ctx));
  router.use(adminAuditRouter(ctx));
  router.use(adminErrorsRouter(ctx));
  router.use(adminInboxRouter(ctx));
  return router;
}
