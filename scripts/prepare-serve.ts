import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { buildRendererIfChanged } from "./build-renderer-if-changed.js";
import { buildServerIfChanged } from "./build-server-if-changed.js";

/**
 * What `npm run serve` does before it starts the services: the web UI and the compiled
 * server are each rebuilt only when their sources changed (both usually take no time at all).
 */
const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const force = process.argv.includes("--force");
try {
  await Promise.all([buildRendererIfChanged(root, force), buildServerIfChanged(root, force)]);
} catch (err) {
  console.error(`serve: build failed: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
}
