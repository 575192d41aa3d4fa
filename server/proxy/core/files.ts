import { randomBytes } from "node:crypto";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { dirname, join } from "node:path";

/** Writes via a temp file + rename so the core never reads a half-written file. */
export function writeAtomic(path: string, data: string, mode = 0o600): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const tmp = `${path}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`;
  try {
    writeFileSync(tmp, data, { mode });
    renameSync(tmp, path);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
}

/** The controller secret, created once per home dir and kept with mode 0600. */
export function loadSecret(homeDir: string): string {
  const path = join(homeDir, "secret");
  if (existsSync(path)) {
    const value = readFileSync(path, "utf8").trim();
    if (/^[0-9a-f]{32,}$/.test(value)) {
      chmodSync(path, 0o600);
      return value;
    }
  }
  const value = randomBytes(32).toString("hex");
  writeAtomic(path, `${value}\n`, 0o600);
  return value;
}
