import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { geodataList } from "../../server/proxy/core/geodata.js";
import { DEFAULT_SETTINGS } from "../../server/proxy/types.js";
import {
  FIXTURE_GEODATA_DIR,
  geoSiteBytes,
  mmdbBytes,
  sha256,
  startGeodataServer,
  type GeodataServer,
} from "../fixtures/geodata-server.js";
import { startProxy, type HarnessOptions, type ProxyHarness } from "./proxy-api-harness.js";
import { freePort, refusedPort } from "./proxy-core-harness.js";

const FAKE_CORE = resolve("test/fixtures/fake-core.mjs");

let h: ProxyHarness | null = null;
let server: GeodataServer | null = null;
const dirs: string[] = [];

afterEach(async () => {
  await h?.close();
  h = null;
  await server?.close();
  server = null;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function emptyDir(): string {
  const d = mkdtempSync(join(tmpdir(), "gh-no-geodata-"));
  dirs.push(d);
  return d;
}

async function service(options: HarnessOptions = {}): Promise<ProxyHarness> {
  h = await startProxy({ coreBin: FAKE_CORE, controllerPort: await freePort(), ...options });
  await h.setup();
  // Never the default mixed port (parallel tests and real cores use it).
  const put = await h.request("PUT", "/settings", {
    body: { ...DEFAULT_SETTINGS, mixedPort: await freePort(), dnsPort: await freePort() },
  });
  expect(put.status).toBe(200);
  return h;
}

const home = () => join(h!.dataDir, "proxy", "core");
const read = (name: string) => readFileSync(join(home(), name));
const leftovers = () => readdirSync(home()).filter((n) => /^geodata\.(staging|previous)-/.test(n));

describe("geodata the core needs", () => {
  it("copies the shipped geodata into the core's home when the core starts, and lists it", async () => {
    await service();
    // A promoted configuration already brought them; one gone since is copied back at start.
    rmSync(join(home(), "geosite.dat"));
    expect(geodataList(home()).map((f) => f.name)).toEqual(["geoip.metadb"]);
    h!.clock.advance(60_000);
    const start = await h!.request("POST", "/system/service", { body: { action: "start" } });
    expect(start.status).toBe(200);
    for (const name of ["geoip.metadb", "geosite.dat"])
      expect(read(name).equals(readFileSync(join(FIXTURE_GEODATA_DIR, name)))).toBe(true);
    expect(geodataList(home())).toEqual(
      ["geoip.metadb", "geosite.dat"].map((name) => ({
        name,
        size: readFileSync(join(FIXTURE_GEODATA_DIR, name)).length,
        sha256: sha256(readFileSync(join(FIXTURE_GEODATA_DIR, name))),
        // geoip.metadb came with the first configuration, geosite.dat again at the start.
        updatedAt: new Date(h!.clock.now() - (name === "geoip.metadb" ? 60_000 : 0)).toISOString(),
      })),
    );
    const config = readFileSync(join(home(), "config.yaml"), "utf8");
    expect(config).toMatch(/^geo-auto-update: false$/m);
    expect(config).toMatch(/^geodata-mode: false$/m);
  });

  it("refuses a start with a file missing (400 naming it and the update), and /status says so", async () => {
    await service({ geodataDirs: [emptyDir()] });
    const status0 = await h!.request("GET", "/status");
    expect(status0.json.geodataMissing).toEqual(["geoip.metadb", "geosite.dat"]);
    const start = await h!.request("POST", "/system/service", { body: { action: "start" } });
    expect(start.status).toBe(400);
    expect(start.json.code).toBe("geodata.missing");
    expect(start.json.params).toEqual({ file: "geoip.metadb" });
    expect(start.json.error).toContain("geoip.metadb");
    expect(start.json.error).toContain("POST /system/geodata/update");
    const status = await h!.request("GET", "/status");
    expect(status.json.coreOnline).toBe(false);
    expect(status.json.configErrorCode).toBe("geodata.missing");
    const restart = await h!.request("POST", "/system/service", { body: { action: "restart" } });
    expect(restart.status).toBe(400);
    expect(restart.json.code).toBe("geodata.missing");
  });

  it("updates from the geodata server: verified, checked, swapped in with the old set kept", async () => {
    server = await startGeodataServer();
    await service({ geodataDirs: [emptyDir()], geodataURL: server.url });
    const first = await h!.request("POST", "/system/geodata/update", { body: {} });
    expect(first.status).toBe(200);
    expect(first.json).toEqual({
      ok: true,
      files: ["geoip.metadb", "geosite.dat"].map((name) => ({
        name,
        sha256: sha256(server!.files.get(name)!),
      })),
    });
    expect(server.requests).toEqual([
      "/geoip.metadb.sha256sum",
      "/geoip.metadb",
      "/geosite.dat.sha256sum",
      "/geosite.dat",
    ]);
    expect(read("geosite.dat").equals(server.files.get("geosite.dat")!)).toBe(true);
    expect((await h!.request("GET", "/status")).json.geodataMissing).toEqual([]);
    const start = await h!.request("POST", "/system/service", { body: { action: "start" } });
    expect(start.status).toBe(200);

    const old = read("geosite.dat");
    server.files.set("geosite.dat", geoSiteBytes(["CN", "APPLE"]));
    const second = await h!.request("POST", "/system/geodata/update", { body: {} });
    expect(second.status).toBe(200);
    expect(read("geosite.dat").equals(geoSiteBytes(["CN", "APPLE"]))).toBe(true);
    expect(read(join("geodata.previous", "geosite.dat")).equals(old)).toBe(true);
    expect(leftovers()).toEqual([]);
  });

  it("refuses a file that differs from its published checksum (400), leaving the set as it was", async () => {
    server = await startGeodataServer();
    await service({ geodataURL: server.url });
    expect(
      (await h!.request("POST", "/system/service", { body: { action: "start" } })).status,
    ).toBe(200);
    const before = read("geosite.dat");
    server.files.set("geosite.dat", geoSiteBytes(["CN", "EVIL"]));
    server.sums.set("geosite.dat", sha256(geoSiteBytes(["CN"])).replace(/^./, "0"));
    const r = await h!.request("POST", "/system/geodata/update", { body: {} });
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ code: "geodata.checksum", params: { file: "geosite.dat" } });
    expect(read("geosite.dat").equals(before)).toBe(true);
    expect(
      read("geoip.metadb").equals(readFileSync(join(FIXTURE_GEODATA_DIR, "geoip.metadb"))),
    ).toBe(true);
    expect(leftovers()).toEqual([]);
  });

  it("answers 502 when the geodata server cannot be reached", async () => {
    await service({ geodataURL: `http://127.0.0.1:${await refusedPort()}` });
    const r = await h!.request("POST", "/system/geodata/update", { body: {} });
    expect(r.status).toBe(502);
    expect(r.json).toMatchObject({ code: "geodata.unreachable", params: { file: "geoip.metadb" } });
    expect(leftovers()).toEqual([]);
  });

  it("keeps the old set when the core's -t refuses the new one (400 with the core's words)", async () => {
    // Checksums match, but the site list lacks the `cn` list the rules read: mihomo refuses
    // it (and would download another, which it must not).
    server = await startGeodataServer({
      "geoip.metadb": mmdbBytes("new"),
      "geosite.dat": geoSiteBytes(["US"]),
    });
    await service({ geodataURL: server.url });
    expect(
      (await h!.request("POST", "/system/service", { body: { action: "start" } })).status,
    ).toBe(200);
    const before = [read("geoip.metadb"), read("geosite.dat")];
    const r = await h!.request("POST", "/system/geodata/update", { body: {} });
    expect(r.status).toBe(400);
    expect(r.json.code).toBe("geodata.rejected");
    expect(r.json.params.detail).toMatch(/GEOSITE,cn,DIRECT\] error: can't download GeoSite\.dat/);
    // The check was pointed nowhere: the core never went to the internet for data.
    expect(r.json.params.detail).toContain("127.0.0.1:9");
    // The core's words name the file, never where this machine keeps it.
    expect(r.json.params.detail).toMatch(/configuration file config\.yaml test failed/);
    expect(r.text).not.toContain(h!.dataDir);
    expect(r.text).not.toMatch(/geodata\.staging/);
    expect(read("geoip.metadb").equals(before[0])).toBe(true);
    expect(read("geosite.dat").equals(before[1])).toBe(true);
    expect(leftovers()).toEqual([]);
  });

  it("takes no body at all as an empty one, as the core's install does", async () => {
    server = await startGeodataServer();
    await service({ geodataURL: server.url });
    const r = await h!.request("POST", "/system/geodata/update");
    expect(r.status, r.text).toBe(200);
    expect(r.json.ok).toBe(true);
  });

  it("refuses a body with members (400) and a second update at once (409)", async () => {
    server = await startGeodataServer();
    await service({ geodataURL: server.url });
    const bad = await h!.request("POST", "/system/geodata/update", { body: { url: "x" } });
    expect(bad.status).toBe(400);
    const [a, b] = await Promise.all([
      h!.request("POST", "/system/geodata/update", { body: {} }),
      h!.request("POST", "/system/geodata/update", { body: {} }),
    ]);
    expect([a.status, b.status].sort()).toEqual([200, 409]);
    expect([a, b].find((x) => x.status === 409)!.json.code).toBe("geodata.busy");
  });
});
