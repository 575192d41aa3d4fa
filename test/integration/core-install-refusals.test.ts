import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  startCoreReleaseServer,
  type CoreReleaseServer,
  type ReleaseMode,
} from "../fixtures/core-release-server.js";
import { basename, dirname, resolve } from "node:path";
import { installService, type InstallHarness } from "./core-install-support.js";
import { startProxy, type ProxyHarness } from "./proxy-api-harness.js";

/**
 * Every refused install leaves the installed core, the running core and the configuration
 * exactly as they were, and no partial file in `<data-dir>/core` (compared byte for byte).
 */

let rel: CoreReleaseServer;
beforeAll(async () => {
  rel = await startCoreReleaseServer();
});
afterAll(async () => rel.close());

describe("a refused install over a running core", () => {
  let s: InstallHarness;
  let pid: number | undefined;
  let before: Record<string, string>;
  // One service for the whole table: v1.19.30 installed and running.
  beforeAll(async () => {
    s = await installService(rel.url);
    rel.set({ tag: "v1.19.30", variant: "good", mode: "ok" });
    expect((await s.install()).status).toBe(200);
    await s.start();
    pid = s.pid;
    before = s.snapshot();
  });
  afterAll(async () => s.close());
  afterEach(() => rel.set({ tag: "v1.19.30", variant: "good", mode: "ok" }));

  it.each([
    ["wrong-digest", 400, "install.digest_mismatch"],
    ["no-digest", 400, "install.no_digest"],
    ["no-asset", 400, "install.no_asset"],
    ["not-gzip", 400, "install.unreadable"],
    ["oversized", 400, "install.too_large"],
    ["release-404", 502, "install.http_status"],
    ["asset-404", 502, "install.http_status"],
    ["slow", 502, "install.timeout"],
  ] as Array<[ReleaseMode, number, string]>)(
    "answers a %s release with %i %s and changes nothing",
    async (mode, status, code) => {
      rel.set({ tag: "v1.19.31", variant: "good", mode });
      const r = await s.install();
      expect(r.status, r.text).toBe(status);
      expect(r.json.code).toBe(code);
      expect(s.snapshot()).toEqual(before);
      expect(s.pid).toBe(pid);
      expect(await s.version()).toBe("v1.19.30");
      expect(await s.info()).toMatchObject({ installing: false, progress: null });
    },
  );

  it("refuses a core whose configuration test fails", async () => {
    rel.set({ tag: "v1.19.31", variant: "bad-test" });
    const r = await s.install();
    expect(r.status).toBe(400);
    expect(r.json.code).toBe("install.config_rejected");
    expect(r.json.params.detail).toContain("not supported by this core");
    expect(s.snapshot()).toEqual(before);
    expect(s.pid).toBe(pid);
    expect(await s.version()).toBe("v1.19.30");
    // The configuration in force was not touched either.
    expect((await s.h.request("GET", "/status")).json.configError).toBe("");
  });

  it("refuses a core that does not say it is the release's version", async () => {
    rel.set({ tag: "v1.19.31", variant: "wrong-version" });
    const r = await s.install();
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({
      code: "install.version_mismatch",
      params: { version: "v1.19.31" },
    });
    expect(s.snapshot()).toEqual(before);
    expect(s.pid).toBe(pid);
  });
});

describe("a refused first install", () => {
  let s: InstallHarness | null = null;
  afterEach(async () => s?.close());

  it("names the missing asset and leaves no file behind", async () => {
    s = await installService(rel.url);
    rel.set({ tag: "v1.19.30", variant: "good", mode: "no-asset" });
    const r = await s.install();
    expect(r.status).toBe(400);
    expect(String(r.json.params.asset)).toMatch(/^mihomo-[a-z]+-[a-z0-9]+-v1\.19\.30\.(gz|zip)$/);
    expect(s.snapshot()).toEqual({});
    expect((await s.info()).installed).toBe(false);
  });
});

describe("a core chosen with --core-bin", () => {
  let h: ProxyHarness | null = null;
  afterEach(async () => h?.close());

  it("is named as configured, and installing or rolling back answers 400 without a download", async () => {
    const fake = resolve("test/fixtures/fake-core.mjs");
    h = await startProxy({ coreBin: fake, coreReleaseURL: rel.url });
    await h.setup();
    const info = (await h.request("GET", "/system/core")).json;
    // The operator's own file, by its name only.
    expect(info).toMatchObject({ installed: true, source: "configured", path: basename(fake) });
    expect(JSON.stringify(info)).not.toContain(dirname(fake));
    expect(info.version).toMatch(/^v\d+\.\d+\.\d+/);
    const asked = rel.requests.length;
    for (const path of ["/system/core/install", "/system/core/rollback"]) {
      const r = await h.request("POST", path, { body: {} });
      expect(r.status).toBe(400);
      expect(r.json.code).toBe("install.configured");
    }
    expect(rel.requests.length).toBe(asked);
  });
});
