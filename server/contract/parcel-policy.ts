import { z } from "zod";
import { int, policyShape, publicPolicyShape } from "./parcel-public.js";

/**
 * The parcel service's settings as they travel: the business policy (what senders may do)
 * and the runtime settings (budgets and retention). Every range here is the one the service
 * enforces and the administrator's form shows, so the two cannot disagree.
 */

// The rules themselves are written once, in parcel-public.ts (the pickup page's small build).
export { policyShape };

/** `GET /admin/policy`, and the answer of `PUT /admin/policy`: the whole policy. */
export const PolicySchema = z.object(policyShape).strict();
/** `PUT /admin/policy`: the members to change; any other member is refused. */
export const PolicyPatchSchema = z.object(policyShape).partial().strict();
export type Policy = z.infer<typeof PolicySchema>;
export type PolicyPatch = z.input<typeof PolicyPatchSchema>;
export type PolicyKey = keyof Policy;

/**
 * Pairs of policy members that would contradict each other: with `at_most`, `field` must not
 * be more than `limit`; with `at_least`, `field` must be at least `limit`.
 *
 * `service: true` pairs are refused by `PUT /admin/policy` as well as by the console's form:
 * a default above its maximum refuses every upload that keeps it, and a renewal cap below one
 * renewal step makes the step meaningless. The other pairs are one limit hiding another (a
 * largest file over the largest parcel, a renewal cap below the longest term, a daily
 * allowance below the largest file): the service enforces the smaller of the two, so it
 * accepts them from API callers (a script or a test sets one tight limit on purpose), while
 * the form refuses them, because a person who types them has made a mistake and the send
 * page would promise what the other limit forbids.
 */
export const POLICY_PAIRS = [
  { field: "default_days", limit: "max_days", rule: "at_most", service: true },
  { field: "default_downloads", limit: "max_downloads", rule: "at_most", service: true },
  { field: "renew_cap_days", limit: "renew_days", rule: "at_least", service: true },
  { field: "max_file_bytes", limit: "max_parcel_bytes", rule: "at_most", service: false },
  { field: "renew_cap_days", limit: "max_days", rule: "at_least", service: false },
  { field: "max_file_bytes", limit: "daily_upload_bytes", rule: "at_most", service: false },
] as const satisfies ReadonlyArray<{
  field: PolicyKey;
  limit: PolicyKey;
  rule: "at_most" | "at_least";
  service: boolean;
}>;

/** `GET /policy`: the policy without the abuse thresholds, and the service's addresses. */
export const PublicPolicySchema = z.object(publicPolicyShape).strict();
/** `GET /policy`. */
export type PublicPolicy = z.infer<typeof PublicPolicySchema>;

export const runtimeShape = {
  file_budget: int(0),
  data_budget_bytes: int(0),
  disk_headroom_bytes: int(0),
  audit_retention_days: int(1),
  audit_retention_rows: int(1),
  audit_content_budget_bytes: int(0),
};
/** `GET /admin/runtime`, and the answer of `PUT /admin/runtime`. */
export const RuntimeSchema = z.object(runtimeShape).strict();
/** `PUT /admin/runtime`: the members to change. */
export const RuntimePatchSchema = z.object(runtimeShape).partial().strict();
export type Runtime = z.infer<typeof RuntimeSchema>;
export type RuntimePatch = z.input<typeof RuntimePatchSchema>;
