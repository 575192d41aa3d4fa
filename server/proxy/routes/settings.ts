import { type Router } from "express";
import { jsonObject, parseOr400 } from "../../http/validate.js";
import { PROBATION_HEADER } from "../domain/probation.js";
import { Settings } from "../../contract/proxy.js";
import { checkSettings } from "../domain/input-checks.js";
import type { ProxyRouterDeps } from "./router-deps.js";

/** Settings: read, and replace all (validated against this machine for TUN). */
export function settingsRouter(deps: ProxyRouterDeps): Router {
  const { settings } = deps;
  const router = deps.routes.router();

  router.get("/settings", (_req, res) => {
    res.json(settings.current() satisfies Settings);
  });

  router.put("/settings", async (req, res) => {
    const wanted = checkSettings(parseOr400(Settings, jsonObject(req.body)), deps.machine());
    const deadline = await settings.replace(wanted);
    if (deadline !== null) res.setHeader(PROBATION_HEADER, String(deadline));
    res.json(settings.current() satisfies Settings);
  });

  return router;
}
