import { cpSync, existsSync, rmSync, symlinkSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { buildIfChanged, filesUnder } from "./build-stamp.js";

/**
 * Compiles the services (server/) to JavaScript in dist/serve/server only when a source
 * changed since the last compile, so `npm run serve` runs plain Node: no TypeScript loader
 * at every start (it roughly halves the start-up time). Each .ts file becomes one .js file
 * beside the others (esbuild, no bundling: the layout, the `import.meta.url` lookups and the
 * worker entries stay as in the sources); every other file (SQL migrations, worker entry
 * files) is copied. `dist/serve/resources` points at the repository's resources/, so the
 * compiled services find a bundled core where the sources do; the web UI is found two
 * levels up, as for every compiled build.
 *
 * Usage: tsx scripts/build-server-if-changed.ts [--force]
 */

export const SERVE_DIR = join("dist", "serve");

/** The compiled headless entry, relative to the repository root. */
export const SERVE_ENTRY = join(SERVE_DIR, "server", "cli.js");

/** Every file under server/ and the two root files that shape the compile. */
function listedInputs(root: string): string[] {
  const found = filesUnder(root, "server");
  for (const f of ["package-lock.json", "tsconfig.json"])
    if (existsSync(join(root, f))) found.push(f);
  return found;
}

/** Compiles server/ into dist/serve when missing or changed; answers whether it compiled. */
export async function buildServerIfChanged(root: string, force = false): Promise<boolean> {
  const outDir = join(root, SERVE_DIR);
  const inputs = listedInputs(root);
  return buildIfChanged({
    root,
    label: "server",
    outDir,
    inputs,
    outputPresent: existsSync(join(root, SERVE_ENTRY)),
    force,
    async build() {
      const target = join(outDir, "server");
      // From scratch, so a deleted source leaves no stale module behind.
      rmSync(target, { recursive: true, force: true });
      const { build } = await import("esbuild");
      const sources = inputs.filter((f) => f.startsWith("server/") && /(?<!\.d)\.ts$/.test(f));
      await build({
        absWorkingDir: root,
        entryPoints: sources,
        outdir: target,
        outbase: "server",
        format: "esm",
        platform: "node",
        target: "node20",
        logLevel: "warning",
      });
      cpSync(join(root, "server"), target, {
        recursive: true,
        filter: (s) => !/\.tsx?$/.test(s),
      });
      const resources = join(outDir, "resources");
      rmSync(resources, { recursive: true, force: true });
      // A junction on Windows needs no privilege; elsewhere the type is ignored.
      symlinkSync(join(root, "resources"), resources, "junction");
      return [];
    },
  });
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
  buildServerIfChanged(root, process.argv.includes("--force")).catch((err: unknown) => {
    console.error(`server: build failed: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  });
}
