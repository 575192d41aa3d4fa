import { type Router } from "express";
import { jsonObject, parseOr400 } from "../../http/validate.js";
import { firstTakenPort, listenPortInUse } from "../core/listen-ports.js";
import { PROBATION_HEADER } from "../domain/probation.js";
import { Settings } from "../../contract/proxy.js";
import { checkSettings } from "../domain/input-checks.js";
import type { ProxyRouterDeps } from "./router-deps.js";

/** Settings: read, and replace all (validated against this machine for TUN). */
export function settingsRouter(deps: ProxyRouterDeps): Router {
  const { repos: store } = deps;
  const router = deps.routes.router();

  router.get("/settings", (_req, res) => {
    res.json(store.getSettings() satisfies Settings);
  });

  router.put("/settings", async (req, res) => {
    const settings = checkSettings(parseOr400(Settings, jsonObject(req.body)), deps.machine());
    // A port another program holds would be saved and "applied" while the core cannot listen
    // there (it logs the failure and carries on): refuse it here, naming the port.
    const taken = await firstTakenPort(settings, store.getSettings());
    if (taken) throw listenPortInUse(taken);
    const deadline = await deps.probation.change(false, () => store.saveSettings(settings));
    if (deadline !== null) res.setHeader(PROBATION_HEADER, String(deadline));
    res.json(store.getSettings() satisfies Settings);
  });

  return router;
}
