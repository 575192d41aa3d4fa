import { randomBytes } from "node:crypto";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { writePrivateFile } from "../../private-files.js";

/**
 * The one-time setup token, kept in `<proxyDir>/setup-token` (0600) while no administrator
 * exists. A new token is written on every start before setup.
 */
export class SetupToken {
  private current: string | null = null;
  private readonly file: string;

  constructor(proxyDir: string) {
    this.file = join(proxyDir, "setup-token");
  }

  get value(): string | null {
    return this.current;
  }

  issue(): string {
    const token = randomBytes(24).toString("base64url");
    rmSync(this.file, { force: true });
    writePrivateFile(this.file, `${token}\n`);
    this.current = token;
    return token;
  }

  consume(): void {
    this.current = null;
    rmSync(this.file, { force: true });
  }

  /** Removes a leftover file when the service is already initialised. */
  clearStale(): void {
    this.current = null;
    rmSync(this.file, { force: true });
  }
}
