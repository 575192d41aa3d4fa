import { z } from "zod";

const int = (min: number, max = Number.MAX_SAFE_INTEGER) => z.number().int().min(min).max(max);

/** Business policy: the single source of its field rules. */
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
  default_renew: z.boolean(),
  code_length: int(6, 16),
  renewal_mode: z.enum(["default", "term"]),
  renew_days: int(1, 30),
  renew_cap_days: int(1),
  daily_upload_bytes: int(1),
  password_attempts: int(1, 100),
  pickup_failures_per_ip: int(1, 100000),
};
export const policySchema = z.object(policyShape).strict();
export const policyPatchSchema = z.object(policyShape).partial().strict();
export type Policy = z.infer<typeof policySchema>;

export const DEFAULT_POLICY: Policy = {
  uploads_enabled: true,
  max_files: 100,
  max_file_bytes: 10737418240,
  max_parcel_bytes: 21474836480,
  default_days: 7,
  max_days: 30,
  default_downloads: 10,
  max_downloads: 1000,
  require_password: false,
  // Uploads that do not say whether their expiry renews on a completed download do renew.
  default_renew: true,
  code_length: 6,
  renewal_mode: "default",
  renew_days: 3,
  renew_cap_days: 30,
  daily_upload_bytes: 53687091200,
  password_attempts: 5,
  pickup_failures_per_ip: 10,
};

/** Two members of one policy that contradict each other: `field` must not pass `limit`. */
export interface PolicyConflict {
  field: keyof Policy;
  value: number;
  limitField: keyof Policy;
  limit: number;
  /** "at_most": field <= limit; "at_least": field >= limit. */
  rule: "at_most" | "at_least";
}

/**
 * Cross-field rules that a single field schema cannot express, on a whole (merged) policy:
 * a default above its maximum would refuse every upload that keeps the default, and a
 * renewal cap below the step would make the step meaningless.
 */
export function policyConflicts(p: Policy): PolicyConflict[] {
  const out: PolicyConflict[] = [];
  const atMost = (field: keyof Policy, limitField: keyof Policy) => {
    const value = p[field] as number;
    const limit = p[limitField] as number;
    if (value > limit) out.push({ field, value, limitField, limit, rule: "at_most" });
  };
  atMost("default_days", "max_days");
  atMost("default_downloads", "max_downloads");
  if (p.renew_cap_days < p.renew_days)
    out.push({
      field: "renew_cap_days",
      value: p.renew_cap_days,
      limitField: "renew_days",
      limit: p.renew_days,
      rule: "at_least",
    });
  return out;
}

/** One sentence naming both members and their values, e.g. for a 400 answer. */
export function conflictSentence(c: PolicyConflict): string {
  const relation = c.rule === "at_most" ? "must not be more than" : "must be at least";
  return `${c.field} (${c.value}) ${relation} ${c.limitField} (${c.limit})`;
}

/** The public view (`GET /policy`) leaves out the abuse thresholds. */
export function publicPolicy(
  p: Policy,
): Omit<Policy, "password_attempts" | "pickup_failures_per_ip"> {
  const { password_attempts: _a, pickup_failures_per_ip: _b, ...rest } = p;
  return rest;
}

const runtimeShape = {
  file_budget: int(0),
  data_budget_bytes: int(0),
  disk_headroom_bytes: int(0),
  audit_retention_days: int(1),
  audit_retention_rows: int(1),
  audit_content_budget_bytes: int(0),
};
export const runtimeSchema = z.object(runtimeShape).strict();
export const runtimePatchSchema = z.object(runtimeShape).partial().strict();
export type Runtime = z.infer<typeof runtimeSchema>;

export const DEFAULT_RUNTIME: Runtime = {
  file_budget: 10000,
  data_budget_bytes: 107374182400,
  disk_headroom_bytes: 2147483648,
  audit_retention_days: 90,
  audit_retention_rows: 100000,
  audit_content_budget_bytes: 67108864,
};

/** Renewal on a completed download; never earlier than `old`. Seconds. */
export function renewedExpiry(
  mode: Policy["renewal_mode"],
  old: number,
  done: number,
  sentAt: number,
  renewDays: number,
  capDays: number,
): number {
  const day = 86400;
  const cap = sentAt + capDays * day;
  const next =
    mode === "default"
      ? Math.min(Math.max(old, done) + renewDays * day, cap)
      : Math.min(Math.max(old, done + renewDays * day), cap);
  return Math.max(old, next);
}
