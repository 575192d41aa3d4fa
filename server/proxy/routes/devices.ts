import { type Router } from "express";
import {
  DevicePatch,
  IdParam,
  TrafficQuery,
  type Device,
  type Ok,
  type TrafficView,
} from "../../contract/proxy.js";
import { jsonObject, parseOr400 } from "../../http/validate.js";
import type { ProxyRouterDeps } from "./router-deps.js";

/**
 * The LAN's devices: the list, a name and a policy per device, forgetting one, and the traffic
 * history (`GET /traffic`). An id that names no device is a 400, as unknown ids are everywhere
 * in this API.
 */
export function devicesRouter(deps: ProxyRouterDeps): Router {
  const { devices } = deps;
  const router = deps.routes.router();

  router.get("/devices", (_req, res) => {
    res.json(devices.list() satisfies Device[]);
  });

  router.put("/devices/:id", async (req, res) => {
    const { id } = parseOr400(IdParam, req.params);
    const patch = parseOr400(DevicePatch, jsonObject(req.body));
    await devices.update(id, patch);
    res.json({ ok: true } satisfies Ok);
  });

  router.delete("/devices/:id", async (req, res) => {
    const { id } = parseOr400(IdParam, req.params);
    await devices.remove(id);
    res.json({ ok: true } satisfies Ok);
  });

  router.get("/traffic", (req, res) => {
    const { range, device } = parseOr400(TrafficQuery, req.query);
    res.json(devices.traffic(range, device) satisfies TrafficView);
  });

  return router;
}
