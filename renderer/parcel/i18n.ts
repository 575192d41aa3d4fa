import { useCallback } from "react";
import { translate, type Dict, type Translate } from "../shared/i18n.js";
import type { Lang } from "../shared/lang.js";
import { useApp } from "./store.js";

/**
 * Each area of the page (shell, send, pickup, admin) keeps its own dictionary, so the
 * pickup page a phone loads carries only its own strings; all of them are said through the
 * shared mechanism (renderer/shared/i18n.ts).
 */
export type { Dict, Translate } from "../shared/i18n.js";

export function useT<K extends string>(dict: Dict<K>): Translate<K> {
  const lang: Lang = useApp((s) => s.lang);
  return useCallback((key, vars) => translate(dict, lang, key, vars), [lang, dict]);
}
