import { type Router, type Response } from "express";
import { HttpError } from "../../http/errors.js";
import { jsonObject, parseOr400 } from "../../http/validate.js";
import { runCleanup } from "../cleanup.js";
import type { Actor, ParcelContext } from "../context.js";
import type { CleanupResult } from "../../contract/parcel-admin.js";
import {
  PolicyPatchSchema,
  RuntimePatchSchema,
  type Policy,
  type Runtime,
} from "../../contract/parcel-policy.js";
import { conflictSentence, policyConflicts } from "../domain/policy.js";
import { jsonBody } from "../http/guards.js";

function admin(res: Response): Actor {
  return res.locals.admin as Actor;
}

/** The members whose value a patch actually changes, with their new values. */
function changes<T extends object>(before: T, after: T): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(after)) {
    if ((before as Record<string, unknown>)[k] !== v) out[k] = v;
  }
  return out;
}

/** Policy, runtime settings and the manual cleanup (all behind `requireAdmin`). */
export function adminSettingsRouter(ctx: ParcelContext): Router {
  const router = ctx.routes.router("/admin");

  router.get("/policy", (_req, res) => {
    res.json(ctx.policy());
  });

  router.put("/policy", jsonBody, (req, res) => {
    const patch = parseOr400(PolicyPatchSchema, jsonObject(req.body));
    const before = ctx.policy();
    const next: Policy = { ...before, ...patch };
    // Checked on the merged result: a patch of one member can contradict a saved one.
    const conflicts = policyConflicts(next);
    if (conflicts.length > 0)
      throw new HttpError(400, "policy.conflict", conflicts.map(conflictSentence).join("; "), {
        extra: {
          conflicts: conflicts.map((c) => ({
            field: c.field,
            value: c.value,
            limit_field: c.limitField,
            limit: c.limit,
            rule: c.rule,
          })),
        },
      });
    ctx.setPolicy(next);
    ctx.audit(req, admin(res), "admin.policy", "policy", { changed: changes(before, next) });
    res.json(next);
  });

  router.get("/runtime", (_req, res) => {
    res.json(ctx.runtime());
  });

  router.put("/runtime", jsonBody, (req, res) => {
    const patch = parseOr400(RuntimePatchSchema, jsonObject(req.body));
    const before = ctx.runtime();
    const next: Runtime = { ...before, ...patch };
    ctx.setRuntime(next);
    ctx.audit(req, admin(res), "admin.runtime", "runtime", { changed: changes(before, next) });
    res.json(next);
  });

  router.post("/cleanup", async (req, res) => {
    const result: CleanupResult = await runCleanup(ctx, { full: true });
    ctx.audit(req, admin(res), "admin.cleanup", "system", { ...result });
    res.json(result);
  });
  return router;
}
