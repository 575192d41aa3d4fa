import { z } from "zod";

/**
 * The parcel service's settings as they travel: the business policy (what senders may do)
 * and the runtime settings (budgets and retention). Every range here is the one the service
 * enforces and the administrator's form shows, so the two cannot disagree.
 */

const int = (min: number, max = Number.MAX_SAFE_INTEGER) => z.number().int().min(min).max(max);

/** Business policy: one rule per member. */
export const policyShape = {
  uploads_enabled: z.boolean(),
  max_files: int(1),
  max_file_bytes: int(1),
  max_parcel_bytes: int(1),
  default_days: int(1),
  max_days: int(1, 3650),
  default_downloads: int(1),
  max_downloads: int(1),
  require_password: z.boolean(),
  /** Whether a parcel's expiry renews on a complete download unless its sender says. */
  default_renew: z.boolean(),
  code_length: int(6, 16),
  renewal_mode: z.enum(["default", "term"]),
  renew_days: int(1, 30),
  renew_cap_days: int(1),
  daily_upload_bytes: int(1),
  password_attempts: int(1, 100),
  pickup_failures_per_ip: int(1, 100000),
};

/** `GET /admin/policy`, and the answer of `PUT /admin/policy`: the whole policy. */
export const PolicySchema = z.object(policyShape).strict();
/** `PUT /admin/policy`: the members to change; any other member is refused. */
export const PolicyPatchSchema = z.object(policyShape).partial().strict();
export type Policy = z.infer<typeof PolicySchema>;
export type PolicyPatch = z.input<typeof PolicyPatchSchema>;
export type PolicyKey = keyof Policy;

/**
 * Pairs of policy members that would contradict each other: with `at_most`, `field` must not
 * be more than `limit` (a default above its maximum refuses every upload that keeps it); with
 * `at_least`, `field` must be at least `limit` (a renewal cap below one renewal step).
 */
export const POLICY_PAIRS = [
  { field: "default_days", limit: "max_days", rule: "at_most" },
  { field: "default_downloads", limit: "max_downloads", rule: "at_most" },
  { field: "renew_cap_days", limit: "renew_days", rule: "at_least" },
] as const satisfies ReadonlyArray<{
  field: PolicyKey;
  limit: PolicyKey;
  rule: "at_most" | "at_least";
}>;

/** The members the public view leaves out: the abuse thresholds. */
export const PublicPolicySchema = PolicySchema.omit({
  password_attempts: true,
  pickup_failures_per_ip: true,
})
  .extend({
    /** The origin of the entry address the page was opened on. */
    public_url: z.string(),
    /** Every entry address of the service. */
    access_urls: z.array(z.string()),
    /** When the browser's visitor cookie ends (Unix seconds). */
    visitor_expires: z.number().int(),
  })
  .strict();
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
