import { type Router } from "express";
import { parseOr400 } from "../../http/validate.js";
import { ruleInput } from "../domain/input-checks.js";
import type { ProxyRouterDeps } from "./router-deps.js";

/** Custom routing rules: list, create, edit, delete and reorder (`PUT /rules/order`). */
export function rulesRouter(deps: ProxyRouterDeps): Router {
  const { rules } = deps;
  const router = deps.routes.router();

  router.endpoint("GET /rules", () => {
    return rules.view();
  });

  router.endpoint("POST /rules", async (input) => {
    return { id: await rules.create(parseOr400(ruleInput, input.body)) };
  });

  // Registered before `/rules/:id` so `order` is never taken for a rule id.
  router.endpoint("PUT /rules/order", async (input) => {
    const { ids } = input.body;
    await rules.reorder(ids);
    return { ok: true };
  });

  router.endpoint("PUT /rules/:id", async (input) => {
    const { id } = input.params;
    await rules.edit(id, parseOr400(ruleInput, input.body));
    return { id };
  });

  router.endpoint("DELETE /rules/:id", async (input) => {
    const { id } = input.params;
    await rules.remove(id);
    return { ok: true };
  });

  return router;
}
