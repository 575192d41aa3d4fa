import { browserLanguages, initialLang, type Lang } from "../lang.js";
import { keep, stored, storedTheme, type ThemePref } from "../storage.js";

export interface LookState {
  lang: Lang;
  theme: ThemePref;
  setLang(lang: Lang): void;
  setTheme(theme: ThemePref): void;
}

/**
 * The language and theme part of a page's store, kept under `gatehouse.<page>.lang` and
 * `.theme` (each page remembers its own choice): a link's `lang` first, then the stored choice,
 * then the browser's.
 */
export function lookSlice(page: string, set: (change: Partial<LookState>) => void): LookState {
  return {
    lang: initialLang(stored(`gatehouse.${page}.lang`), browserLanguages()),
    theme: storedTheme(`gatehouse.${page}.theme`),
    setLang(lang) {
      keep(`gatehouse.${page}.lang`, lang);
      set({ lang });
    },
    setTheme(theme) {
      keep(`gatehouse.${page}.theme`, theme);
      set({ theme });
    },
  };
}
