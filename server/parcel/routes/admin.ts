import { Router } from "express";
import type { ParcelContext } from "../context.js";
import { requireAdmin } from "../http/identity.js";
import { adminAuditRouter } from "./admin-audit.js";
import { adminParcelsRouter } from "./admin-parcels.js";
import { adminSessionRouter } from "./admin-session.js";
import { adminSettingsRouter } from "./admin-settings.js";

/** `/admin`: login, logout and status are open; everything else needs the admin session. */
export function adminRouter(ctx: ParcelContext): Router {
  const router = Router();
  router.use(adminSessionRouter(ctx));
  router.use((req, res, next) => {
    res.locals.admin = requireAdmin(ctx, req);
    next();
  });
  router.use(adminParcelsRouter(ctx));
  router.use(adminSettingsRouter(ctx));
  router.use(adminAuditRouter(ctx));
  return router;
}
