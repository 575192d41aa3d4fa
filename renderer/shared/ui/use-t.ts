import { useCallback } from "react";
import { translate, type Dict, type Translate } from "../i18n.js";
import type { Lang } from "../lang.js";

/** A dictionary's words in `lang`, through the shared mechanism (renderer/shared/i18n.ts). */
export function useDictT<K extends string>(dict: Dict<K>, lang: Lang): Translate<K> {
  return useCallback((key, vars) => translate(dict, lang, key, vars), [lang, dict]);
}
