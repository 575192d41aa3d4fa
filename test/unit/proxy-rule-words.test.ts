import { describe, expect, it } from "vitest";
import type { Translate } from "../../renderer/proxy/i18n.js";
import { en as EN, zh as ZH } from "../../renderer/proxy/words.js";
import { ruleInWords } from "../../renderer/proxy/rules/rule-words.js";
import { say } from "../../renderer/shared/i18n.js";

const en: Translate = (k, v) => say("en", EN[k], v);
const zh: Translate = (k, v) => say("zh-CN", ZH[k], v);

describe("a rule quoted in a sentence", () => {
  it("says each type and route in words, in English and in Chinese", () => {
    const cases = [
      [{ type: "DOMAIN-SUFFIX", value: "example.com", action: "PROXY" }],
      [{ type: "DOMAIN", value: "www.example.com", action: "DIRECT" }],
      [{ type: "IP-CIDR", value: "10.0.0.0/8", action: "DIRECT" }],
    ] as const;
    expect(cases.map(([r]) => ruleInWords(r, en))).toEqual([
      "example.com and its subdomains → through the proxy",
      "www.example.com (this exact domain) → direct",
      "addresses in 10.0.0.0/8 → direct",
    ]);
    expect(cases.map(([r]) => ruleInWords(r, zh))).toEqual([
      "example.com 及其子域名 → 走代理",
      "www.example.com（仅此域名） → 直连",
      "10.0.0.0/8 内的地址 → 直连",
    ]);
  });

  it("keeps a keyword it has no words for as it came", () => {
    expect(ruleInWords({ type: "GEOSITE", value: "cn", action: "REJECT" }, zh)).toBe(
      "GEOSITE cn → REJECT",
    );
  });
});
