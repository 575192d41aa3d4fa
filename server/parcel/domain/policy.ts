import {
  POLICY_PAIRS,
  type Policy,
  type PublicPolicy,
  type Runtime,
} from "../../contract/parcel-policy.js";
import { DAY_S } from "../../contract/time-units.js";

// The field rules live in the wire contract; this module holds the defaults and the rules
// that need a whole policy.
export type { Policy, Runtime } from "../../contract/parcel-policy.js";

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
 * renewal cap below the step would make the step meaningless. Only the pairs the service
 * refuses (`service: true`); the console's form checks the others too.
 */
export function policyConflicts(p: Policy): PolicyConflict[] {
  const out: PolicyConflict[] = [];
  for (const { field, limit: limitField, rule, service } of POLICY_PAIRS) {
    if (!service) continue;
    const value = p[field];
    const limit = p[limitField];
    const bad = rule === "at_most" ? value > limit : value < limit;
    if (bad) out.push({ field, value, limitField, limit, rule });
  }
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
): Omit<PublicPolicy, "public_url" | "access_urls" | "visitor_expires"> {
  const { password_attempts: _a, pickup_failures_per_ip: _b, ...rest } = p;
  return rest;
}

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
  const day = DAY_S;
  const cap = sentAt + capDays * day;
  const next =
    mode === "default"
      ? Math.min(Math.max(old, done) + renewDays * day, cap)
      : Math.min(Math.max(old, done + renewDays * day), cap);
  return Math.max(old, next);
}
