import { describe, expect, it } from "vitest";
import { initialLang, linkLang } from "../../renderer/shared/lang.js";

describe("linkLang", () => {
  it("reads lang from the address's query", () => {
    expect(linkLang("?lang=zh-CN", "")).toBe("zh-CN");
    expect(linkLang("?x=1&lang=en", "#/")).toBe("en");
  });

  it("reads lang from the query part of a hash route", () => {
    expect(linkLang("", "#/pickup?lang=zh-CN")).toBe("zh-CN");
    expect(linkLang("", "#/pickup/ABCD1234?lang=en")).toBe("en");
  });

  it("prefers the address's query over the hash route", () => {
    expect(linkLang("?lang=en", "#/pickup?lang=zh-CN")).toBe("en");
  });

  it("ignores values that are not one of the two languages", () => {
    expect(linkLang("?lang=fr", "")).toBeNull();
    expect(linkLang("?lang=zh", "#/?lang=ZH-cn")).toBeNull();
    expect(linkLang("?lang=", "")).toBeNull();
    expect(linkLang("", "#/pickup")).toBeNull();
    expect(linkLang("?lang=fr", "#/?lang=zh-CN")).toBe("zh-CN");
  });
});

describe("initialLang", () => {
  it("takes a link's language before the stored choice and the browser's", () => {
    expect(initialLang("en", ["en-US"], "zh-CN")).toBe("zh-CN");
    expect(initialLang("zh-CN", ["zh-CN"], "en")).toBe("en");
  });

  it("falls back to the stored choice, then the browser, without a link language", () => {
    expect(initialLang("zh-CN", ["en-US"], null)).toBe("zh-CN");
    expect(initialLang(null, ["fr-FR", "zh-TW"], null)).toBe("zh-CN");
    expect(initialLang("de", ["en-GB"], null)).toBe("en");
  });

  it("reads the page's address when no link language is passed", () => {
    const before = Object.getOwnPropertyDescriptor(globalThis, "location");
    Object.defineProperty(globalThis, "location", {
      value: { search: "", hash: "#/pickup?lang=zh-CN" },
      configurable: true,
    });
    try {
      expect(initialLang("en", ["en-US"])).toBe("zh-CN");
    } finally {
      if (before) Object.defineProperty(globalThis, "location", before);
      else Reflect.deleteProperty(globalThis, "location");
    }
  });
});
