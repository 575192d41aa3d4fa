import {
  closeSync,
  fchmodSync,
  fsyncSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeSync,
} from "node:fs";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { PRIVATE_FILE_MODE, tightenEntries } from "../../private-files.js";
import type { MihomoProxy } from "../types.js";

/**
 * Parsed nodes of each subscription, one JSON file per subscription under
 * `<dir>/snapshots`. Writes go to a temporary file that is fsynced and renamed into place,
 * so a crash leaves either the old or the new snapshot, never half of one. The directory is
 * 0700 and the snapshots 0600 (nodes carry their servers' passwords), re-applied at start.
 */
export class SnapshotStore {
  private readonly dir: string;
  private readonly cache = new Map<string, MihomoProxy[]>();

  constructor(proxyDir: string) {
    this.dir = join(proxyDir, "snapshots");
    tightenEntries(this.dir);
  }

  private file(id: string): string {
    return join(this.dir, `${id}.json`);
  }

  read(id: string): MihomoProxy[] {
    const cached = this.cache.get(id);
    if (cached) return cached;
    let nodes: MihomoProxy[] = [];
    try {
      const parsed: unknown = JSON.parse(readFileSync(this.file(id), "utf8"));
      if (Array.isArray(parsed)) nodes = parsed as MihomoProxy[];
    } catch {
      nodes = [];
    }
    this.cache.set(id, nodes);
    return nodes;
  }

  /** Writes the new snapshot to a synced temporary file; `commit` renames it into place. */
  stage(id: string, nodes: MihomoProxy[]): { commit(): void; discard(): void } {
    const tmp = join(this.dir, `.${id}.${randomBytes(6).toString("hex")}.tmp`);
    const fd = openSync(tmp, "w", PRIVATE_FILE_MODE);
    try {
      if (process.platform !== "win32") fchmodSync(fd, PRIVATE_FILE_MODE); // past the umask
      writeSync(fd, JSON.stringify(nodes));
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    let done = false;
    return {
      commit: () => {
        if (done) return;
        done = true;
        renameSync(tmp, this.file(id));
        this.syncDir();
        this.cache.set(id, nodes);
      },
      discard: () => {
        if (done) return;
        done = true;
        rmSync(tmp, { force: true });
      },
    };
  }

  remove(id: string): void {
    this.cache.delete(id);
    rmSync(this.file(id), { force: true });
  }

  /**
   * Start-up recovery: drops what a crash can leave behind, namely staged snapshots that were
   * never committed and snapshots of subscriptions whose deletion was committed before the
   * file went. Call before any refresh runs. Returns how many files went.
   */
  recover(subscriptionIds: Iterable<string>): number {
    const keep = new Set([...subscriptionIds].map((id) => `${id}.json`));
    let n = 0;
    for (const name of readdirSync(this.dir)) {
      const staged = name.startsWith(".") && name.endsWith(".tmp");
      if (!staged && (!name.endsWith(".json") || keep.has(name))) continue;
      rmSync(join(this.dir, name), { force: true });
      n++;
    }
    return n;
  }

  private syncDir(): void {
    // The rename is durable only once the directory entry is synced.
    try {
      const fd = openSync(this.dir, "r");
      try {
        fsyncSync(fd);
      } finally {
        closeSync(fd);
      }
    } catch {
      // Some platforms cannot open directories; the rename is still atomic there.
    }
  }
}
