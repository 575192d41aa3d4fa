import { create } from "zustand";
import { ApiError } from "../api.js";
import { parcelApi } from "../api-full.js";
import { forgetToken, inDesktop, loadToken } from "../ui/tokens.js";
import {
  forgetUpload,
  matchFiles,
  recallUpload,
  type Remembered,
  type RememberedFile,
} from "./remembered.js";
import { leaveOut } from "./leave-out.js";
import { storedBytes } from "./resumable-requests.js";
import type { Picked, Upload } from "./send-types.js";
import { useSend } from "./store.js";

/**
 * An upload a page reload interrupted: the page offers to go on with it once the sender
 * chooses the same files again, or to discard it (the session is revoked).
 */
interface InterruptedState {
  upload: Remembered | null;
  token: string;
  /** Files chosen again so far, by the service's file id. */
  chosen: Record<string, File>;
  /** Names of chosen files that are not among the interrupted upload's. */
  refused: string[];
  /** A discard the service did not confirm. */
  error: unknown;
  busy: boolean;
  /** Looks for a remembered upload whose session still takes files. */
  recall(): Promise<void>;
  /** Files chosen again: the matching ones are kept; once all are there, the upload goes on. */
  choose(files: Iterable<File>): void;
  /** Drops the interrupted upload and revokes its session. */
  discard(): Promise<void>;
  /**
   * Leaves one file out (one that cannot be chosen again, say): the service removes it and,
   * once every other file is stored or chosen, the upload goes on without it.
   */
  leaveOut(fileId: string): Promise<void>;
}

let nextKey = 1;

const idle = { upload: null, token: "", chosen: {}, refused: [], error: null, busy: false };

/**
 * The ids of the files the service already holds whole; null when it could not be asked;
 * "gone" when nothing is left to go on with (published, revoked or ended meanwhile, or refused).
 */
async function readyFiles(id: string, token: string): Promise<Set<string> | null | "gone"> {
  try {
    const view = await parcelApi("GET /uploads/:id", { params: { id }, token });
    if (view.state !== "uploading") return "gone";
    return new Set(view.files.filter((f) => f.state === "ready").map((f) => f.id));
  } catch (err) {
    if (err instanceof ApiError && err.status >= 400 && err.status < 500) return "gone";
    // Unreachable for now: offer it anyway; each file asks the service again when it starts.
    return null;
  }
}

/** How much of each unfinished file the service holds, so the page can say so. */
function withStored(
  upload: Remembered,
  ready: Set<string> | null,
  token: string,
): Promise<RememberedFile[]> {
  return Promise.all(
    upload.files.map(async (f) => {
      // The service's word where it answered; this page's note otherwise.
      if (ready ? ready.has(f.fileId) : f.done) return { ...f, done: true };
      const stored = await storedBytes(upload.id, f.fileId, token);
      return stored === null ? { ...f, done: false } : { ...f, done: false, stored };
    }),
  );
}

/** The send store's uploads and files for an interrupted upload whose files are all chosen. */
function resumedUploads(
  upload: Remembered,
  chosen: Record<string, File>,
): { uploads: Upload[]; sending: Picked[] } {
  const keys = new Map(upload.files.map((f) => [f.fileId, `r${nextKey++}`]));
  const uploads: Upload[] = upload.files.map((f) => ({
    key: keys.get(f.fileId) as string,
    fileId: f.fileId,
    name: f.name,
    size: f.size,
    loaded: f.done ? f.size : (f.stored ?? 0),
    stored: f.done ? f.size : (f.stored ?? 0),
    state: f.done ? "done" : "queued",
    rate: 0,
    link: "ok",
    error: null,
  }));
  const sending: Picked[] = upload.files
    .filter((f) => !f.done)
    .map((f) => ({ key: keys.get(f.fileId) as string, file: chosen[f.fileId], name: f.name }));
  return { uploads, sending };
}

export const useInterrupted = create<InterruptedState>((set, get) => ({
  ...idle,

  async recall() {
    if (get().upload || useSend.getState().phase !== "compose") return;
    const upload = recallUpload(Date.now() / 1000);
    if (!upload) return;
    // In the desktop app the token stays with the app, which attaches it to the requests.
    const token = (await loadToken(upload.id)) ?? "";
    if (!token && !inDesktop()) {
      forgetUpload();
      return;
    }
    const ready = await readyFiles(upload.id, token);
    if (ready === "gone") {
      forgetUpload();
      return;
    }
    const files = await withStored(upload, ready, token);
    if (useSend.getState().phase !== "compose") return;
    set({ ...idle, token, upload: { ...upload, files } });
    // Every file was stored before the reload: only the publish is left, and it goes on.
    if (files.every((f) => f.done)) get().choose([]);
  },

  choose(files) {
    const { upload, token } = get();
    if (!upload) return;
    const { matched, refused } = matchFiles(upload, files);
    const chosen = { ...get().chosen, ...Object.fromEntries(matched) };
    set({ chosen, refused: refused.map((f) => f.name), error: null });
    const open = upload.files.filter((f) => !f.done);
    if (!open.every((f) => chosen[f.fileId])) return;
    const { uploads, sending } = resumedUploads(upload, chosen);
    set({ ...idle });
    useSend
      .getState()
      .resume({ id: upload.id, token, expiresAt: upload.expiresAt }, uploads, sending);
  },

  async leaveOut(fileId) {
    const { upload, token } = get();
    if (!upload || upload.files.length < 2) return;
    set({ busy: true, error: null });
    try {
      await leaveOut(upload.id, fileId, token);
    } catch (err) {
      set({ busy: false, error: err });
      return;
    }
    const chosen = { ...get().chosen };
    delete chosen[fileId];
    set({
      busy: false,
      chosen,
      upload: { ...upload, files: upload.files.filter((f) => f.fileId !== fileId) },
    });
    get().choose([]);
  },

  async discard() {
    const { upload, token } = get();
    if (!upload) return;
    set({ busy: true, error: null });
    try {
      await parcelApi("POST /parcels/:id/revoke", { params: { id: upload.id }, token });
    } catch (err) {
      // Gone already: nothing is left to revoke.
      if (!(err instanceof ApiError && err.status === 404)) {
        set({ busy: false, error: err });
        return;
      }
    }
    forgetUpload();
    await forgetToken(upload.id);
    set({ ...idle });
  },
}));
