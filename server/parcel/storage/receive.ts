import { createHash, type Hash } from "node:crypto";
import type { WriteStream } from "node:fs";
import { open, unlink, type FileHandle } from "node:fs/promises";
import { Transform, type Readable, type Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { MINUTE_MS } from "../../contract/time-units.js";
import { CrcStream } from "./crc-thread.js";

export type ReceiveFailure =
  "too-long" | "too-short" | "aborted" | "slow" | "stopped" | "cut-off" | "io";

/** Least progress a running transfer must make: `bytes` in every `windowMs`. */
export interface RateFloor {
  bytes: number;
  windowMs: number;
}

/** 1 KiB per minute: anything slower holds a reservation and a file open for nothing. */
export const DEFAULT_FLOOR: RateFloor = { bytes: 1024, windowMs: MINUTE_MS };

/**
 * The floor is checked this many times per window, each time over the last whole window, so
 * a client cannot dodge it by sending one burst per window just after a check.
 */
const FLOOR_CHECKS_PER_WINDOW = 10;

/**
 * While bytes arrive, the data written so far is synced every this many bytes in the
 * background, so the disk works alongside the network and the final fsync is short.
 */
const SYNC_EVERY = 32 * 1048576;

/**
 * How much the file writer may hold before the network waits. The pieces arrive in 64 KiB;
 * with room for 1 MiB the writer hands the disk one `writev` of many pieces while the next
 * ones arrive, instead of a thread-pool round trip per piece or two. Measured with
 * `npm run bench:transfer` (`curl -T`, 512 MiB, 2-core machine): 256 KiB 0.92x and 0.96x the
 * same-work Node server, 1 MiB 1.15x and 1.18x, 4 MiB no better (1.05x); memory per upload
 * stays bounded by this.
 */
const WRITE_BUFFER = 1048576;

/** Why a body could not be received; `bytes` is how many arrived before it stopped. */
export class ReceiveError extends Error {
  constructor(
    readonly kind: ReceiveFailure,
    message: string,
    readonly bytes: number,
    options: { cause?: unknown } = {},
  ) {
    super(message, options);
    this.name = "ReceiveError";
  }
}

export interface ReceiveOptions {
  /** Where the bytes land (created exclusively; deleted again on any failure). */
  tmpPath: string;
  /** Exact number of bytes expected. */
  declared: number;
  /**
   * Called with the size of every incoming chunk before it is written (traffic accounting).
   * Throwing stops the transfer; the error is passed through as the `cause` of a `cut-off`.
   */
  onBytes?: (n: number) => void;
  /** A transfer that moves less than this is dropped as `slow` (default 1 KiB per minute). */
  floor?: RateFloor;
  /** Aborting it stops the transfer as `stopped`; the abort reason becomes the `cause`. */
  signal?: AbortSignal;
  /**
   * Continues a part instead of starting a file (a resumable upload): the bytes are appended
   * to `tmpPath` (created when missing), whose first `offset` bytes `hash` and `crc` already
   * hold. A body that ends before `declared` is then a success, and on failure the bytes
   * already written stay in the part, synced, so the upload can go on from there.
   */
  resume?: ResumePoint;
  /**
   * With `resume`: told the hash state at offsets whose bytes are written (and, but for the
   * last one, synced), as the transfer goes on and where it stops, so a cut request costs the
   * next one only the bytes after the last point. Never called once the promise has settled.
   */
  onCheckpoint?: (point: ResumePoint) => void;
}

/** Where a part stands: its length and the hash state of the bytes it holds. */
export interface ResumePoint {
  offset: number;
  hash: Hash;
  crc: number;
}

export interface Received {
  /** The sha256 of the whole file ("" when a resumed part is not complete yet). */
  sha256: string;
  crc32: number;
  bytes: number;
}

const ignore = () => undefined;

/**
 * Streams `source` into `tmpPath` with constant memory (pipe backpressure), hashing it with
 * sha256 and crc32 on the way, and fsyncs the file before resolving. The source is never
 * destroyed here, so the caller can still answer on the same connection; on failure the
 * partial file is removed and a `ReceiveError` says why.
 *
 * Whatever the client does (ends early, resets, stalls, sends too much), the failure comes
 * back as this promise's rejection and never as an 'error' event nobody listens to: every
 * stream created here has an error listener from its creation on, and the first reason the
 * transfer stopped is kept, so a late second event cannot replace or escape it.
 */
export async function receiveBody(source: Readable, opts: ReceiveOptions): Promise<Received> {
  return new Reception(source, opts).run();
}

/** One body being received: its state, and the steps `receiveBody` takes. */
class Reception {
  private readonly resume: ResumePoint | undefined;
  private readonly hash: Hash;
  /** Bytes of the file so far, counted as they arrive (the part's earlier bytes included). */
  private bytes: number;
  private syncedAt: number;
  private syncing: Promise<void> | null = null;
  private handle: FileHandle | null = null;
  private failure: ReceiveError | null = null;
  private checkpoint: ((point: ResumePoint) => void) | undefined;
  private sink: WriteStream | null = null;
  /** Created once the file is open, before any byte flows through the meter. */
  private crc: CrcStream | null = null;
  private readonly meter: Transform;

  constructor(
    private readonly source: Readable,
    private readonly opts: ReceiveOptions,
  ) {
    this.resume = opts.resume;
    this.hash = this.resume?.hash ?? createHash("sha256");
    this.bytes = this.resume?.offset ?? 0;
    this.syncedAt = this.bytes;
    this.checkpoint = this.resume ? opts.onCheckpoint : undefined;
    this.meter = new Transform({
      highWaterMark: 256 * 1024,
      transform: (chunk: Buffer, _enc, done) => this.take(chunk, done),
    });
    // The pipeline reports the meter's failures; this listener covers the moments it is not
    // attached yet (the temporary file is being opened) or no longer (it has settled).
    this.meter.on("error", ignore);
  }

  async run(): Promise<Received> {
    const detach = this.watch();
    await this.open(detach);
    try {
      await this.pump();
    } finally {
      detach();
      await this.syncing;
      this.checkpoint = undefined;
    }
    return this.finish();
  }

  /** Bytes of the file written so far (the part's earlier bytes included). */
  private written(): number {
    return (this.resume?.offset ?? 0) + (this.sink?.bytesWritten ?? 0);
  }

  /** Records the first reason the transfer stopped and returns the one in force. */
  private stopWith(err: ReceiveError): ReceiveError {
    this.failure ??= err;
    return this.failure;
  }

  private stop(err: ReceiveError): void {
    this.meter.destroy(this.stopWith(err));
  }

  /** The meter's step for each piece: count, check the size, hash, and sync as it goes. */
  private take(chunk: Buffer, done: (err?: Error | null, data?: Buffer) => void): void {
    try {
      this.opts.onBytes?.(chunk.length);
    } catch (err) {
      this.bytes += chunk.length;
      done(
        this.stopWith(
          new ReceiveError("cut-off", "The transfer was cut off", this.bytes, { cause: err }),
        ),
      );
      return;
    }
    this.bytes += chunk.length;
    if (this.bytes > this.opts.declared) {
      done(
        this.stopWith(
          new ReceiveError("too-long", "The body is longer than the declared size", this.bytes),
        ),
      );
      return;
    }
    this.hash.update(chunk);
    const behind = (this.crc as CrcStream).update(chunk);
    this.syncAlong();
    // The CRC thread is behind: the next piece waits for it (constant memory).
    if (behind)
      behind.then(
        () => done(null, chunk),
        (err: unknown) =>
          done(
            this.stopWith(
              new ReceiveError("io", "The file could not be checked", this.bytes, { cause: err }),
            ),
          ),
      );
    else done(null, chunk);
  }

  /** Every `SYNC_EVERY` bytes, syncs what is written in the background (one sync at a time). */
  private syncAlong(): void {
    const { bytes, handle } = this;
    if (bytes - this.syncedAt < SYNC_EVERY || this.syncing || !handle) return;
    this.syncedAt = bytes;
    // The hash state here becomes a checkpoint once the sync is done and the writer has
    // written up to it (it may still hold a piece or two).
    const mark = this.checkpoint
      ? { offset: bytes, hash: this.hash.copy(), crc: (this.crc as CrcStream).value() }
      : null;
    mark?.crc.catch(ignore);
    this.syncing = Promise.all([handle.datasync(), mark?.crc])
      .then(([, at]) => {
        if (mark && at !== undefined && this.written() >= mark.offset)
          this.checkpoint?.({ ...mark, crc: at });
      }, ignore)
      .finally(() => (this.syncing = null));
  }

  /**
   * Watches the client and the clock: a connection closed before the end of the body (reset,
   * half-close, abort), a stop asked for, a transfer under the rate floor. Answers the undo.
   */
  private watch(): () => void {
    const { source, opts } = this;
    const onClose = (): void => {
      if (!source.readableEnded)
        this.stop(new ReceiveError("aborted", "The client ended the transfer early", this.bytes));
    };
    const onError = (err: unknown): void =>
      this.stop(
        new ReceiveError("aborted", "The client ended the transfer early", this.bytes, {
          cause: err,
        }),
      );
    const onSignal = (): void =>
      this.stop(
        new ReceiveError("stopped", "The transfer was stopped", this.bytes, {
          cause: opts.signal?.reason,
        }),
      );
    const floorTimer = this.watchFloor(opts.floor ?? DEFAULT_FLOOR);
    source.on("close", onClose);
    source.on("error", onError);
    opts.signal?.addEventListener("abort", onSignal, { once: true });
    // A source that failed before this function was called sends no further event.
    if (source.destroyed && !source.readableEnded) onClose();
    if (opts.signal?.aborted) onSignal();
    return () => {
      clearInterval(floorTimer);
      source.off("close", onClose);
      source.off("error", onError);
      opts.signal?.removeEventListener("abort", onSignal);
    };
  }

  /** The rate floor: cumulative byte counts at the last checks; the oldest is one window ago. */
  private watchFloor(floor: RateFloor): NodeJS.Timeout {
    const marks: number[] = [this.bytes];
    const timer = setInterval(
      () => {
        // Once the whole body is in, what remains (the final sync) is the disk's work.
        if (this.source.readableEnded) return;
        marks.push(this.bytes);
        if (marks.length <= FLOOR_CHECKS_PER_WINDOW) return;
        const windowStart = marks.shift() as number;
        if (this.bytes - windowStart < floor.bytes)
          this.stop(new ReceiveError("slow", "The transfer was too slow", this.bytes));
      },
      Math.max(1, floor.windowMs / FLOOR_CHECKS_PER_WINDOW),
    );
    timer.unref();
    return timer;
  }

  /** Opens the file before any byte flows, so a failure can never race its creation. */
  private async open(detach: () => void): Promise<void> {
    const { opts, resume } = this;
    try {
      this.handle = await open(opts.tmpPath, resume ? "a" : "wx", 0o600);
    } catch (err) {
      detach();
      throw (
        this.failure ?? new ReceiveError("io", "The file could not be created", 0, { cause: err })
      );
    }
    if (this.failure) {
      // The client went away while the file was being created.
      detach();
      await this.handle.close().catch(ignore);
      if (!resume) await unlink(opts.tmpPath).catch(ignore);
      throw this.failure;
    }
    // The CRC is computed on a thread of its own (crc-thread.ts); the sha256 stays here, where
    // the checkpoints copy its state. Closed on every way out.
    this.crc = new CrcStream(resume?.crc ?? 0);
  }

  /** Pipes the body through the meter into the file; on failure, keeps or removes the file. */
  private async pump(): Promise<void> {
    const { source, meter, opts, resume } = this;
    const crc = this.crc as CrcStream;
    const out = (this.handle as FileHandle).createWriteStream({
      flush: true,
      highWaterMark: WRITE_BUFFER,
    });
    this.sink = out;
    out.on("error", ignore);
    try {
      source.pipe(meter);
      await pipeline(meter, out);
      await settle(out);
    } catch (err) {
      source.unpipe(meter);
      if (!out.destroyed) out.destroy();
      await settle(out);
      if (resume) {
        await syncPart(opts.tmpPath);
        await this.syncing;
        // Every byte the hash holds is in the part: the next request starts right here.
        const at = await crc.value().catch(() => null);
        if (this.written() === this.bytes && at !== null)
          this.checkpoint?.({ offset: this.bytes, hash: this.hash, crc: at });
      } else await unlink(opts.tmpPath).catch(ignore);
      crc.close();
      if (this.failure) throw this.failure;
      throw new ReceiveError("io", "The file could not be written", this.bytes, { cause: err });
    }
  }

  /** The body is in: its CRC, and whether it was as long as declared. */
  private async finish(): Promise<Received> {
    const { opts, resume, bytes } = this;
    const crc = this.crc as CrcStream;
    let sum: number;
    try {
      sum = (await crc.value()) >>> 0;
    } catch (err) {
      if (!resume) await unlink(opts.tmpPath).catch(ignore);
      throw new ReceiveError("io", "The file could not be checked", bytes, { cause: err });
    } finally {
      crc.close();
    }
    if (resume && bytes < opts.declared) return { sha256: "", crc32: sum, bytes };
    if (bytes < opts.declared) {
      await unlink(opts.tmpPath).catch(ignore);
      throw new ReceiveError("too-short", "The body is shorter than the declared size", bytes);
    }
    return { sha256: this.hash.digest("hex"), crc32: sum, bytes };
  }
}

/** Syncs what a cut-off transfer left in a part, so its length is what is safely stored. */
async function syncPart(path: string): Promise<void> {
  try {
    const h = await open(path, "r+");
    try {
      await h.datasync();
    } finally {
      await h.close();
    }
  } catch {
    // A part that cannot be synced is measured again (and re-read) on the next resume.
  }
}

/**
 * Waits until a write stream has released its file descriptor. Listens for `close` only:
 * `events.once` would reject on the stream's `error`, which a failed transfer always emits.
 */
async function settle(sink: Writable): Promise<void> {
  if (sink.closed) return;
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, 5000);
    timer.unref();
    sink.once("close", () => {
      clearTimeout(timer);
      resolve();
    });
  });
}
