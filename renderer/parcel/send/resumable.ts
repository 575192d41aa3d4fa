import { ApiError } from "../api.js";
import { NO_RESUME, offsetOf, patchFrom, storedOffset } from "./resumable-requests.js";
import { putFile, type PutHandle } from "./uploader.js";

/**
 * Resumable uploads (the tus 1.0 core protocol): the service keeps what it received of a file,
 * `HEAD` says how much, and `PATCH` appends from there. Phones on Wi-Fi drop connections; with
 * this a drop costs a few seconds instead of the whole file.
 */

/** How patiently a dropped upload is resumed. */
export interface ResumeTiming {
  /** First wait after a drop; doubled after each failed attempt, up to `maxMs`. */
  firstMs: number;
  maxMs: number;
  /** Failed attempts stop after this long without any byte getting through. */
  giveUpMs: number;
  /** A request whose upload stops moving this long counts as dropped. */
  stallMs: number;
}

export const RESUME_TIMING: ResumeTiming = {
  firstMs: 1000,
  maxMs: 30_000,
  giveUpMs: 120_000,
  stallMs: 30_000,
};

/** The back-off before attempt `n` (0-based) after a drop. */
export function backoffMs(n: number, timing: ResumeTiming = RESUME_TIMING): number {
  return Math.min(timing.maxMs, timing.firstMs * 2 ** Math.min(n, 30));
}

/** What the connection of one file is doing, for the page to say. */
export type LinkState = "ok" | "lost" | "offline";

export interface SendFileOptions {
  parcelId: string;
  fileId: string;
  file: Blob;
  token: string;
  /** Bytes on their way (never below what the service confirmed). */
  onProgress(loaded: number): void;
  /** Bytes the service confirmed it stored. */
  onStored(offset: number): void;
  onLink(state: LinkState): void;
  timing?: ResumeTiming;
}

/**
 * A network drop: the connection failed or stalled, the service timed the body out, a proxy in
 * between could not reach it, or the service still holds the previous, dead connection.
 */
export function isDrop(err: unknown): boolean {
  if (!(err instanceof ApiError)) return false;
  return (
    err.status === 0 ||
    err.status === 408 ||
    (err.status >= 502 && err.status <= 504) ||
    (err.status === 409 && err.code === "upload.busy")
  );
}

/** The stored offset a 409 `upload.offset_mismatch` gives, or null for any other answer. */
export function mismatchOffset(err: unknown): number | null {
  if (!(err instanceof ApiError) || err.status !== 409 || err.code !== "upload.offset_mismatch")
    return null;
  const p = err.params.offset;
  const n = typeof p === "number" ? p : offsetOf(typeof p === "string" ? p : null);
  return n !== null && Number.isSafeInteger(n) && n >= 0 ? n : null;
}

function isOffline(): boolean {
  return typeof navigator !== "undefined" && navigator.onLine === false;
}

/** Resolves after `ms`, or when the browser says it is online again (`online`), or on abort. */
function pause(ms: number, signal: AbortSignal, untilOnline: boolean): Promise<void> {
  return new Promise((resolve, reject) => {
    const done = () => {
      clearTimeout(timer);
      window.removeEventListener("online", done);
      signal.removeEventListener("abort", aborted);
      resolve();
    };
    const aborted = () => {
      clearTimeout(timer);
      window.removeEventListener("online", done);
      reject(new DOMException("Upload cancelled", "AbortError"));
    };
    const timer = untilOnline ? undefined : setTimeout(done, ms);
    window.addEventListener("online", done);
    signal.addEventListener("abort", aborted);
    if (signal.aborted) aborted();
  });
}

/**
 * Sends one file so that a dropped connection costs nothing: each attempt PATCHes from the
 * offset the service stored, a drop asks HEAD for that offset and goes on after a back-off
 * (1 s, 2 s, 4 s … 30 s), a browser that says it is offline waits for the `online` event, and
 * attempts stop after `giveUpMs` without progress. A service without HEAD/PATCH gets the whole
 * file with PUT. `abort()` stops for good: nothing more is sent.
 */
export function sendFile(opts: SendFileOptions): PutHandle {
  const { parcelId, fileId, file, token } = opts;
  const timing = opts.timing ?? RESUME_TIMING;
  const control = new AbortController();
  let put: PutHandle | null = null;

  const run = async (): Promise<void> => {
    const signal = control.signal;
    let stored = 0;
    let attempts = 0;
    let lostSince: number | null = null;
    const store = (n: number) => {
      stored = n;
      opts.onStored(n);
      opts.onProgress(n);
    };
    const whole = (): Promise<void> => {
      if (signal.aborted) throw new DOMException("Upload cancelled", "AbortError");
      put = putFile(parcelId, fileId, file, token, opts.onProgress);
      return put.done;
    };
    // An empty file has nothing to resume.
    if (file.size === 0) return whole();
    let known = false;
    while (!signal.aborted) {
      try {
        if (!known) {
          const now = await storedOffset(parcelId, fileId, token, signal);
          // No HEAD/PATCH on this service (or no longer): the whole file with PUT.
          if (now === NO_RESUME) return await whole();
          if (now > stored) {
            attempts = 0;
            lostSince = null;
          }
          store(now);
          known = true;
          // The service answered again: the page stops saying the connection is lost.
          opts.onLink("ok");
        }
        // Stored in full: the service marked the file ready when the last byte arrived.
        if (stored >= file.size) return;
        const next = await patchFrom(
          parcelId,
          fileId,
          file,
          stored,
          token,
          timing.stallMs,
          (loaded) => opts.onProgress(Math.max(stored, loaded)),
          signal,
        );
        if (next > stored) {
          attempts = 0;
          lostSince = null;
        }
        store(next);
        opts.onLink("ok");
        if (next >= file.size) return;
      } catch (err) {
        if (signal.aborted || (err instanceof DOMException && err.name === "AbortError"))
          throw new DOMException("Upload cancelled", "AbortError");
        const given = mismatchOffset(err);
        // The same offset refused again would loop: that is a failure, not a mismatch.
        if (given !== null && given !== stored) {
          // Another attempt got further (or less far) than this page knew: go on from there.
          store(given);
          continue;
        }
        if (!isDrop(err)) throw err;
        const now = Date.now();
        lostSince ??= now;
        known = false;
        if (isOffline()) {
          opts.onLink("offline");
          await pause(0, signal, true);
          lostSince = Date.now();
          attempts = 0;
        } else {
          if (now - lostSince >= timing.giveUpMs) throw err;
          opts.onLink("lost");
          await pause(backoffMs(attempts++, timing), signal, false);
        }
        opts.onLink("lost");
      }
    }
    throw new DOMException("Upload cancelled", "AbortError");
  };

  return {
    abort: () => {
      control.abort();
      put?.abort();
    },
    done: run(),
  };
}
