/** Shapes of the send area: picked files, uploads, options, the cancel notice. */

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
