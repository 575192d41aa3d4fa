import { statSync, type Stats } from "node:fs";
import { basename, dirname, relative } from "node:path";
import { binaryVersion } from "./check.js";
import type { CoreLocation, CoreLocator } from "./install-location.js";

function statOf(path: string): Stats | null {
  try {
    const s = statSync(path);
    return s.isFile() ? s : null;
  } catch {
    return null;
  }
}

/** Same path, size, time and inode: the same file, so its `-v` is still right. */
function key(path: string, s: Stats): string {
  return `${path}\0${s.size}\0${s.mtimeMs}\0${s.ino}`;
}

/**
 * Versions of core executables, each asked once per file (the console polls while an install
 * runs, and `-v` starts a process).
 */
export class FileFacts {
  private readonly versions = new Map<string, Promise<string>>();

  async version(path: string | null | undefined): Promise<string | null> {
    if (!path) return null;
    const s = statOf(path);
    if (!s) return null;
    const k = key(path, s);
    let v = this.versions.get(k);
    if (!v) {
      if (this.versions.size > 16) this.versions.clear();
      v = binaryVersion(path);
      this.versions.set(k, v);
    }
    return (await v) || null;
  }
}

/** `mihomo.previous` when there is one (its version is shown as the previous version). */
export function previousPath(locator: CoreLocator): string | null {
  return locator.hasPrevious() ? locator.previousPath : null;
}

/**
 * Where the core that runs lives, as the console shows it: one installed from the console by
 * its place in the data dir (`core/mihomo`), any other by its file name (the operator chose
 * it, or it came with the app or from PATH). An absolute path would tell every LAN client the
 * layout of this machine.
 */
export function shownPath(locator: CoreLocator, where: CoreLocation): string {
  if (where.source === "installed") {
    return relative(dirname(locator.dir), where.path).split("\\").join("/");
  }
  return basename(where.path);
}
