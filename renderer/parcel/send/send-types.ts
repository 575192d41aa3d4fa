/** Shapes of the send area: picked files, uploads, options, the cancel notice, the store. */

import type { StoreApi } from "zustand";
import type { Published } from "../../../server/contract/parcel-views.js";
import type { PublicPolicy } from "../../../server/contract/parcel-policy.js";

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
  /** Bytes the service confirmed it stored: a resumed upload goes on from here. */
  stored: number;
  /** "lost": the connection dropped and the upload resumes by itself; "offline": it waits. */
  link: "ok" | "lost" | "offline";
  error: unknown;
  /** Being left out of the parcel (the service is asked to remove it). */
  leaving?: boolean;
}

/** A file's row before a byte went: `fileId` is "" until the service has given it one. */
export function queuedUpload(file: Pick<Upload, "key" | "fileId" | "name" | "size">): Upload {
  return { ...file, loaded: 0, stored: 0, state: "queued", rate: 0, link: "ok", error: null };
}

export interface Options {
  days: number;
  downloads: number;
  password: string;
  renew: boolean;
}

export type Phase = "compose" | "creating" | "uploading" | "publishing" | "done";

/** What the send form sends: the chosen files, or typed text as one `.txt` file. */
export type Mode = "files" | "text";

/** What became of an upload the sender cancelled, for the notice the form shows next. */
export interface Cancelled {
  /** Whether files or a text were on their way, and how many files. */
  mode: Mode;
  files: number;
  /** "withdrawn": the service revoked the session; "unconfirmed": the revoke failed. */
  outcome: "pending" | "withdrawn" | "unconfirmed";
}

export interface Session {
  id: string;
  token: string;
  expiresAt: number;
}

export interface SendState {
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

/** The store's own setter and getter, handed to the parts that build its actions. */
export type SetSend = StoreApi<SendState>["setState"];
export type GetSend = StoreApi<SendState>["getState"];
