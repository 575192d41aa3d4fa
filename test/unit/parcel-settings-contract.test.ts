import { describe, expect, it } from "vitest";
import type { z } from "zod";
import type { AT } from "../../renderer/parcel/admin/i18n.js";
import {
  check,
  draftsOf,
  parseDraft,
  POLICY_GROUPS,
  RUNTIME_GROUPS,
  type FieldDef,
  type Group,
  type Settings,
} from "../../renderer/parcel/admin/settings-fields.js";
import { PAIRS } from "../../renderer/parcel/admin/settings-pairs.js";
import {
  POLICY_PAIRS,
  PolicyPatchSchema,
  RuntimePatchSchema,
} from "../../server/contract/parcel-policy.js";
import { DEFAULT_POLICY, DEFAULT_RUNTIME } from "../../server/parcel/domain/policy.js";

// The words do not matter here: a message is its key.
const t = ((key: string) => key) as AT;

const fields = (groups: Group[]): FieldDef[] => groups.flatMap((g) => g.fields);

/** The draft a person would type for `value` in this field. */
function typed(def: FieldDef, value: number | boolean | string) {
  if (def.kind === "bytes") return { amount: String(value), unit: 1 };
  if (def.kind === "bool") return value === true;
  return String(value);
}

describe.each([
  ["policy", POLICY_GROUPS, PolicyPatchSchema, DEFAULT_POLICY as Settings],
  ["runtime", RUNTIME_GROUPS, RuntimePatchSchema, DEFAULT_RUNTIME as Settings],
] as const)("the administrator's %s form", (_name, groups, patch, saved) => {
  it("has one field for each member the route takes, and no other", () => {
    const keys = fields(groups).map((f) => f.key);
    expect(new Set(keys).size).toBe(keys.length);
    expect(keys.sort()).toEqual(Object.keys(patch.shape).sort());
  });

  it("accepts a value exactly when the route's schema does, at and beyond every bound", () => {
    let probed = 0;
    for (const def of fields(groups)) {
      if (def.kind !== "int" && def.kind !== "bytes") continue;
      const min = def.min ?? 0;
      const candidates = [min - 1, min, min + 1];
      if (def.max !== undefined) candidates.push(def.max - 1, def.max, def.max + 1);
      for (const n of candidates.filter((c) => c >= 0)) {
        const form = parseDraft(def, typed(def, n), t);
        const route = (patch as z.ZodType).safeParse({ [def.key]: n });
        expect(form.error === "", `${def.key} = ${n}`).toBe(route.success);
        probed++;
      }
    }
    expect(probed).toBeGreaterThan(10);
  });

  it("offers exactly the choices the route takes", () => {
    for (const def of fields(groups).filter((f) => f.kind === "enum")) {
      for (const option of def.options ?? []) {
        expect((patch as z.ZodType).safeParse({ [def.key]: option.value }).success).toBe(true);
        expect(parseDraft(def, option.value, t).error).toBe("");
      }
      expect(parseDraft(def, "sometimes", t).error).not.toBe("");
      expect((patch as z.ZodType).safeParse({ [def.key]: "sometimes" }).success).toBe(false);
    }
  });

  it("sends only members the route takes, so a save is never refused as unknown", () => {
    const drafts = draftsOf(groups, saved);
    for (const def of fields(groups)) {
      if (def.kind === "int") drafts[def.key] = String(Number(saved[def.key]) + 1);
    }
    const { changes, errors } = check(groups, drafts, saved, t);
    expect(Object.keys(changes).length).toBeGreaterThan(0);
    expect(
      Object.keys(errors).filter((k) => !PAIRS.some((p) => p.field === k || p.limit === k)),
    ).toEqual([]);
    expect((patch as z.ZodType).safeParse(changes).success).toBe(true);
  });
});

describe("contradicting policy members", () => {
  it("are the pairs the service refuses, each with the form's words", () => {
    expect(PAIRS.map(({ field, limit, rule }) => ({ field, limit, rule }))).toEqual(
      POLICY_PAIRS.map(({ field, limit, rule }) => ({ field, limit, rule })),
    );
    for (const pair of PAIRS) {
      expect(pair.fieldText).toMatch(/^form\./);
      expect(pair.limitText).toMatch(/^form\./);
    }
  });
});
