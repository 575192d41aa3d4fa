import express, { type Express } from "express";
import { join } from "node:path";
import { errorHandler, notFound } from "../http/errors.js";
import { EXACT } from "../http/route-table.js";
import { requestLog } from "../http/request-log.js";
import type { ParcelContext } from "./context.js";
import { PARCEL_STATUS } from "./error-status.js";
import { apiNoStore, CONTENT_SECURITY_POLICY, hostGuard, originGuard } from "./http/guards.js";
import { securityHeaders } from "../http/security-headers.js";
import { adminRouter } from "./routes/admin.js";
import { inboxRouter } from "./routes/inbox.js";
import { ownerRouter } from "./routes/owner.js";
import { pickupRouter } from "./routes/pickup.js";
import { publicRouter } from "./routes/public.js";
import { uploadsRouter } from "./routes/uploads.js";

/**
 * The parcel service's HTTP app: the API under `/api/v1` behind the host and origin guards
 * (every API request first moves parcels whose time ran out), then the web UI when built.
 */
export function parcelApp(ctx: ParcelContext): Express {
  const app = express();
  // Paths match exactly everywhere: another letter case or a trailing slash is another path.
  app.set("case sensitive routing", true);
  app.set("strict routing", true);
  app.disable("x-powered-by");
  app.use(requestLog(ctx.log));
  app.set("etag", false);
  app.use(securityHeaders);
  const api = express.Router(EXACT);
  api.use(apiNoStore);
  api.use(hostGuard(ctx));
  api.use(originGuard(ctx));
  api.use((_req, _res, next) => {
    ctx.sweep();
    next();
  });
  api.use(publicRouter(ctx));
  api.use(uploadsRouter(ctx));
  api.use(ownerRouter(ctx));
  api.use(pickupRouter(ctx));
  api.use(inboxRouter(ctx));
  api.use("/admin", adminRouter(ctx));
  api.use(notFound("No such endpoint", "request.no_endpoint"));
  ctx.routes.assertComplete();
  app.use("/api/v1", api);
  const staticDir = ctx.options.staticDir;
  if (staticDir) {
    app.get(["/", "/index.html"], (_req, res) => {
      res.setHeader("Content-Security-Policy", CONTENT_SECURITY_POLICY);
      res.setHeader("Cache-Control", "no-cache");
      res.sendFile(join(staticDir, "parcel.html"));
    });
    app.use(express.static(staticDir, { index: false, maxAge: "1h" }));
  }
  app.use(notFound("No such page", "request.no_page"));
  app.use(errorHandler(ctx.log, PARCEL_STATUS));
  return app;
}
