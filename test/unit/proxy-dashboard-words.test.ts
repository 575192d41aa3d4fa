import { describe, expect, it } from "vitest";
import { coreErrorText } from "../../renderer/proxy/core/core-error-text.js";
import type { Key } from "../../renderer/proxy/i18n.js";
import { en, zh } from "../../renderer/proxy/words.js";
import { say } from "../../renderer/shared/i18n.js";

const tables = { en, "zh-CN": zh } as const;
const t = (lang: "en" | "zh-CN") => (key: Key, vars?: Record<string, string | number>) =>
  say(lang, tables[lang][key], vars);

describe("the dashboard's sentence about an unreachable core", () => {
  it("never shows the socket's error code to a person", () => {
    for (const lang of ["en", "zh-CN"] as const) {
      const text = coreErrorText("The proxy core cannot be reached (ECONNREFUSED)", t(lang));
      expect(text).not.toMatch(/ECONNREFUSED|\(\)/);
      expect(text).toBe(coreErrorText("The proxy core cannot be reached", t(lang)));
    }
    expect(coreErrorText("The proxy core cannot be reached (ECONNREFUSED)", t("zh-CN"))).toMatch(
      /^无法连接代理内核。/,
    );
  });
});
