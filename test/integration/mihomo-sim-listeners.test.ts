import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import http from "node:http";
import net, { type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse, stringify } from "yaml";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { compileConfig } from "../../server/proxy/core/compile.js";
import { DEFAULT_SETTINGS, type Settings } from "../../server/proxy/types.js";
import {
  buildConfig,
  createListeners,
  createMihomoSim,
  remoteAllowed,
  type MihomoSim,
  type SimGeneral,
} from "../fixtures/mihomo-sim/index.mjs";
import { freePort, waitFor } from "./proxy-core-harness.js";
import { FIXTURE_GEODATA_DIR } from "../fixtures/geodata-server.js";

// Addresses of 127.0.0.0/8 other than 127.0.0.1 stand in for LAN hosts: Linux answers on
// all of them, so a listener bound to "every address" would answer on each.
const onLinux = process.platform === "linux";
const SECRET = "s3cret";

let home = "";
let sim: MihomoSim | null = null;
let listeners: ReturnType<typeof createListeners> | null = null;
let site: http.Server | null = null;
let sitePort = 0;
const logs: string[] = [];

beforeEach(async () => {
  home = mkdtempSync(join(tmpdir(), "gatehouse-sim-listen-"));
  logs.length = 0;
  site = http.createServer((_req, res) => res.end("hello"));
  await new Promise<void>((r) => site?.listen(0, "127.0.0.1", r));
  sitePort = (site.address() as AddressInfo).port;
});
afterEach(async () => {
  await listeners?.close();
  await sim?.close();
  listeners = null;
  sim = null;
  site?.closeAllConnections();
  await new Promise((r) => site?.close(r));
  rmSync(home, { recursive: true, force: true });
});

/** Starts a simulator whose listeners really open, as the fake core's do. */
async function start(config: Record<string, unknown>): Promise<MihomoSim> {
  const set = createListeners();
  listeners = set;
  let change: Promise<void> = Promise.resolve();
  let self: MihomoSim | null = null;
  const pending: Array<[SimGeneral, SimGeneral | null]> = [];
  sim = createMihomoSim({
    config: { "external-controller": "127.0.0.1:0", secret: SECRET, ...config },
    homeDir: home,
    healthChecks: false,
    output: (line) => logs.push(line),
    onListeners: (general, previous) => {
      if (!self) pending.push([general, previous]);
      else change = change.then(() => set.update(self as MihomoSim, general, previous));
    },
  });
  self = sim;
  for (const [general, previous] of pending) {
    change = change.then(() => set.update(self as MihomoSim, general, previous));
  }
  await change;
  await sim.listen("127.0.0.1", 0);
  return sim;
}

/**
 * Asks the proxy at host:port for a tunnel to the local site: "open" when it is granted,
 * "closed" when the proxy hangs up without answering, "refused" when nothing listens.
 */
function tunnel(host: string, port: number, localAddress?: string): Promise<string> {
  return new Promise((resolve) => {
    const sock = net.connect({ host, port, localAddress });
    let got = "";
    sock.on("data", (c: Buffer) => {
      got += c.toString("latin1");
      if (got.includes("\r\n\r\n")) {
        sock.destroy();
        resolve(/^HTTP\/1\.1 200 /.test(got) ? "open" : `answered ${got.split("\r\n")[0]}`);
      }
    });
    sock.on("error", (err: NodeJS.ErrnoException) =>
      resolve(err.code === "ECONNREFUSED" ? "refused" : "closed"),
    );
    sock.on("close", () => resolve("closed"));
    sock.write(`CONNECT 127.0.0.1:${sitePort} HTTP/1.1\r\nHost: 127.0.0.1:${sitePort}\r\n\r\n`);
  });
}

const DIRECT_ONLY = { mode: "direct", rules: ["MATCH,DIRECT"] };

describe("mihomo simulator: listeners and the LAN address filter", () => {
  it("reads lan-allowed-ips, lan-disallowed-ips and listeners with mihomo's defaults", () => {
    const def = buildConfig({}, { homeDir: home }) as { general: SimGeneral };
    expect(def.general.lanAllowedIPs).toEqual(["0.0.0.0/0", "::/0"]);
    expect(def.general.lanDisallowedIPs).toEqual([]);
    expect(def.general.listeners).toEqual([]);
    const cfg = buildConfig(
      {
        "lan-allowed-ips": ["192.168.1.0/24", "::1/128"],
        "lan-disallowed-ips": ["192.168.1.9/32"],
        listeners: [
          { name: "lan", type: "mixed", listen: "192.168.1.2", port: "7890" },
          { name: "bare", type: "mixed", port: 7891, udp: false, users: [] },
        ],
      },
      { homeDir: home },
    ) as { general: SimGeneral };
    expect(cfg.general.listeners).toEqual([
      { name: "lan", type: "mixed", listen: "192.168.1.2", port: 7890, udp: true, ownUsers: false },
      // mihomo binds an entry without `listen` to every IPv4 address.
      { name: "bare", type: "mixed", listen: "0.0.0.0", port: 7891, udp: false, ownUsers: true },
    ]);
    expect(cfg.general.lanDisallowedIPs).toEqual(["192.168.1.9/32"]);
  });

  it.each([
    [{ "lan-allowed-ips": ["192.168.1.0"] }, `netip.ParsePrefix("192.168.1.0"): no '/'`],
    [{ "lan-allowed-ips": ["10.0.0.0/33"] }, "prefix length out of range"],
    [{ "lan-disallowed-ips": ["lan/24"] }, `ParseAddr("lan"): unable to parse IP`],
    [{ "lan-allowed-ips": "10.0.0.0/8" }, "into lan-allowed-ips ([]netip.Prefix)"],
    [{ listeners: [{ name: "x", port: 1 }] }, "proxy 0: missing type"],
    [{ listeners: [{ type: "carrier-pigeon" }] }, "proxy 0: unsupport proxy type: carrier-pigeon"],
    [
      { listeners: [{ type: "mixed", listen: "*", port: 1 }] },
      `proxy 0: ParseAddr("*"): unable to parse IP`,
    ],
  ])("refuses %j", (doc, message) => {
    expect(() => buildConfig(doc, { homeDir: home })).toThrow(message);
  });

  it("admits by the source address, the deny list first, each prefix matching its own family", () => {
    const g = {
      lanAllowedIPs: ["192.168.1.0/24", "::1/128"],
      lanDisallowedIPs: ["192.168.1.9/32"],
    };
    expect(remoteAllowed(g, "192.168.1.20")).toBe(true);
    expect(remoteAllowed(g, "::ffff:192.168.1.20")).toBe(true);
    expect(remoteAllowed(g, "192.168.1.9")).toBe(false);
    expect(remoteAllowed(g, "10.0.0.1")).toBe(false);
    expect(remoteAllowed(g, "::1")).toBe(true);
    expect(remoteAllowed(g, "127.0.0.1")).toBe(false);
    expect(remoteAllowed({ lanAllowedIPs: ["::/0"], lanDisallowedIPs: [] }, "1.2.3.4")).toBe(false);
    expect(remoteAllowed(g, undefined)).toBe(false);
  });

  it.skipIf(!onLinux)(
    "serves the production configuration on loopback and the LAN address, nowhere else",
    async () => {
      const mixedPort = await freePort();
      const settings: Settings = {
        ...DEFAULT_SETTINGS,
        mixedPort,
        dnsPort: await freePort(),
        lanIP: "127.0.0.2",
        lanCIDR: "10.9.0.0/16",
      };
      const compiled = compileConfig(
        { settings, subscriptions: [], rules: [] },
        { controllerPort: 0, secret: SECRET },
      );
      const config = parse(compiled.yaml) as Record<string, unknown>;
      // Geodata downloads are off in the compiled configuration: the files must be there.
      for (const name of ["geoip.metadb", "geosite.dat"])
        copyFileSync(join(FIXTURE_GEODATA_DIR, name), join(home, name));
      await start({ ...config, "external-controller": "127.0.0.1:0" });
      expect(listeners?.ports()).toEqual({
        "DEFAULT-MIXED": mixedPort,
        "gatehouse-lan": mixedPort,
      });
      expect(logs.join("\n")).toContain(
        `Mixed(http+socks)[gatehouse-lan] proxy listening at: 127.0.0.2:${mixedPort}`,
      );
      expect(await tunnel("127.0.0.1", mixedPort)).toBe("open");
      expect(await tunnel("127.0.0.2", mixedPort)).toBe("open");
      // Bound to every address, the port would answer here too.
      expect(await tunnel("127.0.0.3", mixedPort)).toBe("refused");
      const configs = await fetch(`http://127.0.0.1:${sim?.port}/configs`, {
        headers: { Authorization: `Bearer ${SECRET}` },
      }).then((r) => r.json() as Promise<Record<string, unknown>>);
      expect(configs).toMatchObject({
        "allow-lan": false,
        "bind-address": "127.0.0.1",
        "lan-allowed-ips": ["10.9.0.0/16", "127.0.0.0/8", "::1/128"],
      });
    },
  );

  it.skipIf(!onLinux)(
    "closes connections from outside lan-allowed-ips, except on listeners with their own users",
    async () => {
      const [main, filtered, ownUsers] = [await freePort(), await freePort(), await freePort()];
      await start({
        ...DIRECT_ONLY,
        "mixed-port": main,
        "lan-allowed-ips": ["127.0.0.4/32"],
        listeners: [
          { name: "filtered", type: "mixed", listen: "127.0.0.1", port: filtered },
          { name: "users", type: "mixed", listen: "127.0.0.1", port: ownUsers, users: [] },
        ],
      });
      expect(await tunnel("127.0.0.1", main, "127.0.0.3")).toBe("closed");
      expect(await tunnel("127.0.0.1", filtered, "127.0.0.3")).toBe("closed");
      expect(await tunnel("127.0.0.1", ownUsers, "127.0.0.3")).toBe("open");
      expect(await tunnel("127.0.0.1", main, "127.0.0.4")).toBe("open");
      // The lists in force when a connection arrives decide, as mihomo's globals do.
      const patched = await fetch(`http://127.0.0.1:${sim?.port}/configs`, {
        method: "PATCH",
        headers: { Authorization: `Bearer ${SECRET}` },
        body: JSON.stringify({
          "lan-allowed-ips": ["127.0.0.0/8"],
          "lan-disallowed-ips": ["127.0.0.4/32"],
        }),
      });
      expect(patched.status).toBe(204);
      expect(await tunnel("127.0.0.1", main, "127.0.0.3")).toBe("open");
      expect(await tunnel("127.0.0.1", main, "127.0.0.4")).toBe("closed");
      const bad = await fetch(`http://127.0.0.1:${sim?.port}/configs`, {
        method: "PATCH",
        headers: { Authorization: `Bearer ${SECRET}` },
        body: JSON.stringify({ "lan-allowed-ips": ["everyone"] }),
      });
      expect(bad.status).toBe(400);
    },
  );

  it("patches listeners: entries on every load; the mixed port and filter wait for force", async () => {
    const [main, first, second] = [await freePort(), await freePort(), await freePort()];
    const entry = (port: number) => [{ name: "extra", type: "mixed", listen: "127.0.0.1", port }];
    await start({ ...DIRECT_ONLY, "mixed-port": main, listeners: entry(first) });
    expect(listeners?.ports()).toEqual({ "DEFAULT-MIXED": main, extra: first });
    const next = {
      ...DIRECT_ONLY,
      "external-controller": "127.0.0.1:0",
      "mixed-port": await freePort(),
      "lan-allowed-ips": ["10.0.0.0/8"],
      listeners: entry(second),
    };
    sim?.reload({ payload: stringify(next) }, false);
    await waitFor(() => listeners?.ports().extra === second, 5000, "the patched listener");
    expect(listeners?.ports()["DEFAULT-MIXED"]).toBe(main);
    expect(sim?.state.general.lanAllowedIPs).toEqual(["0.0.0.0/0", "::/0"]);
    expect(await tunnel("127.0.0.1", first)).toBe("refused");
    expect(await tunnel("127.0.0.1", second)).toBe("open");
    sim?.reload({ payload: stringify(next) }, true);
    await waitFor(
      () => listeners?.ports()["DEFAULT-MIXED"] === next["mixed-port"],
      5000,
      "the forced mixed port",
    );
    expect(sim?.state.general.lanAllowedIPs).toEqual(["10.0.0.0/8"]);
    expect(await tunnel("127.0.0.1", next["mixed-port"])).toBe("closed");
  });
});
