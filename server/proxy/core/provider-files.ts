import { existsSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { writeAtomicAsync } from "./files.js";

/**
 * The core's provider files (`providers/<subscription>.yaml`, one per enabled subscription),
 * written only when their text changed: a refresh of one subscription among fifty rewrites
 * one file, not fifty. The texts are kept as they were last written; an unchanged provider
 * hands in the very same string, so the comparison is by identity and costs nothing.
 */
export class ProviderFiles {
  private readonly onDisk = new Map<string, string>();

  constructor(private readonly homeDir: string) {}

  private dir(): string {
    return join(this.homeDir, "providers");
  }

  private file(id: string): string {
    return join(this.dir(), `${id}.yaml`);
  }

  /**
   * Writes the providers that have no file yet: a check needs every file it names, and there
   * is nothing of the running configuration to keep in a file that does not exist.
   */
  async writeMissing(providers: ReadonlyMap<string, string>): Promise<void> {
    for (const [id, text] of providers) {
      if (existsSync(this.file(id))) continue;
      await writeAtomicAsync(this.file(id), text);
      this.onDisk.set(id, text);
    }
  }

  /** Makes the files exactly `providers`: changed ones written, the others removed. */
  async sync(providers: ReadonlyMap<string, string>): Promise<void> {
    for (const [id, text] of providers) {
      if (this.onDisk.get(id) === text && existsSync(this.file(id))) continue;
      this.onDisk.delete(id);
      await writeAtomicAsync(this.file(id), text);
      this.onDisk.set(id, text);
    }
    if (!existsSync(this.dir())) return;
    for (const name of readdirSync(this.dir())) {
      const id = name.replace(/\.yaml$/, "");
      if (name.endsWith(".yaml") && !providers.has(id)) {
        this.onDisk.delete(id);
        rmSync(join(this.dir(), name), { force: true });
      }
    }
  }
}
