import { POLICY_PAIRS } from "../../../server/contract/parcel-policy.js";
import { formatBytes } from "../../shared/format.js";
import type { AdminKey, AT } from "./i18n.js";
import { en } from "./i18n-en.js";

/** The members' values as they would be saved. */
type Settings = Readonly<Record<string, unknown>>;

// The policy members that contradict each other, as the form says it before saving and as it
// words the service's refusal of them.

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

interface Broken {
  pair: (typeof PAIRS)[number];
  value: number;
  limit: number;
}

/**
 * The pairs the values break, each once; a pair is not judged when one of its members is
 * wrong on its own (`bad`) or already named by an earlier pair.
 */
function brokenPairs(values: Settings, bad: (key: string) => boolean): Broken[] {
  const named = new Set<string>();
  const out: Broken[] = [];
  for (const pair of PAIRS) {
    if (!(pair.field in values) || [pair.field, pair.limit].some((k) => bad(k) || named.has(k)))
      continue;
    const value = Number(values[pair.field]);
    const limit = Number(values[pair.limit]);
    if (pair.rule === "at_most" ? value <= limit : value >= limit) continue;
    named.add(pair.field).add(pair.limit);
    out.push({ pair, value, limit });
  }
  return out;
}

/** The rules between fields: what each member of a broken pair says, naming the other's value. */
export function pairRules(t: AT) {
  return (values: Settings, bad: (key: string) => boolean): Record<string, string> => {
    const errors: Record<string, string> = {};
    for (const { pair, value, limit } of brokenPairs(values, bad)) {
      errors[pair.field] = t(pair.fieldText, { n: shown(pair.limit, limit) });
      errors[pair.limit] = t(pair.limitText, { n: shown(pair.field, value) });
    }
    return errors;
  };
}

/** Each broken pair once, as a sentence naming both fields and their values. */
export function pairSentences(values: Settings, bad: (key: string) => boolean, t: AT): string[] {
  return brokenPairs(values, bad).map(({ pair, value, limit }) =>
    conflictSentence(pair.rule, pair.field, value, pair.limit, limit, t),
  );
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
