import { type Router } from "express";
import { PROBATION_HEADER } from "../domain/probation.js";
import { checkSettings } from "../domain/input-checks.js";
import type { ProxyRouterDeps } from "./router-deps.js";

/** Settings: read, and replace all (validated against this machine for TUN). */
export function settingsRouter(deps: ProxyRouterDeps): Router {
  const { settings } = deps;
  const router = deps.routes.router();

  router.endpoint("GET /settings", () => {
    return settings.current();
  });

  router.endpoint("PUT /settings", async (input, _req, res) => {
    const wanted = checkSettings(input.body, deps.machine());
    const deadline = await settings.replace(wanted);
    if (deadline !== null) res.setHeader(PROBATION_HEADER, String(deadline));
    return settings.current();
  });

  return router;
}
