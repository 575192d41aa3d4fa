import { create } from "zustand";
import { api, setCsrf, setExpiredHandler } from "./api.js";
import { lookSlice, type LookState } from "../shared/ui/look-store.js";

export type Phase = "loading" | "setup" | "login" | "ready" | "unreachable";
export type { ThemePref } from "../shared/storage.js";

interface AppState extends LookState {
  phase: Phase;
  /** Why the operator is looking at the login form again ("expired", "loggedOut"), or "". */
  notice: "" | "expired" | "loggedOut";
  boot(): Promise<void>;
  signedIn(csrf: string): void;
  expired(): void;
  logout(): Promise<void>;
}

export const useApp = create<AppState>((set, get) => ({
  phase: "loading",
  notice: "",
  ...lookSlice("proxy", set),
  async boot() {
    set({ phase: "loading" });
    try {
      const s = await api("GET /auth/status");
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
      await api("POST /auth/logout");
    } catch {
      // the session is dropped locally either way
    }
    setCsrf("");
    set({ phase: "login", notice: "loggedOut" });
  },
}));

setExpiredHandler(() => useApp.getState().expired());
