import { z } from "zod";
import { POLICY_PAIRS, policyShape, runtimeShape } from "../../../server/contract/parcel-policy.js";
import type { AdminKey, AT } from "./i18n.js";
import { en } from "./i18n-en.js";
import { formatBytes } from "../../shared/format.js";

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
  /**
   * Members edited away from their saved value, valid or not: an invalid edit is still an
   * unsaved change, flagged at its field, never dropped without a word.
   */
  edited: string[];
  /** Each contradicting pair once, as a sentence naming both fields and their values. */
  conflicts: string[];
}

type Pair = (typeof POLICY_PAIRS)[number];
/** `field/limit` of each pair (distributed over the pairs, not every field with every limit). */
type PairKey = Pair extends infer P
  ? P extends Pair
    ? `${P["field"]}/${P["limit"]}`
    : never
  : never;

/** What the form says at each member of a contradicting pair; {n} is the other's value. */
const PAIR_TEXT: Record<PairKey, { fieldText: AdminKey; limitText: AdminKey }> = {
  "default_days/max_days": {
    fieldText: "form.defaultDaysOverMax",
    limitText: "form.maxDaysUnderDefault",
  },
  "default_downloads/max_downloads": {
    fieldText: "form.defaultDownloadsOverMax",
    limitText: "form.maxDownloadsUnderDefault",
  },
  "renew_cap_days/renew_days": { fieldText: "form.capBelowStep", limitText: "form.stepOverCap" },
  "max_file_bytes/max_parcel_bytes": {
    fieldText: "form.fileOverParcel",
    limitText: "form.parcelUnderFile",
  },
  "renew_cap_days/max_days": { fieldText: "form.capBelowTerm", limitText: "form.termOverCap" },
  "max_file_bytes/daily_upload_bytes": {
    fieldText: "form.fileOverDaily",
    limitText: "form.dailyUnderFile",
  },
};

/**
 * The contract's pairs of members that contradict each other when `field` passes `limit`:
 * the form says why next to both fields before saving (the service refuses some of them
 * too, see POLICY_PAIRS).
 */
export const PAIRS = POLICY_PAIRS.map((pair) => ({
  ...pair,
  ...PAIR_TEXT[`${pair.field}/${pair.limit}` as PairKey],
}));

const BYTE_MEMBERS = new Set(["max_file_bytes", "max_parcel_bytes", "daily_upload_bytes"]);

/** A member's value as the form shows it: bytes with their unit, counts as numbers. */
function shown(key: string, value: number): string | number {
  return BYTE_MEMBERS.has(key) ? formatBytes(value) : value;
}

/** Whether a draft is the saved value as the form first showed it. */
function sameDraft(a: Draft, b: Draft): boolean {
  if (typeof a !== "object" || typeof b !== "object") return String(a).trim() === String(b).trim();
  return a.amount.trim() === b.amount.trim() && a.unit === b.unit;
}

/** Field rules plus the cross-field rules of the pairs above, on the values as they would be. */
export function check(
  groups: Group[],
  drafts: Record<string, Draft>,
  saved: Settings,
  t: AT,
): Checked {
  const errors: Record<string, string> = {};
  const changes: Settings = {};
  const edited: string[] = [];
  const values: Settings = { ...saved };
  for (const g of groups)
    for (const f of g.fields) {
      const r = parseDraft(f, drafts[f.key], t);
      if (r.error) errors[f.key] = r.error;
      else if (r.value !== undefined) {
        values[f.key] = r.value;
        if (r.value !== saved[f.key]) changes[f.key] = r.value;
      }
      const changedValue = f.key in changes;
      if (changedValue || (r.error && !sameDraft(drafts[f.key], toDraft(f, saved[f.key]))))
        edited.push(f.key);
    }
  const conflicts: string[] = [];
  const num = (k: string) => Number(values[k]);
  for (const pair of PAIRS) {
    if (!(pair.field in saved) || errors[pair.field] || errors[pair.limit]) continue;
    const value = num(pair.field);
    const limit = num(pair.limit);
    const bad = pair.rule === "at_most" ? value > limit : value < limit;
    if (!bad) continue;
    errors[pair.field] = t(pair.fieldText, { n: shown(pair.limit, limit) });
    errors[pair.limit] = t(pair.limitText, { n: shown(pair.field, value) });
    conflicts.push(conflictSentence(pair.rule, pair.field, value, pair.limit, limit, t));
  }
  return { errors, changes, edited, conflicts };
}

/** "“Largest file” (30 GiB) must not be more than “Largest parcel” (20 GiB)." */
function conflictSentence(
  rule: "at_most" | "at_least",
  field: unknown,
  value: number,
  limitField: unknown,
  limit: number,
  t: AT,
): string {
  return t(rule === "at_least" ? "form.conflictAtLeast" : "form.conflictAtMost", {
    field: memberLabel(field, t),
    value: shown(String(field), value),
    limit: memberLabel(limitField, t),
    limitValue: shown(String(limitField), limit),
  });
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
      conflictSentence(
        c.rule === "at_least" ? "at_least" : "at_most",
        c.field,
        Number(c.value),
        c.limit_field,
        Number(c.limit),
        t,
      ),
    )
    .join(" ");
}
