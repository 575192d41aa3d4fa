import { type Router, type Response } from "express";
import { HttpError } from "../../http/errors.js";
import { runCleanup } from "../cleanup.js";
import type { Actor, ParcelContext } from "../context.js";
import { clientIp } from "../http/identity.js";
import type { CleanupResult } from "../../contract/parcel-admin.js";
import type { Policy, Runtime } from "../../contract/parcel-policy.js";
import { conflictSentence, policyConflicts } from "../domain/policy.js";

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

  router.endpoint("GET /admin/policy", () => ctx.policy());

  router.endpoint("PUT /admin/policy", ({ body: patch }, req, res) => {
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
    ctx.audit(admin(res), "admin.policy", "policy", clientIp(req), {
      changed: changes(before, next),
    });
    return next;
  });

  router.endpoint("GET /admin/runtime", () => ctx.runtime());

  router.endpoint("PUT /admin/runtime", ({ body: patch }, req, res) => {
    const before = ctx.runtime();
    const next: Runtime = { ...before, ...patch };
    ctx.setRuntime(next);
    ctx.audit(admin(res), "admin.runtime", "runtime", clientIp(req), {
      changed: changes(before, next),
    });
    return next;
  });

  router.endpoint("POST /admin/cleanup", async (_input, req, res) => {
    const result: CleanupResult = await runCleanup(ctx, { full: true });
    // Member by member: a spread would let a new member of the result past the contract.
    ctx.audit(admin(res), "admin.cleanup", "system", clientIp(req), {
      parcels: result.parcels,
      files: result.files,
      bytes: result.bytes,
    });
    return result;
  });
  return router;
}
