import { type Router } from "express";
import { jsonObject, parseOr400 } from "../../http/validate.js";
import {
  IdParam,
  SubscriptionInput,
  type Ok,
  type Subscription,
  type SubscriptionSaved,
} from "../../contract/proxy.js";
import type { ProxyRouterDeps } from "./router-deps.js";
import { recordFailure } from "../../http/failed-action.js";

/** Subscriptions: list, create, edit, delete and refresh. */
export function subscriptionsRouter(deps: ProxyRouterDeps): Router {
  const { subscriptions } = deps;
  const router = deps.routes.router();

  router.get("/subscriptions", (_req, res) => {
    res.json(subscriptions.list() satisfies Subscription[]);
  });

  router.post("/subscriptions", (req, res) => {
    const input = parseOr400(SubscriptionInput, jsonObject(req.body));
    const id = subscriptions.create(input);
    // A new subscription has no nodes, so the core configuration does not change yet.
    res.json({ id, ok: true } satisfies SubscriptionSaved);
  });

  // The id is checked before the body: an unknown subscription is said as such.
  router.put("/subscriptions/:id", async (req, res) => {
    const id = subscriptions.known(parseOr400(IdParam, req.params).id);
    const input = parseOr400(SubscriptionInput, jsonObject(req.body));
    await subscriptions.edit(id, input);
    res.json({ id, ok: true } satisfies SubscriptionSaved);
  });

  router.delete("/subscriptions/:id", async (req, res) => {
    const id = subscriptions.known(parseOr400(IdParam, req.params).id);
    await subscriptions.remove(id);
    res.json({ ok: true } satisfies Ok);
  });

  router.post("/subscriptions/:id/refresh", async (req, res) => {
    const id = subscriptions.known(parseOr400(IdParam, req.params).id);
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
    res.json({ ok: true } satisfies Ok);
  });

  return router;
}
