import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "yaml";
import { afterEach, describe, expect, it } from "vitest";
import { ConfigError, DEFAULT_GEODATA_URL, parseConfig } from "../../server/config.js";
import { compileConfig, compileRules } from "../../server/proxy/core/compile.js";
import {
  checkableYaml,
  findGeodata,
  neededGeodata,
  recordGeodata,
  seedBundledGeodata,
} from "../../server/proxy/core/geodata.js";
import { DEFAULT_SETTINGS } from "../../server/proxy/types.js";

const dirs: string[] = [];
const tmp = () => {
  const d = mkdtempSync(join(tmpdir(), "gh-geodata-unit-"));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe("--geodata-url", () => {
  const env = { PATH: "" };
  it("defaults to the geodata project's release and takes the option or the environment", () => {
    const c = parseConfig([], env);
    if (c === "help") throw new Error("help");
    expect(c.geodataURL).toBe(DEFAULT_GEODATA_URL);
    const o = parseConfig(["--geodata-url", "http://10.0.0.2:8080/geo/"], env);
    if (o === "help") throw new Error("help");
    expect(o.geodataURL).toBe("http://10.0.0.2:8080/geo");
    const e = parseConfig([], { ...env, GATEHOUSE_GEODATA_URL: "https://mirror.example/geo" });
    if (e === "help") throw new Error("help");
    expect(e.geodataURL).toBe("https://mirror.example/geo");
  });
  it.each([["ftp://x/geo"], ["not a url"]])("refuses %s", (url) => {
    expect(() => parseConfig(["--geodata-url", url], env)).toThrow(ConfigError);
  });
});

describe("the compiled configuration's geodata", () => {
  it("turns the core's own downloads off and names only the files its rules need", () => {
    const yaml = compileConfig(
      { settings: DEFAULT_SETTINGS, subscriptions: [], rules: [] },
      { controllerPort: 19090, secret: "s" },
    ).yaml;
    const doc = parse(yaml) as Record<string, unknown>;
    expect(doc["geo-auto-update"]).toBe(false);
    expect(doc["geodata-mode"]).toBe(false);
    expect(doc["geox-url"]).toBeUndefined();
    expect(neededGeodata(compileRules([]))).toEqual(["geoip.metadb", "geosite.dat"]);
    expect(neededGeodata(["MATCH,PROXY", "GEOSITE,cn,DIRECT"])).toEqual(["geosite.dat"]);
    expect(neededGeodata(["DOMAIN,a.example,DIRECT"])).toEqual([]);
  });

  it("leaves the rules that read missing geodata out of the configuration the core checks", () => {
    const home = tmp();
    const yaml = compileConfig(
      { settings: DEFAULT_SETTINGS, subscriptions: [], rules: [] },
      { controllerPort: 19090, secret: "s" },
    ).yaml;
    const checked = parse(checkableYaml(yaml, home)) as { rules: string[] };
    expect(checked.rules.some((r) => r.startsWith("GEO"))).toBe(false);
    expect(checked.rules.at(-1)).toBe("MATCH,PROXY");
    writeFileSync(join(home, "geoip.metadb"), "x");
    writeFileSync(join(home, "GeoSite.dat"), "x");
    // Present (GeoSite.dat in any letter case, as the core finds it): checked as compiled.
    expect(checkableYaml(yaml, home)).toBe(yaml);
    expect(findGeodata(home, "geosite.dat")).toBe(join(home, "GeoSite.dat"));
  });

  it("copies shipped files, refuses one that differs from its pinned checksum, and never replaces a downloaded one", () => {
    const home = tmp();
    const root = tmp();
    const shared = join(root, "shared");
    mkdirSync(shared);
    writeFileSync(join(shared, "geosite.dat"), "site");
    writeFileSync(join(shared, "geoip.metadb"), "ip");
    writeFileSync(
      join(root, "manifest.json"),
      JSON.stringify({
        geodata: {
          files: [
            { name: "geoip.metadb", sha256: "0".repeat(64) },
            { name: "geosite.dat", sha256: null },
          ],
        },
      }),
    );
    const r = seedBundledGeodata(home, ["geoip.metadb", "geosite.dat"], [shared], 0);
    expect(r).toEqual({ copied: ["geosite.dat"], refused: ["geoip.metadb"] });
    expect(findGeodata(home, "geoip.metadb")).toBeNull();
    // A newer shipped file replaces one that came from the app...
    writeFileSync(join(shared, "geosite.dat"), "site v2");
    seedBundledGeodata(home, ["geosite.dat"], [shared], 1);
    expect(readFileSync(join(home, "geosite.dat"), "utf8")).toBe("site v2");
    // ...but never one the operator downloaded.
    writeFileSync(join(home, "geosite.dat"), "downloaded");
    recordGeodata(home, [{ name: "geosite.dat", sha256: "d".repeat(64), source: "download" }], 2);
    writeFileSync(join(shared, "geosite.dat"), "site v3");
    expect(seedBundledGeodata(home, ["geosite.dat"], [shared], 3).copied).toEqual([]);
    expect(readFileSync(join(home, "geosite.dat"), "utf8")).toBe("downloaded");
  });
});
