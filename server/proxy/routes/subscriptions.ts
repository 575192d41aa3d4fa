import { type Router } from "express";
import type { ProxyRouterDeps } from "./router-deps.js";
import { recordFailure } from "../../http/failed-action.js";

/** Subscriptions: list, create, edit, delete and refresh. */
export function subscriptionsRouter(deps: ProxyRouterDeps): Router {
  const { subscriptions } = deps;
  const router = deps.routes.router();

  router.endpoint("GET /subscriptions", () => {
    return subscriptions.list();
  });

  router.endpoint("POST /subscriptions", (input) => {
    const id = subscriptions.create(input.body);
    // A new subscription has no nodes, so the core configuration does not change yet.
    return { id, ok: true };
  });

  // The id is checked before the body: an unknown subscription is said as such.
  router.endpoint("PUT /subscriptions/:id", async (input) => {
    const id = subscriptions.known(input.params.id);
    await subscriptions.edit(id, input.body);
    return { id, ok: true };
  });

  router.endpoint("DELETE /subscriptions/:id", async (input) => {
    const id = subscriptions.known(input.params.id);
    await subscriptions.remove(id);
    return { ok: true };
  });

  router.endpoint("POST /subscriptions/:id/refresh", async (input, _req, res) => {
    const id = subscriptions.known(input.params.id);
    try {
      await subscriptions.refresh(id);
    } catch (err) {
      const name = subscriptions.nameOf(id);
      recordFailure(res, err, (f) =>
        deps.log.warn("subscription.manual_refresh_failed", "A refresh failed", {
          ...f,
          params: { name },
        }),
      );
      throw err;
    }
    return { ok: true };
  });

  return router;
}
