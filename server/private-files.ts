import {
  chmodSync,
  closeSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  writeFileSync,
  type Dirent,
} from "node:fs";
import { chmod, lstat, readdir } from "node:fs/promises";
import { join } from "node:path";

/**
 * Everything the services store is readable by the service's own user only: directories
 * 0700, files 0600. Modes are set explicitly instead of trusting `mkdir`/`open` modes,
 * because those are narrowed by the process umask and ignored for paths that already exist
 * (a data dir left at 0755/0644 by an older version must be tightened on the next start).
 *
 * Windows has no POSIX modes (chmod only toggles the read-only flag), so every function
 * here leaves modes alone there; the per-user profile directory is what protects the data.
 */

export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

const POSIX = process.platform !== "win32";

/** Group and other permission bits: what "private" removes. */
const SHARED_BITS = 0o077;

function modeOf(path: string): number | null {
  try {
    return lstatSync(path).mode;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw err;
  }
}

/** Creates `path` (and missing parents) if needed and makes it exactly 0700. */
export function ensurePrivateDir(path: string): string {
  mkdirSync(path, { recursive: true, mode: PRIVATE_DIR_MODE });
  if (POSIX && ((modeOf(path) ?? 0) & 0o777) !== PRIVATE_DIR_MODE) {
    chmodSync(path, PRIVATE_DIR_MODE);
  }
  return path;
}

/**
 * Takes group and other permissions away from an existing file or directory (directories
 * become exactly 0700). A file keeps its owner bits, so a data file ends up 0600 and an
 * executable 0700. Symbolic links are left alone: chmod would change their target, which
 * may lie outside the data dir. Returns whether the mode changed; a missing path is no error.
 */
export function tightenPath(path: string): boolean {
  if (!POSIX) return false;
  const mode = modeOf(path);
  if (mode === null) return false;
  const next = wantedMode(mode);
  if (next === null) return false;
  chmodSync(path, next);
  return true;
}

/** The mode a path with `mode` must get, or null when it is already private (or a link). */
function wantedMode(mode: number): number | null {
  const type = mode & 0o170000;
  const perms = mode & 0o777;
  if (type === 0o040000) return perms === PRIVATE_DIR_MODE ? null : PRIVATE_DIR_MODE;
  if (type === 0o100000) return perms & SHARED_BITS ? perms & 0o700 : null;
  return null;
}

/** Writes (or replaces the content of) a file that is exactly 0600 afterwards. */
export function writePrivateFile(path: string, data: string | Uint8Array): void {
  writeFileSync(path, data, { mode: PRIVATE_FILE_MODE });
  // `mode` applies only when the file is created, and then through the umask.
  if (POSIX) chmodSync(path, PRIVATE_FILE_MODE);
}

/**
 * Prepares a SQLite database path before SQLite opens it: the file is created 0600 when it
 * does not exist yet (SQLite itself would create it 0644 whatever the umask) and made 0600
 * when it does. SQLite creates the `-wal` and `-shm` files with the database file's mode;
 * leftovers of an earlier run are tightened here too. Returns `file`.
 */
export function privateDatabaseFile(file: string): string {
  closeSync(openSync(file, "a", PRIVATE_FILE_MODE));
  if (POSIX) {
    chmodSync(file, PRIVATE_FILE_MODE);
    for (const suffix of ["-wal", "-shm", "-journal"]) tightenPath(`${file}${suffix}`);
  }
  return file;
}

/**
 * Creates `dir` if needed and tightens it and its direct entries (files lose group/other bits, directories
 * become 0700) without descending: a 0700 directory already keeps other users away from
 * everything below it, so deep trees can be fixed later (`tightenTree`). Returns the number
 * of entries whose mode changed.
 */
export function tightenEntries(dir: string): number {
  ensurePrivateDir(dir);
  if (!POSIX) return 0;
  let changed = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isSymbolicLink()) continue;
    if (tightenPath(join(dir, entry.name))) changed++;
  }
  return changed;
}

/** Tightens a whole (small) tree synchronously: `dir`, and every file and directory below. */
export function tightenTreeSync(dir: string): number {
  if (!POSIX) return 0;
  let changed = tightenPath(dir) ? 1 : 0;
  const pending = [dir];
  for (let current = pending.pop(); current !== undefined; current = pending.pop()) {
    let entries: Dirent[];
    try {
      entries = readdirSync(current, { withFileTypes: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") continue;
      throw err;
    }
    for (const entry of entries) {
      if (entry.isSymbolicLink()) continue;
      const path = join(current, entry.name);
      if (tightenPath(path)) changed++;
      if (entry.isDirectory()) pending.push(path);
    }
  }
  return changed;
}

export interface TightenResult {
  /** Files and directories looked at. */
  checked: number;
  /** Of those, how many had their mode changed. */
  changed: number;
  /** Paths that could not be tightened (other than ones removed meanwhile). */
  failed: number;
}

/**
 * Tightens a large tree (`dir` and everything below) without holding the event loop: directories are read one at a time
 * and at most `concurrency` stat/chmod calls run at once. Paths that disappear meanwhile (a
 * blob reclaimed, a temporary file removed) are skipped; other failures are counted, not
 * thrown, so a background pass can never take the service down.
 */
export async function tightenTree(dir: string, concurrency = 16): Promise<TightenResult> {
  const result: TightenResult = { checked: 0, changed: 0, failed: 0 };
  if (!POSIX) return result;
  try {
    if (tightenPath(dir)) result.changed++;
  } catch {
    result.failed++;
  }
  const dirs = [dir];
  for (let current = dirs.pop(); current !== undefined; current = dirs.pop()) {
    let entries: Dirent[];
    try {
      entries = await readdir(current, { withFileTypes: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") result.failed++;
      continue;
    }
    for (let i = 0; i < entries.length; i += concurrency) {
      await Promise.all(
        entries.slice(i, i + concurrency).map(async (entry) => {
          if (entry.isSymbolicLink()) return;
          const path = join(current, entry.name);
          if (entry.isDirectory()) dirs.push(path);
          result.checked++;
          try {
            const next = wantedMode((await lstat(path)).mode);
            if (next === null) return;
            await chmod(path, next);
            result.changed++;
          } catch (err) {
            if ((err as NodeJS.ErrnoException).code !== "ENOENT") result.failed++;
          }
        }),
      );
    }
  }
  return result;
}
