import { useCallback } from "react";
import { fill, type Lang } from "../shared/lang.js";
import { en } from "./i18n-en.js";
import { zh } from "./i18n-zh.js";
import { useApp } from "./store.js";

export { initialLang, type Lang } from "../shared/lang.js";

export type Key = keyof typeof en;
export type Translate = (key: Key, vars?: Record<string, string | number>) => string;

const tables: Record<Lang, Record<Key, string>> = { en, "zh-CN": zh };

export function translate(lang: Lang, key: Key, vars?: Record<string, string | number>): string {
  return fill(tables[lang][key] ?? en[key], vars);
}

export function useT(): Translate {
  const lang = useApp((s) => s.lang);
  return useCallback((key, vars) => translate(lang, key, vars), [lang]);
}
