import { describe, expect, it } from "vitest";
import { COMMON_ERRORS, type ErrorRegistry } from "../../server/http/error-codes.js";
import { PARCEL_ERRORS } from "../../server/parcel/error-codes.js";
import { PROXY_ERRORS } from "../../server/proxy/error-codes.js";
import { PARCEL_ERROR_TABLES } from "../../renderer/parcel/errors-i18n.js";
import { PROXY_ERROR_TABLES, serviceText } from "../../renderer/proxy/errors/errors-i18n.js";
import type { Lang } from "../../renderer/shared/lang.js";

type Table = Record<string, (p: Record<string, unknown>) => string>;

const PAGES: Array<{ page: string; codes: ErrorRegistry; tables: Record<Lang, Table> }> = [
  {
    page: "parcel",
    codes: { ...COMMON_ERRORS, ...PARCEL_ERRORS },
    tables: PARCEL_ERROR_TABLES as unknown as Record<Lang, Table>,
  },
  {
    page: "proxy",
    codes: { ...COMMON_ERRORS, ...PROXY_ERRORS },
    tables: PROXY_ERROR_TABLES as unknown as Record<Lang, Table>,
  },
];

/** Params a sentence words by their value (a kind of problem), rather than showing it. */
const WORDED = new Set(["issue", "origin", "reason_code", "kind", "reason"]);
/** Params a sentence shows formatted (bytes as KiB), so the raw number does not appear. */
const FORMATTED = new Set([
  "upload.file_too_large limit",
  "upload.parcel_too_large limit",
  "upload.offset_mismatch offset",
  "subscription.too_large limit",
  "install.too_large limit",
]);

/** A value for each declared param that is easy to find in a sentence. */
function sample(names: readonly string[]): Record<string, string | number> {
  const out: Record<string, string | number> = {};
  names.forEach((raw, i) => {
    const name = raw.replace(/\?$/, "");
    out[name] = name === "issue" ? "too_small" : name === "origin" ? "string" : 4201 + i;
    if (["name", "field", "detail", "node", "site", "alias", "interface", "address"].includes(name))
      out[name] = `«${name}»`;
  });
  return out;
}

describe.each(PAGES)("the $page pages' error tables", ({ codes, tables }) => {
  it.each(["en", "zh-CN"] as const)(
    "have a sentence in %s for exactly the codes the service sends",
    (lang) => {
      expect(Object.keys(tables[lang]).sort()).toEqual(Object.keys(codes).sort());
    },
  );

  it("say every code with the values it names, and Chinese in Chinese", () => {
    const problems: string[] = [];
    for (const [code, names] of Object.entries(codes)) {
      const params = sample(names);
      const en = tables.en[code](params);
      const zh = tables["zh-CN"][code](params);
      for (const [lang, text] of [
        ["en", en],
        ["zh-CN", zh],
      ]) {
        if (!text || /undefined|NaN|\[object|\{\w+\}/.test(text))
          problems.push(`${code} ${lang}: ${text}`);
        for (const name of names.filter((n) => !n.endsWith("?"))) {
          if (WORDED.has(name) || FORMATTED.has(`${code} ${name}`)) continue;
          if (!text.includes(String(params[name])))
            problems.push(`${code} ${lang} leaves out ${name}`);
        }
      }
      if (!/[\u4e00-\u9fff]/.test(zh)) problems.push(`${code} zh-CN is not Chinese: ${zh}`);
      if (zh === en) problems.push(`${code}: the same words in both languages`);
    }
    expect(problems).toEqual([]);
  });
});

describe("a refused part of a backup", () => {
  it("says the inner refusal in the reader's language too", () => {
    const params = {
      rule: 3,
      reason: "Invalid type: ...",
      reason_code: "request.invalid",
      field: "type",
      issue: "invalid_value",
    };
    expect(serviceText({ code: "backup.invalid_rule", params }, "zh-CN")).toBe(
      "备份中的第 3 条规则无效：type 的值不是可接受的值。",
    );
    expect(serviceText({ code: "backup.invalid_rule", params }, "en")).toBe(
      "Rule 3 of the backup is not valid: The value of type is not one of the accepted values.",
    );
  });

  it("falls back to the service's words for a code the console does not know", () => {
    expect(serviceText({ code: "core.brand_new", params: {} }, "zh-CN")).toBeNull();
  });
});
