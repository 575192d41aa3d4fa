import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, renameSync, rmSync } from "node:fs";
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
