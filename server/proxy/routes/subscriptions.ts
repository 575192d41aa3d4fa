import { type Router } from "express";
import { HttpError } from "../../http/errors.js";
import { jsonObject, parseOr400 } from "../../http/validate.js";
import { newId } from "../store/ids.js";
import {
  ID_PATTERN,
  IdParam,
  MAX_SUBSCRIPTIONS,
  SubscriptionInput,
  type Ok,
  type Subscription,
  type SubscriptionSaved,
} from "../../contract/proxy.js";
import type { ProxyRouterDeps } from "./router-deps.js";
import { isStale } from "../domain/refresher.js";
import { recordFailure } from "../../http/failed-action.js";

/** Subscriptions: list, create, edit, delete and refresh. */
export function subscriptionsRouter(deps: ProxyRouterDeps): Router {
  const { repos: store, refresher } = deps;
  const router = deps.routes.router();

  const known = (id: string): string => {
    if (!ID_PATTERN.test(id) || !store.subscriptions.get(id)) {
      throw new HttpError(400, "subscription.unknown", "Unknown subscription");
    }
    return id;
  };

  /** One feed kept twice would only double its nodes: the second is refused with 409. */
  const refuseSameUrl = (url: string, exceptId = ""): void => {
    const other = store.subscriptions.sameUrl(url, exceptId);
    if (!other) return;
    throw new HttpError(
      409,
      "subscription.duplicate",
      `The subscription "${other.name}" already uses this address`,
      { params: { name: other.name }, extra: { subscriptionId: other.id } },
    );
  };

  router.get("/subscriptions", (_req, res) => {
    res.json(
      store.subscriptions.list().map(
        (s) =>
          ({
            ...s,
            refreshing: refresher.isRefreshing(s.id),
            // Refreshed on a schedule, yet nothing new for more than twice its interval.
            stale: isStale(s, deps.clock.now()),
          }) satisfies Subscription,
      ),
    );
  });

  router.post("/subscriptions", (req, res) => {
    const input = parseOr400(SubscriptionInput, jsonObject(req.body));
    const id = newId();
    const created = store.transaction(() => {
      if (store.subscriptions.count() >= MAX_SUBSCRIPTIONS) return false;
      refuseSameUrl(input.url);
      store.subscriptions.create(id, input, deps.clock.now());
      return true;
    });
    if (!created)
      throw new HttpError(
        400,
        "subscription.limit",
        `At most ${MAX_SUBSCRIPTIONS} subscriptions can be kept`,
        { params: { max: MAX_SUBSCRIPTIONS } },
      );
    // A new subscription has no nodes, so the core configuration does not change yet.
    res.json({ id, ok: true } satisfies SubscriptionSaved);
  });

  router.put("/subscriptions/:id", async (req, res) => {
    const id = known(parseOr400(IdParam, req.params).id);
    const input = parseOr400(SubscriptionInput, jsonObject(req.body));
    // Enabling or disabling changes which nodes the core gets; a stopped core stages it.
    await deps.changes.change(() => {
      refuseSameUrl(input.url, id);
      if (!store.subscriptions.edit(id, input))
        throw new HttpError(400, "subscription.unknown", "Unknown subscription");
    });
    res.json({ id, ok: true } satisfies SubscriptionSaved);
  });

  router.delete("/subscriptions/:id", async (req, res) => {
    const id = known(parseOr400(IdParam, req.params).id);
    await deps.changes.change(
      () => {
        if (!store.subscriptions.remove(id))
          throw new HttpError(400, "subscription.unknown", "Unknown subscription");
      },
      () => store.snapshots.remove(id),
    );
    res.json({ ok: true } satisfies Ok);
  });

  router.post("/subscriptions/:id/refresh", async (req, res) => {
    const id = known(parseOr400(IdParam, req.params).id);
    try {
      await refresher.refresh(id);
    } catch (err) {
      const name = store.subscriptions.get(id)?.name ?? "";
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
