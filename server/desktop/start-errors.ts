import { statSync } from "node:fs";
import { relative, isAbsolute } from "node:path";
import { ConfigError, prepareDataDir } from "../config.js";
import type { StartErrorCode } from "./protocol.js";

/** A failed start as the host hears it: a stable code and a sentence a person can read. */
export interface StartError {
  code: StartErrorCode;
  message: string;
}

function errnoOf(err: unknown): NodeJS.ErrnoException {
  return (typeof err === "object" && err !== null ? err : {}) as NodeJS.ErrnoException;
}

/** File-system codes that mean "this folder cannot be used" rather than a bug. */
const DIR_CODES = new Set([
  "EACCES",
  "EPERM",
  "ENOTDIR",
  "EISDIR",
  "EROFS",
  "ENOENT",
  "ENOSPC",
  "EEXIST",
  "SQLITE_CANTOPEN",
  "SQLITE_READONLY",
  "SQLITE_FULL",
  "SQLITE_IOERR",
]);

function dataDirError(dir: string, why: string): StartError {
  return {
    code: "data_dir",
    message: `Gatehouse cannot use its data folder ${dir}: ${why}. Choose another folder or check its permissions.`,
  };
}

function why(code: string | undefined): string {
  switch (code) {
    case "EACCES":
    case "EPERM":
    case "SQLITE_READONLY":
      return "this user may not write there";
    case "ENOTDIR":
    case "EEXIST":
      return "a file is in the way where a folder should be";
    case "EROFS":
      return "the disk is read-only";
    case "ENOSPC":
    case "SQLITE_FULL":
      return "the disk is full";
    case "ENOENT":
      return "the folder cannot be created there";
    default:
      return `it cannot be opened (${code ?? "unknown reason"})`;
  }
}

/**
 * Creates the data dir and checks that it is a writable folder. `prepareDataDir` alone lets
 * a plain file through (a file is writable too), and the services then fail deep inside.
 */
export function checkDataDir(dir: string): StartError | null {
  try {
    prepareDataDir(dir);
  } catch (err) {
    const cause = /not usable: ([A-Z_]+)$/.exec((err as Error).message)?.[1];
    return dataDirError(dir, why(cause));
  }
  try {
    if (!statSync(dir).isDirectory()) return dataDirError(dir, why("ENOTDIR"));
  } catch (err) {
    return dataDirError(dir, why(errnoOf(err).code));
  }
  return null;
}

function inside(dir: string, path: string | undefined): boolean {
  if (!path) return false;
  const rel = relative(dir, path);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

/** Names what stopped `startGatehouse`. */
export function describeStartError(err: unknown, dataDir: string): StartError {
  const e = errnoOf(err);
  if (err instanceof ConfigError)
    return { code: "config", message: `The services' settings are not usable: ${e.message}.` };
  const where = e as NodeJS.ErrnoException & { port?: number; address?: string };
  if (e.syscall === "listen" || e.syscall === "bind") {
    const port = where.port === undefined ? "" : ` ${where.port}`;
    if (e.code === "EADDRINUSE")
      return {
        code: "port_in_use",
        message: `Port${port} is already used by another program. Close that program or choose another port in the settings.`,
      };
    if (e.code === "EACCES" || e.code === "EPERM")
      return {
        code: "port_denied",
        message: `This user may not listen on port${port}. Choose a port above 1023 in the settings.`,
      };
    if (e.code === "EADDRNOTAVAIL")
      return {
        code: "config",
        message: `The address ${where.address ?? ""} is not one of this computer's addresses. Choose another in the settings.`,
      };
  }
  if (e.code && DIR_CODES.has(e.code) && (inside(dataDir, e.path) || e.code.startsWith("SQLITE")))
    return dataDirError(dataDir, why(e.code));
  return {
    code: "start_failed",
    message: `The services could not start: ${e.message ?? String(err)}`,
  };
}
