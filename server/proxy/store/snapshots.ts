import { readdirSync, readFileSync, rmSync } from "node:fs";
import { open, rename, rm } from "node:fs/promises";
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { PRIVATE_FILE_MODE, tightenEntries } from "../../private-files.js";
import type { MihomoProxy } from "../types.js";
import { nodesFromJson, nodesJson } from "./nodes-json.js";

/** A snapshot written to a synced temporary file, waiting for the core's verdict. */
export interface StagedSnapshot {
  /** Renames it into place (durably) and makes it the subscription's current nodes. */
  commit(): Promise<void>;
  /** Removes the temporary file (nothing once committed). */
  discard(): Promise<void>;
}

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
      nodes = nodesFromJson(readFileSync(this.file(id), "utf8"));
    } catch {
      nodes = [];
    }
    this.cache.set(id, nodes);
    return nodes;
  }

  /**
   * Writes the new snapshot to a synced temporary file; `commit` renames it into place. The
   * writes and syncs leave the event loop free (a 10,000-node snapshot is megabytes).
   */
  async stage(id: string, nodes: MihomoProxy[]): Promise<StagedSnapshot> {
    const tmp = join(this.dir, `.${id}.${randomBytes(6).toString("hex")}.tmp`);
    const file = await open(tmp, "w", PRIVATE_FILE_MODE);
    try {
      if (process.platform !== "win32") await file.chmod(PRIVATE_FILE_MODE); // past the umask
      await file.writeFile(nodesJson(nodes));
      await file.sync();
    } catch (err) {
      await file.close().catch(() => undefined);
      await rm(tmp, { force: true });
      throw err;
    }
    await file.close();
    let done = false;
    return {
      commit: async () => {
        if (done) return;
        done = true;
        await rename(tmp, this.file(id));
        await this.syncDir();
        this.cache.set(id, nodes);
      },
      discard: async () => {
        if (done) return;
        done = true;
        await rm(tmp, { force: true });
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

  private async syncDir(): Promise<void> {
    // The rename is durable only once the directory entry is synced.
    try {
      const dir = await open(this.dir, "r");
      try {
        await dir.sync();
      } finally {
        await dir.close();
      }
    } catch {
      // Some platforms cannot open directories; the rename is still atomic there.
    }
  }
}
