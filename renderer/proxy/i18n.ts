import { translate as say, type Dict, type Vars } from "../shared/i18n.js";
import type { Lang } from "../shared/lang.js";
import { en, zh, type Key } from "./words.js";
import { useDictT } from "../shared/ui/use-t.js";
import { useApp } from "./store.js";

export type { Lang } from "../shared/lang.js";

export type { Key };
export type Translate = (key: Key, vars?: Vars) => string;

/** The console's one table, through the shared mechanism (renderer/shared/i18n.ts). */
export const proxyDict: Dict<Key> = { en, "zh-CN": zh };

export function translate(lang: Lang, key: Key, vars?: Vars): string {
  return say(proxyDict, lang, key, vars);
}

export function useT(): Translate {
  return useDictT(
    proxyDict,
    useApp((s) => s.lang),
  );
}
