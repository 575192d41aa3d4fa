import { create } from "zustand";
import { createApiClient, type Parser } from "../../shared/api-client.js";
import { SessionStatusSchema } from "../../../server/contract/parcel-admin.js";
import { ApiError, BASE, call, serviceOrigin } from "../api.js";

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
      const status = await call(SessionStatusSchema, "GET", "/admin/status");
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

/** Admin calls: a 401 means the session is gone, so the console returns to the login form. */
const admin = createApiClient({
  base: `${BASE}/admin`,
  headers: serviceOrigin,
  onError: (err) => {
    if (err.status === 401) useSession.getState().expired();
  },
});

/** An admin call whose answer is checked with the route's response schema. */
export function adminCall<T>(
  schema: Parser<T>,
  method: string,
  path: string,
  body?: unknown,
  signal?: AbortSignal,
): Promise<T> {
  return admin.call(schema, method, path, body, { signal });
}

/** An admin call whose answer the console does not read. */
export function adminSend(method: string, path: string, body?: unknown): Promise<void> {
  return admin.send(method, path, body);
}
