import { z } from "zod";
import { policyShape, runtimeShape } from "../../../server/contract/parcel-policy.js";
import type { AdminKey, AT } from "./i18n.js";
import { pairRules, pairSentences } from "./settings-pairs.js";
import { draftOf, readForm, type FieldRules } from "../../shared/ui/settings-form.js";

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

type Rules = Readonly<Record<string, z.core.$ZodType>>;

/**
 * One form field whose rules come from the contract's schema of that member: its range, or
 * its choices with their labels. The form cannot allow what the service refuses, nor refuse
 * what it allows.
 */
function field<S extends Rules, K extends keyof S & string>(
  shape: S,
  key: K,
  kind: FieldKind,
  words: Pick<FieldDef, "label" | "hint" | "help"> & {
    /** The label of each choice of an enum member. */
    choices?: Readonly<Record<string, AdminKey>>;
  },
): FieldDef {
  // Read as JSON Schema: the rule's bounds and choices as the API document states them.
  const rule = z.toJSONSchema(shape[key]);
  const { choices, ...text } = words;
  const def: FieldDef = { key, kind, ...text };
  if (typeof rule.minimum === "number") def.min = rule.minimum;
  if (typeof rule.maximum === "number" && rule.maximum < MAX) def.max = rule.maximum;
  if (rule.enum) {
    def.options = rule.enum.map((value) => {
      const label = choices?.[String(value)];
      if (!label) throw new Error(`no label for ${key} = ${String(value)}`);
      return { value: String(value), label };
    });
  }
  return def;
}

const P = policyShape;
const R = runtimeShape;

/** Every policy member, with the service's ranges. */
export const POLICY_GROUPS: Group[] = [
  {
    title: "policy.groupUploads",
    fields: [
      field(P, "uploads_enabled", "bool", { label: "policy.uploads_enabled" }),
      field(P, "max_files", "int", { label: "policy.max_files" }),
      field(P, "max_file_bytes", "bytes", { label: "policy.max_file_bytes" }),
      field(P, "max_parcel_bytes", "bytes", { label: "policy.max_parcel_bytes" }),
      field(P, "daily_upload_bytes", "bytes", {
        label: "policy.daily_upload_bytes",
        hint: "policy.daily_upload_bytesHint",
      }),
    ],
  },
  {
    title: "policy.groupTerms",
    fields: [
      field(P, "default_days", "int", { label: "policy.default_days" }),
      field(P, "max_days", "int", { label: "policy.max_days" }),
      field(P, "default_downloads", "int", { label: "policy.default_downloads" }),
      field(P, "max_downloads", "int", { label: "policy.max_downloads" }),
      field(P, "require_password", "bool", { label: "policy.require_password" }),
      field(P, "code_length", "int", {
        label: "policy.code_length",
        hint: "policy.code_lengthHint",
      }),
    ],
  },
  {
    title: "policy.groupRenewal",
    fields: [
      field(P, "renewal_mode", "enum", {
        label: "policy.renewal_mode",
        hint: "policy.renewal_modeHint",
        help: "policy.renewal_modeHelp",
        choices: { default: "policy.modeDefault", term: "policy.modeTerm" },
      }),
      field(P, "default_renew", "bool", { label: "policy.default_renew" }),
      field(P, "renew_days", "int", { label: "policy.renew_days" }),
      field(P, "renew_cap_days", "int", {
        label: "policy.renew_cap_days",
        hint: "policy.renew_cap_daysHint",
      }),
    ],
  },
  {
    title: "policy.groupAbuse",
    fields: [
      field(P, "password_attempts", "int", {
        label: "policy.password_attempts",
        hint: "policy.password_attemptsHint",
      }),
      field(P, "pickup_failures_per_ip", "int", {
        label: "policy.pickup_failures_per_ip",
        hint: "policy.pickup_failures_per_ipHint",
      }),
    ],
  },
];

/** Every runtime member, with the service's ranges. */
export const RUNTIME_GROUPS: Group[] = [
  {
    title: "runtime.groupBudgets",
    fields: [
      field(R, "file_budget", "int", { label: "runtime.file_budget", hint: "runtime.budgetHint" }),
      field(R, "data_budget_bytes", "bytes", {
        label: "runtime.data_budget_bytes",
        hint: "runtime.budgetHint",
      }),
      field(R, "disk_headroom_bytes", "bytes", {
        label: "runtime.disk_headroom_bytes",
        hint: "runtime.headroomHint",
      }),
    ],
  },
  {
    title: "runtime.groupAudit",
    fields: [
      field(R, "audit_retention_days", "int", { label: "runtime.audit_retention_days" }),
      field(R, "audit_retention_rows", "int", { label: "runtime.audit_retention_rows" }),
      field(R, "audit_content_budget_bytes", "bytes", {
        label: "runtime.audit_content_budget_bytes",
      }),
    ],
  },
];

export type Value = number | boolean | string;
export type Draft = string | boolean | { amount: string; unit: number };
export type Settings = Record<string, Value>;
export type Drafts = Record<string, Draft>;

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

/** The shared builder's fields of these groups, saying their problems in the reader's words. */
export function formFields(groups: Group[], t: AT): FieldRules<Settings, Drafts, string> {
  const out: FieldRules<Settings, Drafts, string> = {};
  for (const g of groups)
    for (const f of g.fields)
      out[f.key] = {
        draft: (value) => toDraft(f, value),
        parse(draft) {
          const r = parseDraft(f, draft, t);
          return r.value === undefined ? { error: r.error } : { value: r.value };
        },
      };
  return out;
}

export function draftsOf(groups: Group[], values: Settings): Drafts {
  return draftOf(
    formFields(groups, () => ""),
    values,
  );
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
  /**
   * Members edited away from their saved value, valid or not: an invalid edit is still an
   * unsaved change, flagged at its field, never dropped without a word.
   */
  edited: string[];
  /** Each contradicting pair once, as a sentence naming both fields and their values. */
  conflicts: string[];
}

/** Each broken pair once, as a sentence naming both fields and their values. */
export function conflictsOf(groups: Group[], values: Settings, drafts: Drafts, t: AT): string[] {
  const defs = new Map(groups.flatMap((g) => g.fields).map((f) => [f.key, f]));
  const bad = (key: string) => {
    const def = defs.get(key);
    return def !== undefined && parseDraft(def, drafts[key], t).error !== "";
  };
  return pairSentences(values, bad, t);
}

/** Field rules plus the cross-field rules of the pairs above, on the values as they would be. */
export function check(groups: Group[], drafts: Drafts, saved: Settings, t: AT): Checked {
  const spec = { fields: formFields(groups, t), rules: pairRules(t) };
  const { values, changes, edited, problems } = readForm<Settings, Drafts, string>(
    spec,
    saved,
    drafts,
  );
  const errors = problems as Record<string, string>;
  const conflicts = conflictsOf(groups, values, drafts, t);
  return { errors, changes: changes as Settings, edited, conflicts };
}
