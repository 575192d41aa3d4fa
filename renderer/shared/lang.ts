import type { Lang } from "../../server/contract/i18n.js";

export type { Lang };

function asLang(value: string | null | undefined): Lang | null {
  return value === "en" || value === "zh-CN" ? value : null;
}

/**
 * The language a shared link asks for: `?lang=` in the address's query, or in the query part
 * of a hash route (`#/pickup?lang=zh-CN`). The query wins over the hash; a value that is not
 * one of the two languages is ignored, so a mistyped link still opens.
 */
export function linkLang(search: string, hash: string): Lang | null {
  const fromQuery = asLang(new URLSearchParams(search).get("lang"));
  if (fromQuery) return fromQuery;
  const at = hash.indexOf("?");
  return at < 0 ? null : asLang(new URLSearchParams(hash.slice(at + 1)).get("lang"));
}

/** The language the page's own address asks for; null outside a browser. */
function addressLang(): Lang | null {
  const where = globalThis.location as Location | undefined;
  return where ? linkLang(where.search, where.hash) : null;
}

/**
 * The language a page opens in: a link's `lang` first (a sender shares a link in the
 * recipient's language), then the reader's own earlier choice, then the browser's preference.
 */
export function initialLang(
  stored: string | null,
  browser: readonly string[],
  link: Lang | null = addressLang(),
): Lang {
  if (link) return link;
  const kept = asLang(stored);
  if (kept) return kept;
  return browser.some((l) => l.toLowerCase().startsWith("zh")) ? "zh-CN" : "en";
}

export function browserLanguages(): readonly string[] {
  return navigator.languages?.length ? navigator.languages : [navigator.language];
}

/** What goes between two sentences: a space in English, nothing after Chinese punctuation. */
export function sentenceGap(lang: Lang): string {
  return lang === "zh-CN" ? "" : " ";
}
