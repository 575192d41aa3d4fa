import { createHash, randomBytes } from "node:crypto";
import {
  closeSync,
  copyFileSync,
  existsSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  renameSync,
  rmSync,
  statSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { parse, stringify } from "yaml";
import { APP_ROOT } from "../../config.js";
import { DomainError } from "../../domain-errors.js";
import { writeAtomic } from "./files.js";
import type { GeodataFile } from "../../contract/proxy-system.js";

/**
 * The core's geodata: the files its GEOSITE and GEOIP rules read, kept in its home dir. mihomo
 * looks them up there by name (`geosite.dat` in any letter case; with `geodata-mode: false`,
 * `geoip.metadb`) and downloads a missing one from `geox-url` whatever `geo-auto-update`
 * says, so Gatehouse never starts a core with a file missing: it copies them from the files
 * shipped with the app, or the operator fetches them with `POST /system/geodata/update`.
 */

export const GEOIP_FILE = "geoip.metadb";
export const GEOSITE_FILE = "geosite.dat";
/** Every geodata file Gatehouse manages. */
export const GEODATA_FILES = [GEOIP_FILE, GEOSITE_FILE] as const;
export type GeodataName = (typeof GEODATA_FILES)[number];

/** What Gatehouse knows of each file it put in the home dir (`geodata.json`). */
const STATE_FILE = "geodata.json";
/** The set a successful update replaced. */
export const PREVIOUS_DIR = "geodata.previous";

export type { GeodataFile };

interface StateEntry {
  sha256: string;
  size: number;
  mtimeMs: number;
  updatedAt: string;
  source: "bundled" | "download";
}
type State = Record<string, StateEntry>;

/** The files the compiled rule lines need. */
export function neededGeodata(ruleLines: readonly string[]): GeodataName[] {
  const out = new Set<GeodataName>();
  for (const line of ruleLines) {
    const type = line.split(",", 1)[0]?.trim().toUpperCase();
    if (type === "GEOSITE") out.add(GEOSITE_FILE);
    if (type === "GEOIP" || type === "SRC-GEOIP") out.add(GEOIP_FILE);
  }
  return GEODATA_FILES.filter((n) => out.has(n));
}

/** The path of `name` in `dir` as the core would find it, or null. */
export function findGeodata(dir: string, name: string): string | null {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return null;
  }
  // mihomo matches GeoSite.dat in any letter case, geoip.metadb exactly.
  const hit =
    name === GEOSITE_FILE
      ? names.find((n) => n.toLowerCase() === name)
      : names.find((n) => n === name);
  if (!hit) return null;
  try {
    return statSync(join(dir, hit)).isFile() ? join(dir, hit) : null;
  } catch {
    return null;
  }
}

export function missingGeodata(homeDir: string, needed: readonly string[]): string[] {
  return needed.filter((n) => !findGeodata(homeDir, n));
}

/** The 400 a start with a needed file missing answers: the file and the way to get it. */
export function geodataMissingError(name: string): DomainError {
  return new DomainError(
    "invalid",
    "geodata.missing",
    `The core's geodata file ${name} is missing; get it with POST /system/geodata/update (System → Update geodata)`,
    { params: { file: name } },
  );
}

/** SHA-256 of a file, read in 1 MiB pieces (the files are several MB). */
export function fileSha256(path: string): string {
  const hash = createHash("sha256");
  const buf = Buffer.allocUnsafe(1024 * 1024);
  const fd = openSync(path, "r");
  try {
    for (;;) {
      const n = readSync(fd, buf, 0, buf.length, null);
      if (n <= 0) break;
      hash.update(buf.subarray(0, n));
    }
  } finally {
    closeSync(fd);
  }
  return hash.digest("hex");
}

function readState(homeDir: string): State {
  try {
    const value: unknown = JSON.parse(readFileSync(join(homeDir, STATE_FILE), "utf8"));
    return value && typeof value === "object" && !Array.isArray(value) ? (value as State) : {};
  } catch {
    return {};
  }
}

/** Records what was just put at `<homeDir>/<name>`. */
export function recordGeodata(
  homeDir: string,
  entries: Array<{ name: string; sha256: string; source: StateEntry["source"] }>,
  now: number,
): void {
  const state = readState(homeDir);
  for (const e of entries) {
    const st = statSync(join(homeDir, e.name));
    state[e.name] = {
      sha256: e.sha256,
      size: st.size,
      mtimeMs: st.mtimeMs,
      updatedAt: new Date(now).toISOString(),
      source: e.source,
    };
  }
  writeAtomic(join(homeDir, STATE_FILE), `${JSON.stringify(state, null, 2)}\n`);
}

/**
 * The geodata files in the core's home: name, size, SHA-256 and when Gatehouse put them
 * there (a file changed behind its back is hashed again and dated by its modification time).
 */
export function geodataList(homeDir: string): GeodataFile[] {
  const state = readState(homeDir);
  const out: GeodataFile[] = [];
  for (const name of GEODATA_FILES) {
    const path = findGeodata(homeDir, name);
    if (!path) continue;
    const st = statSync(path);
    const known = state[name];
    const same = known && known.size === st.size && known.mtimeMs === st.mtimeMs;
    out.push({
      name,
      size: st.size,
      sha256: same ? known.sha256 : fileSha256(path),
      updatedAt: same ? known.updatedAt : st.mtime.toISOString(),
    });
  }
  return out;
}

/**
 * Folders that may hold geodata shipped with the app, in order: beside the core executable
 * (the installed app keeps mihomo and its geodata together in `<resources>/core`), the
 * installed app's `<resources>/core`, and a checkout's `resources/core/shared`.
 */
export function bundledGeodataDirs(coreBin: string | undefined): string[] {
  const dirs: string[] = [];
  if (coreBin) dirs.push(dirname(coreBin));
  const resources = (process as { resourcesPath?: string }).resourcesPath;
  if (resources) dirs.push(join(resources, "core"));
  dirs.push(join(APP_ROOT, "resources", "core", "shared"));
  return [...new Set(dirs)];
}

/** Pinned checksums of a bundle: `manifest.json` in the folder or its parent. */
function pinnedSums(dir: string): Map<string, string> {
  const sums = new Map<string, string>();
  for (const path of [join(dir, "manifest.json"), join(dir, "..", "manifest.json")]) {
    if (!existsSync(path)) continue;
    try {
      const doc = JSON.parse(readFileSync(path, "utf8")) as {
        geodata?: { files?: Array<{ name?: unknown; sha256?: unknown }> };
      };
      for (const f of doc.geodata?.files ?? []) {
        if (typeof f.name === "string" && typeof f.sha256 === "string") sums.set(f.name, f.sha256);
      }
      return sums;
    } catch {
      return sums;
    }
  }
  return sums;
}

export interface SeedResult {
  copied: string[];
  /** Bundled files refused because they differ from the pinned checksum. */
  refused: string[];
}

/**
 * Copies each needed file that is missing from the home dir (or that came from an older
 * bundle) out of the first bundle folder that has it and whose checksum, where pinned,
 * matches. A file the operator downloaded is never replaced by a bundled one.
 */
export function seedBundledGeodata(
  homeDir: string,
  needed: readonly string[],
  bundleDirs: readonly string[],
  now: number,
): SeedResult {
  const state = readState(homeDir);
  const result: SeedResult = { copied: [], refused: [] };
  for (const name of needed) {
    const present = findGeodata(homeDir, name);
    if (present && state[name]?.source !== "bundled") continue;
    for (const dir of bundleDirs) {
      const source = findGeodata(dir, name);
      if (!source || source === present) continue;
      const sha = fileSha256(source);
      const pinned = pinnedSums(dir).get(name);
      if (pinned && pinned !== sha) {
        result.refused.push(name);
        continue;
      }
      if (present && state[name]?.sha256 === sha) break;
      const tmp = join(homeDir, `.${name}.${randomBytes(4).toString("hex")}.tmp`);
      try {
        copyFileSync(source, tmp);
        renameSync(tmp, join(homeDir, name));
      } finally {
        rmSync(tmp, { force: true });
      }
      recordGeodata(homeDir, [{ name, sha256: sha, source: "bundled" }], now);
      result.copied.push(name);
      break;
    }
  }
  return result;
}

/** The GEOSITE/GEOIP lines among compiled rule lines. */
export function geoRuleLines(ruleLines: readonly string[]): string[] {
  return ruleLines.filter((l) => neededGeodata([l]).length > 0);
}

/**
 * Before a start: copies missing files from the bundle, then refuses (400 naming the first
 * file still missing) rather than let the core download it.
 */
export function ensureGeodata(
  homeDir: string,
  ruleLines: readonly string[],
  bundleDirs: readonly string[],
  now: number,
): SeedResult {
  const needed = neededGeodata(ruleLines);
  const seeded = seedBundledGeodata(homeDir, needed, bundleDirs, now);
  const missing = missingGeodata(homeDir, needed);
  if (missing.length > 0) throw geodataMissingError(missing[0]);
  return seeded;
}

/** Copies the shipped files a configuration needs; a failure is logged, the start decides. */
export function seedGeodata(
  homeDir: string,
  ruleLines: readonly string[],
  bundleDirs: readonly string[],
  opts: { clock: { now(): number }; log: (line: string) => void },
): void {
  try {
    const r = seedBundledGeodata(homeDir, neededGeodata(ruleLines), bundleDirs, opts.clock.now());
    if (r.copied.length > 0) opts.log(`geodata copied from the app: ${r.copied.join(", ")}`);
    if (r.refused.length > 0)
      opts.log(`shipped geodata refused, its checksum differs: ${r.refused.join(", ")}`);
  } catch (err) {
    opts.log(`shipped geodata could not be copied: ${(err as Error).message}`);
  }
}

/** Needed files neither in the home dir nor in a bundle: a start would be refused. */
export function unavailableGeodata(
  homeDir: string,
  ruleLines: readonly string[],
  bundleDirs: readonly string[],
): string[] {
  return missingGeodata(homeDir, neededGeodata(ruleLines)).filter(
    (name) => !bundleDirs.some((dir) => findGeodata(dir, name)),
  );
}

/**
 * The configuration the core's `-t` may see now: with a needed file missing, mihomo would
 * go and download it during the check, so the rules that read geodata are left out of the
 * check (a start is refused until the files are there).
 */
export function checkableYaml(yaml: string, homeDir: string): string {
  const doc = parse(yaml) as { rules?: unknown } | null;
  if (!doc || !Array.isArray(doc.rules)) return yaml;
  const lines = doc.rules.map(String);
  if (missingGeodata(homeDir, neededGeodata(lines)).length === 0) return yaml;
  return stringify({ ...doc, rules: lines.filter((l) => neededGeodata([l]).length === 0) });
}
