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
  const floor = opts.floor ?? DEFAULT_FLOOR;
  const resume = opts.resume;
  const hash = resume?.hash ?? createHash("sha256");
  let bytes = resume?.offset ?? 0;
  let syncedAt = bytes;
  let syncing: Promise<void> | null = null;
  let handle: FileHandle | null = null;
  let failure: ReceiveError | null = null;
  let checkpoint = resume ? opts.onCheckpoint : undefined;
  let sink: WriteStream | null = null;
  /** Bytes of the file written so far (the part's earlier bytes included). */
  const written = () => (resume?.offset ?? 0) + (sink?.bytesWritten ?? 0);

  const meter = new Transform({
    highWaterMark: 256 * 1024,
    transform(chunk: Buffer, _enc, done) {
      try {
        opts.onBytes?.(chunk.length);
      } catch (err) {
        bytes += chunk.length;
        done(
          stopWith(new ReceiveError("cut-off", "The transfer was cut off", bytes, { cause: err })),
        );
        return;
      }
      bytes += chunk.length;
      if (bytes > opts.declared) {
        done(
          stopWith(
            new ReceiveError("too-long", "The body is longer than the declared size", bytes),
          ),
        );
        return;
      }
      hash.update(chunk);
      const behind = crc.update(chunk);
      if (bytes - syncedAt >= SYNC_EVERY && !syncing && handle) {
        syncedAt = bytes;
        // The hash state here becomes a checkpoint once the sync is done and the writer has
        // written up to it (it may still hold a piece or two).
        const mark = checkpoint ? { offset: bytes, hash: hash.copy(), crc: crc.value() } : null;
        mark?.crc.catch(ignore);
        syncing = Promise.all([handle.datasync(), mark?.crc])
          .then(([, at]) => {
            if (mark && at !== undefined && written() >= mark.offset)
              checkpoint?.({ ...mark, crc: at });
          }, ignore)
          .finally(() => (syncing = null));
      }
      // The CRC thread is behind: the next piece waits for it (constant memory).
      if (behind)
        behind.then(
          () => done(null, chunk),
          (err: unknown) =>
            done(
              stopWith(
                new ReceiveError("io", "The file could not be checked", bytes, { cause: err }),
              ),
            ),
        );
      else done(null, chunk);
    },
  });
  // The pipeline below reports the meter's failures; this listener covers the moments it is
  // not attached yet (the temporary file is being opened) or no longer (it has settled).
  meter.on("error", ignore);

  /** Records the first reason the transfer stopped and returns the one in force. */
  function stopWith(err: ReceiveError): ReceiveError {
    failure ??= err;
    return failure;
  }
  const stop = (err: ReceiveError) => {
    meter.destroy(stopWith(err));
  };

  // A connection closed before the end of the body (reset, half-close, abort) is an aborted
  // upload, whether it is noticed through 'close' or 'error'.
  const onClose = () => {
    if (!source.readableEnded)
      stop(new ReceiveError("aborted", "The client ended the transfer early", bytes));
  };
  const onError = (err: unknown) =>
    stop(new ReceiveError("aborted", "The client ended the transfer early", bytes, { cause: err }));
  const onSignal = () =>
    stop(
      new ReceiveError("stopped", "The transfer was stopped", bytes, {
        cause: opts.signal?.reason,
      }),
    );

  // The rate floor: cumulative byte counts at the last checks; the oldest is one window ago.
  const marks: number[] = [bytes];
  const floorTimer = setInterval(
    () => {
      // Once the whole body is in, what remains (the final sync) is the disk's work.
      if (source.readableEnded) return;
      marks.push(bytes);
      if (marks.length <= FLOOR_CHECKS_PER_WINDOW) return;
      const windowStart = marks.shift() as number;
      if (bytes - windowStart < floor.bytes)
        stop(new ReceiveError("slow", "The transfer was too slow", bytes));
    },
    Math.max(1, floor.windowMs / FLOOR_CHECKS_PER_WINDOW),
  );
  floorTimer.unref();

  source.on("close", onClose);
  source.on("error", onError);
  opts.signal?.addEventListener("abort", onSignal, { once: true });
  const detach = () => {
    clearInterval(floorTimer);
    source.off("close", onClose);
    source.off("error", onError);
    opts.signal?.removeEventListener("abort", onSignal);
  };
  // A source that failed before this function was called sends no further event.
  if (source.destroyed && !source.readableEnded) onClose();
  if (opts.signal?.aborted) onSignal();

  // Opened before any byte flows so a failure can never race the file's creation.
  try {
    handle = await open(opts.tmpPath, resume ? "a" : "wx", 0o600);
  } catch (err) {
    detach();
    throw failure ?? new ReceiveError("io", "The file could not be created", 0, { cause: err });
  }
  if (failure) {
    // The client went away while the file was being created.
    detach();
    await handle.close().catch(ignore);
    if (!resume) await unlink(opts.tmpPath).catch(ignore);
    throw failure;
  }
  // The CRC is computed on a thread of its own (crc-thread.ts); the sha256 stays here, where
  // the checkpoints copy its state. Closed on every way out below.
  const crc = new CrcStream(resume?.crc ?? 0);
  const out = handle.createWriteStream({ flush: true, highWaterMark: WRITE_BUFFER });
  sink = out;
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
      await syncing;
      // Every byte the hash holds is in the part: the next request starts right here.
      const at = await crc.value().catch(() => null);
      if (written() === bytes && at !== null) checkpoint?.({ offset: bytes, hash, crc: at });
    } else await unlink(opts.tmpPath).catch(ignore);
    crc.close();
    if (failure) throw failure;
    throw new ReceiveError("io", "The file could not be written", bytes, { cause: err });
  } finally {
    detach();
    await syncing;
    checkpoint = undefined;
  }
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
  return { sha256: hash.digest("hex"), crc32: sum, bytes };
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
