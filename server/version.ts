import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The version of Gatehouse. package.json is its only source: this module finds the
 * package.json of the gatehouse package above itself, which is the repository root when run
 * from the sources (server/), from the build (dist/main/server/) and inside the packaged app
 * (package.json sits at the root of the app's archive).
 */
export const VERSION = packageVersion(dirname(fileURLToPath(import.meta.url)));

/** The `version` of the nearest package.json named "gatehouse" at or above `start`. */
export function packageVersion(start: string): string {
  for (let dir = start; ; dir = dirname(dir)) {
    const found = readPackage(join(dir, "package.json"));
    if (found?.name === "gatehouse" && typeof found.version === "string") return found.version;
    if (dirname(dir) === dir) throw new Error(`no package.json of gatehouse at or above ${start}`);
  }
}

function readPackage(file: string): { name?: unknown; version?: unknown } | null {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw err;
  }
  const parsed: unknown = JSON.parse(text);
  return typeof parsed === "object" && parsed !== null ? parsed : null;
}
