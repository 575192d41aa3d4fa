import { unexpectedAnswer } from "../../shared/api-client.js";
import { ApiError } from "../api.js";
import { parcelApi } from "../api-full.js";
import { useApp } from "../store.js";
import type { ManifestInput, UploadCreated } from "../../../server/contract/parcel-views.js";
import { saveToken } from "../ui/tokens.js";
import {
  queuedUpload,
  type GetSend,
  type Options,
  type Picked,
  type SendState,
  type SetSend,
  type Upload,
} from "./send-types.js";
import { totalMeter } from "./file-runner.js";
import { leaveOut } from "./leave-out.js";
import { forgetUpload, rememberCreated } from "./remembered.js";
import { abandon, stopAll, stopOne, type UploadQueue } from "./upload-queue.js";

/** The send store with nothing chosen, nothing on its way and nothing published. */
export const CLEARED: Pick<
  SendState,
  | "picked"
  | "text"
  | "sending"
  | "cancelled"
  | "phase"
  | "session"
  | "uploads"
  | "totalRate"
  | "error"
  | "result"
> = {
  picked: [],
  text: "",
  sending: [],
  cancelled: null,
  phase: "compose",
  session: null,
  uploads: [],
  totalRate: 0,
  error: null,
  result: null,
};

/** What the service is asked to create for these files with these options. */
function manifestOf(picked: Picked[], options: Options): ManifestInput {
  return {
    files: picked.map((p) => ({ name: p.name, size: p.file.size })),
    days: options.days,
    downloads: options.downloads,
    ...(options.password ? { password: options.password } : {}),
    renew: options.renew,
  };
}

/** One queued upload per picked file, under the name and id the service gave it. */
function queuedUploads(picked: Picked[], created: UploadCreated): Upload[] {
  return picked.map((p, i) => {
    const { id, name, size } = created.files[i];
    return queuedUpload({ key: p.key, fileId: id, name, size });
  });
}

/** Starting an upload: a new session for the chosen files, or one interrupted by a reload. */
export function createStartActions(
  set: SetSend,
  get: GetSend,
  queue: UploadQueue,
): Pick<SendState, "start" | "resume"> {
  return {
    async start() {
      const { options, phase } = get();
      const picked = get()
        .toSend()
        .map((p) => (p.name === "" ? { ...p, name: p.file.name } : p));
      if (!options || picked.length === 0 || phase !== "compose") return;
      set({ phase: "creating", error: null, cancelled: null, sending: picked });
      let created: UploadCreated;
      try {
        created = await parcelApi("POST /uploads", { body: manifestOf(picked, options) });
      } catch (err) {
        set({ phase: "compose", error: err });
        // The limits may have changed since the page loaded them: show the current ones.
        if (err instanceof ApiError && (err.status === 400 || err.status === 413))
          void useApp.getState().loadPolicy();
        return;
      }
      await saveToken(created.id, created.manage_token);
      // Files chosen from disk can be chosen again after a reload; a typed text cannot.
      if (get().mode === "files")
        rememberCreated(
          created,
          picked.map((p) => p.file),
        );
      totalMeter.reset();
      set({
        phase: "uploading",
        session: { id: created.id, token: created.manage_token, expiresAt: created.expires_at },
        uploads: queuedUploads(picked, created),
        totalRate: 0,
      });
      queue.pump();
    },

    resume(session, uploads, sending) {
      if (get().phase !== "compose") return;
      totalMeter.reset();
      set({ phase: "uploading", session, uploads, sending, totalRate: 0, error: null });
      queue.pump();
    },
  };
}

/** While files are on their way: try failed ones again, or leave one out. */
export function createRunningActions(
  set: SetSend,
  get: GetSend,
  queue: UploadQueue,
): Pick<SendState, "retry" | "leaveOut"> {
  return {
    retry(key) {
      set((s) => ({
        phase: s.phase === "publishing" ? s.phase : "uploading",
        error: null,
        uploads: s.uploads.map((u) =>
          u.state === "failed" && (key === undefined || u.key === key)
            ? { ...u, state: "queued", error: null }
            : u,
        ),
      }));
      queue.pump();
    },

    async leaveOut(key) {
      const { session, uploads } = get();
      const u = uploads.find((x) => x.key === key);
      if (!session || !u || uploads.length < 2) return;
      stopOne(key);
      queue.patchUpload(key, { state: "queued", rate: 0, error: null, leaving: true });
      try {
        await leaveOut(session.id, u.fileId, session.token);
      } catch (err) {
        queue.patchUpload(key, { state: "failed", leaving: false, error: err });
        return;
      }
      set((s) => ({
        uploads: s.uploads.filter((x) => x.key !== key),
        sending: s.sending.filter((p) => p.key !== key),
      }));
      queue.pump();
    },
  };
}

/** How an upload ends: published, cancelled by the sender, ended by itself, or reset. */
export function createEndActions(
  set: SetSend,
  get: GetSend,
): Pick<SendState, "publish" | "cancel" | "startOver" | "reset"> {
  return {
    async publish() {
      const { session } = get();
      if (!session) return;
      set({ phase: "publishing", error: null });
      try {
        const result = await parcelApi("POST /uploads/:id/publish", {
          params: { id: session.id },
          token: session.token,
        });
        // The send page's parcels are never sent to the inbox: a delivery answer is not ours.
        if ("delivered" in result) throw unexpectedAnswer(200);
        // What was sent leaves the form: the next parcel starts empty.
        const sent = get().mode;
        forgetUpload();
        set({
          phase: "done",
          result,
          sending: [],
          ...(sent === "files" ? { picked: [] } : { text: "" }),
        });
      } catch (err) {
        set({ phase: "uploading", error: err });
      }
    },

    async cancel() {
      const { sending, session, mode } = get();
      const files = sending.length;
      // Nothing of a cancelled upload stays selected: choosing new files must not send it after
      // all. The notice says what happened and names how many files were left out.
      set((s) => ({
        ...(s.mode === "files" ? { picked: [] } : { text: "" }),
        cancelled: { mode, files, outcome: session ? "pending" : "withdrawn" },
      }));
      const confirmed = await abandon(set, get);
      set((s) =>
        s.cancelled
          ? { cancelled: { mode, files, outcome: confirmed ? "withdrawn" : "unconfirmed" } }
          : {},
      );
    },

    async startOver() {
      await abandon(set, get);
    },

    reset() {
      stopAll();
      forgetUpload();
      set(CLEARED);
    },
  };
}
