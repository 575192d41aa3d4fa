import { ApiError } from "../api.js";
import { parcelApi } from "../api-full.js";
import { forgetToken } from "../ui/tokens.js";
import type { GetSend, Session, SetSend, Upload } from "./send-types.js";
import type { PutHandle } from "./uploader.js";
import { runFile } from "./file-runner.js";
import { forgetUpload, rememberDone } from "./remembered.js";

/** Files uploading at once: enough to fill a LAN link, few enough to finish some early. */
const PARALLEL = 3;

/** The files on their way, by key: what stopping an upload aborts. */
const handles = new Map<string, PutHandle>();

/** Aborts every file on its way. */
export function stopAll(): void {
  for (const h of handles.values()) h.abort();
  handles.clear();
}

/** Aborts one file if it is on its way. */
export function stopOne(key: string): void {
  handles.get(key)?.abort();
  handles.delete(key);
}

export interface UploadQueue {
  patchUpload(key: string, patch: Partial<Upload>): void;
  /** Starts queued files until PARALLEL run; publishes when every file is done. */
  pump(): void;
}

/** The queue of a running upload: starts files, records how each ends, starts the next. */
export function createQueue(set: SetSend, get: GetSend): UploadQueue {
  const patchUpload = (key: string, patch: Partial<Upload>) =>
    set((s) => ({ uploads: s.uploads.map((u) => (u.key === key ? { ...u, ...patch } : u)) }));

  const totalLoaded = () => get().uploads.reduce((sum, u) => sum + u.loaded, 0);

  const finished = (session: Session, u: Upload) => {
    handles.delete(u.key);
    rememberDone(session.id, u.fileId);
    patchUpload(u.key, { state: "done", loaded: u.size, stored: u.size, rate: 0, link: "ok" });
    pump();
  };

  const failed = (u: Upload, err: unknown) => {
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
      () => finished(session, u),
      (err: unknown) => failed(u, err),
    );
  };

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

  return { patchUpload, pump };
}

/** Stops the running uploads and revokes the session; answers whether the service confirmed. */
export async function abandon(set: SetSend, get: GetSend): Promise<boolean> {
  const { session } = get();
  stopAll();
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
}
