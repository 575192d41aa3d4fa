import { type Router } from "express";
import type { ProxyRouterDeps } from "./router-deps.js";

/**
 * The LAN's devices: the list, a name and a policy per device, forgetting one, and the traffic
 * history (`GET /traffic`). An id that names no device is a 400, as unknown ids are everywhere
 * in this API.
 */
export function devicesRouter(deps: ProxyRouterDeps): Router {
  const { devices } = deps;
  const router = deps.routes.router();

  router.endpoint("GET /devices", () => {
    return devices.list();
  });

  router.endpoint("PUT /devices/:id", async (input) => {
    const { id } = input.params;
    const patch = input.body;
    await devices.update(id, patch);
    return { ok: true };
  });

  router.endpoint("DELETE /devices/:id", async (input) => {
    const { id } = input.params;
    await devices.remove(id);
    return { ok: true };
  });

  router.endpoint("GET /traffic", (input) => {
    const { range, device } = input.query;
    return devices.traffic(range, device);
  });

  return router;
}
