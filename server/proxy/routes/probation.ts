import { type Router } from "express";

import type { ProxyRouterDeps } from "./router-deps.js";

/**
 * Confirm or revert a settings change that can cut the operator off: `POST /system/confirm`
 * keeps it, `POST /system/probation/revert` undoes it at once, `GET /system/probation` is what
 * the console's banner reads (cheaper than `/status`, which asks the core), and
 * `POST /system/probation/dismiss` ends the notice of an earlier rollback.
 */
export function probationRouter(deps: ProxyRouterDeps): Router {
  const { probation } = deps;
  const router = deps.routes.router();

  router.endpoint("GET /system/probation", () => {
    return {
      probation: probation.status(),
      notice: probation.lastNotice(),
    };
  });

  router.endpoint("POST /system/confirm", async () => {
    await probation.confirm();
    return { ok: true };
  });

  router.endpoint("POST /system/probation/revert", async () => {
    await probation.undo();
    return { ok: true };
  });

  router.endpoint("POST /system/probation/dismiss", () => {
    probation.dismiss();
    return { ok: true };
  });

  return router;
}
