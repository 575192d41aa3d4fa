import express, { type Router } from "express";
import { notFound } from "../../http/errors.js";
import { EXACT } from "../../http/route-table.js";
import { sameOriginGuard } from "../auth/guards.js";
import { authRouter } from "./auth.js";
import { backupRouter } from "./backup.js";
import { connectionsRouter } from "./connections.js";
import { coreInstallRouter } from "./core-install.js";
import { devicesRouter } from "./devices.js";
import { geodataRouter } from "./geodata.js";
import { nodesRouter } from "./nodes.js";
import { openApiRouter } from "./openapi.js";
import { probationRouter } from "./probation.js";
import type { ProxyRouterDeps } from "./router-deps.js";
import { rulesRouter } from "./rules.js";
import { settingsRouter } from "./settings.js";
import { statusRouter } from "./status.js";
import { streamsRouter } from "./streams.js";
import { subscriptionsRouter } from "./subscriptions.js";
import { systemRouter } from "./system.js";

/** Every router of `/api/v1`, in the order they are tried. */
const ROUTERS: ReadonlyArray<(deps: ProxyRouterDeps) => Router> = [
  authRouter,
  subscriptionsRouter,
  nodesRouter,
  rulesRouter,
  settingsRouter,
  backupRouter,
  probationRouter,
  coreInstallRouter,
  statusRouter,
  systemRouter,
  connectionsRouter,
  devicesRouter,
  streamsRouter,
  geodataRouter,
  openApiRouter,
];

/**
 * `/api/v1`: never cached, refused across sites, then every router; a path none of them
 * claims is a 404 JSON answer.
 */
export function apiRouter(deps: ProxyRouterDeps): Router {
  const api = express.Router(EXACT);
  api.use((_req, res, next) => {
    res.setHeader("Cache-Control", "no-store");
    next();
  });
  api.use(sameOriginGuard);
  for (const router of ROUTERS) api.use(router(deps));
  api.use(notFound("No such endpoint", "request.no_endpoint"));
  deps.routes.assertComplete();
  return api;
}
