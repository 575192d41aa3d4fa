import { randomBytes } from "node:crypto";
import {
  closeSync,
  existsSync,
  fsyncSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeSync,
} from "node:fs";
import { chmod, rename, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import {
  ensurePrivateDir,
  PRIVATE_FILE_MODE,
  tightenPath,
  writePrivateFile,
} from "../../private-files.js";

/**
 * Writes via a temp file + rename so the core never reads a half-written file. The file is
 * 0600 and its directory 0700: the configuration holds the controller secret and the
 * provider files the nodes' passwords.
 */
export function writeAtomic(path: string, data: string): void {
  ensurePrivateDir(dirname(path));
  const tmp = `${path}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  try {
    writePrivateFile(tmp, data);
    renameSync(tmp, path);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
}

/** Syncs a directory, so a rename or removal in it survives a power cut. */
function syncDir(dir: string): void {
  try {
    const fd = openSync(dir, "r");
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // Some platforms cannot open directories; the rename is still atomic there.
  }
}

/**
 * `writeAtomic` that is on the disk when it returns: the bytes are synced before the rename and
 * the directory after it. For small files whose order against a database commit matters (a
 * rollback point must be there before the change it undoes).
 */
export function writeDurable(path: string, data: string): void {
  const dir = dirname(path);
  ensurePrivateDir(dir);
  const tmp = `${path}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  try {
    const fd = openSync(tmp, "w", PRIVATE_FILE_MODE);
    try {
      writeSync(fd, data);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    tightenPath(tmp);
    renameSync(tmp, path);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
  syncDir(dir);
}

/** Removes a file written by `writeDurable`, the removal synced too. */
export function removeDurable(path: string): void {
  rmSync(path, { force: true });
  syncDir(dirname(path));
}

/**
 * `writeAtomic` with the writing and the rename off the event loop: provider files are
 * megabytes for feeds of thousands of nodes.
 */
export async function writeAtomicAsync(path: string, data: string): Promise<void> {
  ensurePrivateDir(dirname(path));
  const tmp = `${path}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  try {
    await writeFile(tmp, data, { mode: PRIVATE_FILE_MODE });
    // `mode` applies only when the file is created, and then through the umask.
    if (process.platform !== "win32") await chmod(tmp, PRIVATE_FILE_MODE);
    await rename(tmp, path);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
}

/** The controller secret, created once per home dir and kept with mode 0600. */
export function loadSecret(homeDir: string): string {
  const path = join(homeDir, "secret");
  if (existsSync(path)) {
    const value = readFileSync(path, "utf8").trim();
    if (/^[0-9a-f]{32,}$/.test(value)) {
      tightenPath(path);
      return value;
    }
  }
  const value = randomBytes(32).toString("hex");
  writeAtomic(path, `${value}\n`);
  return value;
}
