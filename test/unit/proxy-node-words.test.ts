import { describe, expect, it } from "vitest";
import type { Key } from "../../renderer/proxy/i18n.js";
import { en, zh } from "../../renderer/proxy/words.js";
import { builtInNodeWord } from "../../renderer/proxy/dashboard/node-words.js";
import { say } from "../../renderer/shared/i18n.js";

const tables = { en, "zh-CN": zh } as const;
const t = (lang: "en" | "zh-CN") => (key: Key, vars?: Record<string, string | number>) =>
  say(lang, tables[lang][key], vars);

describe("the node in use, when it is one of the core's built-in targets", () => {
  it("says REJECT (no subscription yet) and DIRECT in words in both languages", () => {
    for (const lang of ["en", "zh-CN"] as const) {
      for (const keyword of ["REJECT", "DIRECT"]) {
        const said = builtInNodeWord(keyword, t(lang));
        expect(said).toBeTruthy();
        expect(said).not.toContain(keyword);
      }
    }
    expect(builtInNodeWord("REJECT", t("en"))).toMatch(/^None/);
    expect(builtInNodeWord("REJECT", t("zh-CN"))).toMatch(/^无/);
    expect(builtInNodeWord("REJECT", t("zh-CN"))).not.toMatch(/[A-Za-z]/);
    expect(builtInNodeWord("DIRECT", t("zh-CN"))).not.toMatch(/[A-Za-z]/);
  });

  it("leaves a real node to be shown by its own name", () => {
    expect(builtInNodeWord("sub1/provider/🇯🇵 Tokyo", t("zh-CN"))).toBeNull();
    expect(builtInNodeWord("", t("en"))).toBeNull();
  });
});
