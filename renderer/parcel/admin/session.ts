import { create } from "zustand";
import { api, ApiError } from "../api.js";

/** Why the login form is showing, when it is not the first visit. */
export type SessionNote = "" | "expired" | "signedOut";

export type SessionPhase = "checking" | "out" | "in" | "error";

interface SessionState {
  phase: SessionPhase;
  username: string | null;
  /** Who was signed in before the session ended: the login form starts with that name. */
  lastUser: string;
  note: SessionNote;
  /** Why `GET /admin/status` failed (phase "error"). */
  error: ApiError | null;
  check(): Promise<void>;
  signedIn(username: string): void;
  /** A later 401: the session ran out (8 hours) or was ended elsewhere. */
  expired(): void;
  signedOut(): void;
}

export const useSession = create<SessionState>((set, get) => ({
  phase: "checking",
  username: null,
  lastUser: "admin",
  note: "",
  error: null,
  async check() {
    set({ phase: "checking", error: null });
    try {
      const status = await api<{ authenticated: boolean; username: string | null }>(
        "GET",
        "/admin/status",
      );
      set(
        status.authenticated
          ? { phase: "in", username: status.username, lastUser: status.username ?? "admin" }
          : { phase: "out", username: null },
      );
    } catch (err) {
      set({ phase: "error", error: err instanceof ApiError ? err : new ApiError(0, String(err)) });
    }
  },
  signedIn(username) {
    set({ phase: "in", username, lastUser: username, note: "", error: null });
  },
  expired() {
    if (get().phase === "in") set({ phase: "out", username: null, note: "expired" });
  },
  signedOut() {
    set({ phase: "out", username: null, note: "signedOut" });
  },
}));

/** An admin call: a 401 means the session is gone, so the console returns to the login form. */
export async function adminApi<T>(
  method: string,
  path: string,
  body?: unknown,
  signal?: AbortSignal,
): Promise<T> {
  try {
    return await api<T>(method, `/admin${path}`, body, { signal });
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) useSession.getState().expired();
    throw err;
  }
}
