import type { AdminKey, AT } from "./i18n.js";
import { en } from "./i18n-en.js";

export const UNITS = [
  { name: "B", size: 1 },
  { name: "KiB", size: 1024 },
  { name: "MiB", size: 1024 ** 2 },
  { name: "GiB", size: 1024 ** 3 },
  { name: "TiB", size: 1024 ** 4 },
] as const;

export type FieldKind = "bool" | "int" | "bytes" | "enum";

export interface FieldDef {
  key: string;
  kind: FieldKind;
  label: AdminKey;
  hint?: AdminKey;
  /** Longer explanation behind a "how is this worked out" disclosure. */
  help?: AdminKey;
  min?: number;
  max?: number;
  options?: ReadonlyArray<{ value: string; label: AdminKey }>;
}

export interface Group {
  title: AdminKey;
  fields: FieldDef[];
}

const MAX = Number.MAX_SAFE_INTEGER;

/** Every policy member with the service's ranges. */
export const POLICY_GROUPS: Group[] = [
  {
    title: "policy.groupUploads",
    fields: [
      { key: "uploads_enabled", kind: "bool", label: "policy.uploads_enabled" },
      { key: "max_files", kind: "int", label: "policy.max_files", min: 1 },
      { key: "max_file_bytes", kind: "bytes", label: "policy.max_file_bytes", min: 1 },
      { key: "max_parcel_bytes", kind: "bytes", label: "policy.max_parcel_bytes", min: 1 },
      {
        key: "daily_upload_bytes",
        kind: "bytes",
        label: "policy.daily_upload_bytes",
        hint: "policy.daily_upload_bytesHint",
        min: 1,
      },
    ],
  },
  {
    title: "policy.groupTerms",
    fields: [
      { key: "default_days", kind: "int", label: "policy.default_days", min: 1 },
      { key: "max_days", kind: "int", label: "policy.max_days", min: 1, max: 3650 },
      { key: "default_downloads", kind: "int", label: "policy.default_downloads", min: 1 },
      { key: "max_downloads", kind: "int", label: "policy.max_downloads", min: 1 },
      { key: "require_password", kind: "bool", label: "policy.require_password" },
      {
        key: "code_length",
        kind: "int",
        label: "policy.code_length",
        hint: "policy.code_lengthHint",
        min: 6,
        max: 16,
      },
    ],
  },
  {
    title: "policy.groupRenewal",
    fields: [
      {
        key: "renewal_mode",
        kind: "enum",
        label: "policy.renewal_mode",
        hint: "policy.renewal_modeHint",
        help: "policy.renewal_modeHelp",
        options: [
          { value: "default", label: "policy.modeDefault" },
          { value: "term", label: "policy.modeTerm" },
        ],
      },
      { key: "default_renew", kind: "bool", label: "policy.default_renew" },
      { key: "renew_days", kind: "int", label: "policy.renew_days", min: 1, max: 30 },
      {
        key: "renew_cap_days",
        kind: "int",
        label: "policy.renew_cap_days",
        hint: "policy.renew_cap_daysHint",
        min: 1,
      },
    ],
  },
  {
    title: "policy.groupAbuse",
    fields: [
      {
        key: "password_attempts",
        kind: "int",
        label: "policy.password_attempts",
        hint: "policy.password_attemptsHint",
        min: 1,
        max: 100,
      },
      {
        key: "pickup_failures_per_ip",
        kind: "int",
        label: "policy.pickup_failures_per_ip",
        hint: "policy.pickup_failures_per_ipHint",
        min: 1,
        max: 100000,
      },
    ],
  },
];

/** Every runtime member: integers >= 0, the audit retention days and rows >= 1. */
export const RUNTIME_GROUPS: Group[] = [
  {
    title: "runtime.groupBudgets",
    fields: [
      {
        key: "file_budget",
        kind: "int",
        label: "runtime.file_budget",
        hint: "runtime.budgetHint",
        min: 0,
      },
      {
        key: "data_budget_bytes",
        kind: "bytes",
        label: "runtime.data_budget_bytes",
        hint: "runtime.budgetHint",
        min: 0,
      },
      {
        key: "disk_headroom_bytes",
        kind: "bytes",
        label: "runtime.disk_headroom_bytes",
        hint: "runtime.headroomHint",
        min: 0,
      },
    ],
  },
  {
    title: "runtime.groupAudit",
    fields: [
      { key: "audit_retention_days", kind: "int", label: "runtime.audit_retention_days", min: 1 },
      { key: "audit_retention_rows", kind: "int", label: "runtime.audit_retention_rows", min: 1 },
      {
        key: "audit_content_budget_bytes",
        kind: "bytes",
        label: "runtime.audit_content_budget_bytes",
        min: 0,
      },
    ],
  },
];

export type Value = number | boolean | string;
export type Draft = string | boolean | { amount: string; unit: number };
export type Settings = Record<string, Value>;

/** The largest unit that shows the value as a whole number (0 shows in MiB). */
export function unitFor(bytes: number): number {
  if (bytes === 0) return 1024 ** 2;
  for (let i = UNITS.length - 1; i > 0; i--) {
    if (bytes % UNITS[i].size === 0) return UNITS[i].size;
  }
  return 1;
}

export function toDraft(def: FieldDef, value: Value): Draft {
  if (def.kind === "bool") return value === true;
  if (def.kind === "bytes") {
    const unit = unitFor(Number(value));
    return { amount: String(Number(value) / unit), unit };
  }
  return String(value);
}

export function draftsOf(groups: Group[], values: Settings): Record<string, Draft> {
  const out: Record<string, Draft> = {};
  for (const g of groups) for (const f of g.fields) out[f.key] = toDraft(f, values[f.key]);
  return out;
}

function rangeError(def: FieldDef, n: number, t: AT): string {
  const min = def.min ?? 0;
  const max = def.max ?? MAX;
  if (n >= min && n <= max) return "";
  if (def.kind === "bytes") return t("form.atLeastBytes", { min: `${min} B` });
  if (def.max !== undefined) return t("form.between", { min, max });
  return t("form.atLeast", { min });
}

/** The value a draft stands for, or the reason it is not a valid one. */
export function parseDraft(def: FieldDef, draft: Draft, t: AT): { value?: Value; error: string } {
  if (def.kind === "bool") return { value: draft === true, error: "" };
  if (def.kind === "enum") {
    const v = String(draft);
    return def.options?.some((o) => o.value === v)
      ? { value: v, error: "" }
      : { error: t("form.choose") };
  }
  if (def.kind === "int") {
    const text = String(draft).trim();
    if (!/^\d+$/.test(text)) return { error: t("form.wholeNumber") };
    const n = Number(text);
    if (!Number.isSafeInteger(n)) return { error: t("form.tooLarge") };
    const error = rangeError(def, n, t);
    return error ? { error } : { value: n, error: "" };
  }
  const { amount, unit } = draft as { amount: string; unit: number };
  const text = amount.trim();
  if (!/^\d+(\.\d+)?$/.test(text)) return { error: t("form.number") };
  const n = Math.round(Number(text) * unit);
  if (!Number.isSafeInteger(n)) return { error: t("form.tooLarge") };
  const error = rangeError(def, n, t);
  return error ? { error } : { value: n, error: "" };
}

export interface Checked {
  errors: Record<string, string>;
  /** Members whose valid value differs from the saved one: what the PUT sends. */
  changes: Settings;
  warnings: Record<string, string>;
}

/**
 * Pairs of members that contradict each other when `field` passes `limit`: the service
 * refuses such a policy, so the form says why next to both fields before saving.
 */
export const PAIRS: ReadonlyArray<{
  field: string;
  limit: string;
  rule: "at_most" | "at_least";
  /** Shown at `field` and at `limit`; {n} is the other member's value. */
  fieldText: AdminKey;
  limitText: AdminKey;
}> = [
  {
    field: "default_days",
    limit: "max_days",
    rule: "at_most",
    fieldText: "form.defaultDaysOverMax",
    limitText: "form.maxDaysUnderDefault",
  },
  {
    field: "default_downloads",
    limit: "max_downloads",
    rule: "at_most",
    fieldText: "form.defaultDownloadsOverMax",
    limitText: "form.maxDownloadsUnderDefault",
  },
  {
    field: "renew_cap_days",
    limit: "renew_days",
    rule: "at_least",
    fieldText: "form.capBelowStep",
    limitText: "form.stepOverCap",
  },
];

/** Field rules plus the cross-field rules of the pairs above, on the values as they would be. */
export function check(
  groups: Group[],
  drafts: Record<string, Draft>,
  saved: Settings,
  t: AT,
): Checked {
  const errors: Record<string, string> = {};
  const changes: Settings = {};
  const values: Settings = { ...saved };
  for (const g of groups)
    for (const f of g.fields) {
      const r = parseDraft(f, drafts[f.key], t);
      if (r.error) errors[f.key] = r.error;
      else if (r.value !== undefined) {
        values[f.key] = r.value;
        if (r.value !== saved[f.key]) changes[f.key] = r.value;
      }
    }
  const warnings: Record<string, string> = {};
  const num = (k: string) => Number(values[k]);
  for (const pair of PAIRS) {
    if (!(pair.field in saved) || errors[pair.field] || errors[pair.limit]) continue;
    const value = num(pair.field);
    const limit = num(pair.limit);
    const bad = pair.rule === "at_most" ? value > limit : value < limit;
    if (!bad) continue;
    errors[pair.field] = t(pair.fieldText, { n: limit });
    errors[pair.limit] = t(pair.limitText, { n: value });
  }
  if ("max_file_bytes" in saved && num("max_file_bytes") > num("max_parcel_bytes"))
    warnings.max_file_bytes = t("form.warnFileOverParcel");
  return { errors, changes, warnings };
}

/** A policy label by member name, or the name itself for a member this console lacks. */
function memberLabel(name: unknown, t: AT): string {
  const key = `policy.${String(name)}`;
  return Object.prototype.hasOwnProperty.call(en, key) ? t(key as AdminKey) : String(name);
}

/**
 * The service's refusal of contradicting policy members (`code: "policy.conflict"`), in
 * the reader's language with the fields' labels; "" for any other answer.
 */
export function conflictText(body: Record<string, unknown>, t: AT): string {
  if (body.code !== "policy.conflict" || !Array.isArray(body.conflicts)) return "";
  return (body.conflicts as Array<Record<string, unknown>>)
    .map((c) =>
      t(c.rule === "at_least" ? "form.conflictAtLeast" : "form.conflictAtMost", {
        field: memberLabel(c.field, t),
        value: Number(c.value),
        limit: memberLabel(c.limit_field, t),
        limitValue: Number(c.limit),
      }),
    )
    .join(" ");
}
