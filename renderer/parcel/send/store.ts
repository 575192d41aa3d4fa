import { create } from "zustand";
import { api, ApiError } from "../api.js";
import { useApp } from "../store.js";
import type { Parcel, PublicPolicy, Share } from "../types.js";
import { forgetToken, saveToken } from "../ui/tokens.js";
import { RateMeter } from "./rate.js";
import { putFile, type PutHandle } from "./uploader.js";

/** Files uploading at once: enough to fill a LAN link, few enough to finish some early. */
export const PARALLEL = 3;

export interface Picked {
  key: string;
  file: File;
  /** Name sent to the service (made unique case-insensitively, as it requires). */
  name: string;
}

export type UploadState = "queued" | "uploading" | "done" | "failed";

export interface Upload {
  key: string;
  fileId: string;
  name: string;
  size: number;
  loaded: number;
  state: UploadState;
  /** Bytes per second while uploading. */
  rate: number;
  error: unknown;
}

export interface Options {
  days: number;
  downloads: number;
  password: string;
  renew: boolean;
}

export type Phase = "compose" | "creating" | "uploading" | "publishing" | "done";

export interface Session {
  id: string;
  token: string;
  expiresAt: number;
}

interface CreateAnswer {
  id: string;
  manage_token: string;
  files: Array<{ id: string; name: string; size: number }>;
  expires_at: number;
}

interface SendState {
  picked: Picked[];
  options: Options | null;
  phase: Phase;
  session: Session | null;
  uploads: Upload[];
  totalRate: number;
  /** Failure of create / publish / cancel (uploads keep their own). */
  error: unknown;
  result: (Parcel & Share) | null;
  /** Folders left out of the last drop (a folder cannot be streamed as one file). */
  skippedFolders: number;
  addFiles(files: Iterable<File>, skippedFolders?: number): void;
  removeFile(key: string): void;
  clearFiles(): void;
  initOptions(policy: PublicPolicy): void;
  setOptions(patch: Partial<Options>): void;
  start(): Promise<void>;
  retry(key?: string): void;
  publish(): Promise<void>;
  cancel(): Promise<void>;
  reset(): void;
}

let nextKey = 1;
const handles = new Map<string, PutHandle>();
const meters = new Map<string, RateMeter>();
const totalMeter = new RateMeter();

/**
 * The files of a drop, leaving out folders (they arrive as unreadable zero-byte entries);
 * returns how many folders were left out.
 */
export function filesOfDrop(dt: DataTransfer): { files: File[]; folders: number } {
  const files: File[] = [];
  let folders = 0;
  const items = Array.from(dt.items ?? []).filter((i) => i.kind === "file");
  if (items.length === 0) return { files: Array.from(dt.files), folders: 0 };
  for (const item of items) {
    const entry = item.webkitGetAsEntry?.();
    if (entry?.isDirectory) {
      folders++;
      continue;
    }
    const file = item.getAsFile();
    if (file) files.push(file);
  }
  return { files, folders };
}

/** `photo.jpg` → `photo (2).jpg`: the service wants names unique regardless of case. */
export function uniqueName(name: string, taken: Set<string>): string {
  if (!taken.has(name.toLowerCase())) return name;
  const dot = name.lastIndexOf(".");
  const stem = dot > 0 ? name.slice(0, dot) : name;
  const ext = dot > 0 ? name.slice(dot) : "";
  for (let i = 2; ; i++) {
    const candidate = `${stem} (${i})${ext}`;
    if (!taken.has(candidate.toLowerCase())) return candidate;
  }
}

export const useSend = create<SendState>((set, get) => {
  const patchUpload = (key: string, patch: Partial<Upload>) =>
    set((s) => ({ uploads: s.uploads.map((u) => (u.key === key ? { ...u, ...patch } : u)) }));

  const totalLoaded = () => get().uploads.reduce((sum, u) => sum + u.loaded, 0);

  /** Starts queued files until PARALLEL run; publishes when every file is done. */
  const pump = () => {
    const { uploads, session, phase } = get();
    if (!session || phase !== "uploading") return;
    if (uploads.every((u) => u.state === "done")) {
      void get().publish();
      return;
    }
    let running = uploads.filter((u) => u.state === "uploading").length;
    for (const u of uploads) {
      if (running >= PARALLEL) break;
      if (u.state !== "queued") continue;
      const picked = get().picked.find((p) => p.key === u.key);
      if (!picked) continue;
      running++;
      startOne(session, u, picked.file);
    }
  };

  const startOne = (session: Session, u: Upload, file: File) => {
    const meter = new RateMeter();
    meters.set(u.key, meter);
    patchUpload(u.key, { state: "uploading", loaded: 0, rate: 0, error: null });
    let lastPaint = 0;
    const handle = putFile(session.id, u.fileId, file, session.token, (loaded) => {
      const now = performance.now();
      meter.add(loaded, now);
      // Progress events come every few milliseconds; four repaints a second are plenty.
      if (now - lastPaint < 250 && loaded < u.size) return;
      lastPaint = now;
      patchUpload(u.key, { loaded, rate: meter.rate() });
      totalMeter.add(totalLoaded(), now);
      set({ totalRate: totalMeter.rate() });
    });
    handles.set(u.key, handle);
    handle.done.then(
      () => {
        handles.delete(u.key);
        patchUpload(u.key, { state: "done", loaded: u.size, rate: 0 });
        pump();
      },
      (err: unknown) => {
        handles.delete(u.key);
        if (err instanceof DOMException && err.name === "AbortError") return;
        patchUpload(u.key, { state: "failed", loaded: 0, rate: 0, error: err });
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

  return {
    picked: [],
    options: null,
    phase: "compose",
    session: null,
    uploads: [],
    totalRate: 0,
    error: null,
    result: null,
    skippedFolders: 0,

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
      set({ picked, error: null, skippedFolders });
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
          renew: false,
        },
      });
    },
    setOptions(patch) {
      const options = get().options;
      if (options) set({ options: { ...options, ...patch } });
    },

    async start() {
      const { picked, options, phase } = get();
      if (!options || picked.length === 0 || phase !== "compose") return;
      set({ phase: "creating", error: null });
      let created: CreateAnswer;
      try {
        created = await api<CreateAnswer>("POST", "/uploads", {
          files: picked.map((p) => ({ name: p.name, size: p.file.size })),
          days: options.days,
          downloads: options.downloads,
          ...(options.password ? { password: options.password } : {}),
          renew: options.renew,
        });
      } catch (err) {
        set({ phase: "compose", error: err });
        // The limits may have changed since the page loaded them: show the current ones.
        if (err instanceof ApiError && (err.status === 400 || err.status === 413))
          void useApp.getState().loadPolicy();
        return;
      }
      await saveToken(created.id, created.manage_token);
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
          state: "queued",
          rate: 0,
          error: null,
        })),
        totalRate: 0,
      });
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

    async publish() {
      const { session } = get();
      if (!session) return;
      set({ phase: "publishing", error: null });
      try {
        const result = await api<Parcel & Share>(
          "POST",
          `/uploads/${encodeURIComponent(session.id)}/publish`,
          undefined,
          { token: session.token },
        );
        set({ phase: "done", result, picked: [] });
      } catch (err) {
        set({ phase: "uploading", error: err });
      }
    },

    async cancel() {
      const { session } = get();
      for (const h of handles.values()) h.abort();
      handles.clear();
      set({ phase: "compose", uploads: [], totalRate: 0, error: null, session: null });
      if (!session) return;
      try {
        await api("POST", `/parcels/${encodeURIComponent(session.id)}/revoke`, undefined, {
          token: session.token,
        });
        await forgetToken(session.id);
      } catch (err) {
        // The session also ends by itself within the hour; say so rather than hide it.
        if (!(err instanceof ApiError && err.status === 404)) set({ error: err });
      }
    },

    reset() {
      for (const h of handles.values()) h.abort();
      handles.clear();
      set({
        picked: [],
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
