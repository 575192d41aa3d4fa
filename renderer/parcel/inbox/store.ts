import { create, type StoreApi } from "zustand";
import type { InboxGrant } from "../../../server/contract/parcel-inbox.js";
import { ApiError, api } from "../api.js";
import { runFile } from "../send/file-runner.js";
import { uniqueName } from "../send/picking.js";
import { queuedUpload, type Picked, type Session, type Upload } from "../send/send-types.js";
import type { PutHandle } from "../send/uploader.js";
import { choiceProblem, type Problem } from "./choice.js";

/**
 * The phone's side of the inbox: open it by its code (and password), choose files, send them
 * one after another with the send page's resumable uploader (a dropped Wi-Fi costs a pause, not
 * the file), then publish: the files are delivered. The code and password stay in this page's
 * memory only, to open the inbox again quietly when the 10-minute session lapsed.
 */

export type Phase = "opening" | "code" | "password" | "choose" | "sending" | "delivered";

interface InboxState {
  phase: Phase;
  grant: InboxGrant | null;
  problem: Problem | null;
  busy: boolean;
  /** Unix seconds until which opening is refused (429). */
  blockedUntil: number;
  picked: Picked[];
  rows: Upload[];
  /** How many files the last sending delivered. */
  delivered: number;
  /** How many chosen files were stopped before they were sent (dropped on the service). */
  dropped: number;
  /** Set when a sending was cancelled before any file was sent. */
  cancelledNone: boolean;
  open(code: string, password?: string): Promise<boolean>;
  pick(files: Iterable<File>): void;
  remove(key: string): void;
  send(): Promise<void>;
  /** After a failure: goes on with what is not sent yet (resumed where it stopped). */
  retry(): Promise<void>;
  /** Stops every file still on its way; what was sent already is delivered. */
  cancel(): Promise<void>;
  /** Stops (or takes out of the queue) one file; the rest goes on. */
  stopFile(key: string): Promise<void>;
  sendMore(): void;
  otherCode(): void;
}

let nextKey = 1;
const secret = { code: "", password: "" };
const running = new Map<string, PutHandle>();
/** The upload session of the files on their way (kept for a retry). */
let session: Session | null = null;
/** Files stopped by the sender, and their removals on the service still under way. */
const stopped = new Set<string>();
const removals: Array<Promise<unknown>> = [];
/** Set by Cancel: the sending loop stops at once. */
let halted = false;

type SetInbox = StoreApi<InboxState>["setState"];
type GetInbox = StoreApi<InboxState>["getState"];

/** The inbox asks for a password (again, when the one given was wrong). */
function passwordRequired(err: unknown): err is ApiError {
  return err instanceof ApiError && err.status === 403 && Boolean(err.body.password_required);
}

/** What a refused opening shows: the password question, the wait, or why it did not open. */
function openFailure(err: unknown, quiet: boolean, phase: Phase): Partial<InboxState> {
  const back = phase === "opening" ? "code" : phase;
  if (passwordRequired(err))
    return {
      phase: "password",
      problem: err.code === "inbox.password_wrong" ? { key: "wrongPassword" } : null,
    };
  if (err instanceof ApiError && err.status === 429)
    return {
      blockedUntil: Math.floor(Date.now() / 1000) + (err.retryAfter ?? 60),
      problem: { key: "tooMany", wait: err.retryAfter ?? 60 },
      phase: back,
    };
  if (err instanceof ApiError && err.status === 404)
    return { problem: { key: quiet ? "closed" : "notFound" }, phase: quiet ? phase : "code" };
  return { problem: { error: err }, phase: back };
}

/** `POST /inbox/resolve`; quietly (keeping the screen) when renewing a lapsed session. */
function createResolve(set: SetInbox, get: GetInbox) {
  return async (code: string, password: string, quiet: boolean): Promise<boolean> => {
    if (!quiet) set({ busy: true, problem: null });
    try {
      const body = password ? { code, password } : { code };
      const grant = await api("POST /inbox/resolve", { body });
      secret.code = code;
      secret.password = password;
      set((s) => ({
        grant,
        problem: null,
        phase: quiet || s.phase === "sending" ? s.phase : "choose",
      }));
      return true;
    } catch (err) {
      if (passwordRequired(err)) {
        secret.code = code;
        secret.password = "";
      }
      set(openFailure(err, quiet, get().phase));
      return false;
    } finally {
      if (!quiet) set({ busy: false });
    }
  };
}

type Resolve = ReturnType<typeof createResolve>;

/** A chosen file as a row of the sending list, not started yet. */
function queuedRow(p: Picked): Upload {
  return queuedUpload({ key: p.key, fileId: "", name: p.name, size: p.file.size });
}

/** `POST /uploads` for the chosen files, opening the inbox again once if its session lapsed. */
async function createSession(set: SetInbox, resolve: Resolve, picked: Picked[]): Promise<Session> {
  const body = { files: picked.map((p) => ({ name: p.name, size: p.file.size })), inbox: true };
  const create = () => api("POST /uploads", { body });
  let created;
  try {
    created = await create();
  } catch (err) {
    const lapsed = err instanceof ApiError && err.code === "inbox.session_required";
    if (!lapsed || !secret.code || !(await resolve(secret.code, secret.password, true))) throw err;
    created = await create();
  }
  const ids = new Map(created.files.map((f) => [f.name, f.id]));
  set((s) => ({ rows: s.rows.map((r) => ({ ...r, fileId: ids.get(r.name) ?? "" })) }));
  return { id: created.id, token: created.manage_token, expiresAt: created.expires_at };
}

/** Sending: one upload session for the chosen files, each file in turn, then publishing. */
function createSendActions(
  set: SetInbox,
  get: GetInbox,
  resolve: Resolve,
): Pick<InboxState, "send" | "retry"> {
  const patchRow = (key: string, patch: Partial<Upload>) =>
    set((s) => ({ rows: s.rows.map((r) => (r.key === key ? { ...r, ...patch } : r)) }));

  /** Sends one file; false when it failed (the row and the problem say why). */
  const sendRow = async (into: Session, row: Upload, file: File): Promise<boolean> => {
    patchRow(row.key, { state: "uploading", error: null, link: "ok" });
    const current = get().rows.find((r) => r.key === row.key) ?? row;
    const handle = runFile(into, current, file, {
      patch: (patch) => patchRow(row.key, patch),
      totalLoaded: () => get().rows.reduce((n, r) => n + r.loaded, 0),
      setTotalRate: () => undefined,
    });
    running.set(row.key, handle);
    try {
      await handle.done;
      patchRow(row.key, { state: "done", loaded: row.size, stored: row.size, link: "ok" });
      return true;
    } catch (err) {
      // Stopped by the sender (Cancel, or this file's Stop): not a failure to show.
      if (halted || stopped.has(row.key)) return false;
      patchRow(row.key, { state: "failed", error: err });
      set({ problem: { error: err } });
      return false;
    } finally {
      running.delete(row.key);
    }
  };

  /** Sends every row not sent yet, one after another, then publishes. */
  const run = async (): Promise<void> => {
    const { picked } = get();
    try {
      session ??= await createSession(set, resolve, picked);
      for (const row of get().rows) {
        if (row.state === "done" || stopped.has(row.key)) continue;
        const file = picked.find((p) => p.key === row.key)?.file;
        if (!file) continue;
        const ok = await sendRow(session, row, file);
        if (halted) return;
        if (!ok && !stopped.has(row.key)) return;
      }
      await Promise.all(removals.splice(0));
      if (halted || !session) return;
      await api("POST /uploads/:id/publish", { params: { id: session.id }, token: session.token });
      session = null;
      set((s) => ({ phase: "delivered", delivered: s.rows.length, picked: [], problem: null }));
    } catch (err) {
      const closed = err instanceof ApiError && err.code === "inbox.session_required";
      set({ problem: closed ? { key: "closed" } : { error: err } });
    }
  };

  return {
    async send() {
      stopped.clear();
      halted = false;
      const { picked, grant } = get();
      const problem = grant ? choiceProblem(picked, grant) : null;
      if (problem || picked.length === 0) {
        set({ problem });
        return;
      }
      session = null;
      set({
        phase: "sending",
        rows: picked.map(queuedRow),
        problem: null,
        dropped: 0,
        cancelledNone: false,
      });
      await run();
    },
    async retry() {
      set({ problem: null });
      await run();
    },
  };
}

/** Leaves one file out of the open upload on the service; one it no longer has is out already. */
async function removeOnService(into: Session, fileId: string): Promise<void> {
  try {
    await api("DELETE /uploads/:id/files/:file", {
      params: { id: into.id, file: fileId },
      token: into.token,
    });
  } catch (err) {
    if (!(err instanceof ApiError && err.status === 404)) throw err;
  }
}

/**
 * Stopping while sending, as the send page stops a parcel: a running upload is aborted and the
 * file left out on the service (`DELETE /uploads/:id/files/:file`, which drops what it stored);
 * with nothing sent yet, the whole upload is withdrawn (`POST /parcels/:id/revoke`). What was
 * sent already is delivered.
 */
function createStopActions(set: SetInbox, get: GetInbox): Pick<InboxState, "cancel" | "stopFile"> {
  const cancel = async (): Promise<void> => {
    if (halted) return;
    halted = true;
    for (const handle of running.values()) handle.abort();
    running.clear();
    const into = session;
    const rows = get().rows;
    const sent = rows.filter((r) => r.state === "done" && !stopped.has(r.key));
    const unsent = rows.filter((r) => r.state !== "done" && !stopped.has(r.key));
    const dropped = get().dropped + unsent.length;
    try {
      await Promise.all(removals.splice(0));
      if (into && sent.length === 0)
        await api("POST /parcels/:id/revoke", { params: { id: into.id }, token: into.token });
      else if (into) {
        for (const r of unsent) await removeOnService(into, r.fileId);
        await api("POST /uploads/:id/publish", { params: { id: into.id }, token: into.token });
      }
    } catch (err) {
      if (!(err instanceof ApiError && err.status === 404)) {
        set({ problem: { error: err } });
        return;
      }
    }
    session = null;
    if (sent.length === 0)
      set({
        phase: "choose",
        rows: [],
        picked: [],
        dropped: 0,
        cancelledNone: true,
        problem: null,
      });
    else
      set({
        phase: "delivered",
        rows: sent,
        delivered: sent.length,
        dropped,
        picked: [],
        problem: null,
      });
  };

  return {
    cancel,
    async stopFile(key) {
      const rows = get().rows;
      const row = rows.find((r) => r.key === key);
      if (!row || row.state === "done" || halted || !session || !row.fileId) return;
      const others = rows.filter((r) => r.key !== key && !stopped.has(r.key));
      if (others.length === 0) return cancel();
      stopped.add(key);
      running.get(key)?.abort();
      set((s) => ({ rows: s.rows.filter((r) => r.key !== key), dropped: s.dropped + 1 }));
      const removal = removeOnService(session, row.fileId).catch((err: unknown) =>
        set({ problem: { error: err } }),
      );
      removals.push(removal);
      await removal;
    },
  };
}

/** Choosing files, and starting over: more files, or another inbox. */
function createChoiceActions(
  set: SetInbox,
  get: GetInbox,
): Pick<InboxState, "pick" | "remove" | "sendMore" | "otherCode"> {
  return {
    pick(files) {
      const taken = new Set(get().picked.map((p) => p.name.toLowerCase()));
      const added: Picked[] = [];
      for (const file of files) {
        const name = uniqueName(file.name || "file", taken);
        taken.add(name.toLowerCase());
        added.push({ key: `f${nextKey++}`, file, name });
      }
      set((s) => ({ picked: [...s.picked, ...added], problem: null, cancelledNone: false }));
    },
    remove(key) {
      set((s) => ({ picked: s.picked.filter((p) => p.key !== key), problem: null }));
    },
    sendMore() {
      for (const handle of running.values()) handle.abort();
      running.clear();
      session = null;
      set({ phase: "choose", rows: [], picked: [], problem: null, dropped: 0 });
    },
    otherCode() {
      secret.code = "";
      secret.password = "";
      session = null;
      set({ phase: "code", grant: null, problem: null, picked: [], rows: [] });
    },
  };
}

export const useInbox = create<InboxState>((set, get) => {
  const resolve = createResolve(set, get);
  return {
    phase: "opening",
    grant: null,
    problem: null,
    busy: false,
    blockedUntil: 0,
    picked: [],
    rows: [],
    delivered: 0,
    dropped: 0,
    cancelledNone: false,
    open: (code, password = "") => resolve(code, password, false),
    ...createChoiceActions(set, get),
    ...createSendActions(set, get, resolve),
    ...createStopActions(set, get),
  };
});
