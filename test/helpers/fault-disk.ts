import { spawnSync } from "node:child_process";
import { closeSync, mkdtempSync, openSync, rmdirSync, statfsSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Free bytes for unprivileged writers on the file system holding `dir`. */
export function freeBytes(dir: string): number {
  const s = statfsSync(dir);
  return Number(s.bavail) * Number(s.bsize);
}

/** Mounts a tmpfs of `size` (e.g. `64m`) on a fresh directory; throws with mount's words. */
export function mountTmpfs(size: string): string {
  const dir = mkdtempSync(join(tmpdir(), "gh-fault-disk-"));
  const r = spawnSync("mount", ["-t", "tmpfs", "-o", `size=${size}`, "tmpfs", dir], {
    encoding: "utf8",
  });
  if (r.status !== 0) {
    rmdirSync(dir);
    throw new Error((r.stderr || r.error?.message || `mount exited ${r.status}`).trim());
  }
  return dir;
}

/** Unmounts (lazily when something still holds it) and removes the mount point. */
export function unmount(dir: string): void {
  const r = spawnSync("umount", [dir], { encoding: "utf8" });
  if (r.status !== 0) spawnSync("umount", ["-l", dir]);
  rmdirSync(dir);
}

/**
 * Why a size-limited tmpfs cannot be had here, or null when it can (tried once for real).
 * Mounting needs Linux and root; CI runs as root.
 */
export function tmpfsUnavailable(): string | null {
  if (process.platform !== "linux") return `tmpfs mounts need Linux, this is ${process.platform}`;
  if (process.getuid?.() !== 0) return "mounting a tmpfs needs root (CI runs as root)";
  try {
    unmount(mountTmpfs("1m"));
    return null;
  } catch (err) {
    return `mount -t tmpfs failed: ${(err as Error).message}`;
  }
}

let fillers = 0;

/**
 * Fills the file system behind `dir` with one file until only about `leave` bytes are free
 * (a disk filled by something else than the service). Returns the file's path.
 */
export function fillDisk(dir: string, leave: number): string {
  const file = join(dir, `filler-${++fillers}`);
  const fd = openSync(file, "w");
  const chunk = Buffer.alloc(1024 * 1024, 0x5a);
  try {
    for (let free = freeBytes(dir); free > leave; free = freeBytes(dir)) {
      writeSync(fd, chunk, 0, Math.min(chunk.length, free - leave));
    }
  } finally {
    closeSync(fd);
  }
  return file;
}
