import { type Router } from "express";
import { jsonObject, parseOr400 } from "../../http/validate.js";
import { IdParam, RuleOrder, type Ok, type RuleSaved } from "../../contract/proxy.js";
import { ruleInput } from "../domain/input-checks.js";
import type { ProxyRouterDeps } from "./router-deps.js";

/** Custom routing rules: list, create, edit, delete and reorder (`PUT /rules/order`). */
export function rulesRouter(deps: ProxyRouterDeps): Router {
  const { rules } = deps;
  const router = deps.routes.router();

  router.get("/rules", (_req, res) => {
    res.json(rules.view());
  });

  router.post("/rules", async (req, res) => {
    const input = parseOr400(ruleInput, jsonObject(req.body));
    res.json({ id: await rules.create(input) } satisfies RuleSaved);
  });

  // Registered before `/rules/:id` so `order` is never taken for a rule id.
  router.put("/rules/order", async (req, res) => {
    const { ids } = parseOr400(RuleOrder, jsonObject(req.body));
    await rules.reorder(ids);
    res.json({ ok: true } satisfies Ok);
  });

  router.put("/rules/:id", async (req, res) => {
    const { id } = parseOr400(IdParam, req.params);
    const input = parseOr400(ruleInput, jsonObject(req.body));
    await rules.edit(id, input);
    res.json({ id } satisfies RuleSaved);
  });

  router.delete("/rules/:id", async (req, res) => {
    const { id } = parseOr400(IdParam, req.params);
    await rules.remove(id);
    res.json({ ok: true } satisfies Ok);
  });

  return router;
}
