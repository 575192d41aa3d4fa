import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/**
 * The record of what a build was made from, shared by the builds `npm run serve` runs only
 * when needed (the web UI, the compiled server): every input file with its sha256, size and
 * modification time. A file whose size and modification time are unchanged is taken as
 * unchanged; any other is hashed, and the build runs again when a hash differs, a file is
 * new or one is gone, or the build output is missing. The stamp's name starts with a dot, so
 * the static file server never hands it out.
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

export function diskProbe(root: string): FileProbe {
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

/** Every file under `dir` (repository-relative, `/`-separated), minus the `skip` folders. */
export function filesUnder(root: string, dir: string, skip: string[] = []): string[] {
  const found: string[] = [];
  const walk = (rel: string): void => {
    for (const e of readdirSync(join(root, rel), { withFileTypes: true })) {
      const child = `${rel}/${e.name}`;
      if (skip.includes(child)) continue;
      if (e.isDirectory()) walk(child);
      else if (e.isFile()) found.push(child);
    }
  };
  walk(dir);
  return found;
}

export interface BuildIfChanged {
  root: string;
  /** Names the build in what is printed ("renderer", "server"). */
  label: string;
  /** Where the output and its stamp live. */
  outDir: string;
  /** The inputs that exist now (a new one among them forces a build). */
  inputs: string[];
  outputPresent: boolean;
  force: boolean;
  /** Makes the output; answers further inputs it found while building (recorded too). */
  build(): Promise<string[]>;
}

/**
 * Runs `build` when the recorded build no longer matches its inputs, then records them;
 * answers whether it built. An up-to-date build only gets its files' new times recorded, so
 * the next start skips hashing touched but identical files.
 */
export async function buildIfChanged(job: BuildIfChanged): Promise<boolean> {
  const stampPath = join(job.outDir, STAMP_NAME);
  const probe = diskProbe(job.root);
  const stamp = parseStamp(existsSync(stampPath) ? readFileSync(stampPath, "utf8") : null);
  const reason = job.force ? "--force" : staleReason(stamp, job.inputs, probe, job.outputPresent);
  if (reason === null && stamp) {
    const fresh = makeStamp(Object.keys(stamp.files), probe);
    if (JSON.stringify(fresh) !== JSON.stringify(stamp))
      writeFileSync(stampPath, JSON.stringify(fresh));
    console.log(`${job.label}: up to date with its sources; not rebuilding`);
    return false;
  }
  console.log(`${job.label}: building (${reason})`);
  const found = await job.build();
  mkdirSync(job.outDir, { recursive: true });
  writeFileSync(stampPath, JSON.stringify(makeStamp([...job.inputs, ...found], probe)));
  return true;
}
