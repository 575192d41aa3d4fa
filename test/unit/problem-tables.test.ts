import { describe, expect, it } from "vitest";
import type { ErrorRegistry } from "../../server/http/error-codes.js";
import { PROXY_ERRORS } from "../../server/proxy/error-codes.js";
import { COMMON_PROBLEMS, PARCEL_PROBLEMS, PROXY_PROBLEMS } from "../../server/problem-codes.js";
import {
  parcelProblemText,
  PARCEL_PROBLEM_TABLES,
} from "../../renderer/parcel/admin/problem-words.js";
import { BRIEF_ERRORS } from "../../renderer/proxy/errors/brief-errors.js";
import {
  PROXY_PROBLEM_TABLES,
  proxyProblemText,
} from "../../renderer/proxy/errors/problem-words.js";
import type { Lang } from "../../renderer/shared/lang.js";

type Table = Record<string, (p: Record<string, unknown>) => string>;

const CONSOLES: Array<{
  console: string;
  codes: ErrorRegistry;
  tables: Record<Lang, Table>;
  say: (p: { code?: unknown; params?: unknown }, lang: Lang) => string;
}> = [
  {
    console: "parcel admin",
    codes: { ...COMMON_PROBLEMS, ...PARCEL_PROBLEMS },
    tables: PARCEL_PROBLEM_TABLES as unknown as Record<Lang, Table>,
    say: parcelProblemText,
  },
  {
    console: "proxy dashboard",
    codes: { ...COMMON_PROBLEMS, ...PROXY_PROBLEMS },
    tables: PROXY_PROBLEM_TABLES as unknown as Record<Lang, Table>,
    say: proxyProblemText,
  },
];

/** A value for each declared param that is easy to find in a sentence. */
function sample(names: readonly string[]): Record<string, string | number> {
  const out: Record<string, string | number> = {};
  names.forEach((raw, i) => {
    const name = raw.replace(/\?$/, "");
    if (name !== "reason_code") out[name] = name === "name" ? "«report.pdf»" : 4201 + i;
  });
  return out;
}

/** Latin words left once the values a sentence shows are taken out. */
function english(text: string, values: Record<string, string | number>): string[] {
  let rest = text;
  for (const v of Object.values(values)) rest = rest.replaceAll(String(v), "");
  // Names that stay as they are in Chinese text: the file format and signal names.
  return (rest.match(/[A-Za-z]{2,}/g) ?? []).filter((w) => !["YAML"].includes(w));
}

describe.each(CONSOLES)("the $console's recorded-problem tables", ({ codes, tables, say }) => {
  it.each(["en", "zh-CN"] as const)(
    "have a sentence in %s for exactly the problems the service records",
    (lang) => {
      expect(Object.keys(tables[lang]).sort()).toEqual(Object.keys(codes).sort());
    },
  );

  it("say every problem with the values it names, and Chinese without English words", () => {
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
          if (!text.includes(String(params[name])))
            problems.push(`${code} ${lang} leaves out ${name}`);
        }
      }
      if (!/[\u4e00-\u9fff]/.test(zh)) problems.push(`${code} zh-CN is not Chinese: ${zh}`);
      const latin = english(zh, params);
      if (latin.length > 0) problems.push(`${code} zh-CN has English: ${latin.join(" ")}`);
      if (zh === en) problems.push(`${code}: the same words in both languages`);
    }
    expect(problems).toEqual([]);
  });

  it("says a code it does not know in the reader's language, not the service's words", () => {
    const unknown = { code: "area.brand_new", params: {}, message: "Something broke" };
    const zh = say(unknown, "zh-CN");
    expect(zh).toMatch(/[\u4e00-\u9fff]/);
    expect(english(zh, {})).toEqual([]);
    expect(say(unknown, "en")).toContain("log");
    expect(say({ params: {} }, "zh-CN")).toBe(zh);
  });
});

describe("a recorded problem's reason", () => {
  it("is said in the same language, by the error's own code", () => {
    const failed = { code: "request.failed", params: { reason_code: "download.read_failed" } };
    expect(parcelProblemText(failed, "en")).toBe(
      "A request could not be answered: The file could not be read; try again.",
    );
    expect(parcelProblemText(failed, "zh-CN")).toMatch(/^一个请求未能完成：.+。$/);
    const refresh = {
      code: "subscription.scheduled_refresh_failed",
      params: { name: "Home", reason_code: "subscription.fetch_status", status: 503 },
    };
    expect(proxyProblemText(refresh, "en")).toBe(
      "The scheduled refresh of subscription “Home” failed: The subscription server answered HTTP 503.",
    );
    expect(proxyProblemText(refresh, "zh-CN")).toBe(
      "订阅“Home”的定时刷新失败：订阅服务器返回了 HTTP 503。",
    );
  });

  it("leaves out a reason the console has no words for", () => {
    const p = { code: "core.did_not_start", params: { reason_code: "core.brand_new" } };
    expect(proxyProblemText(p, "en")).toBe("The proxy core did not start with the service.");
    expect(proxyProblemText(p, "zh-CN")).toBe("代理内核未能随服务启动。");
  });

  it("is said without the core's own words for every code that carries them", () => {
    const detailCodes = Object.entries(PROXY_ERRORS)
      .filter(([, names]) => (names as readonly string[]).includes("detail"))
      .map(([code]) => code)
      .sort();
    for (const lang of ["en", "zh-CN"] as const) {
      expect(Object.keys(BRIEF_ERRORS[lang]).sort()).toEqual(detailCodes);
    }
    const p = { code: "core.did_not_start", params: { reason_code: "core.config_rejected" } };
    expect(proxyProblemText(p, "zh-CN")).toBe("代理内核未能随服务启动：代理内核检查配置时未通过。");
    expect(proxyProblemText(p, "en")).not.toContain("undefined");
  });
});
