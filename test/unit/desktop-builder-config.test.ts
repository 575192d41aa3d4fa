import { describe, expect, it } from "vitest";
import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { parse } from "yaml";
import { readManifest } from "../../scripts/fetch-core.js";
import { staticDirFrom } from "../../server/host.js";

/**
 * electron-builder.yml checked against the files it names: no installer can be built here, so
 * this is where a wrong path, a missing icon size or a native module left in the archive shows.
 */

type FileSet = string | { from: string; to: string };
interface Target {
  target: string;
  arch: string[];
}
interface Builder {
  appId: string;
  productName: string;
  directories: { output: string; buildResources: string };
  files: FileSet[];
  extraResources: Array<{ from: string; to: string }>;
  asarUnpack: string[];
  npmRebuild: boolean;
  nodeGypRebuild: boolean;
  buildDependenciesFromSource: boolean;
  linux: { icon: string; target: Target[]; executableName: string };
  mac: { icon: string; target: Target[] };
  win: { icon: string; target: Target[] };
  deb: { depends: string[] };
}

const builder = parse(readFileSync("electron-builder.yml", "utf8")) as Builder;
const pkg = JSON.parse(readFileSync("package.json", "utf8")) as {
  main: string;
  productName: string;
  dependencies: Record<string, string>;
  scripts: Record<string, string>;
};

/** `**`, `*` and `?` globs as electron-builder reads them, on forward-slash paths. */
function globToRegExp(glob: string): RegExp {
  let re = "";
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (glob.startsWith("**/", i)) {
      re += "(?:.*/)?";
      i += 2;
    } else if (glob.startsWith("**", i)) {
      re += ".*";
      i += 1;
    } else if (c === "*") re += "[^/]*";
    else if (c === "?") re += "[^/]";
    else re += c.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${re}$`);
}

const shipped = (path: string): boolean =>
  builder.files.some(
    (f) => typeof f === "string" && !f.startsWith("!") && globToRegExp(f).test(path),
  );

/** Width and height from a PNG's header. */
function pngSize(file: string): [number, number] {
  const head = readFileSync(file);
  expect(head.subarray(1, 4).toString("ascii"), file).toBe("PNG");
  return [head.readUInt32BE(16), head.readUInt32BE(20)];
}

/** The sizes an ICO file holds (0 in the directory means 256). */
function icoSizes(file: string): number[] {
  const ico = readFileSync(file);
  expect(ico.readUInt16LE(2), file).toBe(1);
  return Array.from({ length: ico.readUInt16LE(4) }, (_, i) => ico.readUInt8(6 + i * 16) || 256);
}

/** (os, arch) pairs electron-builder will package, with its `${os}` names. */
function packagedPlatforms(): string[] {
  const out: string[] = [];
  for (const [os, config] of [
    ["linux", builder.linux],
    ["mac", builder.mac],
    ["win", builder.win],
  ] as const)
    for (const t of config.target) for (const arch of t.arch) out.push(`${os}-${arch}`);
  return [...new Set(out)].sort();
}

describe("electron-builder.yml", () => {
  it("names the app as package.json does", () => {
    expect(builder.appId).toMatch(/^[a-z][a-z0-9]*(\.[a-z][a-z0-9-]*)+$/);
    expect(builder.productName).toBe(pkg.productName);
  });

  it("ships the compiled main process, whose source exists", () => {
    expect(shipped(pkg.main)).toBe(true);
    const outDir = (
      JSON.parse(readFileSync("tsconfig.main.json", "utf8")) as {
        compilerOptions: { outDir: string };
      }
    ).compilerOptions.outDir;
    expect(pkg.main.startsWith(`${outDir}/`)).toBe(true);
    const source = pkg.main.slice(outDir.length + 1).replace(/\.js$/, ".ts");
    expect(existsSync(source), source).toBe(true);
  });

  it("puts the web UI where the packaged services look for it", () => {
    // The services serve <APP_ROOT>/renderer/dist first, APP_ROOT being the parent of the
    // compiled server folder (dist/main/server), i.e. dist/main in the installed app.
    const shippedUi = join("/app", "dist", "main", "renderer", "dist");
    expect(staticDirFrom("/app/dist/main", (p) => p === shippedUi)).toBe(shippedUi);
    expect(readFileSync("server/config.ts", "utf8")).toMatch(
      /APP_ROOT = resolve\(dirname\(fileURLToPath\(import\.meta\.url\)\), "\.\."\)/,
    );
    expect(builder.files).toContainEqual({ from: "renderer/dist", to: "dist/main/renderer/dist" });
    expect(readFileSync("renderer/vite.config.ts", "utf8")).toMatch(
      /outDir: resolve\(root, "dist"\)/,
    );
  });

  it("keeps build resources apart from what the app loads", () => {
    expect(builder.directories.output).toBe("release");
    expect(shipped(`${builder.directories.buildResources}/x`)).toBe(false);
    expect(shipped("resources/icons/tray.png")).toBe(true);
    expect(shipped("resources/icons/icon.png")).toBe(true);
  });

  it("has a Linux icon of every size from 16 to 1024 px, each the size its name says", () => {
    const dir = builder.linux.icon;
    const files = readdirSync(dir).filter((f) => f.endsWith(".png"));
    const sizes = files.map((f) => Number(/^(\d+)x\1\.png$/.exec(f)?.[1])).sort((a, b) => a - b);
    expect(sizes).toEqual([16, 24, 32, 48, 64, 128, 256, 512, 1024]);
    for (const size of sizes)
      expect(pngSize(join(dir, `${size}x${size}.png`))).toEqual([size, size]);
  });

  it("gives macOS a 1024 px icon and Windows an ICO from 16 to 256 px", () => {
    expect(pngSize(builder.mac.icon)).toEqual([1024, 1024]);
    expect(builder.win.icon.endsWith(".ico")).toBe(true);
    expect(icoSizes(builder.win.icon).sort((a, b) => a - b)).toEqual([
      16, 24, 32, 48, 64, 128, 256,
    ]);
  });

  it("builds AppImage and deb, NSIS, and dmg for Intel and Apple Silicon", () => {
    const targets = (config: { target: Target[] }) =>
      config.target.map((t) => `${t.target}:${[...t.arch].sort().join("+")}`).sort();
    expect(targets(builder.linux)).toEqual(["AppImage:x64", "deb:x64"]);
    expect(targets(builder.win)).toEqual(["nsis:x64"]);
    expect(targets(builder.mac)).toEqual(["dmg:arm64+x64"]);
    expect(builder.deb.depends).toContain("libsecret-1-0");
  });

  it("unpacks every native dependency (and its per-platform packages) from the archive", () => {
    const native = Object.keys(pkg.dependencies).filter((name) => {
      const dir = join("node_modules", name);
      const meta = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as {
        napi?: unknown;
      };
      return existsSync(join(dir, "binding.gyp")) || meta.napi !== undefined;
    });
    expect(native.sort()).toEqual(["@napi-rs/keyring", "better-sqlite3"]);
    const platformPackages = readdirSync(join("node_modules", "@napi-rs"))
      .filter((d) => d.startsWith("keyring-"))
      .map((d) => `@napi-rs/${d}`);
    expect(platformPackages.length).toBeGreaterThan(0);
    for (const name of [...native, ...platformPackages]) {
      const file = `node_modules/${name}/build/Release/x.node`;
      expect(
        builder.asarUnpack.some((g) => globToRegExp(g).test(file)),
        `${name} must be unpacked`,
      ).toBe(true);
    }
  });

  it("rebuilds native modules for Electron when packaging, never on install", () => {
    expect(builder.npmRebuild).toBe(true);
    expect(builder.buildDependenciesFromSource).toBe(false);
    expect(pkg.scripts.postinstall).toBeUndefined();
    // electron-builder rebuilds them itself (npmRebuild); a second rebuild before it would only
    // leave node_modules built for Electron. scripts/dist.ts gives Node its build back after.
    expect(pkg.scripts.dist).not.toContain("install-app-deps");
    expect(pkg.scripts.dist).toMatch(/tsx scripts\/dist\.ts --config electron-builder\.yml$/);
  });

  it("ships the core of each packaged platform, pinned in the manifest, and the shared geodata", () => {
    expect(builder.extraResources).toEqual([
      { from: "resources/core/${os}-${arch}", to: "core" },
      { from: "resources/core/shared", to: "core" },
      { from: "resources/core/manifest.json", to: "core/manifest.json" },
    ]);
    const manifest = readManifest();
    for (const platform of packagedPlatforms()) {
      const asset = manifest.mihomo.assets[platform];
      expect(asset, platform).toBeDefined();
      expect(asset.sha256, platform).toMatch(/^[0-9a-f]{64}$/);
      expect(asset.name).toContain(manifest.mihomo.version);
      expect(asset.name.endsWith(platform.startsWith("win-") ? ".zip" : ".gz")).toBe(true);
    }
    // The files the proxy service looks for in the core's home folder.
    expect(manifest.geodata.files.map((f) => f.name).sort()).toEqual([
      "geoip.metadb",
      "geosite.dat",
    ]);
    // Fetched binaries never end up in git.
    const ignored = readFileSync("resources/core/.gitignore", "utf8");
    for (const line of ["/*-x64/", "/*-arm64/", "/shared/"]) expect(ignored).toContain(line);
  });
});
