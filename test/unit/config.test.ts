import { describe, expect, it } from "vitest";
import { existsSync, mkdtempSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  ConfigError,
  defaultDataDir,
  deriveEntries,
  parseConfig,
  prepareDataDir,
} from "../../server/config.js";

const lan = {
  lo: [{ address: "127.0.0.1", family: "IPv4", internal: true }],
  eth0: [
    { address: "192.168.1.20", family: "IPv4", internal: false },
    { address: "fe80::1", family: "IPv6", internal: false },
  ],
  wlan0: [{ address: "10.0.0.5", family: "IPv4", internal: false }],
} as unknown as Parameters<typeof deriveEntries>[3];

describe("deriveEntries", () => {
  it("lists loopback names then each LAN IPv4 address when bound to 0.0.0.0", () => {
    expect(deriveEntries("0.0.0.0", 8000, null, lan)).toEqual([
      "http://127.0.0.1:8000",
      "http://localhost:8000",
      "http://192.168.1.20:8000",
      "http://10.0.0.5:8000",
    ]);
  });
  it("adds the https twins when HTTPS is on", () => {
    const e = deriveEntries("0.0.0.0", 8000, 8443, lan);
    expect(e).toContain("https://192.168.1.20:8443");
    expect(e).toContain("https://127.0.0.1:8443");
    expect(e).toHaveLength(8);
  });
  it("uses only the bound address otherwise", () => {
    expect(deriveEntries("192.168.1.20", 8000, null, lan)).toEqual(["http://192.168.1.20:8000"]);
  });
});

describe("parseConfig", () => {
  const env = { HOME: "/home/u", PATH: "" };
  it("applies the contract's defaults", () => {
    const c = parseConfig([], env);
    if (c === "help") throw new Error("unexpected help");
    expect(c).toMatchObject({
      host: "0.0.0.0",
      parcelPort: 8000,
      parcelHttpsPort: null,
      proxyPort: 8080,
      coreService: "process",
      coreUnit: "gatehouse-mihomo.service",
      parcel: true,
      proxy: true,
      adminUser: "admin",
    });
    expect(c.dataDir).toBe(defaultDataDir(env));
  });
  it("reads environment variables and repeatable entries", () => {
    const c = parseConfig(["--entry", "http://a.lan:8000", "--entry", "https://b.lan"], {
      ...env,
      GATEHOUSE_DATA_DIR: "/tmp/gh",
      GATEHOUSE_CORE_BIN: "/opt/mihomo",
      GATEHOUSE_ADMIN_USER: "root",
      GATEHOUSE_ADMIN_PASSWORD: "pw-123456789",
      GATEHOUSE_CORE_RELEASE_URL: "http://127.0.0.1:9/latest",
    });
    if (c === "help") throw new Error("unexpected help");
    expect(c.entries).toEqual(["http://a.lan:8000", "https://b.lan"]);
    expect(c).toMatchObject({
      dataDir: "/tmp/gh",
      coreBin: "/opt/mihomo",
      adminUser: "root",
      adminPassword: "pw-123456789",
      coreReleaseURL: "http://127.0.0.1:9/latest",
    });
  });
  it.each([
    [["--parcel-port", "70000"]],
    [["--parcel-port", "abc"]],
    [["--bogus"]],
    [["--core-service", "docker"]],
    [["--core-unit", "x; rm -rf /"]],
    [["--tls-cert", "a.pem"]],
    [["--entry", "ftp://x"]],
    [["--entry", "http://x/path"]],
    [["--parcel-only", "--proxy-only"]],
    [["positional"]],
    [["--log-level", "verbose"]],
    [["--log-level", "INFO"]],
  ])("rejects %j with a ConfigError", (args) => {
    expect(() => parseConfig(args, env)).toThrow(ConfigError);
  });
  it("logs at info unless --log-level or GATEHOUSE_LOG_LEVEL says otherwise", () => {
    const level = (args: string[], e: NodeJS.ProcessEnv = env) => {
      const c = parseConfig(args, e);
      if (c === "help") throw new Error("unexpected help");
      return c.logLevel;
    };
    expect(level([])).toBe("info");
    expect(level([], { ...env, GATEHOUSE_LOG_LEVEL: "" })).toBe("info");
    expect(level([], { ...env, GATEHOUSE_LOG_LEVEL: "debug" })).toBe("debug");
    for (const l of ["fatal", "error", "warn", "info", "debug", "trace", "silent"])
      expect(level(["--log-level", l], { ...env, GATEHOUSE_LOG_LEVEL: "debug" })).toBe(l);
  });
  it("names the accepted levels when the environment gives another", () => {
    expect(() => parseConfig([], { ...env, GATEHOUSE_LOG_LEVEL: "loud" })).toThrow(
      '--log-level must be one of fatal, error, warn, info, debug, trace, silent, not "loud"',
    );
  });
});

describe("prepareDataDir", () => {
  it("creates missing levels private to the user", () => {
    const base = mkdtempSync(join(tmpdir(), "gh-dd-"));
    const dir = join(base, "a", "b", "gatehouse");
    prepareDataDir(dir);
    expect(statSync(dir).isDirectory()).toBe(true);
    expect(statSync(join(base, "a")).mode & 0o777).toBe(0o700);
  });

  it.skipIf(!existsSync("/proc/self"))(
    "refuses a place no directory can be made in, at once (Node's recursive mkdir spins forever under /proc)",
    () => {
      expect(() => prepareDataDir("/proc/gatehouse-nope/data")).toThrow(ConfigError);
    },
  );
});
