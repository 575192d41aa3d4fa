import { spawnSync } from "node:child_process";
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { builtinModules, createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join, posix } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { missingCoreFiles } from "../../scripts/after-pack.mjs";

/**
 * The packaged app as electron-builder really lays it out: `electron-builder --linux --dir`
 * runs here, offline, on a copy of the project (its production node_modules, the built main
 * process and pages) with a stand-in Electron folder (`electronDist`: a file named `electron`
 * holding the fuse wire, so electron-builder's fuse step flips real fuses). What cannot run
 * here: the native rebuild for Electron (`npmRebuild`: it downloads Electron's headers) and
 * Electron itself; the release workflow runs the installers on their platforms.
 *
 * Checked: every file the main process and the services' entry import, followed through the
 * archive at the paths they import them (packages resolved as Node does, with their own
 * dependencies); the native modules unpacked beside the archive; the Desktop screen and the
 * services' pages where they are looked for; the core, its geodata and its manifest in
 * <resources>/core; the fuses; and a build without its core failing.
 */

const require = createRequire(import.meta.url);
const asar = require("@electron/asar") as {
  listPackage(archive: string, options?: { isPack?: boolean }): string[];
  extractFile(archive: string, file: string): Buffer;
  statFile(archive: string, file: string): { unpacked?: boolean; files?: unknown };
};
const fuses = require("@electron/fuses") as {
  getCurrentFuseWire(path: string): Promise<Record<string, unknown>>;
  FuseV1Options: Record<string, number>;
};

const ROOT = process.cwd();
const MODULES = realpathSync(join(ROOT, "node_modules"));
const SENTINEL = "dL7pKGdnNz796PbbjQWNKmHXBZaB9tsX";
const ENABLE = 0x31;
const DISABLE = 0x30;

let work = "";
let stage = "";
let out = "";
let resources = "";
let archive = "";
let files = new Set<string>();

/** Runs a command, failing the test with its output. */
function run(command: string, args: string[], cwd: string): void {
  const result = spawnSync(command, args, { cwd, encoding: "utf8", timeout: 240_000 });
  if (result.status !== 0)
    throw new Error(`${command} ${args.join(" ")} failed:\n${result.stdout}\n${result.stderr}`);
}

/** The production packages of package-lock.json that are installed here, copied to `to`. */
function copyProductionModules(to: string): void {
  const lock = JSON.parse(readFileSync(join(ROOT, "package-lock.json"), "utf8")) as {
    packages: Record<string, { dev?: boolean }>;
  };
  for (const [path, entry] of Object.entries(lock.packages)) {
    if (!path.startsWith("node_modules/") || entry.dev) continue;
    const from = join(MODULES, path.slice("node_modules/".length));
    const target = join(to, path);
    // Platform packages of other systems are not installed; nested ones came with their parent.
    if (!existsSync(from) || existsSync(target)) continue;
    cpSync(from, target, { recursive: true, dereference: true });
  }
}

/** A folder electron-builder takes as an unpacked Electron (Linux x64): only the fuse wire. */
function standInElectron(dir: string): void {
  mkdirSync(join(dir, "resources"), { recursive: true });
  mkdirSync(join(dir, "locales"), { recursive: true });
  // Fuse wire version 1, eight fuses, all enabled as in a fresh Electron.
  const wire = Buffer.concat([
    Buffer.from(`#!/bin/sh\n# stand-in for Electron: ${SENTINEL}`),
    Buffer.from([1, 8, ...Array<number>(8).fill(ENABLE)]),
    Buffer.from("\nexit 1\n"),
  ]);
  writeFileSync(join(dir, "electron"), wire, { mode: 0o755 });
  writeFileSync(join(dir, "chrome-sandbox"), "", { mode: 0o755 });
  writeFileSync(join(dir, "LICENSE"), "stand-in");
  writeFileSync(join(dir, "version"), "stand-in");
}

/** What scripts/fetch-core.ts leaves for linux-x64 (tiny stand-ins with the right names). */
function standInCore(coreDir: string): void {
  mkdirSync(join(coreDir, "linux-x64"), { recursive: true });
  mkdirSync(join(coreDir, "shared"), { recursive: true });
  writeFileSync(join(coreDir, "linux-x64", "mihomo"), "#!/bin/sh\necho 'Mihomo Meta v0'\n");
  chmodSync(join(coreDir, "linux-x64", "mihomo"), 0o755);
  for (const name of ["geoip.metadb", "geosite.dat", "LICENSE-mihomo.txt", "NOTICE-mihomo.txt"])
    writeFileSync(join(coreDir, "shared", name), name);
  // As the release pins it: the geodata's hashes filled in.
  const manifest = JSON.parse(readFileSync(join(coreDir, "manifest.json"), "utf8")) as {
    geodata: { commit: string | null; files: Array<{ name: string; sha256: string | null }> };
  };
  manifest.geodata.commit = "0".repeat(40);
  for (const f of manifest.geodata.files) f.sha256 = "a".repeat(64);
  writeFileSync(join(coreDir, "manifest.json"), JSON.stringify(manifest, null, 2));
}

function pack(stageDir: string, outDir: string): ReturnType<typeof spawnSync> {
  const electronVersion = (
    JSON.parse(readFileSync(join(MODULES, "electron", "package.json"), "utf8")) as {
      version: string;
    }
  ).version;
  return spawnSync(
    process.execPath,
    [
      join(MODULES, "electron-builder", "cli.js"),
      "--config",
      "electron-builder.yml",
      "--linux",
      "--x64",
      "--dir",
      `-c.electronDist=${join(work, "electron-dist")}`,
      // Rebuilding for Electron downloads its headers; the layout does not depend on it.
      "-c.npmRebuild=false",
      // The copy holds no devDependencies, so the version cannot be read from node_modules.
      `-c.electronVersion=${electronVersion}`,
      `-c.directories.output=${outDir}`,
    ],
    { cwd: stageDir, encoding: "utf8", timeout: 240_000, env: { ...process.env, CI: "" } },
  );
}

beforeAll(() => {
  // The main process and the pages, built as `npm run dist` builds them: build:main's two steps,
  // the compile emit-only (`--noCheck`: the same JavaScript, byte for byte, in a third of the
  // time; the checks type-check the whole tree before any test runs).
  run("npm", ["run", "build:main:compile", "--", "--noCheck"], ROOT);
  run("npm", ["run", "build:main:files"], ROOT);
  if (
    !existsSync(join(ROOT, "renderer", "dist", "parcel.html")) ||
    !existsSync(join(ROOT, "renderer", "dist-desktop", "desktop.html"))
  )
    run("npm", ["run", "build:renderer"], ROOT);
  work = mkdtempSync(join(tmpdir(), "gh-packaged-"));
  stage = join(work, "project");
  out = join(work, "release");
  mkdirSync(stage);
  for (const f of ["package.json", "package-lock.json", "electron-builder.yml"])
    cpSync(join(ROOT, f), join(stage, f));
  for (const d of ["dist/main", "renderer/dist", "renderer/dist-desktop", "resources", "scripts"])
    cpSync(join(ROOT, d), join(stage, d), {
      recursive: true,
      filter: (src) => !/resources\/core\/(linux|mac|win)-|resources\/core\/shared/.test(src),
    });
  copyProductionModules(stage);
  standInElectron(join(work, "electron-dist"));
  standInCore(join(stage, "resources", "core"));
  const result = pack(stage, out);
  if (result.status !== 0)
    throw new Error(`electron-builder failed:\n${String(result.stdout)}\n${String(result.stderr)}`);
  resources = join(out, "linux-unpacked", "resources");
  archive = join(resources, "app.asar");
  files = new Set(asar.listPackage(archive).map((p) => p.replace(/\\/g, "/").replace(/^\//, "")));
}, 300_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

/** A file's bytes from the packaged app: inside the archive, or unpacked beside it. */
function read(path: string): string {
  const unpacked = join(`${archive}.unpacked`, path);
  if (existsSync(unpacked)) return readFileSync(unpacked, "utf8");
  return asar.extractFile(archive, path).toString("utf8");
}

const BUILTIN = new Set([...builtinModules, ...builtinModules.map((m) => `node:${m}`)]);

/** Module specifiers a compiled file loads: static and literal dynamic imports, workers, require. */
function specifiers(code: string): string[] {
  const found = new Set<string>();
  const patterns = [
    // import … from "x", export … from "x" (over several lines)
    /^\s*(?:import|export)\b[^;"'`]*?\bfrom\s*["']([^"']+)["']/gm,
    /^\s*import\s*["']([^"']+)["']/gm,
    /\bimport\(\s*["']([^"']+)["']\s*\)/g,
    /new URL\(\s*["'](\.{1,2}\/[^"']+)["']\s*,\s*import\.meta\.url\s*\)/g,
    // require("x"), and the keychain's on-demand `requireHere("x")`
    /\b(?:require|requireHere)\(\s*["']([^"']+)["']\s*\)/g,
  ];
  for (const re of patterns) for (const m of code.matchAll(re)) found.add(m[1]);
  return [...found];
}

/**
 * Imports only reached when the compiled sibling is missing (a checkout run through tsx), never
 * in the packaged app: the worker entries import their compiled `.js` first (followed above).
 */
const CHECKOUT_ONLY = new Set(["tsx/esm/api"]);

/** The package folder Node finds for `name` from a file in the archive, or null. */
function findPackage(fromFile: string, name: string): string | null {
  let dir = posix.dirname(fromFile);
  for (;;) {
    const candidate = posix.join(dir === "." ? "" : dir, "node_modules", name);
    if (files.has(posix.join(candidate, "package.json"))) return candidate;
    if (dir === "." || dir === "") return null;
    dir = posix.dirname(dir);
  }
}

/** Follows every import from `entries` through the archive; answers what could not be found. */
function walkImports(entries: string[]): { missing: string[]; visited: Set<string> } {
  const missing: string[] = [];
  const visited = new Set<string>();
  const packages = new Set<string>();
  const queue = [...entries];
  const needPackage = (from: string, name: string): void => {
    const dir = findPackage(from, name);
    if (!dir) {
      missing.push(`${name} (from ${from})`);
      return;
    }
    if (packages.has(dir)) return;
    packages.add(dir);
    const meta = JSON.parse(read(posix.join(dir, "package.json"))) as {
      dependencies?: Record<string, string>;
      optionalDependencies?: Record<string, string>;
    };
    // A package needs its own dependencies at run time; optional ones only where installed.
    for (const dep of Object.keys(meta.dependencies ?? {}))
      needPackage(posix.join(dir, "package.json"), dep);
  };
  while (queue.length > 0) {
    const file = queue.shift() as string;
    if (visited.has(file)) continue;
    visited.add(file);
    if (!files.has(file)) {
      missing.push(file);
      continue;
    }
    for (const spec of specifiers(read(file))) {
      if (BUILTIN.has(spec) || spec === "electron" || CHECKOUT_ONLY.has(spec)) continue;
      if (spec.startsWith(".")) {
        queue.push(posix.normalize(posix.join(posix.dirname(file), spec)));
        continue;
      }
      const name = spec.startsWith("@")
        ? spec.split("/").slice(0, 2).join("/")
        : spec.split("/")[0];
      needPackage(file, name);
    }
  }
  return { missing, visited };
}

describe("the packaged app (electron-builder --dir, Linux x64)", () => {
  it("holds every file the main process and the services import, at the paths they import", () => {
    const pkg = JSON.parse(read("package.json")) as { main: string };
    expect(pkg.main).toBe("dist/main/main/index.js");
    const { missing, visited } = walkImports([
      pkg.main,
      // The services' entry (a utility process), the preload and the worker entries.
      "dist/main/server/desktop-entry.js",
      "dist/main/preload/index.cjs",
    ]);
    expect(missing).toEqual([]);
    // The walk reached the services, their workers and the lazily loaded keychain library.
    for (const file of [
      "dist/main/server/cli.js",
      "dist/main/server/host.js",
      "dist/main/server/password-worker.mjs",
      "dist/main/server/proxy/subscriptions/parse-worker.js",
      "dist/main/server/proxy/core/core-reader-worker.js",
    ])
      expect(visited.has(file), file).toBe(true);
  });

  it("ships every file the services read from their folders (migrations and the like)", () => {
    const copied: string[] = [];
    const walk = (dir: string) => {
      for (const e of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
        const rel = posix.join(dir, e.name);
        if (e.isDirectory()) walk(rel);
        else if (!/\.tsx?$/.test(e.name)) copied.push(rel);
      }
    };
    walk("server");
    expect(copied.length).toBeGreaterThan(0);
    for (const rel of copied) expect(files.has(`dist/main/${rel}`), rel).toBe(true);
  });

  it("keeps the native modules outside the archive, where they can be loaded", () => {
    const unpacked = `${archive}.unpacked`;
    const sqlite = join(unpacked, "node_modules/better-sqlite3/build/Release/better_sqlite3.node");
    expect(existsSync(sqlite)).toBe(true);
    expect(
      asar.statFile(archive, "node_modules/better-sqlite3/build/Release/better_sqlite3.node")
        .unpacked,
    ).toBe(true);
    const keyring = readdirSync(join(unpacked, "node_modules/@napi-rs")).sort();
    expect(keyring).toContain("keyring");
    // The platform package with the binary itself (the loader finds it beside its own folder).
    const binding = keyring.find((d) => d.startsWith("keyring-linux-x64"));
    expect(binding).toBeDefined();
    const nodeFiles = readdirSync(join(unpacked, "node_modules/@napi-rs", binding ?? "")).filter(
      (f) => f.endsWith(".node"),
    );
    expect(nodeFiles.length).toBe(1);
  });

  it("puts the services' pages and the Desktop screen where the app looks for them", () => {
    expect(files.has("dist/main/renderer/dist/parcel.html")).toBe(true);
    expect(files.has("dist/main/renderer/dist/proxy.html")).toBe(true);
    // Served at app://gatehouse/ from <app>/renderer/dist-desktop (main/app-protocol.ts).
    expect(files.has("renderer/dist-desktop/desktop.html")).toBe(true);
    expect(files.has("dist/main/renderer/dist/desktop.html")).toBe(false);
    expect(files.has("resources/icons/trayTemplate.png")).toBe(true);
    expect(files.has("resources/icons/trayTemplate@2x.png")).toBe(true);
  });

  it("ships the core beside the app, outside the archive, with its geodata and manifest", () => {
    const core = join(resources, "core");
    expect(missingCoreFiles(core, "linux")).toEqual([]);
    expect(statSync(join(core, "mihomo")).mode & 0o111).not.toBe(0);
    const shipped = JSON.parse(readFileSync(join(core, "manifest.json"), "utf8")) as {
      mihomo: unknown;
    };
    const source = JSON.parse(
      readFileSync(join(stage, "resources/core/manifest.json"), "utf8"),
    ) as { mihomo: unknown };
    expect(shipped).toEqual(source);
    expect(readdirSync(join(resources, "linux")).sort()).toEqual(
      [
        "gatehouse-launcher.sh",
        "gatehouse-mihomo.rules",
        "gatehouse-mihomo.service",
        "gatehouse.service",
        "run-core.sh",
      ].sort(),
    );
  });

  it("turns off the fuses an attacker would use", async () => {
    const wire = await fuses.getCurrentFuseWire(join(out, "linux-unpacked", "gatehouse"));
    const { FuseV1Options: o } = fuses;
    expect(wire[o.RunAsNode]).toBe(DISABLE);
    expect(wire[o.EnableNodeOptionsEnvironmentVariable]).toBe(DISABLE);
    expect(wire[o.EnableNodeCliInspectArguments]).toBe(DISABLE);
    expect(wire[o.OnlyLoadAppFromAsar]).toBe(ENABLE);
  });

  it("fails the build when the core is missing, instead of shipping without it", () => {
    rmSync(join(stage, "resources", "core", "linux-x64"), { recursive: true, force: true });
    const result = pack(stage, join(work, "release-without-core"));
    expect(result.status).not.toBe(0);
    expect(`${String(result.stdout)}${String(result.stderr)}`).toMatch(
      /no complete proxy core in .*mihomo \(the proxy core\)/,
    );
  }, 240_000);
});
