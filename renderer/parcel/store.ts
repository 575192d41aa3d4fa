import { create } from "zustand";
import { lookSlice, type LookState } from "../shared/ui/look-store.js";
import type { PublicPolicy } from "../../server/contract/parcel-policy.js";
// The small build's checks: every page (a phone opening a pickup link too) loads this shell.
import { ApiError, api } from "./api.js";

export type PolicyState =
  | { phase: "loading" }
  | { phase: "ready"; policy: PublicPolicy }
  | { phase: "error"; error: ApiError };

interface AppState extends LookState {
  /** `GET /policy`: limits for the send form, entry addresses, and the visitor cookie. */
  policy: PolicyState;
  loadPolicy(): Promise<void>;
}

export const useApp = create<AppState>((set) => ({
  ...lookSlice("parcel", set),
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
}));
