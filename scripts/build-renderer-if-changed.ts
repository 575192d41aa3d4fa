import { existsSync } from "node:fs";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { buildIfChanged, filesUnder } from "./build-stamp.js";

/**
 * Builds the web UI (renderer/dist) only when its inputs changed since the last build, so
 * `npm run serve` starts in about a second instead of rebuilding every time.
 *
 * The last build records its inputs in renderer/dist/.build-inputs.json: every file under
 * renderer/ (outside dist), package-lock.json and tsconfig.json, plus every file of the
 * repository the bundle actually pulled in (the shared modules under server/ and preload/
 * the UI imports); see build-stamp.ts for how a change is found.
 *
 * Usage: tsx scripts/build-renderer-if-changed.ts [--force]
 */

/**
 * The repository-relative path of a module the bundler loaded, or null for one that is not a
 * source of this repository (virtual modules, node_modules, which package-lock.json covers).
 */
export function sourceOf(root: string, id: string): string | null {
  const path = id.split("?")[0];
  if (!isAbsolute(path) || path.includes("\0")) return null;
  const rel = relative(root, path);
  if (rel.startsWith("..") || isAbsolute(rel)) return null;
  const posix = rel.split(sep).join("/");
  if (
    posix.startsWith("node_modules/") ||
    posix.startsWith("renderer/dist/") ||
    posix.startsWith("renderer/dist-desktop/")
  )
    return null;
  return posix;
}

/**
 * Every file under renderer/ outside the two outputs (the services' pages and the desktop
 * app's own screen), and the two root files that shape the build.
 */
function listedInputs(root: string): string[] {
  const found = filesUnder(root, "renderer", ["renderer/dist", "renderer/dist-desktop"]);
  for (const f of ["package-lock.json", "tsconfig.json"])
    if (existsSync(join(root, f))) found.push(f);
  return found;
}

/** Builds renderer/dist when it is missing or its inputs changed; answers whether it built. */
export async function buildRendererIfChanged(root: string, force = false): Promise<boolean> {
  const dist = join(root, "renderer", "dist");
  return buildIfChanged({
    root,
    label: "renderer",
    outDir: dist,
    inputs: listedInputs(root),
    outputPresent: ["parcel.html", "proxy.html"].every((f) => existsSync(join(dist, f))),
    force,
    async build() {
      const { build } = await import("vite");
      const loaded = new Set<string>();
      await build({
        configFile: join(root, "renderer", "vite.config.ts"),
        logLevel: "warn",
        plugins: [
          {
            name: "gatehouse-record-inputs",
            transform(_code: string, id: string) {
              const rel = sourceOf(root, id);
              if (rel) loaded.add(rel);
              return null;
            },
          },
        ],
      });
      return [...loaded];
    },
  });
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
  buildRendererIfChanged(root, process.argv.includes("--force")).catch((err: unknown) => {
    console.error(`renderer: build failed: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  });
}
