import { execFile } from "node:child_process";
import { copyFileSync, existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { compileConfig } from "../../server/proxy/core/compile.js";
import { DEFAULT_SETTINGS } from "../../server/proxy/types.js";
import { FIXTURE_GEODATA_DIR, geoSiteBytes } from "../fixtures/geodata-server.js";

const FAKE_CORE = resolve("test/fixtures/fake-core.mjs");
let home = "";

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), "gh-sim-geodata-"));
});
afterEach(() => rmSync(home, { recursive: true, force: true }));

function run(args: string[]): Promise<{ code: number; out: string }> {
  return new Promise((done) => {
    execFile(process.execPath, [FAKE_CORE, ...args], { timeout: 10_000 }, (err, stdout, stderr) =>
      done({ code: err ? Number(err.code ?? 1) : 0, out: `${stdout}${stderr}` }),
    );
  });
}

/** Gatehouse's configuration: GEOSITE,cn and GEOIP,CN rules, geo-auto-update: false. */
function writeCompiled(): string {
  const { yaml } = compileConfig(
    { settings: { ...DEFAULT_SETTINGS, mixedPort: 0 }, subscriptions: [], rules: [] },
    { controllerPort: 0, secret: "s".repeat(32) },
  );
  const file = join(home, "config.yaml");
  writeFileSync(file, yaml);
  return file;
}

const put = (name: string) => copyFileSync(join(FIXTURE_GEODATA_DIR, name), join(home, name));

describe("the fake core's geodata, as mihomo reads it", () => {
  it("-t fails in mihomo's words for each missing file, and passes once both are there", async () => {
    const file = writeCompiled();
    const none = await run(["-d", home, "-t", "-f", file]);
    expect(none.code).toBe(1);
    expect(none.out).toMatch(/\[GEOSITE,cn,DIRECT\] error: can't download GeoSite\.dat: Get/);
    put("geosite.dat");
    const noIp = await run(["-d", home, "-t", "-f", file]);
    expect(noIp.code).toBe(1);
    expect(noIp.out).toMatch(/\[GEOIP,CN,DIRECT,no-resolve\] error: can't download MMDB: Get/);
    put("geoip.metadb");
    const ok = await run(["-d", home, "-t", "-f", file]);
    expect(ok.code).toBe(0);
    expect(ok.out).toContain("test is successful");
  });

  it("refuses to start without geodata, and never creates the files itself", async () => {
    const file = writeCompiled();
    const r = await run(["-d", home, "-f", file]);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(
      /level=fatal msg="Parse config error: rules\[\d+\] \[GEOSITE,cn,DIRECT\]/,
    );
    expect(existsSync(join(home, "geosite.dat"))).toBe(false);
    expect(existsSync(join(home, "GeoSite.dat"))).toBe(false);
  });

  it("removes a file that does not verify, as mihomo does before downloading another", async () => {
    const file = writeCompiled();
    put("geoip.metadb");
    writeFileSync(join(home, "geosite.dat"), geoSiteBytes(["US"]));
    const r = await run(["-d", home, "-t", "-f", file]);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/can't download GeoSite\.dat/);
    expect(existsSync(join(home, "geosite.dat"))).toBe(false);
    writeFileSync(join(home, "geoip.metadb"), "not a MaxMind DB");
    put("geosite.dat");
    const bad = await run(["-d", home, "-t", "-f", file]);
    expect(bad.code).toBe(1);
    expect(bad.out).toMatch(/can't download MMDB/);
  });
});
