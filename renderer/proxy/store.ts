import { create } from "zustand";
import { AuthStatus } from "../../server/contract/proxy.js";
import { call, send, setCsrf, setExpiredHandler } from "./api.js";
import { initialLang, type Lang } from "../shared/lang.js";
import { keep, stored, storedTheme, type ThemePref } from "../shared/storage.js";

export type Phase = "loading" | "setup" | "login" | "ready" | "unreachable";
export type { ThemePref } from "../shared/storage.js";

interface AppState {
  phase: Phase;
  /** Why the operator is looking at the login form again ("expired", "loggedOut"), or "". */
  notice: "" | "expired" | "loggedOut";
  lang: Lang;
  theme: ThemePref;
  boot(): Promise<void>;
  signedIn(csrf: string): void;
  expired(): void;
  logout(): Promise<void>;
  setLang(lang: Lang): void;
  setTheme(theme: ThemePref): void;
}

export const useApp = create<AppState>((set, get) => ({
  phase: "loading",
  notice: "",
  lang: initialLang(stored("gatehouse.proxy.lang"), navigator.languages ?? [navigator.language]),
  theme: storedTheme("gatehouse.proxy.theme"),
  async boot() {
    set({ phase: "loading" });
    try {
      const s = await call(AuthStatus, "GET", "/auth/status");
      setCsrf(s.csrf);
      set({ phase: !s.initialized ? "setup" : s.authenticated ? "ready" : "login" });
    } catch {
      // Without the login state nothing else can work: offer a retry instead of a blank page.
      set({ phase: "unreachable" });
    }
  },
  signedIn(csrf) {
    setCsrf(csrf);
    set({ phase: "ready", notice: "" });
  },
  expired() {
    setCsrf("");
    if (get().phase === "ready") set({ phase: "login", notice: "expired" });
  },
  async logout() {
    try {
      await send("POST", "/auth/logout");
    } catch {
      // the session is dropped locally either way
    }
    setCsrf("");
    set({ phase: "login", notice: "loggedOut" });
  },
  setLang(lang) {
    keep("gatehouse.proxy.lang", lang);
    set({ lang });
  },
  setTheme(theme) {
    keep("gatehouse.proxy.theme", theme);
    set({ theme });
  },
}));

setExpiredHandler(() => useApp.getState().expired());
