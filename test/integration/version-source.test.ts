import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";
import { afterAll, describe, expect, it } from "vitest";
import { packageVersion, VERSION } from "../../server/version.js";
import { startParcel } from "../helpers/parcel-harness.js";
import { startProxy } from "./proxy-api-harness.js";

// package.json is the one place the version is written; everything that reports a version
// must read it from there, from the sources and from the built app alike.

const ROOT = resolve(import.meta.dirname, "../..");
const PACKAGE = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
  version: string;
};
const temps: string[] = [];

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "gatehouse-version-"));
  temps.push(dir);
  return dir;
}

afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

describe("one version source", () => {
  it("reads package.json's version when run from the sources", () => {
    expect(VERSION).toBe(PACKAGE.version);
  });

  it("finds the gatehouse package.json above the build folder, past any other package.json", async () => {
    // The layout `npm run build:main` produces: <root>/dist/main/server/version.js.
    const root = tempDir();
    writeFileSync(
      join(root, "package.json"),
      JSON.stringify({ name: "gatehouse", version: "7.8.9" }),
    );
    mkdirSync(join(root, "dist/main/server"), { recursive: true });
    writeFileSync(
      join(root, "dist/package.json"),
      JSON.stringify({ name: "other", version: "1.0.0" }),
    );
    await build({
      entryPoints: [join(ROOT, "server/version.ts")],
      outfile: join(root, "dist/main/server/version.js"),
      format: "esm",
      platform: "node",
      logLevel: "silent",
    });
    writeFileSync(join(root, "dist/main/package.json"), JSON.stringify({ type: "module" }));
    const built = (await import(pathToFileURL(join(root, "dist/main/server/version.js")).href)) as {
      VERSION: string;
    };
    expect(built.VERSION).toBe("7.8.9");
  });

  it("refuses to guess when no gatehouse package.json is above it", () => {
    const root = tempDir();
    cpSync(join(ROOT, "package.json"), join(root, "not-package.json"));
    mkdirSync(join(root, "a/b"), { recursive: true });
    expect(() => packageVersion(join(root, "a/b"))).toThrow(/no package.json of gatehouse/);
  });

  it("the parcel service reports package.json's version on /health and in its API document", async () => {
    const h = await startParcel();
    try {
      const health = await h.request("GET", "/health");
      expect(health.status).toBe(200);
      expect((health.json as { version: string }).version).toBe(PACKAGE.version);
      const doc = await h.request("GET", "/openapi.json");
      expect(doc.status).toBe(200);
      expect((doc.json as { info: { version: string } }).info.version).toBe(PACKAGE.version);
    } finally {
      await h.close(true);
    }
  });

  it("the proxy service reports package.json's version in its API document", async () => {
    const h = await startProxy();
    try {
      const doc = await h.request("GET", "/openapi.json");
      expect(doc.status).toBe(200);
      expect((doc.json as { info: { version: string } }).info.version).toBe(PACKAGE.version);
    } finally {
      await h.close(true);
    }
  });
});
