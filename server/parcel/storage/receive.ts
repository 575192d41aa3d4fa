import { createHash } from "node:crypto";
import { open, unlink, type FileHandle } from "node:fs/promises";
import { Transform, type Readable, type Writable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { crc32 } from "node:zlib";

export type ReceiveFailure = "too-long" | "too-short" | "aborted" | "idle" | "cut-off" | "io";

const IDLE_MS = 120_000;
/**
 * While bytes arrive, the data written so far is synced every this many bytes in the
 * background, so the disk works alongside the network and the final fsync is short.
 */
const SYNC_EVERY = 32 * 1048576;

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
  /** A transfer that sends nothing for this long is dropped (default 2 minutes). */
  idleMs?: number;
}

export interface Received {
  sha256: string;
  crc32: number;
  bytes: number;
}

/**
 * Streams `source` into `tmpPath` with constant memory (pipe backpressure), hashing it with
 * sha256 and crc32 on the way, and fsyncs the file before resolving. The source is never
 * destroyed here, so the caller can still answer on the same connection; on failure the
 * partial file is removed and a `ReceiveError` says why.
 */
export async function receiveBody(source: Readable, opts: ReceiveOptions): Promise<Received> {
  const hash = createHash("sha256");
  let crc = 0;
  let bytes = 0;
  let syncedAt = 0;
  let syncing: Promise<void> | null = null;
  let handle: FileHandle | null = null;
  const meter = new Transform({
    highWaterMark: 256 * 1024,
    transform(chunk: Buffer, _enc, done) {
      try {
        opts.onBytes?.(chunk.length);
      } catch (err) {
        bytes += chunk.length;
        done(new ReceiveError("cut-off", "The transfer was cut off", bytes, { cause: err }));
        return;
      }
      bytes += chunk.length;
      idle.refresh();
      if (bytes > opts.declared) {
        done(new ReceiveError("too-long", "The body is longer than the declared size", bytes));
        return;
      }
      hash.update(chunk);
      crc = crc32(chunk, crc);
      if (bytes - syncedAt >= SYNC_EVERY && !syncing && handle) {
        syncedAt = bytes;
        syncing = handle
          .datasync()
          .catch(() => undefined)
          .finally(() => (syncing = null));
      }
      done(null, chunk);
    },
  });
  const onAbort = () => {
    meter.destroy(new ReceiveError("aborted", "The client ended the transfer early", bytes));
  };
  // A closed connection before the end of the body is an aborted upload.
  const onClose = () => {
    if (!source.readableEnded) onAbort();
  };
  const onError = () => onAbort();
  // A stalled client would otherwise hold the file (and its session) open forever.
  const idle = setTimeout(() => {
    meter.destroy(new ReceiveError("idle", "The transfer stalled", bytes));
  }, opts.idleMs ?? IDLE_MS);
  source.on("close", onClose);
  source.on("error", onError);
  // Opened before any byte flows so a failure can never race the file's creation.
  let sink: ReturnType<Awaited<ReturnType<typeof open>>["createWriteStream"]>;
  try {
    handle = await open(opts.tmpPath, "wx");
    sink = handle.createWriteStream({ flush: true, highWaterMark: 256 * 1024 });
  } catch (err) {
    clearTimeout(idle);
    source.off("close", onClose);
    source.off("error", onError);
    throw new ReceiveError("io", "The file could not be created", 0, { cause: err });
  }
  try {
    source.pipe(meter);
    await pipeline(meter, sink);
    await settle(sink);
  } catch (err) {
    source.unpipe(meter);
    await settle(sink);
    await unlink(opts.tmpPath).catch(() => undefined);
    if (err instanceof ReceiveError) throw err;
    throw new ReceiveError("io", "The file could not be written", bytes, { cause: err });
  } finally {
    clearTimeout(idle);
    source.off("close", onClose);
    source.off("error", onError);
  }
  if (bytes < opts.declared) {
    await unlink(opts.tmpPath).catch(() => undefined);
    throw new ReceiveError("too-short", "The body is shorter than the declared size", bytes);
  }
  return { sha256: hash.digest("hex"), crc32: crc >>> 0, bytes };
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
