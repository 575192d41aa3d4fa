import type { Dict, Translate } from "../shared/i18n.js";
import { useDictT } from "../shared/ui/use-t.js";
import { useApp } from "./store.js";

/**
 * Each area of the page (shell, send, pickup, admin) keeps its own dictionary, so the
 * pickup page a phone loads carries only its own strings; all of them are said through the
 * shared mechanism (renderer/shared/i18n.ts).
 */
export type { Dict, Translate } from "../shared/i18n.js";

export function useT<K extends string>(dict: Dict<K>): Translate<K> {
  return useDictT(
    dict,
    useApp((s) => s.lang),
  );
}
