import { readFileSync } from "node:fs";
import { join } from "node:path";

/**
 * The proxy console's one-time setup token, while it has no administrator (the services keep
 * it in `<data dir>/proxy/setup-token`); null once it is spent or unreadable.
 */
export function readSetupToken(dataDir: string): string | null {
  try {
    return readFileSync(join(dataDir, "proxy", "setup-token"), "utf8").trim() || null;
  } catch {
    return null;
  }
}
