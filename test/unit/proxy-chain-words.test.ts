import { describe, expect, it } from "vitest";
import type { Key } from "../../renderer/proxy/i18n.js";
import { en, zh } from "../../renderer/proxy/words.js";
import { chainText, ruleText, stepName } from "../../renderer/proxy/connections/connection-text.js";
import type { Connection } from "../../server/contract/proxy.js";
import { say } from "../../renderer/shared/i18n.js";

const tables = { en, "zh-CN": zh } as const;
const t = (lang: "en" | "zh-CN") => (key: Key, vars?: Record<string, string | number>) =>
  say(lang, tables[lang][key], vars);

const conn = (chains: Array<{ name: string; subscription: string | null }>): Connection => ({
  id: "c",
  metadata: {},
  upload: 0,
  download: 0,
  start: "",
  chains: chains.map((s) => s.name).reverse(),
  chainLabels: chains.slice().reverse(),
  rule: "",
  rulePayload: "",
});

describe("a connection's chain on screen", () => {
  it("says the console's groups and the core's DIRECT and REJECT in words, in Chinese", () => {
    const proxied = conn([
      { name: "PROXY", subscription: null },
      { name: "AUTO", subscription: null },
      { name: "Tokyo 02", subscription: "Home provider" },
    ]);
    expect(chainText(proxied, t("zh-CN"))).toBe("代理 → 自动（最快） → Tokyo 02 (Home provider)");
    expect(chainText(proxied, t("en"))).toBe(
      "Proxy → Automatic (fastest) → Tokyo 02 (Home provider)",
    );
    for (const name of ["DIRECT", "REJECT"]) {
      const said = chainText(conn([{ name, subscription: null }]), t("zh-CN"));
      expect(said).not.toMatch(/[A-Za-z]/);
    }
  });

  it("keeps a node's own name even when it reads like a keyword", () => {
    expect(stepName({ name: "DIRECT", subscription: "Home provider" }, t("zh-CN"))).toBe("DIRECT");
    expect(stepName({ name: "GLOBAL", subscription: null }, t("zh-CN"))).toBe("GLOBAL");
  });

  it("keeps the core's names for searching when no language is given", () => {
    expect(chainText(conn([{ name: "DIRECT", subscription: null }]))).toBe("DIRECT");
  });
});

describe("the rule that routed a connection", () => {
  const routed = (rule: string, rulePayload: string): Connection => ({
    ...conn([{ name: "DIRECT", subscription: null }]),
    rule,
    rulePayload,
  });

  it("names the rule types the console writes in words, with the value as given", () => {
    expect(ruleText(routed("IPCIDR", "127.0.0.0/8"), t("zh-CN"))).toBe("地址段 127.0.0.0/8");
    expect(ruleText(routed("DomainSuffix", "example.com"), t("en"))).toBe(
      "Domain and subdomains example.com",
    );
    for (const [rule, payload] of [
      ["Domain", "a.example"],
      ["GeoSite", "cn"],
      ["GeoIP", "CN"],
      ["Match", ""],
    ]) {
      const said = ruleText(routed(rule, payload), t("zh-CN"));
      expect(said.replace(payload, "")).not.toMatch(/[A-Za-z]/);
    }
  });

  it("keeps a type the console does not write as the core names it", () => {
    expect(ruleText(routed("ProcessName", "curl"), t("zh-CN"))).toBe("ProcessName curl");
  });
});
