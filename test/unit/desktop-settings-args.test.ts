import { describe, expect, it } from "vitest";
import { join } from "node:path";
import { parseConfig } from "../../server/config.js";
import { DESKTOP_DEFAULTS, type DesktopSettings } from "../../main/settings/schema.js";
import { bundledCorePath, servicesArgs, servicesEnv } from "../../main/settings/services-args.js";
import type { DetectedInterface } from "../../main/entries/detect.js";

const detected: DetectedInterface[] = [
  { name: "eth0", address: "192.168.1.20", virtual: false },
  { name: "wlan0", address: "10.0.0.7", virtual: false },
  { name: "docker0", address: "172.17.0.1", virtual: true },
];
const ctx = { dataDir: "/var/lib/gatehouse-test", detected };
const settings = (patch: Partial<DesktopSettings> = {}): DesktopSettings => ({
  ...DESKTOP_DEFAULTS,
  ...patch,
});

/** What the services make of the command line: the real parser, so both sides agree. */
function parsed(args: string[], env: NodeJS.ProcessEnv = {}) {
  const config = parseConfig(args, env);
  if (config === "help") throw new Error("help");
  return config;
}

describe("servicesArgs", () => {
  it("turns the defaults into a command line the services accept", () => {
    const args = servicesArgs(settings(), {}, ctx);
    const config = parsed(args);
    expect(config).toMatchObject({
      dataDir: "/var/lib/gatehouse-test",
      host: "0.0.0.0",
      parcelPort: 8000,
      parcelHttpsPort: null,
      proxyPort: 8080,
      coreService: "process",
      entries: [
        "http://127.0.0.1:8000",
        "http://localhost:8000",
        "http://192.168.1.20:8000",
        "http://10.0.0.7:8000",
      ],
    });
  });

  it("names only the chosen addresses, with HTTPS entries when it is on", () => {
    const args = servicesArgs(
      settings({ entries: ["10.0.0.7"], httpsEnabled: true, parcelHttpsPort: 8443 }),
      {},
      ctx,
    );
    expect(parsed(args)).toMatchObject({
      parcelHttpsPort: 8443,
      entries: [
        "http://127.0.0.1:8000",
        "http://localhost:8000",
        "http://10.0.0.7:8000",
        "https://127.0.0.1:8443",
        "https://localhost:8443",
        "https://10.0.0.7:8443",
      ],
    });
  });

  it("passes the core program and the systemd unit", () => {
    const args = servicesArgs(
      settings({
        coreBinary: "/opt/mihomo/mihomo",
        coreServiceMode: "systemd",
        coreUnit: "m.service",
      }),
      {},
      ctx,
    );
    expect(parsed(args)).toMatchObject({
      coreBin: "/opt/mihomo/mihomo",
      coreService: "systemd",
      coreUnit: "m.service",
    });
    // The app's own core is no --core-bin (that would always beat a core installed from the
    // console): it is handed over in the environment, as the services' bundled core.
    expect(servicesArgs(settings(), {}, ctx)).not.toContain("--core-bin");
    expect(servicesEnv("/app/core/mihomo")).toEqual({ GATEHOUSE_BUNDLED_CORE: "/app/core/mihomo" });
    expect(servicesEnv(null)).toEqual({});
  });

  it("lets the environment override ports and host; with port 0 the services derive entries", () => {
    const env = {
      GATEHOUSE_PARCEL_PORT: "0",
      GATEHOUSE_PROXY_PORT: "0",
      GATEHOUSE_HOST: "127.0.0.1",
      GATEHOUSE_CORE_BIN: "/tmp/fake-core",
    };
    const args = servicesArgs(settings({ coreBinary: "/opt/mihomo/mihomo" }), env, ctx);
    expect(args).not.toContain("--entry");
    expect(parsed(args)).toMatchObject({
      host: "127.0.0.1",
      parcelPort: 0,
      proxyPort: 0,
      coreBin: "/tmp/fake-core",
      entries: [],
    });
  });

  it("passes a malformed override on for the services to refuse by name", () => {
    const args = servicesArgs(settings(), { GATEHOUSE_PARCEL_PORT: "eighty" }, ctx);
    expect(() => parsed(args)).toThrow(/--parcel-port must be a port number/);
  });

  it("turns the LAN name off with --no-mdns, and leaves it on by default", () => {
    expect(DESKTOP_DEFAULTS.lanName).toBe(true);
    expect(servicesArgs(settings(), {}, ctx)).not.toContain("--no-mdns");
    expect(parsed(servicesArgs(settings(), {}, ctx)).mdns).toBe(true);
    const off = servicesArgs(settings({ lanName: false }), {}, ctx);
    expect(off).toContain("--no-mdns");
    expect(parsed(off).mdns).toBe(false);
  });

  it("opens the window on the one address the services listen on", () => {
    const args = servicesArgs(settings({ host: "192.168.1.20" }), {}, ctx);
    expect(parsed(args).entries).toEqual(["http://192.168.1.20:8000"]);
  });
});

describe("bundledCorePath", () => {
  const exists = (files: string[]) => (p: string) => files.includes(p);

  it("finds the core beside an installed app's resources", () => {
    const path = join("/opt/Gatehouse/resources", "core", "mihomo");
    expect(
      bundledCorePath({
        packaged: true,
        base: "/opt/Gatehouse/resources",
        platform: "linux",
        exists: exists([path]),
      }),
    ).toBe(path);
    const exe = join("C:/Gatehouse/resources", "core", "mihomo.exe");
    expect(
      bundledCorePath({
        packaged: true,
        base: "C:/Gatehouse/resources",
        platform: "win32",
        exists: exists([exe]),
      }),
    ).toBe(exe);
  });

  it("finds the fetched core of this OS and arch in a checkout, and null when absent", () => {
    const path = join("/src/gatehouse", "resources", "core", "mac-arm64", "mihomo");
    const options = {
      packaged: false,
      base: "/src/gatehouse",
      platform: "darwin" as const,
      arch: "arm64",
    };
    expect(bundledCorePath({ ...options, exists: exists([path]) })).toBe(path);
    expect(bundledCorePath({ ...options, exists: exists([]) })).toBeNull();
  });
});
