import { createHash } from "node:crypto";
import { closeSync, fdatasync, fsync, openSync, readSync, rmSync, write } from "node:fs";
import { promisify } from "node:util";

const writeAt = promisify(write);
const fsyncFd = promisify(fsync);
const datasyncFd = promisify(fdatasync);

const CHUNK = 1048576;
/** Writes in flight while the next chunk is read and hashed, as a server overlaps them. */
const DEPTH = 4;
/**
 * The data written so far is synced in the background every this many bytes, so the disk
 * works while the rest is read and the final fsync is short: the best any writer can do.
 */
const SYNC_EVERY = 32 * 1048576;

async function writeAll(fd: number, chunk: Buffer, position: number): Promise<void> {
  let done = 0;
  while (done < chunk.length) {
    const { bytesWritten } = await writeAt(fd, chunk, done, chunk.length - done, position + done);
    done += bytesWritten;
  }
}

/**
 * The machine's limit for an upload's mandatory work, with no network and no server: read a
 * file, sha256 every byte, write it to another file and fsync that, in one process. Hashing
 * runs on the main thread while up to DEPTH writes proceed on libuv's threads, and written data
 * is synced in the background as it goes (the overlap a streaming server can get too), so
 * this is a ceiling and not a serial sum.
 */
export async function diskLimit(
  source: string,
  target: string,
): Promise<{ ms: number; sha256: string }> {
  const bufs = Array.from({ length: DEPTH }, () => Buffer.allocUnsafe(CHUNK));
  const inflight: Array<Promise<void>> = Array.from({ length: DEPTH }, () => Promise.resolve());
  const hash = createHash("sha256");
  const input = openSync(source, "r");
  const output = openSync(target, "w", 0o600);
  const t0 = performance.now();
  let syncing: Promise<void> | null = null;
  try {
    let position = 0;
    let syncedAt = 0;
    for (let i = 0; ; i++) {
      const slot = i % DEPTH;
      await inflight[slot]; // that buffer's previous write is done: it may be reused
      const n = readSync(input, bufs[slot], 0, CHUNK, null);
      if (n === 0) break;
      const chunk = bufs[slot].subarray(0, n);
      hash.update(chunk);
      inflight[slot] = writeAll(output, chunk, position);
      position += n;
      if (position - syncedAt >= SYNC_EVERY && !syncing) {
        syncedAt = position;
        syncing = datasyncFd(output).finally(() => (syncing = null));
      }
    }
    await Promise.all(inflight);
    await syncing;
    await fsyncFd(output);
    return { ms: performance.now() - t0, sha256: hash.digest("hex") };
  } finally {
    await Promise.allSettled([...inflight, syncing]);
    closeSync(input);
    closeSync(output);
    rmSync(target, { force: true });
  }
}
