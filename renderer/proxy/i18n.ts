import { useCallback } from "react";
import { en } from "./i18n-en.js";
import { zh } from "./i18n-zh.js";
import { useApp } from "./store.js";

export type Key = keyof typeof en;
export type Lang = "en" | "zh-CN";
export type Translate = (key: Key, vars?: Record<string, string | number>) => string;

const tables: Record<Lang, Record<Key, string>> = { en, "zh-CN": zh };

export function translate(lang: Lang, key: Key, vars?: Record<string, string | number>): string {
  let text = tables[lang][key] ?? en[key];
  if (vars)
    for (const [name, value] of Object.entries(vars))
      text = text.replaceAll(`{${name}}`, String(value));
  return text;
}

/** The browser's preference decides until the operator picks a language. */
export function initialLang(stored: string | null, browser: readonly string[]): Lang {
  if (stored === "en" || stored === "zh-CN") return stored;
  return browser.some((l) => l.toLowerCase().startsWith("zh")) ? "zh-CN" : "en";
}

export function useT(): Translate {
  const lang = useApp((s) => s.lang);
  return useCallback((key, vars) => translate(lang, key, vars), [lang]);
}
