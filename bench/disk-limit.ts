import { createHash } from "node:crypto";
import { closeSync, fsyncSync, openSync, readSync, rmSync, writeSync } from "node:fs";

/**
 * The machine's limit for an upload's mandatory work, with no network and no server: read a
 * file, sha256 every byte, write it to another file and fsync that, in one process and one
 * thread, in 1 MiB steps. No upload through any server can beat it on this disk and CPU.
 */
export function diskLimit(source: string, target: string): { ms: number; sha256: string } {
  const buf = Buffer.allocUnsafe(1048576);
  const hash = createHash("sha256");
  const input = openSync(source, "r");
  const output = openSync(target, "w", 0o600);
  const t0 = performance.now();
  try {
    for (;;) {
      const n = readSync(input, buf, 0, buf.length, null);
      if (n === 0) break;
      const chunk = n === buf.length ? buf : buf.subarray(0, n);
      hash.update(chunk);
      let written = 0;
      while (written < n) written += writeSync(output, chunk, written, n - written);
    }
    fsyncSync(output);
    return { ms: performance.now() - t0, sha256: hash.digest("hex") };
  } finally {
    closeSync(input);
    closeSync(output);
    rmSync(target, { force: true });
  }
}
