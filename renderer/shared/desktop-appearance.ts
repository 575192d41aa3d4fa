import type { GatehouseDesktopApi } from "../../preload/contract.js";
import { browserLanguages, initialLang, type Lang } from "./lang.js";
import type { ThemePref } from "./storage.js";

/**
 * In the desktop app, language and theme are desktop settings shared by both consoles: each
 * page takes them when it loads (main reloads the window after a change), and a choice made
 * with a page's own pickers is saved there too, so the other console follows. A desktop
 * language of "system" leaves the page's own rule (its last choice, else the system's).
 */

interface AppearanceState {
  lang: Lang;
  theme: ThemePref;
  setLang(lang: Lang): void;
  setTheme(theme: ThemePref): void;
}

export interface AppearanceStore {
  getState(): AppearanceState;
  subscribe(listener: (state: AppearanceState, previous: AppearanceState) => void): () => void;
}

type Settings = Awaited<ReturnType<GatehouseDesktopApi["settings"]["get"]>>;
type Held = { language: Settings["language"]; theme: ThemePref };

/** What the desktop holds; a picker change is saved only when it differs. */
let held: Held | null = null;

const listeners = new Set<(settings: Held) => void>();

/** The Desktop screen saved these: the pickers' next changes compare with them. */
export function noteDesktopAppearance(settings: Held): void {
  held = { language: settings.language, theme: settings.theme };
}

/** Calls `listener` after a page's picker saved language or theme (the Desktop form follows). */
export function onPickerSaved(listener: (settings: Held) => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The page language a desktop language setting means ("system": the system's languages). */
export function langOfSetting(language: Settings["language"]): Lang {
  return language === "system" ? initialLang(null, browserLanguages(), null) : language;
}

/**
 * Applies the desktop's language and theme to `store` and saves later picker changes back.
 * Returns a function that stops following; does nothing outside the desktop app.
 */
export function followDesktopAppearance(store: AppearanceStore): () => void {
  const desktop = typeof window === "undefined" ? undefined : window.gatehouse?.settings;
  if (!desktop) return () => {};
  let stopped = false;
  void desktop
    .get()
    .then((settings) => {
      if (stopped) return;
      noteDesktopAppearance(settings);
      const state = store.getState();
      if (settings.language !== "system" && settings.language !== state.lang)
        state.setLang(settings.language);
      if (settings.theme !== state.theme) state.setTheme(settings.theme);
    })
    .catch(() => {
      // The page's own choice stays; the Desktop screen says when settings cannot be read.
    });
  const unsubscribe = store.subscribe((state, previous) => {
    if (!held) return;
    const patch: Partial<Settings> = {};
    if (state.lang !== previous.lang && state.lang !== langOfSetting(held.language))
      patch.language = state.lang;
    if (state.theme !== previous.theme && state.theme !== held.theme) patch.theme = state.theme;
    if (Object.keys(patch).length === 0) return;
    held = { ...held, ...patch };
    const saved = held;
    void desktop
      .set(patch)
      .then((result) => {
        if (result.ok) for (const listener of listeners) listener(saved);
      })
      .catch(() => {
        // Not saved: this page keeps the choice; the next load takes the desktop's again.
      });
  });
  return () => {
    stopped = true;
    unsubscribe();
  };
}
