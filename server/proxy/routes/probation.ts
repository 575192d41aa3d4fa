import { type Router } from "express";
import type { Ok, ProbationState } from "../../contract/proxy.js";
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

  router.get("/system/probation", (_req, res) => {
    res.json({
      probation: probation.status(),
      notice: probation.lastNotice(),
    } satisfies ProbationState);
  });

  router.post("/system/confirm", async (_req, res) => {
    await probation.confirm();
    res.json({ ok: true } satisfies Ok);
  });

  router.post("/system/probation/revert", async (_req, res) => {
    await probation.undo();
    res.json({ ok: true } satisfies Ok);
  });

  router.post("/system/probation/dismiss", (_req, res) => {
    probation.dismiss();
    res.json({ ok: true } satisfies Ok);
  });

  return router;
}
