import { type Router } from "express";
import { HttpError } from "../../http/errors.js";
import { jsonObject, parseOr400 } from "../../http/validate.js";
import { newId } from "../store/ids.js";
import {
  IdParam,
  RuleOrder,
  type Ok,
  type RuleSaved,
  type RulesView,
} from "../../contract/proxy.js";
import { ruleInput, type NormalisedRule } from "../domain/input-checks.js";
import type { ProxyRouterDeps } from "./router-deps.js";

/** The fixed evaluation order around the custom rules (what the compiler emits). */
export const DEFAULT_RULES = [
  { match: "Internal, loopback, link-local and multicast addresses", action: "DIRECT" },
  { match: "Custom rules, in list order", action: "CUSTOM" },
  { match: "Mainland China domain and IP rule sets", action: "DIRECT" },
  { match: "All other targets", action: "PROXY" },
] as const;

/** Refuses a rule whose type and value another rule already has (it could never match). */
function refuseDuplicate(deps: ProxyRouterDeps, input: NormalisedRule, exceptId = ""): void {
  const found = deps.repos.rules.duplicateOf(input, exceptId);
  if (!found) return;
  const [rule, position] = found;
  throw new HttpError(
    409,
    "rule.duplicate",
    `${input.type} ${input.value} is already rule ${position} (${rule.action}); edit that rule instead`,
    {
      params: { type: input.type, value: input.value, position, action: rule.action },
      extra: { ruleId: rule.id },
    },
  );
}

/** Custom routing rules: list, create, edit, delete and reorder (`PUT /rules/order`). */
export function rulesRouter(deps: ProxyRouterDeps): Router {
  const { repos: store, changes } = deps;
  const router = deps.routes.router();

  router.get("/rules", (_req, res) => {
    res.json({ custom: store.rules.list(), defaults: [...DEFAULT_RULES] } satisfies RulesView);
  });

  router.post("/rules", async (req, res) => {
    const input = parseOr400(ruleInput, jsonObject(req.body));
    const id = newId();
    await changes.change(() => {
      refuseDuplicate(deps, input);
      store.rules.create(id, input);
    });
    res.json({ id } satisfies RuleSaved);
  });

  // Registered before `/rules/:id` so `order` is never taken for a rule id.
  router.put("/rules/order", async (req, res) => {
    const { ids } = parseOr400(RuleOrder, jsonObject(req.body));
    await changes.change(() => {
      const current = store.rules.list().map((r) => r.id);
      const wanted = new Set(ids);
      if (
        wanted.size !== ids.length ||
        ids.length !== current.length ||
        current.some((id) => !wanted.has(id))
      ) {
        throw new HttpError(400, "rule.order", "ids must list every rule exactly once");
      }
      store.rules.reorder(ids);
    });
    res.json({ ok: true } satisfies Ok);
  });

  router.put("/rules/:id", async (req, res) => {
    const { id } = parseOr400(IdParam, req.params);
    const input = parseOr400(ruleInput, jsonObject(req.body));
    await changes.change(() => {
      if (!store.rules.get(id)) throw new HttpError(400, "rule.unknown", "Unknown rule");
      refuseDuplicate(deps, input, id);
      store.rules.edit(id, input);
    });
    res.json({ id } satisfies RuleSaved);
  });

  router.delete("/rules/:id", async (req, res) => {
    const { id } = parseOr400(IdParam, req.params);
    await changes.change(() => {
      if (!store.rules.remove(id)) throw new HttpError(400, "rule.unknown", "Unknown rule");
    });
    res.json({ ok: true } satisfies Ok);
  });

  return router;
}
