import { useCallback } from "react";
import { fill, type Lang } from "../shared/lang.js";
import { useApp } from "./store.js";

/**
 * Each area of the page (shell, send, pickup, admin) keeps its own dictionary, so the
 * pickup page a phone loads carries only its own strings.
 */
export interface Dict<K extends string> {
  en: Record<K, string>;
  "zh-CN": Record<K, string>;
}

export type Translate<K extends string> = (
  key: K,
  vars?: Record<string, string | number>,
) => string;

export function useT<K extends string>(dict: Dict<K>): Translate<K> {
  const lang: Lang = useApp((s) => s.lang);
  return useCallback((key, vars) => fill(dict[lang][key] ?? dict.en[key], vars), [lang, dict]);
}
