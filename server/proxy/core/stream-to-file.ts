import { once } from "node:events";
import { createWriteStream, openSync } from "node:fs";
import { pipeline } from "node:stream/promises";

type Stage = NodeJS.ReadableStream | NodeJS.ReadWriteStream;

/**
 * Pipes `stages` into the file at `path` (created or emptied, with `mode`). The file is open
 * before the first byte flows, and when this rejects the file is already closed, so the
 * caller's clean-up (`rmSync(path)`) removes it for good.
 *
 * Not `createWriteStream(path)`: that opens on the thread pool, and a pipeline refused on its
 * first chunk (a size cap, a timeout) can reject before the open has run. The caller's clean-up
 * then finds nothing, and the file appears after it: an empty `.install-download-*` left in the
 * core's folder, which a busy machine showed.
 */
export async function streamToFile(
  stages: readonly Stage[],
  path: string,
  mode: number,
  signal?: AbortSignal,
): Promise<void> {
  const out = createWriteStream(path, { fd: openSync(path, "w", mode), mode });
  try {
    await pipeline([...stages, out], signal ? { signal } : {});
  } catch (err) {
    // The pipeline destroys `out` on failure; its descriptor closes a moment later.
    if (!out.closed) await once(out, "close").catch(() => undefined);
    throw err;
  }
}
