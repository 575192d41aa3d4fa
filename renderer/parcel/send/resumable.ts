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

/** What a stopped upload rejects with. */
function cancelled(): DOMException {
  return new DOMException("Upload cancelled", "AbortError");
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
      reject(cancelled());
    };
    const timer = untilOnline ? undefined : setTimeout(done, ms);
    window.addEventListener("online", done);
    signal.addEventListener("abort", aborted);
    if (signal.aborted) aborted();
  });
}

/** One file on its way: what the service stored, and how long the connection has been lost. */
class ResumingSend {
  readonly control = new AbortController();
  /** The PUT of a service without HEAD/PATCH, if this file went that way. */
  put: PutHandle | null = null;
  private stored = 0;
  private attempts = 0;
  private lostSince: number | null = null;
  /** Whether `stored` is the service's word since the last drop. */
  private known = false;

  constructor(
    private readonly opts: SendFileOptions,
    private readonly timing: ResumeTiming,
  ) {}

  async run(): Promise<void> {
    const { signal } = this.control;
    // An empty file has nothing to resume.
    if (this.opts.file.size === 0) return this.whole();
    while (!signal.aborted) {
      try {
        // No HEAD/PATCH on this service (or no longer): the whole file with PUT.
        if (!this.known && !(await this.askStored())) return await this.whole();
        // Stored in full: the service marked the file ready when the last byte arrived.
        if (this.stored >= this.opts.file.size) return;
        if (await this.sendRest()) return;
      } catch (err) {
        await this.recover(err);
      }
    }
    throw cancelled();
  }

  private whole(): Promise<void> {
    if (this.control.signal.aborted) throw cancelled();
    const { parcelId, fileId, file, token, onProgress } = this.opts;
    this.put = putFile(parcelId, fileId, file, token, onProgress);
    return this.put.done;
  }

  private store(n: number): void {
    this.stored = n;
    this.opts.onStored(n);
    this.opts.onProgress(n);
  }

  /** Records what the service stored; bytes that got through start the patience over. */
  private advance(n: number): void {
    if (n > this.stored) {
      this.attempts = 0;
      this.lostSince = null;
    }
    this.store(n);
  }

  /** Asks the service how much it holds; false when it cannot resume (no HEAD/PATCH). */
  private async askStored(): Promise<boolean> {
    const { parcelId, fileId, token } = this.opts;
    const now = await storedOffset(parcelId, fileId, token, this.control.signal);
    if (now === NO_RESUME) return false;
    this.advance(now);
    this.known = true;
    // The service answered again: the page stops saying the connection is lost.
    this.opts.onLink("ok");
    return true;
  }

  /** Appends the rest of the file from the stored offset; true once all of it is stored. */
  private async sendRest(): Promise<boolean> {
    const { parcelId, fileId, file, token } = this.opts;
    const from = this.stored;
    const next = await patchFrom(
      parcelId,
      fileId,
      file,
      from,
      token,
      this.timing.stallMs,
      (loaded) => this.opts.onProgress(Math.max(from, loaded)),
      this.control.signal,
    );
    this.advance(next);
    this.opts.onLink("ok");
    return next >= file.size;
  }

  /** After a failed attempt: go on from the offset the service gave, wait out a drop, or fail. */
  private async recover(err: unknown): Promise<void> {
    const { signal } = this.control;
    if (signal.aborted || (err instanceof DOMException && err.name === "AbortError"))
      throw cancelled();
    const given = mismatchOffset(err);
    // The same offset refused again would loop: that is a failure, not a mismatch.
    if (given !== null && given !== this.stored) {
      // Another attempt got further (or less far) than this page knew: go on from there.
      this.store(given);
      return;
    }
    if (!isDrop(err)) throw err;
    const now = Date.now();
    this.lostSince ??= now;
    this.known = false;
    if (isOffline()) {
      this.opts.onLink("offline");
      await pause(0, signal, true);
      this.lostSince = Date.now();
      this.attempts = 0;
    } else {
      if (now - this.lostSince >= this.timing.giveUpMs) throw err;
      this.opts.onLink("lost");
      await pause(backoffMs(this.attempts++, this.timing), signal, false);
    }
    this.opts.onLink("lost");
  }
}

/**
 * Sends one file so that a dropped connection costs nothing: each attempt PATCHes from the
 * offset the service stored, a drop asks HEAD for that offset and goes on after a back-off
 * (1 s, 2 s, 4 s … 30 s), a browser that says it is offline waits for the `online` event, and
 * attempts stop after `giveUpMs` without progress. A service without HEAD/PATCH gets the whole
 * file with PUT. `abort()` stops for good: nothing more is sent.
 */
export function sendFile(opts: SendFileOptions): PutHandle {
  const send = new ResumingSend(opts, opts.timing ?? RESUME_TIMING);
  return {
    abort: () => {
      send.control.abort();
      send.put?.abort();
    },
    done: send.run(),
  };
}
