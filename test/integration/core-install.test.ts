import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { startCoreReleaseServer, type CoreReleaseServer } from "../fixtures/core-release-server.js";
import { readFileSync } from "node:fs";
import { installService, type InstallHarness } from "./core-install-support.js";

/**
 * Installing, updating and rolling back the core from a release server: the real service, the
 * real core layer, and the fake core as the released program, served gzipped with its real
 * SHA-256 by a local server.
 */

let rel: CoreReleaseServer;
let c: InstallHarness | null = null;
beforeAll(async () => {
  rel = await startCoreReleaseServer();
});
afterAll(async () => rel.close());
afterEach(async () => {
  await c?.close();
  c = null;
});

async function service(): Promise<InstallHarness> {
  c = await installService(rel.url);
  return c;
}

describe("GET /system/core", () => {
  it("says no core is installed on a fresh data dir", async () => {
    const s = await service();
    expect(await s.info()).toEqual({
      installed: false,
      version: null,
      path: null,
      source: null,
      previousVersion: null,
      installing: false,
      progress: null,
      geodata: [],
    });
    expect((await s.h.request("GET", "/status")).json.coreInstalled).toBe(false);
  });
});

describe("POST /system/core/install", () => {
  it("installs the release's core for this machine, which then starts", async () => {
    const s = await service();
    rel.set({ tag: "v1.19.30", variant: "good", mode: "ok" });
    const r = await s.install();
    expect(r.status, r.text).toBe(200);
    expect(r.json).toEqual({ ok: true, version: "v1.19.30" });
    // What was served for this machine, unpacked; the other machine's asset never fetched.
    expect(s.script()).toBe(gunzipSync(rel.archive).toString("utf8"));
    expect(Object.keys(s.snapshot())).toEqual(["mihomo"]);
    expect(rel.requests.some((p) => p.includes("darwin") || p.includes("freebsd"))).toBe(false);
    expect(await s.info()).toMatchObject({
      installed: true,
      version: "v1.19.30",
      source: "installed",
      // Where it lives in the data dir, never the machine's absolute path.
      path: "core/mihomo",
      previousVersion: null,
      installing: false,
    });
    expect(JSON.stringify(await s.info())).not.toContain(s.h.dataDir);
    expect((await s.h.request("GET", "/status")).json.coreInstalled).toBe(true);
    await s.start();
    expect((await s.h.request("GET", "/status")).json).toMatchObject({
      coreOnline: true,
      version: "v1.19.30",
    });
    // The rules' data went into the core's home with the start, and is listed with its digest.
    const geodata = (await s.info()).geodata as Array<{ name: string; sha256: string }>;
    expect(geodata.map((g) => g.name)).toEqual(["geoip.metadb", "geosite.dat"]);
    for (const g of geodata) expect(g.sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it("updates a running core, keeps the old one as mihomo.previous and re-applies the node", async () => {
    const s = await service();
    rel.set({ tag: "v1.19.30", variant: "good", mode: "ok" });
    expect((await s.install()).status).toBe(200);
    const node = await s.pick("Osaka");
    await s.start();
    const chosen = await s.proxyNow();
    expect(chosen).toContain("Osaka");
    const pid = s.pid;

    rel.set({ tag: "v1.19.31" });
    const r = await s.install();
    expect(r.status, r.text).toBe(200);
    expect(r.json.version).toBe("v1.19.31");
    expect(Object.keys(s.snapshot())).toEqual(["mihomo", "mihomo.previous"]);
    expect(s.script()).toContain("v1.19.31");
    expect(s.script("mihomo.previous")).toContain("v1.19.30");
    // A new process on the new binary, with the operator's node chosen again.
    expect(s.pid).not.toBe(pid);
    expect(await s.version()).toBe("v1.19.31");
    expect(await s.proxyNow()).toBe(chosen);
    expect((await s.h.request("GET", "/settings")).json.selectedNode).toBe(node);
    expect(await s.info()).toMatchObject({ version: "v1.19.31", previousVersion: "v1.19.30" });
  });

  it("puts the previous core back and starts it when the new one does not run", async () => {
    const s = await service();
    rel.set({ tag: "v1.19.30", variant: "good", mode: "ok" });
    expect((await s.install()).status).toBe(200);
    await s.pick("Osaka");
    await s.start();
    const chosen = await s.proxyNow();
    const before = s.snapshot();
    rel.set({ tag: "v1.19.31", variant: "exits" });
    const r = await s.install();
    expect(r.status, r.text).toBe(400);
    expect(r.json.code).toBe("install.restart_failed");
    expect(r.json.output).toContain("Start TUN listening error");
    expect(s.snapshot()).toEqual(before);
    // Running again, on the old binary, with the node chosen again.
    expect(await s.version()).toBe("v1.19.30");
    expect(await s.proxyNow()).toBe(chosen);
    expect(s.manager.running()).toBe(true);
    expect((await s.h.request("GET", "/status")).json).toMatchObject({
      coreOnline: true,
      configError: "",
    });
  });

  it("answers 409 to a second install while one runs, and shows the download's progress", async () => {
    const s = await service();
    rel.set({ tag: "v1.19.30", variant: "good", mode: "hold" });
    const first = s.install();
    let info = await s.info();
    for (let i = 0; i < 300 && !(info.progress?.bytesDone > 0); i++) {
      await new Promise((r) => setTimeout(r, 10));
      info = await s.info();
    }
    expect(info.installing).toBe(true);
    expect(info.progress).toMatchObject({ phase: "download", bytesTotal: rel.archive.length });
    expect(info.progress.bytesDone).toBeGreaterThan(0);
    expect(info.progress.bytesDone).toBeLessThan(rel.archive.length);
    const second = await s.install();
    expect(second.status).toBe(409);
    expect(second.json.code).toBe("install.busy");
    expect((await s.rollback()).status).toBe(409);
    rel.release();
    expect((await first).status).toBe(200);
    expect(await s.info()).toMatchObject({ installing: false, progress: null });
    expect(Object.keys(s.snapshot())).toEqual(["mihomo"]);
  });

  it("refuses a body with fields", async () => {
    const s = await service();
    const r = await s.h.request("POST", "/system/core/install", { body: { version: "v1" } });
    expect(r.status).toBe(400);
    expect(r.json.code).toBe("request.unknown_field");
  });
});

describe("a Windows release", () => {
  it("installs mihomo.exe from the zip and updates a running core on it", async () => {
    // Windows does not let a running executable be replaced; a zip holds the .exe.
    const win = await startCoreReleaseServer({ platform: "win32", arch: "x64" });
    try {
      const s = (c = await installService(win.url, { platform: "win32", arch: "x64" }));
      const r = await s.install();
      expect(r.status, r.text).toBe(200);
      expect(Object.keys(s.snapshot())).toEqual(["mihomo.exe"]);
      expect(win.requests).toContain("/download/mihomo-windows-amd64-v1.19.30.zip");
      expect(readFileSync(join(s.coreDir, "mihomo.exe"), "utf8")).toContain("v1.19.30");
      await s.start();
      const pid = s.pid;
      win.set({ tag: "v1.19.31" });
      expect((await s.install()).status).toBe(200);
      expect(Object.keys(s.snapshot())).toEqual(["mihomo.exe", "mihomo.previous"]);
      expect(s.pid).not.toBe(pid);
      expect(await s.version()).toBe("v1.19.31");
      expect(await s.info()).toMatchObject({ version: "v1.19.31", previousVersion: "v1.19.30" });
    } finally {
      await win.close();
    }
  });
});

describe("POST /system/core/rollback", () => {
  it("answers 400 when there is no previous core", async () => {
    const s = await service();
    const r = await s.rollback();
    expect(r.status).toBe(400);
    expect(r.json.code).toBe("install.no_previous");
    rel.set({ tag: "v1.19.30", variant: "good", mode: "ok" });
    expect((await s.install()).status).toBe(200);
    expect((await s.rollback()).status).toBe(400);
    expect(Object.keys(s.snapshot())).toEqual(["mihomo"]);
  });

  it("swaps the installed and the previous core and restarts a running one", async () => {
    const s = await service();
    rel.set({ tag: "v1.19.30", variant: "good", mode: "ok" });
    expect((await s.install()).status).toBe(200);
    rel.set({ tag: "v1.19.31" });
    expect((await s.install()).status).toBe(200);
    await s.pick("Tokyo");
    await s.start();
    const chosen = await s.proxyNow();
    expect(await s.version()).toBe("v1.19.31");

    const r = await s.rollback();
    expect(r.status, r.text).toBe(200);
    expect(r.json).toEqual({ ok: true, version: "v1.19.30" });
    expect(s.script()).toContain("v1.19.30");
    expect(s.script("mihomo.previous")).toContain("v1.19.31");
    expect(Object.keys(s.snapshot())).toEqual(["mihomo", "mihomo.previous"]);
    expect(await s.version()).toBe("v1.19.30");
    expect(await s.proxyNow()).toBe(chosen);
    expect(await s.info()).toMatchObject({ version: "v1.19.30", previousVersion: "v1.19.31" });

    // And forward again.
    expect((await s.rollback()).json.version).toBe("v1.19.31");
    expect(await s.version()).toBe("v1.19.31");
  });
});
