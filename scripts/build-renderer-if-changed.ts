import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

/**
 * Builds the web UI (renderer/dist) only when its inputs changed since the last build, so
 * `npm run serve` starts in about a second instead of rebuilding every time.
 *
 * The last build records its inputs in renderer/dist/.build-inputs.json: every file under
 * renderer/ (outside dist), package-lock.json and tsconfig.json, plus every file of the
 * repository the bundle actually pulled in (the shared modules under server/ and preload/
 * the UI imports), each with its sha256, size and modification time. A file whose size and
 * modification time are unchanged is taken as unchanged; any other is hashed, and the UI is
 * rebuilt when a hash differs, a file is new or one is gone, or the build output is missing.
 * The stamp starts with a dot, so the static file server never hands it out.
 *
 * Usage: tsx scripts/build-renderer-if-changed.ts [--force]
 */

export const STAMP_NAME = ".build-inputs.json";

export interface StampEntry {
  sha256: string;
  size: number;
  mtimeMs: number;
}

export interface Stamp {
  version: 1;
  files: Record<string, StampEntry>;
}

export interface FileState {
  size: number;
  mtimeMs: number;
}

/** How the check sees the files: injected, so the decision can be tested without a disk. */
export interface FileProbe {
  /** Size and modification time, or null when the file does not exist. */
  stat(rel: string): FileState | null;
  sha256(rel: string): string;
}

export function parseStamp(text: string | null): Stamp | null {
  if (text === null) return null;
  try {
    const v = JSON.parse(text) as Partial<Stamp>;
    return v.version === 1 && v.files && typeof v.files === "object" ? (v as Stamp) : null;
  } catch {
    return null;
  }
}

/**
 * Why the UI must be rebuilt, or null when the recorded build still matches its inputs.
 * `listed` are the inputs that exist now (a new one among them forces a build); the stamp's
 * own files are all checked too (one that is gone forces a build).
 */
export function staleReason(
  stamp: Stamp | null,
  listed: string[],
  probe: FileProbe,
  outputPresent: boolean,
): string | null {
  if (!outputPresent) return "the build output is missing";
  if (!stamp) return "no record of a previous build";
  for (const rel of listed) if (!(rel in stamp.files)) return `${rel} is new`;
  for (const [rel, entry] of Object.entries(stamp.files)) {
    const now = probe.stat(rel);
    if (!now) return `${rel} is gone`;
    if (now.size === entry.size && now.mtimeMs === entry.mtimeMs) continue;
    if (now.size !== entry.size || probe.sha256(rel) !== entry.sha256) return `${rel} changed`;
  }
  return null;
}

/** The stamp recording `files` as they are now. */
export function makeStamp(files: Iterable<string>, probe: FileProbe): Stamp {
  const out: Record<string, StampEntry> = {};
  for (const rel of [...new Set(files)].sort()) {
    const st = probe.stat(rel);
    if (st) out[rel] = { sha256: probe.sha256(rel), size: st.size, mtimeMs: st.mtimeMs };
  }
  return { version: 1, files: out };
}

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
  if (posix.startsWith("node_modules/") || posix.startsWith("renderer/dist/")) return null;
  return posix;
}

function diskProbe(root: string): FileProbe {
  return {
    stat(rel) {
      try {
        const st = statSync(join(root, rel));
        return st.isFile() ? { size: st.size, mtimeMs: st.mtimeMs } : null;
      } catch {
        return null;
      }
    },
    sha256: (rel) =>
      createHash("sha256")
        .update(readFileSync(join(root, rel)))
        .digest("hex"),
  };
}

/** Every file under renderer/ outside dist, and the two root files that shape the build. */
function listedInputs(root: string): string[] {
  const found: string[] = [];
  const walk = (rel: string): void => {
    for (const e of readdirSync(join(root, rel), { withFileTypes: true })) {
      const child = `${rel}/${e.name}`;
      if (child === "renderer/dist") continue;
      if (e.isDirectory()) walk(child);
      else if (e.isFile()) found.push(child);
    }
  };
  walk("renderer");
  for (const f of ["package-lock.json", "tsconfig.json"])
    if (existsSync(join(root, f))) found.push(f);
  return found;
}

async function main(): Promise<void> {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
  const dist = join(root, "renderer", "dist");
  const stampPath = join(dist, STAMP_NAME);
  const probe = diskProbe(root);
  const listed = listedInputs(root);
  const outputPresent = ["parcel.html", "proxy.html"].every((f) => existsSync(join(dist, f)));
  const stamp = parseStamp(existsSync(stampPath) ? readFileSync(stampPath, "utf8") : null);
  const reason = process.argv.includes("--force")
    ? "--force"
    : staleReason(stamp, listed, probe, outputPresent);
  if (reason === null && stamp) {
    // Touched but identical files: record their new times so the next start skips hashing.
    const fresh = makeStamp(Object.keys(stamp.files), probe);
    if (JSON.stringify(fresh) !== JSON.stringify(stamp))
      writeFileSync(stampPath, JSON.stringify(fresh));
    console.log("renderer: renderer/dist is up to date with its sources; not rebuilding");
    return;
  }
  console.log(`renderer: building renderer/dist (${reason})`);
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
  writeFileSync(stampPath, JSON.stringify(makeStamp([...listed, ...loaded], probe)));
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  main().catch((err: unknown) => {
    console.error(`renderer: build failed: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  });
}
