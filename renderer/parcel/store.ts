import { create } from "zustand";
import { browserLanguages, initialLang, type Lang } from "../shared/lang.js";
import { keep, stored, storedTheme, type ThemePref } from "../shared/storage.js";
import type { PublicPolicy } from "../../server/contract/parcel-policy.js";
// The small build's checks: every page (a phone opening a pickup link too) loads this shell.
import { ApiError, api } from "./api.js";

export type PolicyState =
  | { phase: "loading" }
  | { phase: "ready"; policy: PublicPolicy }
  | { phase: "error"; error: ApiError };

interface AppState {
  lang: Lang;
  theme: ThemePref;
  /** `GET /policy`: limits for the send form, entry addresses, and the visitor cookie. */
  policy: PolicyState;
  loadPolicy(): Promise<void>;
  setLang(lang: Lang): void;
  setTheme(theme: ThemePref): void;
}

export const useApp = create<AppState>((set) => ({
  lang: initialLang(stored("gatehouse.parcel.lang"), browserLanguages()),
  theme: storedTheme("gatehouse.parcel.theme"),
  policy: { phase: "loading" },
  async loadPolicy() {
    try {
      const policy = await api("GET /policy");
      set({ policy: { phase: "ready", policy } });
    } catch (err) {
      const error = err instanceof ApiError ? err : new ApiError(0, String(err));
      set({ policy: { phase: "error", error } });
    }
  },
  setLang(lang) {
    keep("gatehouse.parcel.lang", lang);
    set({ lang });
  },
  setTheme(theme) {
    keep("gatehouse.parcel.theme", theme);
    set({ theme });
  },
}));
