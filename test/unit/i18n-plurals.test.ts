import { describe, expect, it } from "vitest";
import { en as adminEn } from "../../renderer/parcel/admin/i18n-en.js";
import { zh as adminZh } from "../../renderer/parcel/admin/i18n-zh.js";
import { desktopDict } from "../../renderer/parcel/desktop/i18n.js";
import { keychainDict } from "../../renderer/parcel/desktop/keychain-i18n.js";
import { adminInboxDict } from "../../renderer/parcel/admin/inbox-i18n.js";
import { verifyDict } from "../../renderer/parcel/admin/verify-i18n.js";
import { inboxDict } from "../../renderer/parcel/inbox/i18n.js";
import { PARCEL_PROBLEM_TABLES } from "../../renderer/parcel/admin/problem-words.js";
import { PARCEL_ERROR_TABLES } from "../../renderer/parcel/errors-i18n.js";
import { mineDict } from "../../renderer/parcel/mine/i18n.js";
import { pickupDict } from "../../renderer/parcel/pickup/i18n.js";
import { sendDict } from "../../renderer/parcel/send/i18n.js";
import { shellDict } from "../../renderer/parcel/shell-i18n.js";
import { uiDict } from "../../renderer/parcel/ui/i18n.js";
import { DESKTOP_STRINGS } from "../../main/i18n.js";
import { BRIEF_ERRORS } from "../../renderer/proxy/errors/brief-errors.js";
import { PROXY_ERROR_TABLES } from "../../renderer/proxy/errors/errors-i18n.js";
import { en as proxyEn, zh as proxyZh } from "../../renderer/proxy/words.js";
import { PROXY_PROBLEM_TABLES } from "../../renderer/proxy/errors/problem-words.js";
import {
  plural,
  pluralForm,
  say,
  translate,
  type Dict,
  type Message,
} from "../../renderer/shared/i18n.js";

// The tables themselves (the modules with the React hooks need a browser).
const adminDict: Dict<keyof typeof adminEn> = { en: adminEn, "zh-CN": adminZh };
const proxyDict: Dict<keyof typeof proxyEn> = { en: proxyEn, "zh-CN": proxyZh };

/** Every string table of every page, by a name the failures print. */
const DICTS: Record<string, Dict<string>> = {
  shell: shellDict,
  send: sendDict,
  pickup: pickupDict,
  inbox: inboxDict,
  "admin inbox": adminInboxDict,
  "admin verify": verifyDict,
  mine: mineDict,
  ui: uiDict,
  admin: adminDict,
  desktop: desktopDict,
  keychain: keychainDict,
  proxy: proxyDict,
  "desktop app": DESKTOP_STRINGS,
};

/** The coded sentences (functions of the service's values), English side. */
const CODED: Record<string, Record<string, (p: Record<string, unknown>) => string>> = {
  "parcel errors": PARCEL_ERROR_TABLES.en as never,
  "proxy errors": PROXY_ERROR_TABLES.en as never,
  "parcel problems": PARCEL_PROBLEM_TABLES.en as never,
  "proxy problems": PROXY_PROBLEM_TABLES.en as never,
};

/**
 * Values that are never 1 where a sentence is said (the scan gives them 2), with the reason;
 * any other sentence that reads "1 <plural noun>" when its numbers are 1 lacks a plural form.
 */
const NEVER_ONE: Record<string, { values: string[]; why: string }> = {
  "send.sendN": { values: ["n"], why: "one file says “Upload and get a code”" },
  "send.cancelledFiles": { values: ["n"], why: "one file has its own sentence" },
  "desktop app.notify.pickedUp.zipMany": {
    values: ["count"],
    why: "a ZIP of one file has its own sentence (zipOne)",
  },
  "desktop app.notify.uploaded.many": {
    values: ["count"],
    why: "one finished file is named in its own sentence (uploaded.one)",
  },
  "desktop app.notify.inbox.many": {
    values: ["count"],
    why: "one received file is named in its own sentence (inbox.one)",
  },
  "send.downloadsPerFile": {
    values: ["files", "n"],
    why: "said for two or more files and at least as many downloads",
  },
  "send.downloadsFewer": { values: ["files"], why: "said for two or more files" },
};

/** English words ending in s that are not plurals of a counted noun. */
const NOT_PLURAL = new Set([
  ...["is", "was", "has", "does", "this", "its", "as", "us", "ms", "less", "plus", "unless"],
  ...["alias", "contains"],
]);

/** "1 files", "1 YAML aliases", "of 1 lines": a plural noun right after the number 1. */
function pluralAfterOne(text: string): string | null {
  for (const m of text.matchAll(/(?<![\d.,])1 (?:[A-Z]+ )?([a-z]+s)\b/g)) {
    const word = m[1] ?? "";
    if (!NOT_PLURAL.has(word)) return m[0];
  }
  return null;
}

function placeholders(message: Message): string[] {
  const texts = typeof message === "string" ? [message] : Object.values(message);
  const names = new Set<string>();
  for (const text of texts) for (const m of text.matchAll(/\{(\w+)\}/g)) if (m[1]) names.add(m[1]);
  if (typeof message !== "string" && message.by) names.add(message.by);
  return [...names];
}

/** Every value a sentence may be given, set to 1 (a proxy, so code tables read 1 for any). */
const ALL_ONE = new Proxy<Record<string, unknown>>(
  {},
  { get: (_target, name) => (typeof name === "string" ? 1 : undefined) },
);

describe("counting sentences through the one mechanism", () => {
  const files: Message = { one: "1 file, {size}", other: "{n} files, {size}" };

  it("picks the form Intl.PluralRules names for English", () => {
    const rules = new Intl.PluralRules("en");
    for (const n of [0, 1, 2, 5, 21, 1000]) {
      const expected = rules.select(n) === "one" ? "1 file, 3 KiB" : `${n} files, 3 KiB`;
      expect(say("en", files, { n, size: "3 KiB" })).toBe(expected);
    }
    expect(say("en", files, { n: 1, size: "3 KiB" })).toBe("1 file, 3 KiB");
    expect(say("en", files, { n: 0, size: "3 KiB" })).toBe("0 files, 3 KiB");
  });

  it("uses only the other form in Chinese, which has no singular", () => {
    expect(new Intl.PluralRules("zh-CN").select(1)).toBe("other");
    expect(say("zh-CN", files, { n: 1, size: "3 KiB" })).toBe("1 files, 3 KiB");
    expect(translate(uiDict, "zh-CN", "downloadsLeft", { n: 1 })).toBe("剩余 1 次下载");
  });

  it("counts by the placeholder the message names, and reads formatted numbers", () => {
    const match: Message = { by: "total", one: "1 parcel matches", other: "{total} parcels match" };
    expect(say("en", match, { total: 1 })).toBe("1 parcel matches");
    expect(say("en", match, { total: "1,200" })).toBe("1,200 parcels match");
    expect(pluralForm("en", { one: "a", other: "b" }, { count: 1, n: 5 })).toBe("a");
    expect(plural("en", "1", { one: "1 second", other: "{count} seconds" })).toBe("1 second");
    expect(plural("en", 90, { one: "1 second", other: "{count} seconds" })).toBe("90 seconds");
  });

  it("says the page tables' counting sentences right for 1 and for many", () => {
    expect(translate(adminDict, "en", "parcels.count", { total: "1" })).toBe("1 parcel matches");
    expect(translate(adminDict, "en", "parcels.count", { total: "12" })).toBe("12 parcels match");
    expect(translate(proxyDict, "en", "nodes.count", { n: 1 })).toBe("1 node");
    expect(
      translate(proxyDict, "en", "subs.meta", { nodes: 1, updated: "now", interval: "x" }),
    ).toBe("1 node · updated now · x");
    expect(translate(pickupDict, "en", "summary", { n: 1, size: "2 B" })).toBe("1 file, 2 B");
    expect(translate(sendDict, "en", "daysCount", { n: 30 })).toBe("30 days");
  });
});

describe("no English sentence says “1 <plural>”", () => {
  it("fills every page table's sentence with 1 for each value and finds no plural after 1", () => {
    const wrong: string[] = [];
    for (const [area, dict] of Object.entries(DICTS)) {
      for (const [key, message] of Object.entries(dict.en) as Array<[string, Message]>) {
        const never = NEVER_ONE[`${area}.${key}`]?.values ?? [];
        const vars = Object.fromEntries(
          placeholders(message).map((name) => [name, never.includes(name) ? 2 : 1]),
        );
        const hit = pluralAfterOne(say("en", message, vars));
        if (hit) wrong.push(`${area}.${key}: “${hit}”`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it("calls every coded English sentence with 1 for each value and finds no plural after 1", () => {
    const wrong: string[] = [];
    for (const [area, table] of Object.entries(CODED)) {
      for (const [code, sentence] of Object.entries(table)) {
        const hit = pluralAfterOne(sentence(ALL_ONE));
        if (hit) wrong.push(`${area}.${code}: “${hit}”`);
      }
    }
    for (const [code, text] of Object.entries(BRIEF_ERRORS.en)) {
      const hit = pluralAfterOne(text);
      if (hit) wrong.push(`brief.${code}: “${hit}”`);
    }
    expect(wrong).toEqual([]);
  });

  it("catches a plain counting sentence (the scan is not blind)", () => {
    expect(pluralAfterOne(say("en", "{n} downloads left", { n: 1 }))).toBe("1 downloads");
    expect(pluralAfterOne(say("en", "more than {n} YAML aliases", { n: 1 }))).toBe(
      "1 YAML aliases",
    );
    expect(pluralAfterOne("under 1 ms")).toBeNull();
  });

  it("keeps every never-one exception pointing at a value of a sentence that exists", () => {
    for (const [name, { values }] of Object.entries(NEVER_ONE)) {
      // Areas have no dot; keys may (`notify.uploaded.many`).
      const dot = name.indexOf(".");
      const [area, key] = [name.slice(0, dot), name.slice(dot + 1)];
      const message = DICTS[area]?.en[key];
      expect(message, name).toBeDefined();
      for (const value of values) expect(placeholders(message ?? ""), name).toContain(value);
    }
  });
});
