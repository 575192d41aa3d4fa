import { createHash } from "node:crypto";
import { createReadStream, statSync, type Stats } from "node:fs";
import { join } from "node:path";
import { binaryVersion } from "./check.js";
import type { CoreLocator } from "./install-location.js";

/** Geodata files the compiled rules (GEOIP, GEOSITE) read from the core's home dir. */
export const GEODATA_FILES = ["geoip.metadb", "geosite.dat"] as const;

export interface GeodataFile {
  name: string;
  size: number;
  sha256: string;
  updatedAt: string;
}

function statOf(path: string): Stats | null {
  try {
    const s = statSync(path);
    return s.isFile() ? s : null;
  } catch {
    return null;
  }
}

/** Same path, size, time and inode: the same file, so its `-v` or digest is still right. */
function key(path: string, s: Stats): string {
  return `${path}\0${s.size}\0${s.mtimeMs}\0${s.ino}`;
}

function sha256Of(path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const hash = createHash("sha256");
    createReadStream(path)
      .on("error", reject)
      .on("data", (chunk) => hash.update(chunk))
      .on("end", () => resolve(hash.digest("hex")));
  });
}

/**
 * Versions and digests of files, each computed once per file (the console polls while an
 * install runs, and `-v` starts a process).
 */
export class FileFacts {
  private readonly versions = new Map<string, Promise<string>>();
  private readonly digests = new Map<string, Promise<string>>();

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

  async geodata(homeDir: string): Promise<GeodataFile[]> {
    const out: GeodataFile[] = [];
    for (const name of GEODATA_FILES) {
      const path = join(homeDir, name);
      const s = statOf(path);
      if (!s) continue;
      const k = key(path, s);
      let d = this.digests.get(k);
      if (!d) {
        if (this.digests.size > 16) this.digests.clear();
        d = sha256Of(path);
        this.digests.set(k, d);
      }
      try {
        out.push({ name, size: s.size, sha256: await d, updatedAt: s.mtime.toISOString() });
      } catch {
        this.digests.delete(k); // gone while it was read: left out this time
      }
    }
    return out;
  }
}

/** The previous core's version, read from `mihomo.previous` (null when there is none). */
export function previousPath(locator: CoreLocator): string | null {
  return locator.hasPrevious() ? locator.previousPath : null;
}
