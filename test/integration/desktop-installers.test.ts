import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { inflateSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { missingCoreFiles } from "../../scripts/after-pack.mjs";
import { dist, distSteps, type Step } from "../../scripts/dist.js";

/**
 * What the installers are made of, checked against electron-builder's own code where it decides
 * (its default deb dependencies, the AppImage launcher it writes), and the repository's own
 * pieces of packaging: the build hook, `npm run dist`, the deb's command launcher, the macOS
 * tray template.
 */

const require = createRequire(import.meta.url);
const builder = parse(readFileSync("electron-builder.yml", "utf8")) as {
  appImage: { executableArgs?: string[] };
  deb: { depends: string[]; recommends: string[] };
  afterPack: string;
  linux: { extraResources: Array<{ filter: string[] }> };
};
const pkg = JSON.parse(readFileSync("package.json", "utf8")) as {
  homepage?: string;
  author?: { name?: string; email?: string };
  devDependencies: Record<string, string>;
};
const FpmTarget = (
  require("app-builder-lib/out/targets/FpmTarget") as {
    default: {
      prototype: {
        getDefaultDepends(t: string): string[];
        getDefaultRecommends(t: string): string[];
      };
    };
  }
).default.prototype;

describe("the deb package", () => {
  it("keeps every dependency electron-builder would have named, since setting depends replaces them", () => {
    expect(builder.deb.depends).toEqual(expect.arrayContaining(FpmTarget.getDefaultDepends("deb")));
    expect(builder.deb.recommends).toEqual(
      expect.arrayContaining(FpmTarget.getDefaultRecommends("deb")),
    );
  });

  it("adds what Electron links that GTK does not bring, so the headless unit starts on a server", () => {
    expect(builder.deb.depends).toEqual(
      expect.arrayContaining(["libgbm1", "libasound2", "libnss3"]),
    );
    expect(new Set(builder.deb.depends).size).toBe(builder.deb.depends.length);
  });

  it("has what the deb's control file needs: a homepage and an author with an email", () => {
    expect(pkg.homepage).toMatch(/^https:\/\//);
    expect(pkg.author?.name).toBeTruthy();
    expect(pkg.author?.email).toMatch(/^[^@\s]+@[^@\s]+$/);
  });
});

describe("the AppImage's launcher (electron-builder's AppRun)", () => {
  const { generateAppRunScript } = require("app-builder-lib/out/targets/appimage/appImageUtil") as {
    generateAppRunScript(config: Record<string, string>): string;
  };

  /** Runs AppRun with `unshare` answering `userns` and a stand-in app that records its arguments. */
  function launch(usernsWorks: boolean, args: string[]): string[] {
    const dir = mkdtempSync(join(tmpdir(), "gh-apprun-"));
    const appDir = join(dir, "AppDir");
    const bin = join(dir, "bin");
    mkdirSync(appDir);
    mkdirSync(bin);
    writeFileSync(
      join(appDir, "AppRun"),
      generateAppRunScript({
        DesktopFileName: "gatehouse.desktop",
        ExecutableName: "gatehouse",
        ProductName: "Gatehouse",
        ProductFilename: "Gatehouse",
        ResourceName: "appimagekit-gatehouse",
      }),
      { mode: 0o755 },
    );
    const seen = join(dir, "args");
    writeFileSync(join(appDir, "gatehouse"), `#!/bin/sh\nprintf '%s\\n' "$@" > '${seen}'\n`, {
      mode: 0o755,
    });
    // Ubuntu 24.04 without an AppArmor profile: the user namespace cannot be set up.
    writeFileSync(join(bin, "unshare"), `#!/bin/sh\nexit ${usernsWorks ? 0 : 1}\n`, {
      mode: 0o755,
    });
    chmodSync(join(bin, "unshare"), 0o755);
    const result = spawnSync("bash", [join(appDir, "AppRun"), ...args], {
      env: {
        PATH: `${bin}:/usr/bin:/bin`,
        APPDIR: appDir,
        HOME: dir,
        APPIMAGE: join(dir, "x.AppImage"),
      },
      encoding: "utf8",
    });
    expect(result.status, result.stderr).toBe(0);
    return readFileSync(seen, "utf8").split("\n").filter(Boolean);
  }

  it("turns the sandbox off only where user namespaces are refused", () => {
    expect(launch(false, [])).toEqual(["--no-sandbox"]);
    expect(launch(false, ["--hidden"])).toEqual(["--no-sandbox", "--hidden"]);
    expect(launch(true, ["--hidden"])).toEqual(["--hidden"]);
    expect(launch(true, [])).toEqual([]);
  });

  it("is the one deciding: the AppImage's desktop entry adds no --no-sandbox of its own", () => {
    expect(builder.appImage.executableArgs).toEqual([]);
    // The probe is in AppRun from electron-builder 26.9 on.
    const [major, minor] = (require("app-builder-lib/package.json") as { version: string }).version
      .split(".")
      .map(Number);
    expect(major > 26 || (major === 26 && minor >= 9)).toBe(true);
    expect(pkg.devDependencies["electron-builder"]).toBe("^26.9.0");
  });
});

describe("the deb's command launcher (resources/linux/gatehouse-launcher.sh)", () => {
  /** Lays out an installed tree with a stand-in app binary and runs the launcher through a link. */
  function run(args: string[]): string[] {
    const dir = mkdtempSync(join(tmpdir(), "gh-launcher-"));
    const opt = join(dir, "opt", "Gatehouse");
    mkdirSync(join(opt, "resources", "linux"), { recursive: true });
    const launcher = join(opt, "resources", "linux", "gatehouse-launcher.sh");
    writeFileSync(launcher, readFileSync("resources/linux/gatehouse-launcher.sh"), { mode: 0o755 });
    const seen = join(dir, "args");
    writeFileSync(join(opt, "gatehouse"), `#!/bin/sh\nprintf '%s\\n' "$@" > '${seen}'\n`, {
      mode: 0o755,
    });
    // /usr/bin/gatehouse -> /etc/alternatives/gatehouse -> the launcher
    mkdirSync(join(dir, "usr", "bin"), { recursive: true });
    spawnSync("ln", ["-s", launcher, join(dir, "usr", "bin", "gatehouse")]);
    const result = spawnSync(join(dir, "usr", "bin", "gatehouse"), args, { encoding: "utf8" });
    expect(result.status, result.stderr).toBe(0);
    return readFileSync(seen, "utf8").split("\n").filter(Boolean);
  }

  it("puts the display-less switches first for --headless", () => {
    expect(run(["--headless", "--data-dir", "/var/lib/x", "--parcel-port", "0"])).toEqual([
      "--ozone-platform=headless",
      "--disable-gpu",
      "--no-sandbox",
      "--headless",
      "--data-dir",
      "/var/lib/x",
      "--parcel-port",
      "0",
    ]);
  });

  it("passes anything else on unchanged", () => {
    expect(run([])).toEqual([]);
    expect(run(["--hidden", "a b"])).toEqual(["--hidden", "a b"]);
  });

  it("is shipped with the units", () => {
    expect(builder.linux.extraResources[0].filter).toContain("gatehouse-launcher.sh");
  });
});

describe("the build hook that refuses an app without its core", () => {
  function coreDir(files: Record<string, string>, executable = true): string {
    const dir = mkdtempSync(join(tmpdir(), "gh-core-"));
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
    if (files.mihomo && executable) chmodSync(join(dir, "mihomo"), 0o755);
    return dir;
  }
  const manifest = (sha: string | null) =>
    JSON.stringify({
      mihomo: { version: "v1.0.0" },
      geodata: {
        files: [
          { name: "geoip.metadb", sha256: sha },
          { name: "geosite.dat", sha256: sha },
        ],
      },
    });
  const complete = {
    "manifest.json": manifest("a".repeat(64)),
    mihomo: "core",
    "geoip.metadb": "g",
    "geosite.dat": "g",
    "LICENSE-mihomo.txt": "l",
    "NOTICE-mihomo.txt": "n",
  };

  it("is configured, and passes a complete folder", () => {
    expect(builder.afterPack).toBe("./scripts/after-pack.mjs");
    expect(missingCoreFiles(coreDir(complete), "linux")).toEqual([]);
  });

  it("names each missing piece", () => {
    const { mihomo: _core, "geosite.dat": _geo, ...rest } = complete;
    expect(missingCoreFiles(coreDir(rest), "linux")).toEqual([
      "mihomo (the proxy core)",
      "geosite.dat (geodata)",
    ]);
    expect(missingCoreFiles(coreDir(complete), "win32")).toEqual(["mihomo.exe (the proxy core)"]);
    expect(missingCoreFiles(coreDir(complete, false), "linux")).toEqual([
      "mihomo is not executable",
    ]);
    const { "manifest.json": _m, ...noManifest } = complete;
    expect(missingCoreFiles(coreDir(noManifest), "darwin")).toEqual([
      "manifest.json (the bundled geodata is checked against it)",
    ]);
    expect(
      missingCoreFiles(coreDir({ ...complete, "manifest.json": manifest(null) }), "linux"),
    ).toEqual([
      "geoip.metadb has no pinned sha256 in manifest.json",
      "geosite.dat has no pinned sha256 in manifest.json",
    ]);
  });
});

describe("npm run dist", () => {
  const record = (codes: Record<string, number>) => {
    const ran: string[] = [];
    const run = (step: Step): number => {
      const name = `${step.command.endsWith("node") || step.command === process.execPath ? "node" : step.command} ${step.args[0]}`;
      ran.push(name);
      return codes[name] ?? 0;
    };
    return { ran, run };
  };

  it("packages, then rebuilds better-sqlite3 for Node and loads it", () => {
    const { ran, run } = record({});
    expect(dist(["--config", "electron-builder.yml", "--linux"], run)).toBe(0);
    expect(ran).toEqual(["electron-builder --config", "npm rebuild", "node -e"]);
    expect(distSteps(["--linux"]).pack.args).toEqual(["--linux"]);
  });

  it("gives node_modules back to Node even when packaging failed, and fails with packaging", () => {
    const { ran, run } = record({ "electron-builder --config": 2 });
    expect(dist(["--config", "x"], run)).toBe(2);
    expect(ran).toEqual(["electron-builder --config", "npm rebuild", "node -e"]);
  });

  it("fails when node_modules could not be given back", () => {
    expect(dist(["--config", "x"], record({ "npm rebuild": 1 }).run)).toBe(1);
    expect(dist(["--config", "x"], record({ "node -e": 1 }).run)).toBe(1);
  });
});

describe("the macOS tray icon", () => {
  /** RGBA pixels of a PNG written without filters (scripts/make-icons.ts). */
  function pixels(file: string): { size: number; rgba: Buffer } {
    const png = readFileSync(file);
    const size = png.readUInt32BE(16);
    const chunks: Buffer[] = [];
    for (let at = 8; at < png.length;) {
      const length = png.readUInt32BE(at);
      if (png.toString("ascii", at + 4, at + 8) === "IDAT")
        chunks.push(png.subarray(at + 8, at + 8 + length));
      at += 12 + length;
    }
    const raw = inflateSync(Buffer.concat(chunks));
    const rgba = Buffer.alloc(size * size * 4);
    for (let y = 0; y < size; y++) {
      expect(raw[y * (size * 4 + 1)], "filter").toBe(0);
      raw.copy(rgba, y * size * 4, y * (size * 4 + 1) + 1, (y + 1) * (size * 4 + 1));
    }
    return { size, rgba };
  }

  it("is a template image: black and alpha only, 16 px and 32 px for Retina", () => {
    for (const [file, expected] of [
      ["resources/icons/trayTemplate.png", 16],
      ["resources/icons/trayTemplate@2x.png", 32],
    ] as const) {
      const { size, rgba } = pixels(file);
      expect(size, file).toBe(expected);
      let opaque = 0;
      for (let i = 0; i < rgba.length; i += 4) {
        expect([rgba[i], rgba[i + 1], rgba[i + 2]], file).toEqual([0, 0, 0]);
        if (rgba[i + 3] > 0) opaque++;
      }
      // Something is drawn, and not a filled square.
      expect(opaque).toBeGreaterThan(size * size * 0.2);
      expect(opaque).toBeLessThan(size * size * 0.8);
    }
  });
});
