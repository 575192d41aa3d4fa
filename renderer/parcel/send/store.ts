import { create } from "zustand";
import { unexpectedAnswer } from "../../shared/api-client.js";
import { ApiError } from "../api.js";
import { parcelApi } from "../api-full.js";
import { useApp } from "../store.js";
import type {
  ManifestInput,
  Published,
  UploadCreated,
} from "../../../server/contract/parcel-views.js";
import type { PublicPolicy } from "../../../server/contract/parcel-policy.js";
import { forgetToken, saveToken } from "../ui/tokens.js";
import { textFile } from "./text-file.js";
import { uniqueName } from "./picking.js";
import type {
  Cancelled,
  Mode,
  Options,
  Phase,
  Picked,
  Session,
  Upload,
  UploadState,
} from "./send-types.js";
import type { PutHandle } from "./uploader.js";
import { runFile, totalMeter } from "./file-runner.js";
import { leaveOut } from "./leave-out.js";
import { forgetUpload, rememberCreated, rememberDone } from "./remembered.js";

/** Files uploading at once: enough to fill a LAN link, few enough to finish some early. */
export const PARALLEL = 3;

export type { Cancelled, Mode, Options, Phase, Picked, Session, Upload, UploadState };

interface SendState {
  mode: Mode;
  picked: Picked[];
  /** The text of the "Text" tab. */
  text: string;
  /** The files of the running upload (the picked files, or the text as a file). */
  sending: Picked[];
  /** Set after the sender cancelled an upload, until they pick something new. */
  cancelled: Cancelled | null;
  options: Options | null;
  phase: Phase;
  session: Session | null;
  uploads: Upload[];
  totalRate: number;
  /** Failure of create / publish / cancel (uploads keep their own). */
  error: unknown;
  result: Published | null;
  /** Folders left out of the last drop (a folder cannot be streamed as one file). */
  skippedFolders: number;
  setMode(mode: Mode): void;
  setText(text: string): void;
  /** The files the next upload would send in the current mode. */
  toSend(): Picked[];
  addFiles(files: Iterable<File>, skippedFolders?: number): void;
  removeFile(key: string): void;
  clearFiles(): void;
  initOptions(policy: PublicPolicy): void;
  setOptions(patch: Partial<Options>): void;
  start(): Promise<void>;
  /** Goes on with an upload interrupted by a page reload, with the files chosen again. */
  resume(session: Session, uploads: Upload[], sending: Picked[]): void;
  retry(key?: string): void;
  /** Leaves one file out of the running upload (stopped if on its way); the rest goes on. */
  leaveOut(key: string): Promise<void>;
  publish(): Promise<void>;
  /** The sender cancels: the session is revoked and nothing of it stays selected. */
  cancel(): Promise<void>;
  /** The session ended by itself: revoke what is left, keep the selection for a new try. */
  startOver(): Promise<void>;
  dismissCancelled(): void;
  reset(): void;
}

let nextKey = 1;
const handles = new Map<string, PutHandle>();

export const useSend = create<SendState>((set, get) => {
  const patchUpload = (key: string, patch: Partial<Upload>) =>
    set((s) => ({ uploads: s.uploads.map((u) => (u.key === key ? { ...u, ...patch } : u)) }));

  const totalLoaded = () => get().uploads.reduce((sum, u) => sum + u.loaded, 0);

  /** Starts queued files until PARALLEL run; publishes when every file is done. */
  const pump = () => {
    const { uploads, session, phase } = get();
    if (!session || phase !== "uploading") return;
    if (uploads.some((u) => u.leaving)) return;
    if (uploads.every((u) => u.state === "done")) {
      void get().publish();
      return;
    }
    let running = uploads.filter((u) => u.state === "uploading").length;
    for (const u of uploads) {
      if (running >= PARALLEL) break;
      if (u.state !== "queued" || u.leaving) continue;
      const picked = get().sending.find((p) => p.key === u.key);
      if (!picked) continue;
      running++;
      startOne(session, u, picked.file);
    }
  };

  const startOne = (session: Session, u: Upload, file: File) => {
    patchUpload(u.key, { state: "uploading", loaded: u.stored, rate: 0, error: null, link: "ok" });
    const handle = runFile(session, u, file, {
      patch: (patch) => patchUpload(u.key, patch),
      totalLoaded,
      setTotalRate: (totalRate) => set({ totalRate }),
    });
    handles.set(u.key, handle);
    handle.done.then(
      () => {
        handles.delete(u.key);
        rememberDone(session.id, u.fileId);
        patchUpload(u.key, { state: "done", loaded: u.size, stored: u.size, rate: 0, link: "ok" });
        pump();
      },
      (err: unknown) => {
        handles.delete(u.key);
        if (err instanceof DOMException && err.name === "AbortError") return;
        patchUpload(u.key, { state: "failed", loaded: 0, rate: 0, link: "ok", error: err });
        // A session that ended (409), an allowance used up (429) or a full disk (507) would
        // refuse the files still waiting just the same: hold them back as failed too.
        if (err instanceof ApiError && [409, 429, 507].includes(err.status)) {
          set((s) => ({
            uploads: s.uploads.map((x) =>
              x.state === "queued" ? { ...x, state: "failed", error: err } : x,
            ),
          }));
        }
        pump();
      },
    );
  };

  /** Stops the running uploads and revokes the session; answers whether the service confirmed. */
  const abandon = async (): Promise<boolean> => {
    const { session } = get();
    for (const h of handles.values()) h.abort();
    handles.clear();
    // A cancelled upload is never offered again after a reload.
    forgetUpload();
    set({ phase: "compose", uploads: [], totalRate: 0, error: null, session: null, sending: [] });
    if (!session) return true;
    try {
      await parcelApi("POST /parcels/:id/revoke", {
        params: { id: session.id },
        token: session.token,
      });
      await forgetToken(session.id);
      return true;
    } catch (err) {
      // Gone already (cleaned up): nothing can be published from it either.
      if (err instanceof ApiError && err.status === 404) return true;
      // The session also ends by itself within the hour; say so rather than hide it.
      set({ error: err });
      return false;
    }
  };

  return {
    mode: "files",
    picked: [],
    text: "",
    sending: [],
    cancelled: null,
    options: null,
    phase: "compose",
    session: null,
    uploads: [],
    totalRate: 0,
    error: null,
    result: null,
    skippedFolders: 0,

    setMode(mode) {
      set({ mode, error: null });
    },
    setText(text) {
      set({ text, cancelled: null });
    },
    toSend() {
      const { mode, picked, text } = get();
      if (mode === "files") return picked;
      return text === "" ? [] : [{ key: `t${nextKey++}`, file: textFile(text), name: "" }];
    },

    addFiles(files, skippedFolders = 0) {
      const picked = [...get().picked];
      const taken = new Set(picked.map((p) => p.name.toLowerCase()));
      for (const file of files) {
        // The same file chosen twice is added once.
        const same = picked.some(
          (p) =>
            p.file.name === file.name &&
            p.file.size === file.size &&
            p.file.lastModified === file.lastModified,
        );
        if (same) continue;
        const name = uniqueName(file.name, taken);
        taken.add(name.toLowerCase());
        picked.push({ key: `f${nextKey++}`, file, name });
      }
      // Files dropped or pasted while the Text tab is open go to the files, shown at once.
      set({ picked, error: null, skippedFolders, mode: "files", cancelled: null });
    },
    removeFile(key) {
      set((s) => ({ picked: s.picked.filter((p) => p.key !== key) }));
    },
    clearFiles() {
      set({ picked: [] });
    },
    initOptions(policy) {
      if (get().options) return;
      set({
        options: {
          days: policy.default_days,
          downloads: policy.default_downloads,
          password: "",
          // The policy's default, the same one the service applies when `renew` is left out.
          renew: policy.default_renew,
        },
      });
    },
    setOptions(patch) {
      const options = get().options;
      if (options) set({ options: { ...options, ...patch } });
    },

    async start() {
      const { options, phase } = get();
      const picked = get()
        .toSend()
        .map((p) => (p.name === "" ? { ...p, name: p.file.name } : p));
      if (!options || picked.length === 0 || phase !== "compose") return;
      set({ phase: "creating", error: null, cancelled: null, sending: picked });
      let created: UploadCreated;
      try {
        const manifest: ManifestInput = {
          files: picked.map((p) => ({ name: p.name, size: p.file.size })),
          days: options.days,
          downloads: options.downloads,
          ...(options.password ? { password: options.password } : {}),
          renew: options.renew,
        };
        created = await parcelApi("POST /uploads", { body: manifest });
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
        uploads: picked.map((p, i) => ({
          key: p.key,
          fileId: created.files[i].id,
          name: created.files[i].name,
          size: created.files[i].size,
          loaded: 0,
          stored: 0,
          state: "queued",
          rate: 0,
          link: "ok",
          error: null,
        })),
        totalRate: 0,
      });
      pump();
    },

    resume(session, uploads, sending) {
      if (get().phase !== "compose") return;
      totalMeter.reset();
      set({ phase: "uploading", session, uploads, sending, totalRate: 0, error: null });
      pump();
    },

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
      pump();
    },

    async leaveOut(key) {
      const { session, uploads } = get();
      const u = uploads.find((x) => x.key === key);
      if (!session || !u || uploads.length < 2) return;
      handles.get(key)?.abort();
      handles.delete(key);
      patchUpload(key, { state: "queued", rate: 0, error: null, leaving: true });
      try {
        await leaveOut(session.id, u.fileId, session.token);
      } catch (err) {
        patchUpload(key, { state: "failed", leaving: false, error: err });
        return;
      }
      set((s) => ({
        uploads: s.uploads.filter((x) => x.key !== key),
        sending: s.sending.filter((p) => p.key !== key),
      }));
      pump();
    },

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
      const confirmed = await abandon();
      set((s) =>
        s.cancelled
          ? { cancelled: { mode, files, outcome: confirmed ? "withdrawn" : "unconfirmed" } }
          : {},
      );
    },

    async startOver() {
      await abandon();
    },

    dismissCancelled() {
      set({ cancelled: null });
    },

    reset() {
      for (const h of handles.values()) h.abort();
      handles.clear();
      forgetUpload();
      set({
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
      });
    },
  };
});
