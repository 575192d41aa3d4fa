import { create } from "zustand";
import { PARCEL_API } from "../../../server/contract/parcel.js";
import { createApiClient } from "../../shared/api-client.js";
import { wholeContractApi } from "../../shared/contract-api.js";
import { ApiError, BASE, serviceOrigin } from "../api.js";
import { parcelApi } from "../api-full.js";

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
      const status = await parcelApi("GET /admin/status");
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

/**
 * The signed-in administrator's calls (`adminApi("GET /admin/stats")`): a 401 means the session
 * is gone, so the console returns to the login form. Sign-in and its status go through
 * `parcelApi`, where a 401 is only a wrong password.
 */
export const adminApi = wholeContractApi(
  createApiClient({
    base: BASE,
    headers: serviceOrigin,
    onError: (err) => {
      if (err.status === 401) useSession.getState().expired();
    },
  }),
  PARCEL_API,
);
